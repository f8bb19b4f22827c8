// The terminal timeline: one line per notable fact, violations highlighted, times in virtual seconds.
//   `   1.520s node-a  pod web  containerStarted app`
// Colour comes from a Chalk instance built from the caller's choice (never from the environment here),
// so the output is a pure function of its input.
import { Chalk, type ChalkInstance } from 'chalk';
import type { ContainerStatus } from '../api/v1.js';
import { escapeControl } from '../controlText.js';
import type { Fact } from '../facts.js';
import { isFinding, type Violation } from '../invariants/types.js';
import type { RunResult } from '../run/run.js';
import { hazardMark, hazardText } from './hazardMark.js';
import { formatSeconds } from './timelineModel.js';

export interface TimelineOptions {
  readonly color: boolean;
  /** At most this many event lines (the window around the first violation); all when absent. */
  readonly limit?: number | undefined;
}

export interface FactLine {
  /** `pod web`, `volume data`, `kubelet`, ... ('' when nothing more specific than the node). */
  readonly subject: string;
  /** The fact kind and its details: `containerStarted app`. */
  readonly text: string;
}

function podSubject(f: { pod: string; uid: string }): string {
  return `pod ${f.pod}`;
}

/** `app=terminated(1)`, `app=running`. */
function containerState(c: ContainerStatus): string {
  return `${c.name}=${c.state}${c.state === 'terminated' ? `(${c.exitCode ?? 0})` : ''}`;
}

/**
 * One fact as a subject and a text, the way the timeline prints it; text that came from the scenario (a
 * containerStart error) has its control characters escaped.
 */
export function describeFact(f: Fact): FactLine {
  const d = describeFactRaw(f);
  // A newline in an error string would forge a timeline line of its own.
  return { subject: escapeControl(d.subject), text: escapeControl(d.text).replaceAll('\n', '\\n') };
}

function describeFactRaw(f: Fact): FactLine {
  switch (f.kind) {
    case 'sandboxCreated':
      return { subject: podSubject(f), text: `sandboxCreated (uid ${f.uid})` };
    case 'sandboxStopped':
      return { subject: podSubject(f), text: `sandboxStopped (uid ${f.uid})` };
    case 'containerCreated':
    case 'containerRemoved':
    case 'preStopHookStarted':
      return { subject: podSubject(f), text: `${f.kind} ${f.container}` };
    case 'podVolumeLookupFailed':
      return { subject: podSubject(f), text: `${f.kind} ${f.volume}` };
    case 'containerStarted':
      return {
        subject: podSubject(f),
        text:
          `containerStarted ${f.container}` +
          (f.staticFullname !== undefined ? ` (static ${f.staticFullname})` : ''),
      };
    case 'containerExited':
      return { subject: podSubject(f), text: `containerExited ${f.container} exit=${f.exitCode}` };
    case 'containerStartFailed':
      return { subject: podSubject(f), text: `containerStartFailed ${f.container}: ${f.error}` };
    case 'killPodStarted':
      return {
        subject: podSubject(f),
        text: `killPodStarted grace=${f.gracePeriodSeconds}s source=${f.source}`,
      };
    case 'killPodFinished':
      return { subject: podSubject(f), text: 'killPodFinished' };
    case 'unmountWaitIgnoredUncertain':
      return {
        subject: podSubject(f),
        text: `WaitForUnmount done with uncertain mounts ${f.volumes.join(', ')}`,
      };
    case 'podVolumesExistMissedBlockMap':
      return {
        subject: podSubject(f),
        text: `podVolumesExist false with Block volume ${f.volume} still linked`,
      };
    case 'terminatedPodVolumeKeptDesired':
      return {
        subject: podSubject(f),
        text: f.kept
          ? `desired state keeps ${f.volume} of the terminated pod (never mounted in the actual state)`
          : `desired state drops ${f.volume} of the terminated pod`,
      };
    case 'podCgroupDestroyed':
      return { subject: podSubject(f), text: 'podCgroupDestroyed' };
    case 'podKillDispatched':
      return { subject: podSubject(f), text: 'podKillDispatched' };
    case 'podTerminated':
      return { subject: podSubject(f), text: `podTerminated (${f.reason})` };
    case 'podWorkerPhase':
      return { subject: podSubject(f), text: `podWorkerPhase ${f.phase}` };
    case 'podTerminationRequested':
      return { subject: podSubject(f), text: `podTerminationRequested (${f.reason})` };
    case 'podAdmitted':
      return { subject: podSubject(f), text: 'podAdmitted' };
    case 'podRejected':
      return { subject: podSubject(f), text: `podRejected ${f.reason}: ${f.message}` };
    case 'rejectedPodCountedActive':
      return {
        subject: podSubject(f),
        text: `rejectedPodCountedActive ${f.countedPod} (rejected, yet counted as terminating)`,
      };
    case 'rejectedPodKilledAsOrphan':
      return {
        subject: podSubject(f),
        text: 'rejectedPodKilledAsOrphan (rejected at admission, killed with 1 s)',
      };
    case 'kubeletStarted':
    case 'kubeletStopped':
    case 'nodeShutdownStarted':
      return { subject: 'kubelet', text: f.kind };
    case 'kubeletPanic':
      return { subject: 'kubelet', text: `kubeletPanic in ${f.component}: ${f.message}` };
    case 'apiPodCreated':
      return {
        subject: podSubject(f),
        text: `apiPodCreated uid=${f.uid}${f.static ? ' static' : ''} restartPolicy=${f.restartPolicy}`,
      };
    case 'apiPodDeletionRequested':
      return { subject: podSubject(f), text: `apiPodDeletionRequested grace=${f.gracePeriodSeconds}s` };
    case 'podDeletionDelivered':
      return { subject: podSubject(f), text: `podDeletionDelivered grace=${f.gracePeriodSeconds}s` };
    case 'apiPvcDeletionRequested':
      return {
        subject: `volume ${f.volume}`,
        text: `apiPvcDeletionRequested finalizers=[${f.finalizers.join(',')}]`,
      };
    case 'apiPvcFinalizerRemoved':
    case 'apiPvcDeleted':
      return { subject: `volume ${f.volume}`, text: f.kind };
    case 'podEvictionRequested':
      return { subject: podSubject(f), text: `podEvictionRequested grace=${f.gracePeriodSeconds}s` };
    case 'containerStopping':
      return {
        subject: podSubject(f),
        text: `containerStopping ${f.container} (SIGTERM, SIGKILL in ${f.gracePeriodSeconds}s)`,
      };
    case 'apiPodDeleted':
      return { subject: podSubject(f), text: `apiPodDeleted by ${f.by}` };
    case 'mirrorPod':
      return {
        subject: podSubject(f),
        text: `mirrorPod ${f.op} uid=${f.uid} (of static uid ${f.staticUid})`,
      };
    case 'apiPodPhase':
      return {
        subject: podSubject(f),
        text: `apiPodPhase ${f.phase}` + (f.reason !== undefined ? ` (${f.reason})` : ''),
      };
    case 'apiContainerStates':
      return {
        subject: podSubject(f),
        text: `apiContainerStates ${f.containers.length === 0 ? '(none)' : f.containers.map(containerState).join(' ')}`,
      };
    case 'nodeVolumesInUse':
      return { subject: 'kubelet', text: `nodeVolumesInUse [${f.volumes.join(', ')}]` };
    case 'nodeVolumesAttached':
      return { subject: 'attach/detach', text: `nodeVolumesAttached [${f.volumes.join(', ')}]` };
    case 'nodeStatusRead':
      return { subject: 'attach/detach', text: `nodeStatusRead volumesInUse [${f.volumesInUse.join(', ')}]` };
    case 'volumeSetUp':
      return { subject: podSubject(f), text: `volumeSetUp ${f.volume}` };
    case 'volumeTearDown':
      return { subject: podSubject(f), text: `volumeTearDown ${f.volume}${f.ok ? '' : ' FAILED'}` };
    case 'mountDevice':
    case 'unmountDevice':
      return { subject: `volume ${f.volume}`, text: `${f.kind}${f.ok ? '' : ' FAILED'}` };
    case 'bindMountOfUnmountedGlobalPath':
      return { subject: podSubject(f), text: `bindMountOfUnmountedGlobalPath ${f.volume}` };
    case 'bindMountOfFencedGlobalPath':
      return {
        subject: podSubject(f),
        text: `bindMountOfFencedGlobalPath ${f.volume} (mounted ${formatSeconds(f.mountedAtMs)}, fenced ${formatSeconds(f.fencedAtMs)})`,
      };
    case 'forceDetachUnhealthyNode':
      return { subject: `volume ${f.volume}`, text: 'forceDetachUnhealthyNode' };
    case 'nodePartitioned':
      return { subject: `node ${f.node}`, text: `nodePartitioned until ${formatSeconds(f.untilMs)}` };
    case 'nodePartitionHealed':
      return { subject: `node ${f.node}`, text: 'nodePartitionHealed' };
    case 'nodeTainted':
      return {
        subject: `node ${f.node}`,
        text: `nodeTainted ${f.taint}:${f.effect}${f.present ? '' : ' removed'}`,
      };
    case 'hostDevices':
      return {
        subject: `volume ${f.volume}`,
        text: `hostDevices scsiPaths=${f.scsiPaths} multipathMaps=${f.multipathMaps}`,
      };
    case 'hostMount':
      return {
        subject: `volume ${f.volume}`,
        text:
          `hostMount ${f.mounted ? 'mounted' : 'unmounted'} ${f.scope}${f.pod === undefined ? '' : ` of pod ${f.pod}`}` +
          ` ${f.path}`,
      };
    case 'lunAccessOpened':
      return {
        subject: `volume ${f.volume}`,
        text: `lunAccessOpened ${f.readWrite ? 'read-write' : 'read-only'}`,
      };
    case 'lunAccessClosed':
      return { subject: `volume ${f.volume}`, text: 'lunAccessClosed' };
    case 'lunFenced':
      return { subject: `volume ${f.volume}`, text: f.fenced ? 'lunFenced' : 'lunUnfenced' };
    case 'deviceResidue':
      return {
        subject: `volume ${f.volume}`,
        text: `deviceResidue scsiPaths=${f.scsiPaths} multipathMaps=${f.multipathMaps}`,
      };
    case 'deviceInUseAfterUnmount':
      return { subject: `volume ${f.volume}`, text: 'deviceInUseAfterUnmount (isDeviceOpened: retry)' };
    case 'mountStacked':
      return {
        subject: `volume ${f.volume}`,
        text: `mountStacked ${f.device} on ${f.path} (already a mount point)`,
      };
    case 'fcDetachRetryExhausted':
      return {
        subject: `volume ${f.volume}`,
        text: `fcDetachRetryExhausted ${f.device} (2 min of DetachDisk; the next UnmountDevice skips it)`,
      };
    case 'volumeAttached':
      return { subject: `volume ${f.volume}`, text: 'volumeAttached' };
    case 'volumeDetached':
      return { subject: `volume ${f.volume}`, text: `volumeDetached${f.forced ? ' (forced)' : ''}` };
    case 'podFinishedOnFirstSight':
      return {
        subject: podSubject(f),
        text: 'podFinishedOnFirstSight (terminal when first seen: no SyncTerminatedPod)',
      };
    case 'staticPodStartedBesideOrphan':
      return {
        subject: podSubject(f),
        text: `staticPodStartedBesideOrphan (orphan uid ${f.orphanUid} still runs)`,
      };
    case 'podRemoveDropped':
      return { subject: podSubject(f), text: "podRemoveDropped (sources aren't ready yet)" };
    case 'gracePeriodFellBack':
      return {
        subject: podSubject(f),
        text: `gracePeriodFellBack ${f.fromSeconds}s -> ${f.toSeconds}s (a ${f.cause} of 0 becomes the spec's grace)`,
      };
    case 'multipathFlushFailed':
      return {
        subject: `volume ${f.volume}`,
        text: `multipathFlushFailed ${f.device} (map in use)${f.fellThrough ? ', fell through' : ''}`,
      };
    case 'iscsiLogout':
      return {
        subject: `volume ${f.volume}`,
        text: `iscsiLogout${f.block ? ' (Block: no flush, no device deleted first)' : ''}`,
      };
    case 'deviceReleased':
      return {
        subject: `volume ${f.volume}`,
        text:
          `deviceReleased ${f.action}${f.device === '' ? '' : ` ${f.device}`}` +
          (f.holders > 0
            ? ` WHILE OPEN (mounts=${f.mounts} containers=${f.pods.length}${f.hostProcess ? ' host process' : ''})`
            : ''),
      };
    case 'iscsiLogoutSkipped':
      return {
        subject: `volume ${f.volume}`,
        text: `iscsiLogoutSkipped (session busy${f.block ? ', Block: no device deleted' : ''})`,
      };
    case 'reconstructionStarted':
      return { subject: 'volumes', text: `reconstructionStarted (${f.volumeDirs} volume dirs on disk)` };
    case 'volumeReconstruction':
      return {
        subject: podSubject(f),
        text:
          `volumeReconstruction ${f.volume} (${f.mode}) ${f.ok ? 'ok' : 'FAILED'} -> ${f.outcome}` +
          (f.error !== undefined ? `: ${f.error}` : ''),
      };
    case 'reconstructionFinished': {
      const parts = ['reconstructionFinished'];
      if (f.unreconstructedDevices.length > 0)
        parts.push(`still mounted but in no state: ${f.unreconstructedDevices.join(', ')}`);
      if (f.unreconstructedPodMaps.length > 0) {
        const maps = f.unreconstructedPodMaps.map((m) => `${m.volume} of ${m.uid}`).join(', ');
        parts.push(`pod map references no pod dir names: ${maps}`);
      }
      return { subject: 'volumes', text: parts.join('; ') };
    }
    case 'procMountsRead':
      return {
        subject: 'volumes',
        text: `procMountsRead ${f.consistent ? 'consistent' : 'INCONSISTENT'} after ${f.attempts} attempt(s) (${f.purpose})`,
      };
    case 'multiAttachError':
      return {
        subject: `volume ${f.volume}`,
        text: `multiAttachError: attached to ${f.attachedTo.join(', ') || '(none)'}`,
      };
    case 'volumeAttachUncertain':
      return { subject: `volume ${f.volume}`, text: `volumeAttachUncertain: ${f.error}` };
    case 'volumeDetachStarted':
      return {
        subject: `volume ${f.volume}`,
        text: `volumeDetachStarted${f.forced ? ' (forced)' : ''}${f.verifySafeToDetach ? '' : ' without safe-to-detach check'}${f.outOfService === true ? ' (out-of-service taint)' : ''}`,
      };
    case 'volumeDetachFailed':
      return { subject: `volume ${f.volume}`, text: `volumeDetachFailed: ${f.error}` };
    case 'actionNoop': {
      const what = f.fault === undefined ? f.action : `fault ${f.fault}`;
      const at = f.line > 0 ? ` (line ${f.line})` : '';
      const on =
        f.pod !== undefined ? `pod ${f.pod}` : f.volume !== undefined ? `volume ${f.volume}` : 'scenario';
      return { subject: on, text: `actionNoop ${what}${at}: ${f.reason}` };
    }
    case 'podCreateWaiting':
      return {
        subject: `pod ${f.pod}`,
        text: `podCreateWaiting${f.line > 0 ? ` (line ${f.line})` : ''}: ${f.reason}`,
      };
    case 'faultInjected': {
      const on = [
        f.pod !== undefined ? `pod ${f.pod}` : '',
        f.volume !== undefined ? `volume ${f.volume}` : '',
      ]
        .filter((s) => s !== '')
        .join(' ');
      const detail = [
        f.delayMs !== undefined && f.delayMs > 0 ? `delay=${f.delayMs}ms` : '',
        f.error !== undefined ? `error=${f.error}` : '',
      ]
        .filter((s) => s !== '')
        .join(' ');
      return {
        subject: on === '' ? 'fault' : on,
        text: `faultInjected ${f.fault}${detail === '' ? '' : ` ${detail}`}`,
      };
    }
  }
}

/**
 * The facts worth a line: everything except repeats that carry no news (a legacy pod worker's sync of
 * every iteration, a node status update with unchanged volumesInUse).
 */
export function notableFacts(facts: readonly Fact[]): Fact[] {
  const out: Fact[] = [];
  const phase = new Map<string, string>();
  const inUse = new Map<string, string>();
  /** Nodes whose reconstruction found no volume dir: its start and an empty finish are no news. */
  const emptyReconstruction = new Set<string>();
  for (const f of facts) {
    if (f.kind === 'podWorkerPhase') {
      const key = `${f.node}\u0000${f.uid}`;
      if (phase.get(key) === f.phase) continue;
      phase.set(key, f.phase);
    } else if (f.kind === 'nodeVolumesInUse') {
      const value = f.volumes.join('\u0000');
      if (inUse.get(f.node) === value) continue;
      inUse.set(f.node, value);
    } else if (f.kind === 'reconstructionStarted' && f.volumeDirs === 0) {
      emptyReconstruction.add(f.node);
      continue;
    } else if (f.kind === 'reconstructionFinished' && emptyReconstruction.delete(f.node)) {
      if (f.unreconstructedDevices.length === 0 && f.unreconstructedPodMaps.length === 0) continue;
    } else if (f.kind === 'hostMount' || f.kind === 'hostDevices') {
      continue; // the mount table behind the kubelet's operations: --events and the HTML page show it
    } else if (f.kind === 'procMountsRead' && f.consistent && f.attempts === 1) {
      continue; // an ordinary read; the ones that met inconsistency are the news
    } else if (f.kind === 'kubeletStopped') {
      for (const k of [...phase.keys()]) if (k.startsWith(`${f.node}\u0000`)) phase.delete(k);
    }
    out.push(f);
  }
  return out;
}

function chalkFor(color: boolean): ChalkInstance {
  return new Chalk({ level: color ? 1 : 0 });
}

/**
 * `VIOLATION <id> at 1.520s node-a pod web (uid web-1) volume data: <message>`; one tied to a known-open
 * upstream hazard says so right after its invariant: `VIOLATION <id> [known-open hazard <hazard>,
 * kubernetes/kubernetes#N] at ...`.
 */
export function formatViolation(v: Violation, color: boolean): string {
  const c = chalkFor(color);
  const where: string[] = [`at ${formatSeconds(v.atMs)}`];
  if (v.node !== null) where.push(v.node);
  if (v.pod !== null) where.push(v.uid !== null ? `pod ${v.pod} (uid ${v.uid})` : `pod ${v.pod}`);
  else if (v.uid !== null) where.push(`uid ${v.uid}`);
  if (v.volume !== null) where.push(`volume ${v.volume}`);
  const label = isFinding(v.invariant)
    ? c.cyan.bold(`FINDING ${v.invariant}`)
    : c.red.bold(`VIOLATION ${v.invariant}`);
  const mark = hazardMark(v.knownOpen);
  const hazard = mark === undefined ? '' : ` ${c.yellow(`[${hazardText(mark)}]`)}`;
  return `${label}${hazard} ${escapeControl(`${where.join(' ')}: ${v.message}`)}`;
}

type Entry =
  | { readonly kind: 'fact'; readonly atMs: number; readonly node: string; readonly line: FactLine }
  | { readonly kind: 'violation'; readonly atMs: number; readonly v: Violation };

/** The run's timeline for a terminal: facts and violations by time (a violation after the facts of its ms). */
export function formatTimeline(result: RunResult, opts: TimelineOptions): string[] {
  const c = chalkFor(opts.color);
  const facts = notableFacts(result.facts ?? []);
  const entries: Entry[] = facts.map((f) => ({
    kind: 'fact',
    atMs: f.atMs,
    node: f.node === '' ? 'cluster' : f.node,
    line: describeFact(f),
  }));
  // Merge violations in: stable, after every fact at or before their time.
  const violations = [...result.violations, ...result.findings].sort((a, b) => a.atMs - b.atMs);
  const merged: Entry[] = [];
  let vi = 0;
  for (const e of entries) {
    while (vi < violations.length && violations[vi]!.atMs < e.atMs) {
      merged.push({ kind: 'violation', atMs: violations[vi]!.atMs, v: violations[vi]! });
      vi++;
    }
    merged.push(e);
  }
  for (; vi < violations.length; vi++)
    merged.push({ kind: 'violation', atMs: violations[vi]!.atMs, v: violations[vi]! });

  let nodeWidth = 0;
  let subjectWidth = 0;
  for (const e of merged) {
    if (e.kind !== 'fact') continue;
    nodeWidth = Math.max(nodeWidth, e.node.length);
    subjectWidth = Math.max(subjectWidth, e.line.subject.length);
  }
  const render = (e: Entry): string => {
    const time = formatSeconds(e.atMs).padStart(9);
    if (e.kind === 'violation')
      return `${isFinding(e.v.invariant) ? c.cyan(time) : c.red(time)} ${formatViolation(e.v, opts.color)}`;
    const text =
      /FAILED|INCONSISTENT|Panic|bindMountOfUnmounted|faultInjected|in no state|actionNoop|podCreateWaiting/.test(
        e.line.text,
      )
        ? c.yellow(e.line.text)
        : e.line.text;
    return `${c.dim(time)} ${e.node.padEnd(nodeWidth)}  ${e.line.subject.padEnd(subjectWidth)}  ${text}`.trimEnd();
  };

  const limit = opts.limit;
  if (limit === undefined || merged.length <= limit) return merged.map(render);
  const n = Math.max(0, Math.floor(limit));
  const first = merged.findIndex((e) => e.kind === 'violation' && !isFinding(e.v.invariant));
  const anchor = first === -1 ? merged.length - 1 : first;
  let end = Math.min(merged.length, anchor + 1 + Math.floor(n / 4));
  const start = Math.max(0, end - n);
  end = Math.min(merged.length, start + n);
  const lines = merged.slice(start, end).map(render);
  if (start > 0) lines.unshift(c.dim(`      ... ${start} earlier line${start === 1 ? '' : 's'}`));
  const after = merged.length - end;
  if (after > 0) lines.push(c.dim(`      ... ${after} later line${after === 1 ? '' : 's'}`));
  return lines;
}
