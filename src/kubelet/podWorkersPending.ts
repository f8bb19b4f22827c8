// Ported from kubernetes pkg/kubelet/pod_workers.go, v1.28.0 (#113145's pendingUpdate / activeUpdate).
// With `pod-worker-pending-update` on, UpdatePod no longer hands the worker a podWork: it leaves the
// newest options on the status (pendingUpdate) and signals the worker's channel, and the worker takes
// them when it is free (startPodSync) and runs them as the phase the status is in by then. So an update
// queued before a kill is run as the kill, not as the sync it was queued as, and the worker's own phase
// changes (completeSync, completeTerminating) keep a caller's pending update, with its pod and kill
// options, instead of replacing it. The off side is release-1.23's podWork channel with
// lastUndeliveredWorkUpdate (podWorkers.ts, podWorkersState.ts).

import type { Chan } from '../sim/index.js';
import { mergeLastUpdate, type PodSyncStatus, type PodWork } from './podWorkersStatus.js';
import type { UpdatePodOptions } from './types.js';

/** An update that carries an API pod, not only a runtime pod (podrace gives those a synthetic pod). */
function hasConfigPod(o: UpdatePodOptions | undefined): boolean {
  return o !== undefined && o.pod !== undefined && o.runningPod === undefined;
}

/**
 * mergeLastUpdate into status.activeUpdate, noting whether any merged update carried an API pod: v1.27's
 * Pod is nil for a runtime pod's update, and mergeLastUpdate keeps a non-nil Pod over it, so "activeUpdate
 * has a Pod" is "some merged update had one" (podrace's runtime-pod updates carry a synthetic pod).
 */
export function mergeActiveUpdate(status: PodSyncStatus, options: UpdatePodOptions): void {
  status.activeUpdate = mergeLastUpdate(status.activeUpdate, options);
  if (options.runningPod === undefined) status.activeHasConfig = true;
}

/**
 * UpdatePod's runtime-pod case (v1.27): a kill of a runtime pod whose UID the worker already has a pod
 * for becomes a kill of that pod (the pending one first, else the active one), so the worker runs
 * SyncTerminatingPod with the pod's spec and status rather than the runtime-only kill. Returns the
 * options to use (the caller's copy, changed in place) or undefined when there is no such pod.
 */
export function adoptKnownPod(status: PodSyncStatus, opts: UpdatePodOptions): boolean {
  let known: UpdatePodOptions['pod'];
  if (hasConfigPod(status.pendingUpdate)) known = status.pendingUpdate?.pod;
  else if (status.activeHasConfig) known = status.activeUpdate?.pod;
  if (known === undefined) return false;
  opts.pod = known;
  opts.runningPod = undefined;
  return true;
}

/**
 * The tail of v1.27's UpdatePod: the update becomes the pending one (keeping the oldest start time for
 * the latency metric), the worker is marked working and signalled; a full channel already holds a signal.
 */
export function setPendingUpdate(status: PodSyncStatus, opts: UpdatePodOptions, ch: Chan<PodWork>): void {
  const earlier = status.pendingUpdate?.startTimeMs;
  if (earlier !== undefined && opts.startTimeMs !== undefined && earlier < opts.startTimeMs) {
    opts.startTimeMs = earlier;
  }
  status.pendingUpdate = opts;
  status.pendingReplayed = false;
  status.working = true;
  signal(status, ch);
}

/** select { case podUpdates <- struct{}{}: default: }: the channel is a doorbell; what rings is ignored. */
export function signal(status: PodSyncStatus, ch: Chan<PodWork> | undefined): void {
  if (ch === undefined || ch.closed || status.pendingUpdate === undefined) return;
  ch.trySend({ workType: status.workType(), options: status.pendingUpdate });
}

/**
 * The consuming half of v1.27's startPodSync: take the pending update as the status's phase, and empty
 * the channel (a signal sent meanwhile is for this same update). Undefined when nothing is pending
 * ("no pending work, programmer error?"): the worker is idle again.
 */
export function takePendingUpdate(status: PodSyncStatus, ch: Chan<PodWork> | undefined): PodWork | undefined {
  const options = status.pendingUpdate;
  if (options === undefined) {
    status.working = false;
    return undefined;
  }
  const work: PodWork = { workType: status.workType(), options };
  if (status.pendingReplayed) work.replayed = true;
  status.pendingUpdate = undefined;
  status.pendingReplayed = false;
  if (ch !== undefined && ch.length > 0) ch.poll();
  return work;
}

/**
 * requeueLastPodUpdate (v1.27): unless an update is pending (the worker takes it as its new phase) or
 * none was ever run, the update the worker ran last becomes pending again and the worker is signalled.
 * Returns whether it queued one.
 */
export function requeueLastPodUpdate(status: PodSyncStatus, ch: Chan<PodWork> | undefined): boolean {
  if (status.pendingUpdate !== undefined || status.activeUpdate === undefined) return false;
  status.pendingUpdate = Object.assign({}, status.activeUpdate);
  status.pendingReplayed = true;
  status.working = true;
  signal(status, ch);
  return true;
}
