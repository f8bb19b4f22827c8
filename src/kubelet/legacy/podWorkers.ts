// Ported from kubernetes pkg/kubelet/pod_workers.go, release-1.20.
// The pre-PR-#102344 pod worker: one goroutine per pod UID that runs the kubelet's syncPod for each
// update (SyncPodKill included), keeps at most one undelivered update per UID, and never learns about
// the pod's lifecycle. `--fix pod-worker-lifecycle=off` runs this code. Its gaps are the races of
// PR #102344: a pending kill shadows every later update (and every later kill), ForgetWorker closes the
// channel while the goroutine may still be inside syncPod, and isWorking outlives ForgetWorker, so the
// worker that a later UpdatePod creates for the same UID waits for the forgotten one.

import { GoError } from '../../api/errors.js';
import type { Pod, PodStatus, UID } from '../../api/v1.js';
import type { Fact } from '../../facts.js';
import {
  AssertionError,
  type Chan,
  CLOSED,
  type Co,
  type ProcessGroup,
  type Rng,
  SELECT_TIMEOUT,
  type Sim,
  select,
  VersionedMap,
} from '../../sim/index.js';
import type { PodCache } from '../types.js';
import type { WorkQueue } from '../workQueue.js';
import type {
  EventRecorder,
  KillPodFunc,
  PodWorkers,
  SyncPodFnType,
  SyncPodOptions,
  UpdatePodOptions,
} from './types.js';

/** Jitter factor for resyncInterval. */
export const workerResyncIntervalJitterFactor = 0.5;
/** Jitter factor for backOffPeriod and backOffOnTransientErrorPeriod. */
export const workerBackOffPeriodJitterFactor = 0.5;
/** Backoff period when a transient error occurred (time.Second). */
export const backOffOnTransientErrorPeriodMs = 1000;
/** NetworkNotReadyErrorMsg from pkg/kubelet/errors.go. */
export const NetworkNotReadyErrorMsg = 'network is not ready';

/**
 * Go's zero time.Time, the first lastSyncTime of a worker: earlier than every virtual instant (virtual
 * time starts at 0), so the first GetNewerThan accepts any cache entry.
 */
export const zeroTimeMs = -1;

export interface LegacyPodWorkersOptions {
  readonly sim: Sim;
  /** The stream wait.Jitter draws from. */
  readonly rng: Rng;
  /** The kubelet's goroutines: the per-pod workers are spawned into it. */
  readonly group: ProcessGroup;
  /** The function run to sync the desired state of a pod (kl.syncPod). */
  readonly syncPodFn: SyncPodFnType;
  readonly workQueue: WorkQueue;
  readonly podCache: PodCache;
  /** resyncInterval: how long to wait until the next sync after a successful one. */
  readonly resyncIntervalMs: number;
  /** backOffPeriod: how long to back off after a sync error. */
  readonly backOffPeriodMs: number;
  readonly nodeName: string;
  /** Facts for invariants and traces; observation only. */
  readonly publish?: ((fact: Fact) => void) | undefined;
}

/** podWorkers (1.20). Between two yields the code runs atomically, which is what podLock guarded. */
export class LegacyPodWorkers implements PodWorkers {
  /**
   * Tracks all running per-pod goroutines: each processes the updates received through its channel.
   * Exposed read-only for tests and observers, as pod_workers_test.go reads the Go map.
   */
  /** Versioned: housekeeping's idle check counts its changes (src/sim/versioned.ts). */
  readonly podUpdates = new VersionedMap<UID, Chan<UpdatePodOptions>>();
  /**
   * The current state of the per-pod goroutines. Every update for a pod that comes in while another
   * update of it is being processed is not sent. Upstream never deletes entries (not even in
   * removeWorker); neither does this port.
   */
  readonly isWorking = new Map<UID, boolean>();
  /** The last undelivered work item per pod: an item is undelivered if it comes in while the worker works. */
  readonly lastUndeliveredWorkUpdate = new Map<UID, UpdatePodOptions>();

  private readonly sim: Sim;
  private readonly rng: Rng;
  private readonly group: ProcessGroup;
  private readonly syncPodFn: SyncPodFnType;
  private readonly workQueue: WorkQueue;
  private readonly podCache: PodCache;
  private readonly resyncIntervalMs: number;
  private readonly backOffPeriodMs: number;
  private readonly nodeName: string;
  private readonly publish: ((fact: Fact) => void) | undefined;

  constructor(o: LegacyPodWorkersOptions) {
    this.sim = o.sim;
    this.rng = o.rng;
    this.group = o.group;
    this.syncPodFn = o.syncPodFn;
    this.workQueue = o.workQueue;
    this.podCache = o.podCache;
    this.resyncIntervalMs = o.resyncIntervalMs;
    this.backOffPeriodMs = o.backOffPeriodMs;
    this.nodeName = o.nodeName;
    this.publish = o.publish;
  }

  private *managePodLoop(podUpdates: Chan<UpdatePodOptions>): Co<void> {
    let lastSyncTimeMs = zeroTimeMs;
    for (;;) {
      // for update := range podUpdates
      const update = yield* podUpdates.recv();
      if (update === CLOSED) return;
      const pod = update.pod;
      const podUID = pod.metadata.uid;
      // This is a blocking call that would return only if the cache has an entry for the pod that is
      // newer than minRuntimeCache Time. This ensures the worker doesn't start syncing until after the
      // cache is at least newer than the finished time of the previous sync.
      // (The simulated cache has no error return, so upstream's FailedSync branch cannot happen here.)
      const status = yield* this.podCache.getNewerThan(podUID, lastSyncTimeMs);
      this.publish?.({
        kind: 'podWorkerPhase',
        phase: 'sync',
        atMs: this.sim.nowMs,
        node: this.nodeName,
        uid: podUID,
        pod: pod.metadata.name,
      });
      const options: SyncPodOptions = {
        mirrorPod: update.mirrorPod,
        pod,
        podStatus: status,
        killPodOptions: update.killPodOptions,
        updateType: update.updateType,
      };
      const err = yield* this.syncPodFn(options);
      lastSyncTimeMs = this.sim.nowMs;
      // notify the call-back function if the operation succeeded or not
      update.onCompleteFunc?.(err);
      // (upstream logs "Error syncing pod ..., skipping" here)
      this.wrapUp(podUID, err);
    }
  }

  /**
   * UpdatePod: apply the new setting to the specified pod. If the options provide an OnCompleteFunc, it
   * is invoked if the update is accepted. Update requests are ignored if a kill pod request is pending.
   */
  updatePod(options: UpdatePodOptions): void {
    const pod = options.pod;
    const uid = pod.metadata.uid;
    let podUpdates = this.podUpdates.get(uid);
    if (podUpdates === undefined) {
      // We need to have a buffer here, because checkForUpdates() method that puts an update into channel
      // is called from the same goroutine where the channel is consumed. However, it is guaranteed that
      // in such case the channel is empty, so buffer of size 1 is enough.
      const ch = this.sim.chan<UpdatePodOptions>(1, `${this.nodeName}/podUpdates/${uid}`);
      podUpdates = ch;
      this.podUpdates.set(uid, ch);
      // Creating a new pod worker either means this is a new pod, or that the kubelet just restarted.
      this.sim.spawn(`${this.nodeName}/podWorker/${uid}`, this.managePodLoop(ch), this.group);
    }
    if (this.isWorking.get(uid) !== true) {
      this.isWorking.set(uid, true);
      // podUpdates <- *options, under podLock. isWorking false means the channel is empty, so this never
      // blocks; if it would, the Go kubelet would deadlock, and the assertion reports it.
      const sent = podUpdates.trySend(Object.assign({}, options));
      if (!sent)
        throw new AssertionError(`pod worker ${uid}: send on a full update channel while not working`);
      if (options.updateType === 'SyncPodKill') this.publishKillDispatched(pod);
    } else {
      // if a request to kill a pod is pending, we do not let anything overwrite that request.
      const update = this.lastUndeliveredWorkUpdate.get(uid);
      if (update === undefined || update.updateType !== 'SyncPodKill') {
        this.lastUndeliveredWorkUpdate.set(uid, Object.assign({}, options));
      }
    }
  }

  private removeWorker(uid: UID): void {
    const ch = this.podUpdates.get(uid);
    if (ch !== undefined) {
      ch.close();
      this.podUpdates.delete(uid);
      // If there is an undelivered work update for this pod we need to remove it since per-pod goroutine
      // won't be able to put it to the already closed channel when it finishes processing the current
      // work update.
      this.lastUndeliveredWorkUpdate.delete(uid);
    }
  }

  /** ForgetWorker: closes the pod's channel. A goroutine inside syncPod keeps running that sync. */
  forgetWorker(uid: UID): void {
    this.removeWorker(uid);
  }

  /** ForgetNonExistingPodWorkers: removes the worker of every pod not in `desiredPods`. */
  forgetNonExistingPodWorkers(desiredPods: ReadonlySet<UID>): void {
    // Upstream ranges over a Go map (random order); the order is unobservable here: all of it is atomic.
    for (const key of [...this.podUpdates.keys()]) {
      if (!desiredPods.has(key)) this.removeWorker(key);
    }
  }

  private wrapUp(uid: UID, syncErr: GoError | undefined): void {
    // Requeue the last update if the last sync returned error.
    if (syncErr === undefined) {
      // No error; requeue at the regular resync interval.
      this.workQueue.enqueue(
        uid,
        this.rng.jitterMs(this.resyncIntervalMs, workerResyncIntervalJitterFactor, 'podWorkers resync'),
      );
    } else if (syncErr.message.includes(NetworkNotReadyErrorMsg)) {
      // Network is not ready; back off for short period of time and retry as network might be ready soon.
      this.workQueue.enqueue(
        uid,
        this.rng.jitterMs(
          backOffOnTransientErrorPeriodMs,
          workerBackOffPeriodJitterFactor,
          'podWorkers back-off',
        ),
      );
    } else {
      // Error occurred during the sync; back off and then retry.
      this.workQueue.enqueue(
        uid,
        this.rng.jitterMs(this.backOffPeriodMs, workerBackOffPeriodJitterFactor, 'podWorkers back-off'),
      );
    }
    this.checkForUpdates(uid);
  }

  /** Ground truth of what the pod worker was handed: a kill whose grace is settled now. */
  private publishKillDispatched(pod: Pod): void {
    this.publish?.({
      kind: 'podKillDispatched',
      atMs: this.sim.nowMs,
      node: this.nodeName,
      uid: pod.metadata.uid,
      pod: pod.metadata.name,
    });
  }

  private checkForUpdates(uid: UID): void {
    const workUpdate = this.lastUndeliveredWorkUpdate.get(uid);
    if (workUpdate !== undefined) {
      // p.podUpdates[uid] <- workUpdate. After ForgetWorker and a new UpdatePod this is the NEW worker's
      // channel (the old goroutine feeds its successor). It is empty: nothing is sent to a channel while
      // isWorking is true except from here.
      const ch = this.podUpdates.get(uid);
      if (!(ch !== undefined))
        throw new AssertionError(`pod worker ${uid}: undelivered update without a channel`);
      const sent = ch.trySend(workUpdate);
      if (!sent)
        throw new AssertionError(`pod worker ${uid}: send on a full update channel in checkForUpdates`);
      if (workUpdate.updateType === 'SyncPodKill') this.publishKillDispatched(workUpdate.pod);
      this.lastUndeliveredWorkUpdate.delete(uid);
    } else {
      this.isWorking.set(uid, false);
    }
  }
}

/** The timeout floor of killPodNow: 10 s "to wait for kubelet->runtime traffic to complete in sigkill". */
export const killPodNowMinTimeoutSeconds = 10;

/**
 * killPodNow returns a KillPodFunc that can be used to kill a pod (eviction, preemption). It sends a
 * SyncPodKill through the pod workers and waits for its OnCompleteFunc, or times out.
 */
export function killPodNow(sim: Sim, podWorkers: PodWorkers, recorder?: EventRecorder): KillPodFunc {
  // A plain closure over a module generator: a generator closure would get a hidden class of its own.
  return (pod, status, gracePeriodOverride) =>
    killPodNowOp(sim, podWorkers, recorder, pod, status, gracePeriodOverride);
}

function* killPodNowOp(
  sim: Sim,
  podWorkers: PodWorkers,
  recorder: EventRecorder | undefined,
  pod: Pod,
  status: PodStatus,
  gracePeriodOverride: number | undefined,
): Co<GoError | undefined> {
  // determine the grace period to use when killing the pod
  let gracePeriod = 0;
  if (gracePeriodOverride !== undefined) {
    gracePeriod = gracePeriodOverride;
  } else if (pod.spec.terminationGracePeriodSeconds !== undefined) {
    gracePeriod = pod.spec.terminationGracePeriodSeconds;
  }

  // we timeout and return an error if we don't get a callback within a reasonable time.
  let timeout = gracePeriod + Math.trunc(gracePeriod / 2);
  if (timeout < killPodNowMinTimeoutSeconds) timeout = killPodNowMinTimeoutSeconds;
  const timeoutMs = timeout * 1000;

  // open a channel we block against until we get a result
  const ch = sim.chan<{ err: GoError | undefined }>(1, `killPodNow/${pod.metadata.uid}`);
  podWorkers.updatePod({
    pod,
    updateType: 'SyncPodKill',
    onCompleteFunc: (err) => {
      // ch <- response{err}: the update is synced once, so the one-slot buffer is free.
      const sent = ch.trySend({ err });
      if (!sent) throw new AssertionError(`killPodNow ${pod.metadata.uid}: completion sent twice`);
    },
    killPodOptions: {
      podStatusFunc: () => status,
      podTerminationGracePeriodSecondsOverride: gracePeriodOverride,
    },
  });

  // wait for either a response, or a timeout
  const r = yield* select([{ recv: ch as Chan<unknown> }], timeoutMs);
  if (r.index === SELECT_TIMEOUT) {
    recorder?.eventf(
      pod,
      'Warning',
      'ExceededGracePeriod',
      'Container runtime did not kill the pod within specified grace period.',
    );
    return new GoError('timeout waiting to kill pod');
  }
  return (r.value as { err: GoError | undefined }).err;
}
