// Ported from kubernetes pkg/kubelet/config/config.go, release-1.23, reduced: the kubelet's two pod
// sources (the API server watch and the static-pod manifest directory) merged into PodUpdates.
// A graceful deletion is a DELETE, the object leaving the source is a REMOVE, a status change is a
// RECONCILE, anything else an UPDATE.
import {
  ApiserverSource,
  annotated,
  ConfigSourceAnnotationKey,
  newPod,
  type Pod,
  type UID,
} from '../../api/v1.js';
import type { Chan, Co, ProcessGroup, Sim } from '../../sim/index.js';

export type PodOperation = 'ADD' | 'UPDATE' | 'DELETE' | 'REMOVE' | 'RECONCILE' | 'SET';
export type PodSource = 'api' | 'file';

export interface PodUpdate {
  readonly op: PodOperation;
  readonly pods: readonly Pod[];
  readonly source: PodSource;
}

/** The kubelet's updates channel capacity (config.NewPodConfig: make(chan kubetypes.PodUpdate, 50)). */
export const podUpdatesChannelCapacity = 50;

export class PodConfig {
  private readonly seen = new Map<UID, Pod>();
  /** The UIDs `seen` holds from the API source (a relist removes those it no longer lists). */
  private readonly apiSeen = new Set<UID>();
  /** The API source has listed once: a later LIST is a relist (after its watch broke). */
  private apiListed = false;
  /** Updates waiting for room in the channel, in order (the merge goroutine blocks on a full channel). */
  private readonly backlog: PodUpdate[] = [];
  private pumping = false;

  constructor(
    readonly updates: Chan<PodUpdate>,
    private readonly sim: Sim,
    private readonly group: ProcessGroup,
  ) {}

  /**
   * An API watch event for this node. Like config.go's merge, every pod from the API source is
   * annotated with that source: a mirror pod, copied from a static pod's annotations, arrives with
   * `file` and becomes `api` here (so it is never taken for a static pod).
   */
  onAPIEvent(type: 'ADDED' | 'MODIFIED' | 'DELETED', apiPod: Pod): void {
    const pod = fromAPI(apiPod);
    const uid = pod.metadata.uid;
    const old = this.seen.get(uid);
    if (type === 'DELETED') {
      if (old === undefined) return;
      this.seen.delete(uid);
      this.apiSeen.delete(uid);
      this.push({ op: 'REMOVE', pods: [pod], source: 'api' });
      return;
    }
    this.seen.set(uid, pod);
    this.apiSeen.add(uid);
    this.push({ op: classify(old, pod), pods: [pod], source: 'api' });
  }

  /**
   * A relist of the API source (its reflector's LIST after the watch broke, e.g. a network partition
   * healed): the apiserver source sends the whole list as a SET (config/apiserver.go's UndeltaStore), and
   * podStorage.merge diffs it against what it had: a pod it no longer lists is removed (REMOVE: the pod
   * is gone from the API server, deleted while the kubelet could not see it), a new one added, a changed
   * one a DELETE or RECONCILE as a watch event would be. Merge sends removes, adds, updates, deletes,
   * then reconciles (config.go), so a REMOVE and an ADD the same relist carries reach the sync loop
   * together (#119273: "kubelet received old pod removed" as the new pod of the name arrives).
   */
  private onAPIRelist(apiPods: readonly Pod[]): void {
    const listed = new Map<UID, Pod>();
    for (const apiPod of apiPods) listed.set(apiPod.metadata.uid, fromAPI(apiPod));
    const byOp: Record<'REMOVE' | 'ADD' | 'DELETE' | 'RECONCILE', Pod[]> = {
      REMOVE: [],
      ADD: [],
      DELETE: [],
      RECONCILE: [],
    };
    for (const uid of [...this.apiSeen].sort()) {
      if (listed.has(uid)) continue;
      const old = this.seen.get(uid);
      this.seen.delete(uid);
      this.apiSeen.delete(uid);
      if (old !== undefined) byOp.REMOVE.push(old);
    }
    for (const [uid, pod] of listed) {
      const old = this.seen.get(uid);
      this.seen.set(uid, pod);
      this.apiSeen.add(uid);
      const op = classify(old, pod);
      // An unchanged pod is no update (checkAndUpdatePod: the same object needs no reconcile either).
      if (op === 'RECONCILE' && old !== undefined && samePod(old, pod)) continue;
      byOp[op].push(pod);
    }
    for (const op of ['REMOVE', 'ADD', 'DELETE', 'RECONCILE'] as const) {
      if (byOp[op].length > 0) this.push({ op, pods: byOp[op], source: 'api' });
    }
  }

  /**
   * A source's whole listing (a SET: the file source's directory read, the apiserver source's LIST), as
   * podStorage.Merge handles the first SET of a source: every pod not seen before in one ADD, or, with
   * none, the empty update that tells the kubelet the source is ready. (Each source lists once per
   * kubelet process here, so there is nothing to remove or update.)
   */
  onSourceList(source: PodSource, pods: readonly Pod[]): void {
    if (source === 'api') {
      if (this.apiListed) {
        this.onAPIRelist(pods);
        return;
      }
      this.apiListed = true;
    }
    const adds: Pod[] = [];
    for (const pod of pods) {
      if (this.seen.has(pod.metadata.uid)) continue;
      this.seen.set(pod.metadata.uid, pod);
      if (source === 'api') this.apiSeen.add(pod.metadata.uid);
      adds.push(pod);
    }
    if (adds.length > 0) this.push({ op: 'ADD', pods: adds, source });
    else this.push({ op: 'SET', pods: [], source });
  }

  /** A static pod manifest appeared (ADD) or was removed (REMOVE). */
  onFileEvent(op: 'ADD' | 'REMOVE', pod: Pod): void {
    this.push({ op, pods: [pod], source: 'file' });
  }

  private push(update: PodUpdate): void {
    // Order is kept: once anything waits in the backlog, later updates queue behind it.
    if (this.backlog.length === 0 && this.updates.trySend(update)) return;
    this.backlog.push(update);
    if (this.pumping) return;
    this.pumping = true;
    this.sim.spawn('podConfig/merge', this.pump(), this.group);
  }

  private *pump(): Co {
    while (this.backlog.length > 0) {
      yield* this.updates.send(this.backlog[0] as PodUpdate);
      this.backlog.shift();
    }
    this.pumping = false;
  }
}

/** A pod from the API source, annotated with that source (config.go's merge does so for every pod). */
function fromAPI(apiPod: Pod): Pod {
  return apiPod.metadata.annotations[ConfigSourceAnnotationKey] === ApiserverSource
    ? apiPod
    : newPod(
        annotated(apiPod.metadata, ConfigSourceAnnotationKey, ApiserverSource),
        apiPod.spec,
        apiPod.status,
      );
}

/** What an API pod is to the kubelet given the version it had: ADD, DELETE (graceful deletion) or RECONCILE. */
function classify(old: Pod | undefined, pod: Pod): 'ADD' | 'DELETE' | 'RECONCILE' {
  if (old === undefined) return 'ADD';
  if (old.metadata.deletionTimestamp === undefined && pod.metadata.deletionTimestamp !== undefined)
    return 'DELETE';
  if (old.metadata.deletionGracePeriodSeconds !== pod.metadata.deletionGracePeriodSeconds) return 'DELETE';
  return 'RECONCILE';
}

/** The relisted object is the one the kubelet has: same deletion state and status. */
function samePod(a: Pod, b: Pod): boolean {
  return (
    a.metadata.deletionTimestamp === b.metadata.deletionTimestamp &&
    a.metadata.deletionGracePeriodSeconds === b.metadata.deletionGracePeriodSeconds &&
    a.status === b.status
  );
}
