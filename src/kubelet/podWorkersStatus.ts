// Ported from kubernetes pkg/kubelet/pod_workers.go, release-1.23; calculateEffectiveGracePeriod also read
// at v1.31.12 (its `overridden` flag, #124063). The per-UID state of the pod worker (podSyncStatus), the unit of work on a worker's channel (podWork),
// and the two pure rules UpdatePod applies to them: the effective grace period and the first-sight
// terminal check. Kept apart from podWorkers.ts because they hold no goroutines and no locks.

import type { Pod, RuntimePodStatus } from '../api/v1.js';
import type { Fixes } from '../fixes.js';
import type { Chan, Context } from '../sim/index.js';
import { AssertionError } from '../sim/index.js';
import type { KillPodOptions, PodStatusFunc, PodWorkType, UpdatePodOptions } from './types.js';

/** podWork: what travels on a worker's channel. */
export interface PodWork {
  workType: PodWorkType;
  options: UpdatePodOptions;
  /**
   * SyncKnownPods replayed the worker's last update for an orphan (#113145): a kill of it carries no
   * override, so killContainer's own grace (with its 2 s minimum) applies, and no podKillDispatched is
   * published (that fact marks a kill whose grace the pod worker settled and passed down).
   */
  replayed?: boolean;
}

/** The fields of podSyncStatus a test (or a restore) may preset, as Go tests build the struct literally. */
export interface PodSyncStatusInit {
  working?: boolean;
  fullname?: string;
  syncedAt?: number;
  terminatingAt?: number;
  startedTerminating?: boolean;
  deleted?: boolean;
  gracePeriod?: number;
  evicted?: boolean;
  terminatedAt?: number;
  finished?: boolean;
  restartRequested?: boolean;
  pendingUpdate?: UpdatePodOptions;
  activeUpdate?: UpdatePodOptions;
  startedAtMs?: number;
}

/**
 * podSyncStatus tracks one UID through the three phases (sync, terminating, terminated). Go's zero
 * time.Time is `undefined` here: virtual time starts at 0, so 0 is a real instant, not "unset".
 */
export class PodSyncStatus {
  /** The context of the current sync*Pod call; contextForWorker renews it once cancelled. */
  ctx: Context | undefined = undefined;
  /** Cancels the current sync*Pod call (UpdatePod does so on becoming terminating or a shorter grace). */
  cancelFn: (() => void) | undefined = undefined;
  /** True while a podWork is in the channel or being processed; false once completeWorkQueueNext finds none. */
  working = false;
  /** name_namespace: the identity static pods share across UIDs. */
  fullname = '';
  /** When the pod worker first observed this UID. */
  syncedAt: number | undefined = undefined;
  /** Termination was requested (may be set before the worker has stopped running syncPod). */
  terminatingAt: number | undefined = undefined;
  /** The worker observed the termination: syncPod will never run again, no container can start. */
  startedTerminating = false;
  /** Deleted in the API server, or an orphaned runtime pod with no config. */
  deleted = false;
  /**
   * The effective grace period in seconds once terminating. It only decreases, except through the
   * #115819 quirk before 1.31 (a later 0 falls back to the spec value), see calculateEffectiveGracePeriod.
   */
  gracePeriod = 0;
  /** The first kill was an eviction: content may be reaped aggressively. */
  evicted = false;
  /** syncTerminatingPod succeeded: no container is running and none will start. */
  terminatedAt: number | undefined = undefined;
  /** syncTerminatedPod succeeded (or the pod never started); every later UpdatePod is ignored. */
  finished = false;
  /** A SyncPodCreate arrived for this UID while it was terminating (UID reuse, #104847). */
  restartRequested = false;
  /**
   * When the worker goroutine first took work for the pod past the start gate (v1.27's startedAt, set in
   * startPodSync; 1.23 kept only a goroutine-local podStarted). Read only by #113145's orphan handling.
   */
  startedAtMs: number | undefined = undefined;
  /** A runtime-pod kill reached UpdatePod: the pod must be driven to completion (v1.27's observedRuntime). */
  observedRuntime = false;
  /**
   * The update the worker last took, merged as v1.27's mergeLastUpdate does: the fallback SyncKnownPods
   * replays for an orphan (#113145). Set for every pod; read only with `orphan-pod-worker-terminates`.
   */
  activeUpdate: UpdatePodOptions | undefined = undefined;
  /** Some update merged into activeUpdate carried an API pod (v1.27's activeUpdate.Pod != nil). */
  activeHasConfig = false;
  /**
   * The update UpdatePod left for the worker to take (v1.27's pendingUpdate, `pod-worker-pending-update`
   * on): the worker's only queue, its channel a mere signal. Unused with the switch off (1.23's podWork
   * channel and lastUndeliveredWorkUpdate).
   */
  pendingUpdate: UpdatePodOptions | undefined = undefined;
  /**
   * pendingUpdate is a replay of activeUpdate (requeueLastPodUpdate), not a caller's update: taken as a
   * kill, it publishes no podKillDispatched (see PodWork.replayed).
   */
  pendingReplayed = false;
  /** completedCh of each kill, closed when the pod reaches terminated. */
  notifyPostTerminating: Chan<never>[] = [];
  /** The status functions of each kill; the last one is passed to syncTerminatingPod. */
  statusPostTerminating: PodStatusFunc[] = [];

  constructor(init: PodSyncStatusInit = {}) {
    Object.assign(this, init);
  }

  isStarted(): boolean {
    return this.startedAtMs !== undefined;
  }
  /** WorkType (v1.27): the phase the status is in, which is the work a replayed update becomes. */
  workType(): PodWorkType {
    if (this.isTerminated()) return 'TerminatedPodWork';
    if (this.isTerminationRequested()) return 'TerminatingPodWork';
    return 'SyncPodWork';
  }
  isWorking(): boolean {
    return this.working;
  }
  isTerminationRequested(): boolean {
    return this.terminatingAt !== undefined;
  }
  isTerminationStarted(): boolean {
    return this.startedTerminating;
  }
  isTerminated(): boolean {
    return this.terminatedAt !== undefined;
  }
  isFinished(): boolean {
    return this.finished;
  }
  isEvicted(): boolean {
    return this.evicted;
  }
  isDeleted(): boolean {
    return this.deleted;
  }
}

/**
 * mergeLastUpdate (v1.27 podSyncStatus.mergeLastUpdate): the newest pod wins unless the update carries
 * only a running pod; a running pod is remembered for replay; the last mirror pod given is kept; kill
 * options accumulate (evict, the override). The update type and start time are not kept: a replayed
 * update is a plain sync of the status's phase.
 */
export function mergeLastUpdate(
  active: UpdatePodOptions | undefined,
  other: UpdatePodOptions,
): UpdatePodOptions {
  const opts: UpdatePodOptions = active ?? { updateType: 'SyncPodSync' };
  if (opts.pod === undefined || other.runningPod === undefined) opts.pod = other.pod;
  opts.runningPod = other.runningPod;
  if (other.mirrorPod !== undefined) opts.mirrorPod = other.mirrorPod;
  if (other.killPodOptions !== undefined) {
    const kill: KillPodOptions = { evict: other.killPodOptions.evict };
    const override = other.killPodOptions.podTerminationGracePeriodSecondsOverride;
    if (override !== undefined) kill.podTerminationGracePeriodSecondsOverride = override;
    opts.killPodOptions = kill;
  }
  return opts;
}

/**
 * isPodStatusCacheTerminal: the runtime cache shows no running container and no ready sandbox. Used on
 * first sight of a pod in a terminal phase (#105527) so a kubelet restart does not count finished pods
 * as active.
 */
export function isPodStatusCacheTerminal(status: RuntimePodStatus): boolean {
  const runningContainers = status.containerStatuses.filter((c) => c.state === 'running').length;
  const runningSandboxes = status.sandboxStatuses.filter((s) => s.ready).length;
  return runningContainers === 0 && runningSandboxes === 0;
}

/**
 * calculateEffectiveGracePeriod: the grace period can only decrease. The API server's
 * deletionGracePeriodSeconds is bedrock truth, a kill override (eviction) may shorten it further, and a
 * result of 0 that neither of them set falls back to the spec's terminationGracePeriodSeconds.
 * Before #124063 (1.31, switch `immediate-eviction-grace`) any result of 0 fell back: upstream's #115819,
 * so an override of 0 (hard eviction, force delete) became the spec value, even when an earlier kill had
 * already settled on a shorter one. #124063 tracks whether the deletion or an override set the value
 * (`overridden`) and lets such a 0 become the 1 s floor; the switch is read only where that decides.
 * Returns the grace period (always >= 1) and whether it shortened an earlier one.
 */
export function calculateEffectiveGracePeriod(
  status: PodSyncStatus,
  pod: Pod,
  options: KillPodOptions | undefined,
  fixes: Fixes,
): { gracePeriod: number; shortened: boolean } {
  let gracePeriod = status.gracePeriod;
  let overridden = false;
  // this value is bedrock truth - the apiserver owns telling us this value calculated by apiserver
  const deletionGrace = pod.metadata.deletionGracePeriodSeconds;
  if (deletionGrace !== undefined && (gracePeriod === 0 || deletionGrace < gracePeriod)) {
    gracePeriod = deletionGrace;
    overridden = true;
  }
  // we allow other parts of the kubelet (namely eviction) to request this pod be terminated faster
  const override = options?.podTerminationGracePeriodSecondsOverride;
  if (override !== undefined && (gracePeriod === 0 || override < gracePeriod)) {
    gracePeriod = override;
    overridden = true;
  }
  // make a best effort to default this value to the pod's desired intent, in the event the kubelet
  // provided no requested value (graceful termination?)
  const specGrace = pod.spec.terminationGracePeriodSeconds;
  if (gracePeriod === 0 && specGrace !== undefined && !(overridden && fixes.on('immediate-eviction-grace'))) {
    gracePeriod = specGrace;
  }
  // no matter what, we always supply a grace period of 1
  if (gracePeriod < 1) gracePeriod = 1;
  if (!(Number.isFinite(gracePeriod) && gracePeriod >= 1))
    throw new AssertionError(`effective grace period ${gracePeriod} < 1`);
  return { gracePeriod, shortened: status.gracePeriod !== 0 && status.gracePeriod !== gracePeriod };
}
