// Turns the recognised events of one or more logs into a scenario (docs/import.md): the nodes that logged,
// the pods they ran, the volumes they mounted, the timeline in time relative to the first line, and the
// faults the failures imply. Every entry keeps the records it came from, for the written comments. Pure.

import type { ReleasePreset } from '../fixes.js';
import { InputError } from '../scenario/errors.js';
import { restartPolicyOf } from './containerExits.js';
import type { Hinted } from './hints.js';
import { type Entry, ImportState, PRELUDE_MS } from './importState.js';
import type { LogRecord } from './logLines.js';
import { readKubeletPid, readNodeEvent } from './nodeEvents.js';
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
    if (node !== null) readKubeletPid(s, node, r, seq);
    if (ev === null) {
      s.unused.push(r);
      return;
    }
    s.used++;
    const reading = { r, seq, t: s.rel(r), node };
    switch (ev.kind) {
      case 'podOp':
      case 'killContainer':
      case 'killContainerFailed':
      case 'containerFinished':
      case 'pleg':
      case 'evict':
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
  const last = records[records.length - 1];
  const endMs = last === undefined ? 0 : s.rel(last);
  for (const p of s.pods.values()) {
    const read = restartPolicyOf(p.exits, p.startsMs, p.goneAtMs ?? endMs);
    if (read === null) continue;
    p.restartPolicy = read.policy;
    s.createNotes.get(p)?.push(read.note);
  }
  return {
    entries: s.entries.sort((a, b) => a.atMs - b.atMs || a.seq - b.seq),
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
    lastAtMs: last === undefined ? 0 : s.rel(last),
  };
}
