// Ground truth about who may hold an attachable volume, shared by volume-detached-while-in-use and
// pod-never-started: which API pods want a volume on a node (the attach/detach controller's desired state
// follows them), what each node's status lists in volumesInUse (the API server's node object, which
// upstream's verifyVolumeIsSafeToDetach reads), and whether a node is Ready as the node lifecycle
// controller judges it from its Lease. Each checker keeps its own instances; none of this reads the
// controller's caches or claims.

import { nodeMonitorGracePeriodMs } from '../cluster/nodeLifecycle.js';
import type { Fact, FactKind } from '../facts.js';

/**
 * The attach/detach controller's reconcilerMaxWaitForUnmountDuration (attach_detach_controller.go,
 * release-1.23: 6 * time.Minute): how long after a volume is no longer wanted on a node it may be
 * detached without the safe-to-detach check.
 */
export const MAX_WAIT_FOR_UNMOUNT_MS = 6 * 60_000;

/** The kubelet's node lease controller renews the Lease every 10 s (40 s lease duration x 0.25). */
export const LEASE_RENEW_INTERVAL_MS = 10_000;

/**
 * A node whose kubelet stopped less than this long ago is surely Ready: its last Lease renewal lies less
 * than one renew interval before the stop, so less than node-monitor-grace-period (40 s) has passed since.
 */
export const SURELY_READY_DOWN_MS = nodeMonitorGracePeriodMs - LEASE_RENEW_INTERVAL_MS;

type KubeletStarted = Extract<Fact, { kind: 'kubeletStarted' }>;
type KubeletStopped = Extract<Fact, { kind: 'kubeletStopped' }>;
type NodePartitioned = Extract<Fact, { kind: 'nodePartitioned' }>;
type NodePartitionHealed = Extract<Fact, { kind: 'nodePartitionHealed' }>;

interface NodeLife {
  /** The last kubeletStarted / kubeletStopped of the node. */
  last: KubeletStarted | KubeletStopped;
  /** Cut off from the API server (a nodePartition fault under way): its Lease renewals are lost. */
  partitioned: boolean;
  /** Since when no Lease renewal reaches the API server (its kubelet down or partitioned), if so. */
  renewalsLostSinceMs: number | undefined;
  /** The end of the last completed span in which the node may have lost Ready. */
  possiblyNotReadyUntilMs: number;
}

/**
 * Node Ready as the node lifecycle controller derives it (src/cluster/nodeLifecycle.ts): Ready while the
 * Lease was renewed within node-monitor-grace-period (40 s). The Lease is renewed every 10 s by the
 * kubelet process from its start (kubeletStarted) until it dies (kubeletStopped), unless a partition cuts
 * the node off from the API server (nodePartitioned until nodePartitionHealed): a node is surely Ready
 * while renewals reach the server or have been lost for less than 30 s, and surely not Ready once they
 * have been lost for 40 s; in between the checkers do not judge. A kubelet start renews at once; after a
 * heal the next renewal comes within one renew interval, so the node may still be not Ready that long.
 */
export class NodeLiveness {
  readonly #nodes = new Map<string, NodeLife>();

  onFact(f: KubeletStarted | KubeletStopped | NodePartitioned | NodePartitionHealed): void {
    const n = this.#nodes.get(f.node);
    if (n === undefined) {
      // A node's first fact is its kubelet's start (a partition before it has no Lease to lose yet).
      if (f.kind === 'kubeletStarted' || f.kind === 'kubeletStopped') {
        this.#nodes.set(f.node, {
          last: f,
          partitioned: false,
          renewalsLostSinceMs: f.kind === 'kubeletStopped' ? f.atMs : undefined,
          possiblyNotReadyUntilMs: Number.NEGATIVE_INFINITY,
        });
      }
      return;
    }
    const wasRenewing = n.renewalsLostSinceMs === undefined;
    if (f.kind === 'kubeletStarted' || f.kind === 'kubeletStopped') n.last = f;
    else n.partitioned = f.kind === 'nodePartitioned';
    const renewing = n.last.kind === 'kubeletStarted' && !n.partitioned;
    if (wasRenewing && !renewing) n.renewalsLostSinceMs = f.atMs;
    if (!wasRenewing && renewing) {
      const since = n.renewalsLostSinceMs ?? f.atMs;
      // A started kubelet renews at once; a healed one at its lease loop's next round.
      const renewedByMs = f.kind === 'kubeletStarted' ? f.atMs : f.atMs + LEASE_RENEW_INTERVAL_MS;
      if (renewedByMs - since >= SURELY_READY_DOWN_MS) n.possiblyNotReadyUntilMs = renewedByMs;
      n.renewalsLostSinceMs = undefined;
    }
  }

  /** Ready for the whole of [fromMs, toMs] (a node never seen started is not). */
  surelyReady(node: string, fromMs: number, toMs: number): boolean {
    const n = this.#nodes.get(node);
    if (n === undefined) return false;
    if (n.renewalsLostSinceMs !== undefined && toMs - n.renewalsLostSinceMs >= SURELY_READY_DOWN_MS)
      return false;
    return n.possiblyNotReadyUntilMs <= fromMs;
  }

  /** Not Ready at `atMs` (no Lease renewal for node-monitor-grace-period at least). */
  surelyNotReady(node: string, atMs: number): boolean {
    const n = this.#nodes.get(node);
    return (
      n !== undefined &&
      n.renewalsLostSinceMs !== undefined &&
      atMs - n.renewalsLostSinceMs >= nodeMonitorGracePeriodMs
    );
  }

  /** The node's last kubeletStarted / kubeletStopped, if any. */
  last(node: string): KubeletStarted | KubeletStopped | undefined {
    return this.#nodes.get(node)?.last;
  }

  /** Whether a partition cuts the node off from the API server now. */
  partitioned(node: string): boolean {
    return this.#nodes.get(node)?.partitioned ?? false;
  }
}

type NodeVolumesInUse = Extract<Fact, { kind: 'nodeVolumesInUse' }>;

/** node.status.volumesInUse as the API server holds it (every kubelet patch publishes nodeVolumesInUse). */
export class NodeVolumesInUseLog {
  /** node -> volume -> the nodeVolumesInUse that started its current listing. */
  readonly #listed = new Map<string, Map<string, NodeVolumesInUse>>();
  /** node -> volume -> the nodeVolumesInUse that last dropped it. */
  readonly #dropped = new Map<string, Map<string, NodeVolumesInUse>>();

  onFact(f: NodeVolumesInUse): void {
    let listed = this.#listed.get(f.node);
    if (listed === undefined) {
      listed = new Map();
      this.#listed.set(f.node, listed);
    }
    for (const [v] of listed) {
      if (f.volumes.includes(v)) continue;
      listed.delete(v);
      let dropped = this.#dropped.get(f.node);
      if (dropped === undefined) {
        dropped = new Map();
        this.#dropped.set(f.node, dropped);
      }
      dropped.set(v, f);
    }
    for (const v of f.volumes) if (!listed.has(v)) listed.set(v, f);
  }

  /** The report since which the node's status lists the volume without a break, if it lists it now. */
  listedSince(node: string, volume: string): NodeVolumesInUse | undefined {
    return this.#listed.get(node)?.get(volume);
  }

  /** The report that last dropped the volume from the node's status, if any. */
  droppedBy(node: string, volume: string): NodeVolumesInUse | undefined {
    return this.#dropped.get(node)?.get(volume);
  }
}

/**
 * A desired interval shorter than this may pass unseen by the controller (pod informer delivery up to
 * 60 ms, a reconciler pass every 100 ms plus its API calls, a detach operation in flight, during which
 * the pass skips the volume: ControllerPublish takes up to 1.5 s): it need not have reset the
 * controller's detach request time, so volume-detached-while-in-use counts the timer across it.
 */
export const RESET_SLACK_MS = 5_000;

type PodFact = Extract<
  Fact,
  { kind: 'apiPodCreated' | 'apiPodDeletionRequested' | 'apiPodDeleted' | 'apiPodPhase' }
>;

interface ApiPod {
  readonly created: Extract<Fact, { kind: 'apiPodCreated' }>;
  /** Wanting in the early sense: not asked to be deleted, not terminal, not gone. */
  early: boolean;
  /** Wanting in the late sense: still in the API server and not terminal (a deleting pod still counts). */
  late: boolean;
}

interface Wants {
  readonly early: Set<string>;
  readonly late: Set<string>;
  /** When the current early desired span began (undefined: no pod wants it, early sense). */
  earlyDesiredSinceMs: number | undefined;
  /** When the volume last stopped being wanted there (early sense, short desired spans bridged). */
  earlyUndesiredSinceMs: number;
  /** The fact that last ended the late wanting (the last pod gone or terminal), if any. */
  lateEnd: PodFact | undefined;
}

/**
 * Which API pods want each volume on each node: the attach/detach controller's desired state, as the
 * pods in the API server make it (util.DetermineVolumeAction: a pod wants its volumes on its node until
 * it is terminated, volumeutil.IsPodTerminated: phase Failed / Succeeded, or deleting with no container
 * running; then the pod informer's delete). Static pods are no API pods: the controller never sees them.
 *
 * The pods' container statuses are not facts, so two bounds are kept. The early one ends a pod's want at
 * its deletion request (or terminal phase, or removal): the controller stops wanting the volume there no
 * earlier, so its maxWaitForUnmountDuration clock starts no earlier than the early undesired time. The
 * late one ends it only when the pod left the API server or turned terminal: the controller has surely
 * stopped wanting it by then (a deleting pod whose containers run per its API status, on a node whose
 * kubelet is gone, is wanted for ever, as upstream).
 */
export class VolumeWants {
  readonly #pods = new Map<string, ApiPod>();
  /** `volume\0node` -> who wants it there. */
  readonly #wants = new Map<string, Wants>();

  onFact(f: PodFact): void {
    if (f.kind === 'apiPodCreated') {
      if (f.static || f.volumes.length === 0) return;
      const p: ApiPod = { created: f, early: true, late: true };
      this.#pods.set(f.uid, p);
      for (const v of f.volumes) {
        const w = this.#get(v, f.node);
        if (w.early.size === 0) w.earlyDesiredSinceMs = f.atMs;
        w.early.add(f.uid);
        w.late.add(f.uid);
      }
      return;
    }
    const p = this.#pods.get(f.uid);
    if (p === undefined) return;
    if (f.kind === 'apiPodPhase' && f.phase !== 'Failed' && f.phase !== 'Succeeded') return;
    if (p.early) {
      p.early = false;
      for (const v of p.created.volumes) {
        const w = this.#get(v, p.created.node);
        w.early.delete(f.uid);
        if (w.early.size > 0) continue;
        // A short desired span may have passed the controller by: its clock keeps running across it.
        if (f.atMs - (w.earlyDesiredSinceMs ?? f.atMs) >= RESET_SLACK_MS) w.earlyUndesiredSinceMs = f.atMs;
        w.earlyDesiredSinceMs = undefined;
      }
    }
    if (p.late && f.kind !== 'apiPodDeletionRequested') {
      p.late = false;
      for (const v of p.created.volumes) {
        const w = this.#get(v, p.created.node);
        w.late.delete(f.uid);
        if (w.late.size === 0) w.lateEnd = f;
      }
      this.#pods.delete(f.uid);
    }
  }

  /**
   * How long, at `atMs`, the volume has at least been unwanted on the node by the controller's clock (0
   * while it has been wanted for RESET_SLACK_MS or more: the controller reset its detach request time).
   */
  earlyUnwantedForMs(volume: string, node: string, atMs: number): number {
    const w = this.#wants.get(`${volume}\u0000${node}`);
    if (w === undefined) return atMs;
    if (w.earlyDesiredSinceMs !== undefined && atMs - w.earlyDesiredSinceMs >= RESET_SLACK_MS) return 0;
    return atMs - w.earlyUndesiredSinceMs;
  }

  /** The pods (created facts) that still want the volume on the node in the late sense. */
  lateWanters(volume: string, node: string): Extract<Fact, { kind: 'apiPodCreated' }>[] {
    const w = this.#wants.get(`${volume}\u0000${node}`);
    if (w === undefined) return [];
    const out: Extract<Fact, { kind: 'apiPodCreated' }>[] = [];
    for (const uid of w.late) {
      const p = this.#pods.get(uid);
      if (p !== undefined) out.push(p.created);
    }
    return out;
  }

  /** The fact that ended the last pod's want of the volume on the node (late sense), if any. */
  lateEnd(volume: string, node: string): PodFact | undefined {
    return this.#wants.get(`${volume}\u0000${node}`)?.lateEnd;
  }

  /** The nodes on which some pod ever wanted the volume, in first-seen order. */
  *nodesOf(volume: string): Iterable<string> {
    const prefix = `${volume}\u0000`;
    for (const key of this.#wants.keys()) if (key.startsWith(prefix)) yield key.slice(prefix.length);
  }

  #get(volume: string, node: string): Wants {
    const key = `${volume}\u0000${node}`;
    let w = this.#wants.get(key);
    if (w === undefined) {
      w = {
        early: new Set(),
        late: new Set(),
        earlyDesiredSinceMs: undefined,
        earlyUndesiredSinceMs: 0,
        lateEnd: undefined,
      };
      this.#wants.set(key, w);
    }
    return w;
  }
}

export const VOLUME_USERS_KINDS = [
  'apiPodCreated',
  'apiPodDeleted',
  'apiPodDeletionRequested',
  'apiPodPhase',
  'nodeVolumesInUse',
] as const satisfies readonly FactKind[];

/**
 * What the end-of-run attach checks (volume-left-attached, volume-in-use-after-unmount) read of a volume on
 * a node: which API pods want it there (VolumeWants), what the node's status lists in volumesInUse, and
 * whether a static pod of the node used it (the attach/detach controller sees only its mirror pod, and
 * the kubelet's desired state holds it: such a volume is not judged).
 */
export class VolumeUsers {
  readonly wants = new VolumeWants();
  readonly inUse = new NodeVolumesInUseLog();
  /** `volume\0node` used by a static pod of the node. */
  readonly #static = new Set<string>();

  /** Takes one of VOLUME_USERS_KINDS; any other fact is ignored. */
  onFact(f: Fact): void {
    switch (f.kind) {
      case 'apiPodCreated':
        if (f.static) for (const v of f.volumes) this.#static.add(`${v}\u0000${f.node}`);
        this.wants.onFact(f);
        return;
      case 'apiPodDeleted':
      case 'apiPodDeletionRequested':
      case 'apiPodPhase':
        this.wants.onFact(f);
        return;
      case 'nodeVolumesInUse':
        this.inUse.onFact(f);
        return;
      default:
        return;
    }
  }

  usedByStaticPod(volume: string, node: string): boolean {
    return this.#static.has(`${volume}\u0000${node}`);
  }
}
