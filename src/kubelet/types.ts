// Types shared by the pod workers and the kubelet around them, from pkg/kubelet/pod_workers.go and
// pkg/kubelet/types/pod_update.go (release-1.23). Go errors become `GoError | undefined` return values.

import type { GoError } from '../api/errors.js';
import type { Pod, PodStatus, RuntimePod, RuntimePodStatus, UID } from '../api/v1.js';
import type { Chan, Co, Context } from '../sim/index.js';

export { errContextCanceled, GoError } from '../api/errors.js';

/** kubetypes.SyncPodType. */
export type SyncPodType = 'SyncPodSync' | 'SyncPodUpdate' | 'SyncPodCreate' | 'SyncPodKill';

/** PodStatusFunc: lets a killer (eviction, preemption, shutdown) set the final status of the pod. */
export type PodStatusFunc = (status: MutablePodStatus) => void;
export interface MutablePodStatus {
  phase: PodStatus['phase'];
  reason?: string | undefined;
  message?: string | undefined;
}

/** KillPodOptions (pod_workers.go). */
export interface KillPodOptions {
  /** Closed when syncTerminatingPod has completed, the pod does not exist, or it already terminated. */
  completedCh?: Chan<never> | undefined;
  evict: boolean;
  podStatusFunc?: PodStatusFunc | undefined;
  podTerminationGracePeriodSecondsOverride?: number | undefined;
}

/** UpdatePodOptions (pod_workers.go). `runningPod` is required if `pod` is undefined. */
export interface UpdatePodOptions {
  updateType: SyncPodType;
  startTimeMs?: number | undefined;
  pod?: Pod | undefined;
  mirrorPod?: Pod | undefined;
  runningPod?: RuntimePod | undefined;
  killPodOptions?: KillPodOptions | undefined;
}

/** PodWorkType (pod_workers.go). */
export type PodWorkType = 'SyncPodWork' | 'TerminatingPodWork' | 'TerminatedPodWork';

/** PodWorkerState (release-1.23): the value type of SyncKnownPods. */
export type PodWorkerState = 'SyncPod' | 'TerminatingPod' | 'TerminatedPod' | 'TerminatedAndRecreatedPod';

/** The three sync phases the pod worker drives (syncPodFnType and friends). */
export interface PodSyncer {
  /** Returns isTerminal (release-1.23) and an error. */
  syncPod(
    ctx: Context,
    updateType: SyncPodType,
    pod: Pod,
    mirrorPod: Pod | undefined,
    podStatus: RuntimePodStatus | undefined,
  ): Co<{ isTerminal: boolean; err: GoError | undefined }>;
  syncTerminatingPod(
    ctx: Context,
    pod: Pod,
    podStatus: RuntimePodStatus | undefined,
    runningPod: RuntimePod | undefined,
    gracePeriod: number | undefined,
    podStatusFn: PodStatusFunc | undefined,
  ): Co<GoError | undefined>;
  syncTerminatedPod(ctx: Context, pod: Pod, podStatus: RuntimePodStatus | undefined): Co<GoError | undefined>;
}

/** kubecontainer.Cache as the pod worker uses it (the PLEG-fed runtime cache). */
export interface PodCache {
  get(uid: UID): RuntimePodStatus;
  /** Blocks until the cache holds data for `uid` newer than `minTimeMs` (PLEG relist). */
  getNewerThan(uid: UID, minTimeMs: number): Co<RuntimePodStatus>;
}

/**
 * The pod worker surface the rest of the kubelet uses: after PR #102344 other loops ask it by UID.
 * Both the release-1.23 port and the release-1.20 port implement the calls they had upstream.
 */
export interface PodStateProvider {
  isPodKnownTerminated(uid: UID): boolean;
  couldHaveRunningContainers(uid: UID): boolean;
  isPodTerminationRequested(uid: UID): boolean;
  shouldPodContainersBeTerminating(uid: UID): boolean;
  shouldPodRuntimeBeRemoved(uid: UID): boolean;
  shouldPodContentBeRemoved(uid: UID): boolean;
}
