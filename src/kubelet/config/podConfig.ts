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
    const pod =
      apiPod.metadata.annotations[ConfigSourceAnnotationKey] === ApiserverSource
        ? apiPod
        : newPod(
            annotated(apiPod.metadata, ConfigSourceAnnotationKey, ApiserverSource),
            apiPod.spec,
            apiPod.status,
          );
    const uid = pod.metadata.uid;
    const old = this.seen.get(uid);
    if (type === 'DELETED') {
      if (old === undefined) return;
      this.seen.delete(uid);
      this.push({ op: 'REMOVE', pods: [pod], source: 'api' });
      return;
    }
    this.seen.set(uid, pod);
    if (old === undefined) this.push({ op: 'ADD', pods: [pod], source: 'api' });
    else if (old.metadata.deletionTimestamp === undefined && pod.metadata.deletionTimestamp !== undefined) {
      this.push({ op: 'DELETE', pods: [pod], source: 'api' });
    } else if (old.metadata.deletionGracePeriodSeconds !== pod.metadata.deletionGracePeriodSeconds) {
      this.push({ op: 'DELETE', pods: [pod], source: 'api' });
    } else this.push({ op: 'RECONCILE', pods: [pod], source: 'api' });
  }

  /**
   * A source's whole listing (a SET: the file source's directory read, the apiserver source's LIST), as
   * podStorage.Merge handles the first SET of a source: every pod not seen before in one ADD, or, with
   * none, the empty update that tells the kubelet the source is ready. (Each source lists once per
   * kubelet process here, so there is nothing to remove or update.)
   */
  onSourceList(source: PodSource, pods: readonly Pod[]): void {
    const adds: Pod[] = [];
    for (const pod of pods) {
      if (this.seen.has(pod.metadata.uid)) continue;
      this.seen.set(pod.metadata.uid, pod);
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
