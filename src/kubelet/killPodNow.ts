// Ported from kubernetes pkg/kubelet/pod_workers.go, release-1.23: killPodNow, the blocking kill that
// eviction, preemption and node shutdown hand to the pod worker (kept apart from the worker goroutine).
import { GoError } from '../api/errors.js';
import type { Pod } from '../api/v1.js';
import { AssertionError, type Chan, type Co, select } from '../sim/index.js';
import type { PodWorkers } from './podWorkers.js';
import type { PodStatusFunc } from './types.js';

/**
 * killPodNow: the blocking kill used by eviction, preemption and node shutdown. Waits for the pod worker
 * to report the pod terminated, for at most max(10s, 1.5 * grace period).
 */
export function* killPodNow(
  podWorkers: Pick<PodWorkers, 'sim' | 'updatePod'>,
  pod: Pod,
  evict: boolean,
  gracePeriodOverride: number | undefined,
  statusFn: PodStatusFunc | undefined,
): Co<GoError | undefined> {
  let gracePeriod = 0;
  if (gracePeriodOverride !== undefined) gracePeriod = gracePeriodOverride;
  else if (pod.spec.terminationGracePeriodSeconds !== undefined) {
    gracePeriod = pod.spec.terminationGracePeriodSeconds;
  }
  // Relative to the grace period, but at least 10s for kubelet -> runtime traffic to finish a SIGKILL.
  let timeoutSeconds = gracePeriod + Math.trunc(gracePeriod / 2);
  if (timeoutSeconds < 10) timeoutSeconds = 10;
  if (!Number.isInteger(timeoutSeconds))
    throw new AssertionError(`killPodNow timeout ${timeoutSeconds}s is not whole`);

  const ch = podWorkers.sim.chan<never>(1, `killPodNow/${pod.metadata.uid}`);
  podWorkers.updatePod({
    pod,
    updateType: 'SyncPodKill',
    killPodOptions: {
      completedCh: ch,
      evict,
      podStatusFunc: statusFn,
      podTerminationGracePeriodSecondsOverride: gracePeriodOverride,
    },
  });
  const r = yield* select([{ recv: ch as Chan<unknown> }], timeoutSeconds * 1000);
  if (r.index === 0) return undefined;
  // Upstream also records the ExceededGracePeriod event here.
  return new GoError('timeout waiting to kill pod');
}
