// The shared timeline model behind the Chrome trace, the HTML page and (partly) the terminal timeline:
// tracks per node and component, spans (things with a duration) and instants (things that happen),
// all derived from a run's ordered fact list and its violations. Pure and deterministic: every output
// array is sorted with explicit keys, never left in Map insertion order by accident.
import type { Fact } from '../facts.js';
import type { Violation } from '../invariants/types.js';
import type { RunResult } from '../scenario/run.js';
import { codeUnitOrder } from '../sim/order.js';

/** The process name of cluster-wide components (API server, attach/detach controller, violations). */
export const CLUSTER_PROCESS = 'cluster';

export type TrackGroup =
  | 'kubelet'
  | 'faults'
  | 'actions'
  | 'podWorker'
  | 'kill'
  | 'container'
  | 'volume'
  | 'device'
  | 'lun'
  | 'violations'
  | 'api'
  | 'adc';

export type ArgValue = string | number | boolean | null;
export type Args = Readonly<Record<string, ArgValue>>;

export interface TimelineProcess {
  /** A node name, or CLUSTER_PROCESS. */
  readonly name: string;
  readonly label: string;
  /** 1-based, in display order: the cluster first, then the nodes sorted by name. */
  readonly pid: number;
}

export interface Track {
  /** Unique among the timeline's tracks. */
  readonly id: string;
  /** The owning process's name (a node or CLUSTER_PROCESS). */
  readonly process: string;
  readonly pid: number;
  /** 1-based, unique across the whole timeline (not only its process), in display order. */
  readonly tid: number;
  readonly group: TrackGroup;
  readonly label: string;
}

export interface Span {
  readonly track: string;
  readonly name: string;
  readonly cat: TrackGroup;
  readonly startMs: number;
  readonly endMs: number;
  /** Still running when the run ended (closed at the end time). */
  readonly open: boolean;
  readonly args: Args;
}

export type InstantKind = 'event' | 'fault' | 'error' | 'violation';

export interface Instant {
  readonly track: string;
  readonly name: string;
  readonly kind: InstantKind;
  readonly atMs: number;
  /** 'global' only for the copy of each violation on the cluster's violations track. */
  readonly scope: 'thread' | 'global';
  readonly args: Args;
}

export interface Timeline {
  /** The run's end: spans still open close here. */
  readonly endMs: number;
  readonly processes: readonly TimelineProcess[];
  /** Sorted by (pid, tid). */
  readonly tracks: readonly Track[];
  /** Sorted by (pid, tid, start, longest first). Spans on one track nest or are disjoint. */
  readonly spans: readonly Span[];
  /** Sorted by (time, pid, tid, fact order). */
  readonly instants: readonly Instant[];
}

/** What buildTimeline reads from a run. */
export type TimelineInput = Pick<RunResult, 'facts' | 'violations' | 'virtualTimeMs'>;

// ---------------------------------------------------------------------------------------------------
// Comparison helpers (code-unit order, independent of the locale).

function cmpKey(a: readonly (string | number)[], b: readonly (string | number)[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i]!;
    const y = b[i]!;
    const c = typeof x === 'number' && typeof y === 'number' ? x - y : codeUnitOrder(String(x), String(y));
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

/** Virtual milliseconds as seconds with three decimals: `1.520s`. */
export function formatSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(3)}s`;
}

// ---------------------------------------------------------------------------------------------------
// Base tracks: a component's track before overlapping spans are spread over lanes.

interface BaseTrack {
  readonly key: string;
  readonly process: string;
  readonly group: TrackGroup;
  readonly label: string;
  /** Display order within the process. */
  readonly sort: readonly (string | number)[];
}

const GROUP_RANK: Record<TrackGroup, number> = {
  violations: 0,
  api: 1,
  adc: 2,
  kubelet: 0,
  faults: 1,
  actions: 2,
  podWorker: 0,
  kill: 1,
  container: 2,
  volume: 3,
  device: 0,
  lun: 1,
};

/** Node sections: kubelet, faults, pods (by name, uid), storage (by volume). */
function baseTrack(
  process: string,
  group: TrackGroup,
  label: string,
  ident: { pod?: string; uid?: string; sub?: string; volume?: string },
): BaseTrack {
  const pod = ident.pod ?? '';
  const uid = ident.uid ?? '';
  const sub = ident.sub ?? '';
  const volume = ident.volume ?? '';
  let sort: (string | number)[];
  switch (group) {
    case 'kubelet':
    case 'faults':
    case 'actions':
      sort = [GROUP_RANK[group] ?? 0];
      break;
    case 'podWorker':
    case 'kill':
    case 'container':
    case 'volume':
      sort = [2, pod, uid, GROUP_RANK[group], sub];
      break;
    case 'device':
    case 'lun':
      sort = [3, volume, GROUP_RANK[group]];
      break;
    case 'violations':
      sort = [0];
      break;
    case 'api':
      sort = [1, pod, uid];
      break;
    case 'adc':
      sort = [2, volume, sub];
      break;
  }
  const key = JSON.stringify([process, group, uid, volume, sub]);
  return { key, process, group, label, sort };
}

function podLabel(pod: string, uid: string): string {
  return pod === uid || uid === '' ? `pod ${pod}` : `pod ${pod} (${uid})`;
}

const tracks = {
  kubelet: (node: string) => baseTrack(node, 'kubelet', 'kubelet', {}),
  faults: (node: string) => baseTrack(node, 'faults', 'faults', {}),
  /** Timeline entries that did nothing, and creates waiting for a name (scenario actions, not components). */
  actions: (node: string) => baseTrack(node, 'actions', 'scenario actions', {}),
  podWorker: (node: string, pod: string, uid: string) =>
    baseTrack(node, 'podWorker', `${podLabel(pod, uid)} worker`, { pod, uid }),
  kill: (node: string, pod: string, uid: string) =>
    baseTrack(node, 'kill', `${podLabel(pod, uid)} KillPod`, { pod, uid }),
  container: (node: string, pod: string, uid: string, container: string) =>
    baseTrack(node, 'container', `${podLabel(pod, uid)} container ${container}`, {
      pod,
      uid,
      sub: container,
    }),
  volume: (node: string, pod: string, uid: string, volume: string) =>
    baseTrack(node, 'volume', `${podLabel(pod, uid)} volume ${volume}`, { pod, uid, sub: volume }),
  device: (node: string, volume: string) =>
    baseTrack(node, 'device', `device ${volume} (global mount)`, { volume }),
  lun: (node: string, volume: string) => baseTrack(node, 'lun', `LUN ${volume} access`, { volume }),
  violations: () => baseTrack(CLUSTER_PROCESS, 'violations', 'violations', {}),
  api: (pod: string, uid: string) =>
    baseTrack(CLUSTER_PROCESS, 'api', `API server ${podLabel(pod, uid)}`, { pod, uid }),
  adc: (volume: string, node: string) =>
    baseTrack(CLUSTER_PROCESS, 'adc', `attach/detach ${volume} -> ${node}`, { volume, sub: node }),
};

// ---------------------------------------------------------------------------------------------------
// The builder.

interface RawSpan {
  readonly base: BaseTrack;
  readonly name: string;
  readonly startMs: number;
  endMs: number;
  open: boolean;
  args: Record<string, ArgValue>;
  readonly seq: number;
}

interface RawInstant {
  readonly base: BaseTrack;
  readonly name: string;
  readonly kind: InstantKind;
  readonly atMs: number;
  readonly scope: 'thread' | 'global';
  readonly args: Args;
  readonly seq: number;
}

class Builder {
  readonly bases = new Map<string, BaseTrack>();
  readonly spans: RawSpan[] = [];
  readonly instants: RawInstant[] = [];
  /** Open spans by pairing key, oldest first. */
  private readonly open = new Map<string, RawSpan[]>();
  private seq = 0;

  private use(base: BaseTrack): BaseTrack {
    const known = this.bases.get(base.key);
    if (known !== undefined) return known;
    this.bases.set(base.key, base);
    return base;
  }

  ensure(base: BaseTrack): void {
    this.use(base);
  }

  begin(
    pairKey: string,
    base: BaseTrack,
    name: string,
    atMs: number,
    args: Record<string, ArgValue> = {},
  ): RawSpan {
    const span: RawSpan = {
      base: this.use(base),
      name,
      startMs: atMs,
      endMs: atMs,
      open: true,
      args,
      seq: this.seq++,
    };
    this.spans.push(span);
    const list = this.open.get(pairKey);
    if (list === undefined) this.open.set(pairKey, [span]);
    else list.push(span);
    return span;
  }

  /** Closes the oldest open span of pairKey; undefined when none is open. */
  end(pairKey: string, atMs: number, args: Record<string, ArgValue> = {}): RawSpan | undefined {
    const list = this.open.get(pairKey);
    const span = list?.shift();
    if (span === undefined) return undefined;
    if (list !== undefined && list.length === 0) this.open.delete(pairKey);
    span.endMs = Math.max(span.startMs, atMs);
    span.open = false;
    Object.assign(span.args, args);
    return span;
  }

  /** The newest open span of pairKey, if any. */
  peek(pairKey: string): RawSpan | undefined {
    const list = this.open.get(pairKey);
    return list === undefined ? undefined : list[list.length - 1];
  }

  /** Closes every open span whose pairing key starts with prefix (a kubelet stopping ends its workers). */
  endAll(prefix: string, atMs: number, args: Record<string, ArgValue>): void {
    const keys = [...this.open.keys()].filter((k) => k.startsWith(prefix)).sort(codeUnitOrder);
    for (const k of keys) while (this.end(k, atMs, args) !== undefined) {}
  }

  /** Closes whatever is still open at the end of the run. */
  finish(endMs: number): void {
    for (const list of this.open.values()) {
      for (const span of list) span.endMs = Math.max(span.startMs, endMs);
    }
    this.open.clear();
  }

  instant(
    base: BaseTrack,
    name: string,
    kind: InstantKind,
    atMs: number,
    args: Args = {},
    scope: 'thread' | 'global' = 'thread',
  ): void {
    this.instants.push({ base: this.use(base), name, kind, atMs, scope, args, seq: this.seq++ });
  }
}

function pk(...parts: string[]): string {
  return JSON.stringify(parts);
}

/** The prefix of every pairing key of a node's kubelet-owned spans (pod workers, kills). */
function kubeletOwned(node: string): string {
  return `["kubelet-owned",${JSON.stringify(node)},`;
}

function onFact(b: Builder, f: Fact): void {
  const node = f.node === '' ? CLUSTER_PROCESS : f.node;
  const at = f.atMs;
  switch (f.kind) {
    // ---- runtime ----
    case 'sandboxCreated':
      b.instant(tracks.podWorker(node, f.pod, f.uid), 'sandbox created', 'event', at, {
        uid: f.uid,
        pod: f.pod,
      });
      return;
    case 'containerCreated':
      b.instant(tracks.container(node, f.pod, f.uid, f.container), 'created', 'event', at, {
        uid: f.uid,
        pod: f.pod,
        container: f.container,
      });
      return;
    case 'containerStarted': {
      const args: Record<string, ArgValue> = { uid: f.uid, pod: f.pod, container: f.container };
      if (f.staticFullname !== undefined) args['staticFullname'] = f.staticFullname;
      b.begin(
        pk('container', node, f.uid, f.container),
        tracks.container(node, f.pod, f.uid, f.container),
        f.container,
        at,
        args,
      );
      return;
    }
    case 'containerStartFailed':
      b.instant(tracks.container(node, f.pod, f.uid, f.container), 'start failed', 'error', at, {
        uid: f.uid,
        pod: f.pod,
        container: f.container,
        error: f.error,
      });
      return;
    case 'containerExited': {
      const closed = b.end(pk('container', node, f.uid, f.container), at, { exitCode: f.exitCode });
      if (closed === undefined) {
        b.instant(tracks.container(node, f.pod, f.uid, f.container), `exited (${f.exitCode})`, 'event', at, {
          uid: f.uid,
          pod: f.pod,
          container: f.container,
          exitCode: f.exitCode,
        });
      }
      return;
    }
    case 'containerRemoved':
      b.instant(tracks.container(node, f.pod, f.uid, f.container), 'removed', 'event', at, {
        uid: f.uid,
        pod: f.pod,
        container: f.container,
      });
      return;
    case 'killPodStarted':
      b.begin(
        `${kubeletOwned(node)}${JSON.stringify(['kill', f.uid])}]`,
        tracks.kill(node, f.pod, f.uid),
        'KillPod',
        at,
        { uid: f.uid, pod: f.pod, gracePeriodSeconds: f.gracePeriodSeconds, source: f.source },
      );
      return;
    case 'killPodFinished':
      if (b.end(`${kubeletOwned(node)}${JSON.stringify(['kill', f.uid])}]`, at) === undefined) {
        b.instant(tracks.kill(node, f.pod, f.uid), 'KillPod finished', 'event', at, {
          uid: f.uid,
          pod: f.pod,
        });
      }
      return;
    // ---- kubelet ----
    case 'podTerminated':
      b.instant(tracks.podWorker(node, f.pod, f.uid), 'treated as terminated', 'event', at, {
        uid: f.uid,
        pod: f.pod,
        reason: f.reason,
      });
      return;
    case 'podWorkerPhase': {
      const key = `${kubeletOwned(node)}${JSON.stringify(['worker', f.uid])}]`;
      const current = b.peek(key);
      if (current !== undefined && current.name === f.phase) return;
      b.end(key, at);
      if (f.phase === 'finished') {
        b.instant(tracks.podWorker(node, f.pod, f.uid), 'finished', 'event', at, { uid: f.uid, pod: f.pod });
        return;
      }
      b.begin(key, tracks.podWorker(node, f.pod, f.uid), f.phase, at, { uid: f.uid, pod: f.pod });
      return;
    }
    case 'podAdmitted':
      b.instant(tracks.podWorker(node, f.pod, f.uid), 'admitted', 'event', at, { uid: f.uid, pod: f.pod });
      return;
    case 'podTerminationRequested':
      b.instant(tracks.podWorker(node, f.pod, f.uid), 'termination requested', 'event', at, {
        uid: f.uid,
        pod: f.pod,
        reason: f.reason,
      });
      return;
    case 'kubeletStarted':
      b.begin(pk('kubelet', node), tracks.kubelet(node), 'kubelet up', at);
      return;
    case 'kubeletStopped':
      b.end(pk('kubelet', node), at);
      b.endAll(kubeletOwned(node), at, { interrupted: 'kubelet stopped' });
      b.instant(tracks.kubelet(node), 'kubelet stopped', 'event', at);
      return;
    case 'kubeletPanic':
      b.instant(tracks.kubelet(node), `panic in ${f.component}`, 'error', at, {
        component: f.component,
        message: f.message,
      });
      return;
    // ---- API server ----
    case 'apiPodCreated':
      b.begin(pk('api', f.uid), tracks.api(f.pod, f.uid), f.static ? 'static pod' : 'pod object', at, {
        uid: f.uid,
        pod: f.pod,
        node: f.node,
        static: f.static,
        restartPolicy: f.restartPolicy,
      });
      return;
    case 'apiPodDeletionRequested':
      b.instant(tracks.api(f.pod, f.uid), 'deletion requested', 'event', at, {
        uid: f.uid,
        pod: f.pod,
        node: f.node,
        gracePeriodSeconds: f.gracePeriodSeconds,
      });
      return;
    case 'apiPodDeleted':
      b.end(pk('api', f.uid), at, { deletedBy: f.by });
      b.instant(tracks.api(f.pod, f.uid), `deleted by ${f.by}`, 'event', at, {
        uid: f.uid,
        pod: f.pod,
        node: f.node,
        by: f.by,
      });
      return;
    case 'mirrorPod':
      // On the static pod's API track: the mirror pod is the API's view of it.
      b.instant(tracks.api(f.pod, f.staticUid), `mirror pod ${f.op}`, 'event', at, {
        uid: f.uid,
        pod: f.pod,
        node: f.node,
        staticUid: f.staticUid,
      });
      return;
    case 'apiPodPhase': {
      const args: Record<string, ArgValue> = {
        uid: f.uid,
        pod: f.pod,
        node: f.node,
        phase: f.phase,
        restartable: f.restartable,
      };
      if (f.reason !== undefined) args['reason'] = f.reason;
      b.instant(tracks.api(f.pod, f.uid), `phase ${f.phase}`, 'event', at, args);
      return;
    }
    case 'nodeShutdownStarted':
      b.instant(tracks.kubelet(node), 'node shutdown started', 'event', at);
      return;
    case 'nodeVolumesInUse':
      b.instant(tracks.kubelet(node), 'volumesInUse', 'event', at, { volumes: f.volumes.join(', ') });
      return;
    // ---- volumes ----
    case 'volumeSetUp':
      b.begin(pk('volume', node, f.uid, f.volume), tracks.volume(node, f.pod, f.uid, f.volume), 'SetUp', at, {
        uid: f.uid,
        pod: f.pod,
        volume: f.volume,
      });
      return;
    case 'volumeTearDown':
      if (f.ok && b.end(pk('volume', node, f.uid, f.volume), at) !== undefined) return;
      b.instant(
        tracks.volume(node, f.pod, f.uid, f.volume),
        f.ok ? 'TearDown' : 'TearDown failed',
        f.ok ? 'event' : 'error',
        at,
        { uid: f.uid, pod: f.pod, volume: f.volume, ok: f.ok },
      );
      return;
    case 'mountDevice':
      if (f.ok && b.peek(pk('device', node, f.volume)) === undefined) {
        b.begin(pk('device', node, f.volume), tracks.device(node, f.volume), 'MountDevice', at, {
          volume: f.volume,
        });
        return;
      }
      b.instant(
        tracks.device(node, f.volume),
        f.ok ? 'MountDevice' : 'MountDevice failed',
        f.ok ? 'event' : 'error',
        at,
        { volume: f.volume, ok: f.ok },
      );
      return;
    case 'unmountDevice':
      if (f.ok && b.end(pk('device', node, f.volume), at) !== undefined) return;
      b.instant(
        tracks.device(node, f.volume),
        f.ok ? 'UnmountDevice' : 'UnmountDevice failed',
        f.ok ? 'event' : 'error',
        at,
        { volume: f.volume, ok: f.ok },
      );
      return;
    case 'bindMountOfUnmountedGlobalPath':
      b.instant(
        tracks.volume(node, f.pod, f.uid, f.volume),
        'bind mount of unmounted global path',
        'error',
        at,
        {
          uid: f.uid,
          pod: f.pod,
          volume: f.volume,
        },
      );
      return;
    // ---- storage ----
    case 'lunAccessOpened':
      b.begin(
        pk('lun', node, f.volume),
        tracks.lun(node, f.volume),
        f.readWrite ? 'read-write' : 'read-only',
        at,
        {
          volume: f.volume,
          readWrite: f.readWrite,
        },
      );
      return;
    case 'lunAccessClosed':
      if (b.end(pk('lun', node, f.volume), at) === undefined) {
        b.instant(tracks.lun(node, f.volume), 'access closed', 'event', at, { volume: f.volume });
      }
      return;
    case 'lunFenced':
      b.instant(tracks.lun(node, f.volume), f.fenced ? 'fenced' : 'unfenced', 'event', at, {
        volume: f.volume,
        fenced: f.fenced,
      });
      return;
    case 'deviceResidue': {
      const leaked = f.scsiPaths > 0 || f.multipathMaps > 0;
      b.instant(
        tracks.device(node, f.volume),
        leaked ? 'device residue' : 'devices clean',
        leaked ? 'error' : 'event',
        at,
        {
          volume: f.volume,
          scsiPaths: f.scsiPaths,
          multipathMaps: f.multipathMaps,
        },
      );
      return;
    }
    case 'deviceInUseAfterUnmount':
      b.instant(tracks.device(node, f.volume), 'device in use after unmount', 'error', at, {
        volume: f.volume,
      });
      return;
    case 'fcDetachRetryExhausted':
      b.instant(tracks.device(node, f.volume), 'FC detach retry exhausted', 'error', at, {
        volume: f.volume,
        device: f.device,
      });
      return;
    // ---- attach/detach controller ----
    case 'volumeAttached':
      b.begin(pk('adc', f.volume, f.node), tracks.adc(f.volume, f.node), 'attached', at, {
        volume: f.volume,
        node: f.node,
      });
      return;
    case 'volumeDetached':
      if (b.end(pk('adc', f.volume, f.node), at, { forced: f.forced }) === undefined) {
        b.instant(tracks.adc(f.volume, f.node), f.forced ? 'force-detached' : 'detached', 'event', at, {
          volume: f.volume,
          node: f.node,
          forced: f.forced,
        });
      }
      return;
    // ---- reconstruction ----
    case 'reconstructionStarted':
      b.begin(pk('syncStates', node), tracks.kubelet(node), 'reconstruction (syncStates)', at, {
        volumeDirs: f.volumeDirs,
      });
      return;
    case 'reconstructionFinished':
      b.end(pk('syncStates', node), at, { unreconstructedDevices: f.unreconstructedDevices.join(', ') });
      for (const volume of f.unreconstructedDevices) {
        b.instant(tracks.device(node, volume), 'not reconstructed, still mounted', 'error', at, { volume });
      }
      for (const m of f.unreconstructedPodMaps) {
        b.instant(tracks.device(node, m.volume), 'pod map reference not reconstructed', 'error', at, {
          volume: m.volume,
          uid: m.uid,
        });
      }
      return;
    case 'volumeReconstruction':
      b.instant(
        tracks.device(node, f.volume),
        f.ok ? `reconstructed: ${f.outcome}` : `reconstruction failed: ${f.outcome}`,
        f.ok ? 'event' : 'error',
        at,
        {
          volume: f.volume,
          pod: f.pod,
          uid: f.uid,
          mode: f.mode,
          error: f.error ?? null,
        },
      );
      return;
    case 'procMountsRead':
      if (!f.consistent || f.attempts > 1) {
        b.instant(
          tracks.faults(node),
          f.consistent ? `/proc/mounts consistent after ${f.attempts} reads` : '/proc/mounts inconsistent',
          f.consistent ? 'event' : 'error',
          at,
          { purpose: f.purpose, attempts: f.attempts },
        );
      }
      return;
    case 'multiAttachError':
      b.instant(tracks.adc(f.volume, f.node), 'Multi-Attach error', 'error', at, {
        volume: f.volume,
        node: f.node,
        attachedTo: f.attachedTo.join(', '),
      });
      return;
    case 'volumeAttachUncertain':
      b.instant(tracks.adc(f.volume, f.node), 'attach uncertain', 'error', at, {
        volume: f.volume,
        node: f.node,
        error: f.error,
      });
      return;
    case 'volumeDetachStarted':
      b.instant(
        tracks.adc(f.volume, f.node),
        f.forced ? 'force detach started' : 'detach started',
        'event',
        at,
        {
          volume: f.volume,
          node: f.node,
          forced: f.forced,
          verifySafeToDetach: f.verifySafeToDetach,
        },
      );
      return;
    case 'volumeDetachFailed':
      b.instant(tracks.adc(f.volume, f.node), 'detach failed', 'error', at, {
        volume: f.volume,
        node: f.node,
        error: f.error,
      });
      return;
    // ---- scenario actions ----
    case 'actionNoop': {
      const args: Record<string, ArgValue> = { action: f.action, reason: f.reason };
      if (f.line > 0) args['line'] = f.line;
      if (f.pod !== undefined) args['pod'] = f.pod;
      if (f.volume !== undefined) args['volume'] = f.volume;
      if (f.fault !== undefined) args['fault'] = f.fault;
      b.instant(tracks.actions(node), `${f.fault ?? f.action} did nothing`, 'event', at, args);
      return;
    }
    case 'podCreateWaiting':
      b.instant(tracks.actions(node), `createPod ${f.pod} waits`, 'event', at, {
        pod: f.pod,
        heldBy: f.heldBy,
        reason: f.reason,
        ...(f.line > 0 ? { line: f.line } : {}),
      });
      return;
    // ---- faults ----
    case 'faultInjected': {
      const args: Record<string, ArgValue> = { fault: f.fault };
      if (f.volume !== undefined) args['volume'] = f.volume;
      if (f.pod !== undefined) args['pod'] = f.pod;
      if (f.delayMs !== undefined) args['delayMs'] = f.delayMs;
      if (f.error !== undefined) args['error'] = f.error;
      b.instant(tracks.faults(node), `fault ${f.fault}`, 'fault', at, args);
      return;
    }
  }
}

/** The track a violation is drawn on within its node: the pod's worker, else the volume's device. */
function violationTrack(v: Violation): BaseTrack | undefined {
  if (v.node === null) return undefined;
  if (v.uid !== null) return tracks.podWorker(v.node, v.pod ?? v.uid, v.uid);
  if (v.volume !== null) return tracks.device(v.node, v.volume);
  return tracks.kubelet(v.node);
}

export function violationArgs(v: Violation): Args {
  return {
    invariant: v.invariant,
    node: v.node,
    pod: v.pod,
    uid: v.uid,
    volume: v.volume,
    message: v.message,
  };
}

/** Spreads spans over lanes so that spans in one lane nest or are disjoint. */
function assignLanes(spans: readonly RawSpan[]): Map<RawSpan, number> {
  const order = [...spans].sort((a, b) => a.startMs - b.startMs || b.endMs - a.endMs || a.seq - b.seq);
  const lanes: number[][] = []; // per lane, a stack of end times
  const out = new Map<RawSpan, number>();
  for (const s of order) {
    let lane = 0;
    for (; ; lane++) {
      let stack = lanes[lane];
      if (stack === undefined) {
        stack = [];
        lanes[lane] = stack;
      }
      while (stack.length > 0 && stack[stack.length - 1]! <= s.startMs) stack.pop();
      const top = stack[stack.length - 1];
      if (top === undefined || top >= s.endMs) {
        stack.push(s.endMs);
        break;
      }
    }
    out.set(s, lane);
  }
  return out;
}

/** Derives the tracks, spans and instants of a run. Without recorded facts, only violations appear. */
export function buildTimeline(result: TimelineInput): Timeline {
  const b = new Builder();
  const facts = result.facts ?? [];
  let endMs = result.virtualTimeMs;
  for (const f of facts) {
    onFact(b, f);
    endMs = Math.max(endMs, f.atMs);
  }
  for (const v of result.violations) endMs = Math.max(endMs, v.atMs);
  b.finish(endMs);

  // Violations: on their own track in the node, and globally on the cluster's violations track.
  for (const v of result.violations) {
    const name = `VIOLATION ${v.invariant}`;
    const args = violationArgs(v);
    const local = violationTrack(v);
    if (local !== undefined) b.instant(local, name, 'violation', v.atMs, args);
    b.instant(tracks.violations(), name, 'violation', v.atMs, args, 'global');
  }

  // Lanes per base track.
  const byBase = new Map<string, RawSpan[]>();
  for (const s of b.spans) {
    const list = byBase.get(s.base.key);
    if (list === undefined) byBase.set(s.base.key, [s]);
    else list.push(s);
  }
  const laneOf = new Map<RawSpan, number>();
  const laneCount = new Map<string, number>();
  for (const [key, list] of byBase) {
    const lanes = assignLanes(list);
    let max = 0;
    for (const [s, lane] of lanes) {
      laneOf.set(s, lane);
      max = Math.max(max, lane);
    }
    laneCount.set(key, max + 1);
  }

  // Processes: the cluster first, then the nodes by name.
  const processNames = [...new Set([...b.bases.values()].map((t) => t.process))].sort((x, y) =>
    x === CLUSTER_PROCESS ? -1 : y === CLUSTER_PROCESS ? 1 : codeUnitOrder(x, y),
  );
  const processes: TimelineProcess[] = processNames.map((name, i) => ({
    name,
    label: name === CLUSTER_PROCESS ? 'cluster (API server, attach/detach controller)' : `node ${name}`,
    pid: i + 1,
  }));
  const pidOf = new Map(processes.map((p) => [p.name, p.pid]));

  // Tracks: lanes of each base track, sorted by the base's display key, then the base key, then lane.
  const laneTracks: { base: BaseTrack; lane: number }[] = [];
  for (const base of b.bases.values()) {
    const n = laneCount.get(base.key) ?? 1;
    for (let lane = 0; lane < n; lane++) laneTracks.push({ base, lane });
  }
  laneTracks.sort(
    (x, y) =>
      (pidOf.get(x.base.process) ?? 0) - (pidOf.get(y.base.process) ?? 0) ||
      cmpKey(x.base.sort, y.base.sort) ||
      codeUnitOrder(x.base.key, y.base.key) ||
      x.lane - y.lane,
  );
  const trackList: Track[] = [];
  const trackId = (base: BaseTrack, lane: number): string => (lane === 0 ? base.key : `${base.key}#${lane}`);
  let tid = 0;
  for (const { base, lane } of laneTracks) {
    const pid = pidOf.get(base.process) ?? 0;
    tid++;
    trackList.push({
      id: trackId(base, lane),
      process: base.process,
      pid,
      tid,
      group: base.group,
      label: lane === 0 ? base.label : `${base.label} #${lane + 1}`,
    });
  }
  const position = new Map(trackList.map((t, i) => [t.id, i]));

  const spans: (Span & { seq: number })[] = b.spans.map((s) => {
    const args: Record<string, ArgValue> = { ...s.args };
    if (s.open) args['open'] = true;
    return {
      track: trackId(s.base, laneOf.get(s) ?? 0),
      name: s.name,
      cat: s.base.group,
      startMs: s.startMs,
      endMs: s.endMs,
      open: s.open,
      args,
      seq: s.seq,
    };
  });
  spans.sort(
    (x, y) =>
      (position.get(x.track) ?? 0) - (position.get(y.track) ?? 0) ||
      x.startMs - y.startMs ||
      y.endMs - x.endMs ||
      x.seq - y.seq,
  );
  const instants: (Instant & { seq: number })[] = b.instants.map((i) => ({
    track: trackId(i.base, 0),
    name: i.name,
    kind: i.kind,
    atMs: i.atMs,
    scope: i.scope,
    args: i.args,
    seq: i.seq,
  }));
  instants.sort(
    (x, y) => x.atMs - y.atMs || (position.get(x.track) ?? 0) - (position.get(y.track) ?? 0) || x.seq - y.seq,
  );
  return {
    endMs,
    processes,
    tracks: trackList,
    spans: spans.map(({ seq: _seq, ...s }) => s),
    instants: instants.map(({ seq: _seq, ...i }) => i),
  };
}
