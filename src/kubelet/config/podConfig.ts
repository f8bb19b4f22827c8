// Ported from kubernetes pkg/kubelet/config/config.go, release-1.23, reduced: the kubelet's two pod
// sources (the API server watch and the static-pod manifest directory) merged into PodUpdates.
// A graceful deletion is a DELETE, the object leaving the source is a REMOVE, a status change is a
// RECONCILE, anything else an UPDATE.
import type { Pod, UID } from '../../api/v1.js';
import { AssertionError, type Chan } from '../../sim/index.js';

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

  constructor(readonly updates: Chan<PodUpdate>) {}

  /** An API watch event for this node. */
  onAPIEvent(type: 'ADDED' | 'MODIFIED' | 'DELETED', pod: Pod): void {
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

  /** The source's initial listing is complete (the SET update that marks a source as seen). */
  onSourceSynced(source: PodSource): void {
    this.push({ op: 'SET', pods: [], source });
  }

  /** A static pod manifest appeared (ADD) or was removed (REMOVE). */
  onFileEvent(op: 'ADD' | 'REMOVE', pod: Pod): void {
    this.push({ op, pods: [pod], source: 'file' });
  }

  private push(update: PodUpdate): void {
    // The merge goroutine blocks on a full channel upstream; 50 slots are never filled by a scenario's
    // handful of pods, so a full channel here is an internal error rather than modelled back-pressure.
    if (!this.updates.trySend(update))
      throw new AssertionError(`pod config updates channel full (${podUpdatesChannelCapacity})`);
  }
}
