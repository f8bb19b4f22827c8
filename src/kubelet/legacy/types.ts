// Ported from kubernetes pkg/kubelet/pod_workers.go, release-1.20 (plus kubecontainer.PodPair and
// eviction.KillPodFunc). The types of the pre-PR-#102344 pod worker and podKiller. They differ from the
// release-1.23 ones in ../types.ts on purpose: 1.20's UpdatePodOptions carries an OnCompleteFunc and a
// mandatory Pod (no RunningPod), and its PodStatusFunc builds a status instead of mutating one.

import type { GoError } from '../../api/errors.js';
import type { Pod, PodStatus, RuntimePod, RuntimePodStatus, UID } from '../../api/v1.js';
import type { Co } from '../../sim/index.js';
import type { SyncPodType } from '../types.js';

export type { SyncPodType } from '../types.js';

/** OnCompleteFunc: invoked when an operation completes; `err` is set if it did not complete successfully. */
export type OnCompleteFunc = (err: GoError | undefined) => void;

/** PodStatusFunc (1.20): invoked to generate a pod status. */
export type PodStatusFunc = (pod: Pod, podStatus: RuntimePodStatus | undefined) => PodStatus;

/** KillPodOptions (1.20): options when performing a pod update whose update type is kill. */
export interface KillPodOptions {
  /** The function to invoke to set pod status in response to a kill request. */
  podStatusFunc?: PodStatusFunc | undefined;
  /** Optional override to use if a pod is being killed as part of a kill operation (seconds). */
  podTerminationGracePeriodSecondsOverride?: number | undefined;
}

/** UpdatePodOptions (1.20): the argument of UpdatePod. */
export interface UpdatePodOptions {
  /** The pod to update. */
  pod: Pod;
  /** The mirror pod for the pod to update, if it is a static pod. */
  mirrorPod?: Pod | undefined;
  /** The type of update (create, update, sync, kill). */
  updateType: SyncPodType;
  /**
   * Optional callback when the operation completes. Not guaranteed to be called, since a pod worker may
   * drop update requests if it was fulfilling a previous request ("only guaranteed to be invoked in
   * response to a kill pod request which is always delivered", which 1.20 does not quite keep).
   */
  onCompleteFunc?: OnCompleteFunc | undefined;
  /** If the update type is kill, use these options to kill the pod. */
  killPodOptions?: KillPodOptions | undefined;
}

/** PodWorkers (1.20): the interface the kubelet uses. */
export interface PodWorkers {
  updatePod(options: UpdatePodOptions): void;
  forgetNonExistingPodWorkers(desiredPods: ReadonlySet<UID>): void;
  forgetWorker(uid: UID): void;
}

/** syncPodOptions (1.20): the arguments of one syncPod call. */
export interface SyncPodOptions {
  /** The mirror pod for the pod to sync, if it is a static pod. */
  mirrorPod: Pod | undefined;
  /** The pod to sync. */
  pod: Pod;
  /** The type of update (create, update, sync, kill). */
  updateType: SyncPodType;
  /** The current status (from podCache.GetNewerThan). */
  podStatus: RuntimePodStatus | undefined;
  /** If the update type is kill, use these options to kill the pod. */
  killPodOptions: KillPodOptions | undefined;
}

/** syncPodFnType (1.20): the kubelet's syncPod, which also performs SyncPodKill. */
export type SyncPodFnType = (options: SyncPodOptions) => Co<GoError | undefined>;

/** eviction.KillPodFunc (1.20): kills a pod, blocking until it is done or timed out. */
export type KillPodFunc = (
  pod: Pod,
  status: PodStatus,
  gracePeriodOverride: number | undefined,
) => Co<GoError | undefined>;

/** record.EventRecorder, reduced to what the 1.20 pod worker records. */
export interface EventRecorder {
  eventf(pod: Pod, eventType: 'Normal' | 'Warning', reason: string, message: string): void;
}

/** kubecontainer.PodPair: an API pod (if any) and the runtime pod to kill. Field names as upstream. */
export interface PodPair {
  APIPod?: Pod | undefined;
  RunningPod: RuntimePod;
}

/**
 * What the podKiller calls to kill (the 1.20 podKillerWithChannel.killPod field, set to kl.killPod).
 * Upstream's signature also takes a `status *kubecontainer.PodStatus`; the podKiller always passes nil,
 * so it is left out here.
 */
export interface PodKillerKillPod {
  killPod(
    pod: Pod | undefined,
    runningPod: RuntimePod,
    gracePeriodOverride: number | undefined,
  ): Co<GoError | undefined>;
}
