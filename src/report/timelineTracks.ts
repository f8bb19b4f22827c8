// How buildTimeline (spans.ts) collects a run: each component's base track (before overlapping spans are
// spread over lanes), and the Builder that opens and closes spans by a pairing key and records instants.
import type { Fact } from '../facts.js';
import { codeUnitOrder } from '../sim/order.js';
import {
  type Args,
  type ArgValue,
  CLUSTER_PROCESS,
  type InstantKind,
  type TrackGroup,
} from './timelineModel.js';

// ---------------------------------------------------------------------------------------------------
// Base tracks: a component's track before overlapping spans are spread over lanes.

export interface BaseTrack {
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
  reconstruction: 1,
  faults: 2,
  actions: 3,
  podWorker: 0,
  kill: 1,
  container: 2,
  volume: 0,
  volumeHost: 1,
  volumeMismatch: 2,
  device: 0,
  deviceHost: 1,
  deviceState: 2,
  deviceMismatch: 3,
  lun: 4,
};

/**
 * Node sections: kubelet, faults, pods (by name, uid: worker, KillPod, containers, then each volume's
 * kubelet / host / mismatch tracks side by side), storage (by volume: the same three, then LUN access).
 */
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
    case 'reconstruction':
    case 'faults':
    case 'actions':
      sort = [GROUP_RANK[group] ?? 0];
      break;
    case 'podWorker':
    case 'kill':
    case 'container':
      sort = [4, pod, uid, GROUP_RANK[group], sub];
      break;
    case 'volume':
    case 'volumeHost':
    case 'volumeMismatch':
      sort = [4, pod, uid, 3, sub, GROUP_RANK[group]];
      break;
    case 'device':
    case 'deviceHost':
    case 'deviceState':
    case 'deviceMismatch':
    case 'lun':
      sort = [5, volume, GROUP_RANK[group]];
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

export const tracks = {
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
  /** Volume reconstruction after a kubelet start: its /proc/mounts reads and each volume's outcome. */
  reconstruction: (node: string) => baseTrack(node, 'reconstruction', 'volume reconstruction', {}),
  volume: (node: string, pod: string, uid: string, volume: string) =>
    baseTrack(node, 'volume', `${podLabel(pod, uid)} volume ${volume}: kubelet`, { pod, uid, sub: volume }),
  volumeHost: (node: string, pod: string, uid: string, volume: string) =>
    baseTrack(node, 'volumeHost', `${podLabel(pod, uid)} volume ${volume}: host`, { pod, uid, sub: volume }),
  volumeMismatch: (node: string, pod: string, uid: string, volume: string) =>
    baseTrack(node, 'volumeMismatch', `${podLabel(pod, uid)} volume ${volume}: kubelet \u2260 host`, {
      pod,
      uid,
      sub: volume,
    }),
  device: (node: string, volume: string) =>
    baseTrack(node, 'device', `device ${volume}: kubelet (actual state)`, { volume }),
  deviceHost: (node: string, volume: string) =>
    baseTrack(node, 'deviceHost', `device ${volume}: host (mount table)`, { volume }),
  deviceState: (node: string, volume: string) =>
    baseTrack(node, 'deviceState', `device ${volume}: host (SCSI paths, multipath maps)`, { volume }),
  deviceMismatch: (node: string, volume: string) =>
    baseTrack(node, 'deviceMismatch', `device ${volume}: kubelet \u2260 host`, { volume }),
  lun: (node: string, volume: string) => baseTrack(node, 'lun', `LUN ${volume} access`, { volume }),
  violations: () => baseTrack(CLUSTER_PROCESS, 'violations', 'violations', {}),
  api: (pod: string, uid: string) =>
    baseTrack(CLUSTER_PROCESS, 'api', `API server ${podLabel(pod, uid)}`, { pod, uid }),
  adc: (volume: string, node: string) =>
    baseTrack(CLUSTER_PROCESS, 'adc', `attach/detach ${volume} -> ${node}`, { volume, sub: node }),
};

// ---------------------------------------------------------------------------------------------------
// The builder.

export interface RawSpan {
  readonly base: BaseTrack;
  /** Renamed when the state it shows changes again within its first millisecond (storageSpans). */
  name: string;
  readonly startMs: number;
  endMs: number;
  open: boolean;
  args: Record<string, ArgValue>;
  readonly seq: number;
}

export interface RawInstant {
  readonly base: BaseTrack;
  readonly name: string;
  readonly kind: InstantKind;
  readonly atMs: number;
  readonly scope: 'thread' | 'global';
  readonly args: Args;
  readonly seq: number;
}

/** Where a fact is drawn: the track and time of the first span end, span start or instant it made. */
export interface Anchor {
  readonly base: BaseTrack;
  readonly atMs: number;
}

export class Builder {
  readonly bases = new Map<string, BaseTrack>();
  readonly spans: RawSpan[] = [];
  readonly instants: RawInstant[] = [];
  /** The fact being drawn (set by buildTimeline around each fact). */
  current: Fact | undefined;
  /** Each drawn fact's anchor: where cause-to-effect arrows start and end. */
  readonly anchors = new Map<Fact, Anchor>();
  /** Open spans by pairing key, oldest first. */
  private readonly open = new Map<string, RawSpan[]>();
  /** Times noted by key (where the next volume of a reconstruction starts). */
  private readonly marks = new Map<string, number>();
  private seq = 0;

  private anchor(base: BaseTrack, atMs: number): void {
    if (this.current !== undefined && !this.anchors.has(this.current))
      this.anchors.set(this.current, { base, atMs });
  }

  mark(key: string, atMs: number): void {
    this.marks.set(key, atMs);
  }

  marked(key: string): number | undefined {
    return this.marks.get(key);
  }

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
    this.anchor(span.base, atMs);
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
    this.anchor(span.base, span.endMs);
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
    const used = this.use(base);
    this.instants.push({ base: used, name, kind, atMs, scope, args, seq: this.seq++ });
    this.anchor(used, atMs);
  }
}

export function pk(...parts: string[]): string {
  return JSON.stringify(parts);
}

/** The prefix of every pairing key of a node's kubelet-owned spans (pod workers, kills). */
export function kubeletOwned(node: string): string {
  return `["kubelet-owned",${JSON.stringify(node)},`;
}
