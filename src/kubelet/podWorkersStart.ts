// Ported from kubernetes pkg/kubelet/pod_workers.go: allowPodStart of release-1.23 (#104743, #107900) and
// startPodSync of v1.28.0 (#113145, #116995). The start gate of the pod worker: whether a worker may start
// its pod now, or ever (one static pod per fullname), and, with `pod-worker-pending-update` on, the
// worker's taking of its pending update, which asks the gate before a pod has started. Release-1.23's
// worker loop asks the gate itself (managePodLoop in podWorkers.ts).

import { isStaticPod, type Pod, type UID } from '../api/v1.js';
import type { Fact } from '../facts.js';
import type { Fixes } from '../fixes.js';
import type { Rng, Sim } from '../sim/index.js';
import { mergeActiveUpdate, takePendingUpdate } from './podWorkersPending.js';
import { PodWorkerStates } from './podWorkersState.js';
import type { PodWork } from './podWorkersStatus.js';
import type { WorkQueue } from './workQueue.js';

/** Jitter factor for backOffPeriod and backOffOnTransientErrorPeriod. */
export const workerBackOffPeriodJitterFactor = 0.5;

export class PodWorkerStartGate extends PodWorkerStates {
  constructor(
    sim: Sim,
    nodeName: string,
    publishFn: ((fact: Fact) => void) | undefined,
    fixes: Fixes,
    /** The stream wait.Jitter draws from. */
    protected readonly rng: Rng,
    protected readonly workQueue: WorkQueue,
    protected readonly backOffPeriodMs: number,
  ) {
    super(sim, nodeName, publishFn, fixes);
  }

  // ---- static pod admission (#104743, #107900) ----

  /**
   * allowPodStart: whether the pod may start now (otherwise it is requeued with back-off), and whether it
   * ever can (not when its status is gone or it was terminated before it started).
   */
  allowPodStart(pod: Pod): { canStart: boolean; canEverStart: boolean } {
    if (!isStaticPod(pod)) return { canStart: true, canEverStart: true };
    const uid = pod.metadata.uid;
    const status = this.podSyncStatuses.get(uid);
    if (!this.fixes.on('unstarted-static-pod-terminated')) {
      // 1.22.5-1.22.7 / 1.23.0-1.23.4 (before #107900): only canStart. A UID killed before it started
      // keeps asking allowStaticPodStart, as a retry that nothing re-dispatches once it left the config.
      // Upstream dereferenced the missing status here (a nil pointer); the worker only runs while its
      // status exists, so that branch is never taken and is kept as a plain requeue.
      if (status === undefined || !this.allowStaticPodStart(status.fullname, uid)) {
        this.workQueue.enqueue(
          uid,
          this.rng.jitterMs(this.backOffPeriodMs, workerBackOffPeriodJitterFactor, 'podWorkers back-off'),
        );
        if (status !== undefined) status.working = false;
        return { canStart: false, canEverStart: true };
      }
      return { canStart: true, canEverStart: true };
    }
    if (status === undefined) return { canStart: false, canEverStart: false };
    if (status.isTerminationRequested()) return { canStart: false, canEverStart: false };
    if (!this.allowStaticPodStart(status.fullname, uid)) {
      this.workQueue.enqueue(
        uid,
        this.rng.jitterMs(this.backOffPeriodMs, workerBackOffPeriodJitterFactor, 'podWorkers back-off'),
      );
      status.working = false;
      return { canStart: false, canEverStart: true };
    }
    return { canStart: true, canEverStart: true };
  }

  /**
   * startPodSync (v1.27): take the pending update as the status's phase and decide whether the pod is
   * started or may start: 'wait' when there is nothing to take or the start gate holds it back (the
   * update stays pending, #116995), 'exit' when it can never start (cleaned up here).
   */
  protected startPodSync(uid: UID): PodWork | 'wait' | 'exit' {
    const status = this.podSyncStatuses.get(uid);
    if (status === undefined) return 'exit';
    const update = takePendingUpdate(status, this.podUpdates.get(uid));
    if (update === undefined) return 'wait';
    const pod = update.options.pod;
    if (update.workType === 'TerminatingPodWork' && pod !== undefined && update.replayed !== true) {
      this.publishPod(pod, { kind: 'podKillDispatched' });
    }
    // Started already, or a runtime pod being killed: no start gate.
    if (status.isStarted() || update.options.runningPod !== undefined || pod === undefined) {
      mergeActiveUpdate(status, update.options);
      return update;
    }
    // The gate is asked for static pods alone (allowPodStart lets every other pod start).
    if (isStaticPod(pod) && this.fixes.on('static-pod-start-exclusion')) {
      const { canStart, canEverStart } = this.allowPodStart(pod);
      if (!canEverStart) {
        this.completeUnstartedTerminated(pod);
        return 'exit';
      }
      if (!canStart) {
        // The only path that does not start the pod: the update goes back to pending (#116995).
        status.pendingUpdate ??= update.options;
        status.working = false;
        return 'wait';
      }
    }
    status.startedAtMs = this.sim.nowMs;
    mergeActiveUpdate(status, update.options);
    return update;
  }
}
