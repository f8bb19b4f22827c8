// Turns the recognised events of one or more logs into a scenario (docs/import.md): the nodes that logged,
// the pods they ran, the volumes they mounted, the timeline in time relative to the first line, and the
// faults the failures imply. Every entry keeps the records it came from, for the written comments. Pure.

import type { ReleasePreset } from '../fixes.js';
import { InputError } from '../scenario/errors.js';
import { restartPolicyOf } from './containerExits.js';
import type { Hinted } from './hints.js';
import { durationText, IDLE_GAP_KEPT_MS, type IdleCut, SPAN_MAX_MS, TimeMap } from './idleGaps.js';
import { type Entry, ImportState, PRELUDE_MS } from './importState.js';
import type { LogRecord } from './logLines.js';
import { readKubeletRestart, readNodeEvent, readRelist } from './nodeEvents.js';
import { readPodEvent } from './podEvents.js';
import { firstSightIsNotAdd, isControllerEvent, type PodInstance } from './podInstance.js';
import { recognise } from './recognise.js';
import { readVolumeEvent } from './volumeEvents.js';
import type { VolumeTable } from './volumeTable.js';

export type { Entry, PodInstance };
export { PRELUDE_MS };

export interface Inferred {
  readonly entries: Entry[];
  readonly nodes: string[];
  /** Nodes whose log states a graceful shutdown configuration. */
  readonly nodeShutdown: Record<string, { periodS: number; criticalS: number; record: LogRecord }>;
  readonly volumes: VolumeTable;
  readonly release: Hinted<ReleasePreset> | null;
  readonly releaseSource: LogRecord | null;
  readonly used: number;
  readonly unused: LogRecord[];
  /** Records that were read but lead to no entry (kept for the header comment). */
  readonly observed: { record: LogRecord; note: string }[];
  /** The virtual time of the first record: PRELUDE_MS when a pod ran before the log began, else 0. */
  readonly firstAtMs: number;
  /** Idle stretches cut from a log longer than a day (idleGaps.ts); empty when it fits. */
  readonly cuts: readonly IdleCut[];
  /** Entries still past the day after the cuts: left out of the scenario. */
  readonly beyond: readonly Entry[];
  readonly lastAtMs: number;
}

export function inferScenario(records: readonly LogRecord[]): Inferred {
  const events = records.map((r) => recognise(r.text));
  const needsPrelude = records.some((r, i) => firstSightIsNotAdd(events[i] ?? null, r, events, records));
  const s = new ImportState(records, events, needsPrelude ? PRELUDE_MS : 0);

  records.forEach((r, seq) => {
    const ev = events[seq] ?? null;
    const isCm = ev !== null && isControllerEvent(ev);
    const node = isCm || r.component === 'controller-manager' ? null : s.nodeOf(r);
    if (node !== null) readKubeletRestart(s, node, r, seq, ev?.kind === 'kubeletStart');
    if (ev === null) {
      s.unused.push(r);
      return;
    }
    s.used++;
    const reading = { r, seq, t: s.rel(r), node };
    if (node !== null) readRelist(s, node, ev, reading);
    switch (ev.kind) {
      case 'podOp':
      case 'killContainer':
      case 'killContainerFailed':
      case 'containerFinished':
      case 'pleg':
      case 'evict':
      case 'preStopHook':
        readPodEvent(s, ev, reading);
        break;
      case 'shutdownConfig':
      case 'shutdown':
      case 'kubeletStart':
        readNodeEvent(s, ev, reading);
        break;
      case 'volumeOp':
      case 'reconstructFailed':
      case 'inconsistentMounts':
      case 'mapInUse':
      case 'deviceStillOpen':
      case 'orphanVolumePaths':
      case 'pvcLookupFailed':
      case 'multiAttach':
      case 'forceDetach':
        readVolumeEvent(s, ev, reading);
        break;
    }
  });

  if (s.used === 0) {
    const files = [...new Set(records.map((r) => r.file))];
    throw new InputError(
      `${files.join(', ') || 'the input'}: no kubelet or kube-controller-manager message podrace reads (${records.length} log lines with a header)`,
      { located: true },
    );
  }
  s.claimVolumes();
  const last = records[records.length - 1];
  const endMs = last === undefined ? 0 : s.rel(last);
  s.pvcLookupsAtEnd(endMs);
  for (const p of s.pods.values()) {
    const read = restartPolicyOf(p.exits, p.startsMs, p.goneAtMs ?? endMs);
    if (read === null) continue;
    p.restartPolicy = read.policy;
    s.createNotes.get(p)?.push(read.note);
  }
  const sorted = s.entries.sort((a, b) => a.atMs - b.atMs || a.seq - b.seq);
  const fitted = fitInADay(s, sorted, endMs);
  return {
    entries: fitted.entries,
    cuts: s.timeMap.cuts,
    beyond: fitted.beyond,
    nodes: [...s.nodes.keys()],
    nodeShutdown: Object.fromEntries(
      [...s.nodes.values()].flatMap((n) =>
        n.shutdownConfig === null ? [] : [[n.name, n.shutdownConfig] as const],
      ),
    ),
    volumes: s.volumes,
    release: s.release,
    releaseSource: s.releaseSource,
    used: s.used,
    unused: s.unused,
    observed: s.observed,
    firstAtMs: s.offset,
    lastAtMs: Math.min(SPAN_MAX_MS, s.timeMap.map(endMs)),
  };
}

/**
 * A log longer than a day, made to fit (idleGaps.ts): its idle stretches cut (the entry after each says
 * so), then the entries still past SPAN_MAX_MS left out (the import's header says from where).
 */
function fitInADay(
  s: ImportState,
  sorted: readonly Entry[],
  endMs: number,
): { entries: Entry[]; beyond: Entry[] } {
  s.timeMap = TimeMap.of([...sorted.map((e) => e.atMs), endMs]);
  for (const e of sorted) e.atMs = s.timeMap.map(e.atMs);
  for (const cut of s.timeMap.cuts) {
    const after = sorted.find((e) => e.atMs >= cut.atMs);
    after?.notes.push(
      `the log has nothing to replay for ${durationText(cut.removedMs + IDLE_GAP_KEPT_MS)} before this: cut to ${durationText(IDLE_GAP_KEPT_MS)}, so that the scenario fits in a day`,
    );
  }
  return {
    entries: sorted.filter((e) => e.atMs <= SPAN_MAX_MS),
    beyond: sorted.filter((e) => e.atMs > SPAN_MAX_MS),
  };
}
