// Ported from kubernetes pkg/kubelet/pod_workers.go, release-1.23.
// The pod worker owns the whole lifecycle of each pod UID (PR #102344): one goroutine per UID drives it
// through syncPod -> syncTerminatingPod -> syncTerminatedPod, and every other kubelet loop asks it by UID
// whether containers may run. Go's podLock is implicit: kernel code runs atomically between two yields,
// and none of the methods yields except managePodLoop around the cache read and the sync calls, which is
// where Go releases the lock too. This file is the goroutine side (UpdatePod, managePodLoop, completeWork);
// the state the lock guards, and its transitions, are in podWorkersState.ts; the start gate (allowPodStart,
// and v1.27's startPodSync) in podWorkersStart.ts; v1.27's pendingUpdate queue (switch
// `pod-worker-pending-update`) in podWorkersPending.ts; killPodNow in killPodNow.ts.
// Four follow-ups of #102344 are switches; with one off, the code before that change runs. No 1.22.0
// tree is on disk: the before-code is release-1.23's with the PR's additions removed, checked against
// a 1.22.0-era pod_workers.go (terminatingStaticPodFullnames, no restartRequested, no first-sight
// branch, no allowPodStart) and the PR descriptions (docs/fixes.md).

import type { GoError } from '../api/errors.js';
import {
  getPodFullName,
  isPodPhaseTerminal,
  isStaticPod,
  type Pod,
  type RuntimePodStatus,
  runtimePodToAPIPod,
  type UID,
} from '../api/v1.js';
import { WRITES_POD_WORKER, WRITES_PODS } from '../elisionMasks.js';
import type { Fact } from '../facts.js';
import { Fixes } from '../fixes.js';
import {
  AssertionError,
  assert,
  type Chan,
  CLOSED,
  type Co,
  type ProcessGroup,
  type Rng,
  type Sim,
} from '../sim/index.js';
import { adoptKnownPod, mergeActiveUpdate, setPendingUpdate } from './podWorkersPending.js';
import { PodWorkerStartGate, workerBackOffPeriodJitterFactor } from './podWorkersStart.js';
import { PodWorkerStates, type WorkerPhase } from './podWorkersState.js';
import {
  calculateEffectiveGracePeriod,
  isPodStatusCacheTerminal,
  PodSyncStatus,
  type PodWork,
} from './podWorkersStatus.js';
import type { PodCache, PodStateProvider, PodSyncer, PodWorkType, UpdatePodOptions } from './types.js';
import type { WorkQueue } from './workQueue.js';

export { killPodNow } from './killPodNow.js';
export {
  calculateEffectiveGracePeriod,
  isPodStatusCacheTerminal,
  PodSyncStatus,
  type PodWork,
  PodWorkerStates,
};

/** Jitter factor for resyncInterval. */
export const workerResyncIntervalJitterFactor = 0.5;
export type { workerBackOffPeriodJitterFactor };
/** Back-off when the network is not ready: it may be ready soon, so retry sooner than backOffPeriod. */
export const backOffOnTransientErrorPeriodMs = 1000;
/** kubelet.go NetworkNotReadyErrorMsg: a sync error containing it gets the short back-off. */
export const networkNotReadyErrorMsg = 'network is not ready';

export interface PodWorkersOptions {
  sim: Sim;
  /** The stream wait.Jitter draws from. */
  rng: Rng;
  /** The kubelet's processes: a kubelet restart kills every worker goroutine with it. */
  group: ProcessGroup;
  syncer: PodSyncer;
  workQueue: WorkQueue;
  podCache: PodCache;
  resyncIntervalMs: number;
  backOffPeriodMs: number;
  nodeName: string;
  publish?: ((fact: Fact) => void) | undefined;
  /** The switches of the follow-up fixes (default: all on). */
  fixes?: Fixes | undefined;
}

const phaseOfWork: Record<PodWorkType, WorkerPhase> = {
  SyncPodWork: 'sync',
  TerminatingPodWork: 'terminating',
  TerminatedPodWork: 'terminated',
};

/** podWorkers: one goroutine per pod UID, fed by UpdatePod; the state it guards is in PodWorkerStates. */
export class PodWorkers extends PodWorkerStartGate implements PodStateProvider {
  /** Test hook: interposes on a worker's channel when its goroutine starts (to delay or hold work). */
  workerChannelFn: ((uid: UID, inCh: Chan<PodWork>) => Chan<PodWork>) | undefined = undefined;

  private readonly group: ProcessGroup;
  private readonly syncer: PodSyncer;
  private readonly podCache: PodCache;
  private readonly resyncIntervalMs: number;

  constructor(o: PodWorkersOptions) {
    super(o.sim, o.nodeName, o.publish, o.fixes ?? Fixes.all(), o.rng, o.workQueue, o.backOffPeriodMs);
    assert(o.resyncIntervalMs >= 0 && o.backOffPeriodMs >= 0, 'negative pod worker periods');
    this.group = o.group;
    this.syncer = o.syncer;
    this.podCache = o.podCache;
    this.resyncIntervalMs = o.resyncIntervalMs;
  }

  // ---- UpdatePod ----

  /**
   * UpdatePod carries a configuration change or a termination to a pod. A pod becomes terminating when
   * deleted in the API server, seen in a terminal phase, or killed (evicted) by the kubelet. Never blocks.
   */
  updatePod(options: UpdatePodOptions): void {
    // Go passes the options by value; copy so the caller's object is never changed.
    // Object.assign, not a spread: V8 gives each megamorphic spread's copy a hidden class of its own.
    const opts: UpdatePodOptions = Object.assign({}, options);
    // An orphan (no config, only runtime state) runs only the terminating part of the lifecycle.
    let pod = opts.pod;
    let isRuntimePod = false;
    if (opts.runningPod !== undefined) {
      if (opts.pod === undefined) {
        pod = runtimePodToAPIPod(opts.runningPod, this.nodeName);
        if (opts.updateType !== 'SyncPodKill') return; // runtime pods can only be killed
        opts.pod = pod;
        isRuntimePod = true;
      } else {
        opts.runningPod = undefined; // only valid when Pod is not specified
      }
    }
    assert(pod !== undefined, 'UpdatePod needs a pod or a running pod');
    const uid = pod.metadata.uid;
    const now = this.sim.nowMs;

    let status = this.podSyncStatuses.get(uid);
    /** #117019's first sight: terminated, not finished, so the worker still runs SyncTerminatedPod. */
    let firstSightSynced = false;
    if (status === undefined) {
      status = new PodSyncStatus({ syncedAt: now, fullname: getPodFullName(pod) });
      // First sight of a terminal pod whose runtime shows nothing running (e.g. after a kubelet restart):
      // record it as terminated so it never counts as active (#105527). Before it, such a pod got a fresh
      // status and the terminal-phase case below sent it through terminating and terminated again,
      // counting as active in admission meanwhile (issue #105523). #105527 also recorded it finished, so
      // SyncTerminatedPod never ran and a deleted pod was never removed from the API server (#116954);
      // #117019 (1.28, 1.27.2) leaves it unfinished: the worker starts and runs SyncTerminatedPod.
      if (
        !isRuntimePod &&
        isPodPhaseTerminal(pod.status.phase) &&
        this.fixes.on('terminal-pod-on-first-sight')
      ) {
        if (isPodStatusCacheTerminal(this.podCache.get(uid))) {
          firstSightSynced = this.fixes.on('terminal-pod-first-sight-synced');
          if (firstSightSynced) {
            this.publishPod(pod, {
              kind: 'podTerminationRequested',
              reason: `terminal phase ${pod.status.phase} when first seen, nothing running: SyncTerminatedPod still runs`,
            });
          } else {
            this.publishPod(pod, { kind: 'podFinishedOnFirstSight' });
          }
          status = new PodSyncStatus({
            terminatedAt: now,
            terminatingAt: now,
            syncedAt: now,
            startedTerminating: true,
            finished: !firstSightSynced,
            fullname: getPodFullName(pod),
          });
        }
      }
      this.podSyncStatuses.set(uid, status);
      this.sim.touch(WRITES_PODS); // elision: a new pod worker (src/elisionMasks.ts)
    }
    // Once a runtime pod was seen, the worker must drive the pod to completion even if it never started
    // it (v1.27's observedRuntime, read by #113145's orphan handling in SyncKnownPods).
    if (isRuntimePod) status.observedRuntime = true;
    // v1.27 (#113145): a runtime pod kill of a UID the worker has a pod for kills that pod instead (its
    // spec and status), through SyncTerminatingPod rather than the runtime-only kill.
    const pending = this.fixes.on('pod-worker-pending-update');
    if (isRuntimePod && pending && adoptKnownPod(status, opts)) pod = opts.pod as Pod;

    // A create for a UID already terminating means two pods with one UID close together (usually a static
    // pod): remember it so SyncKnownPods resets the UID once terminated and the pod can start again
    // (#104847). Before it, the create fell through and became one more kill of the terminating UID.
    // v1.28 asks this only when the UID is not new ("!firstTime": not for a terminal pod seen first after
    // a restart), which matters only once #117019 leaves such a pod unfinished: the create would otherwise
    // return before any worker starts, and SyncTerminatedPod would never run.
    if (
      opts.updateType === 'SyncPodCreate' &&
      status.isTerminationRequested() &&
      !firstSightSynced &&
      this.fixes.on('pod-uid-reuse-restart')
    ) {
      status.restartRequested = true;
      this.sim.touch(WRITES_PODS);
      return;
    }

    // Once finished, a UID cannot re-enter the pod worker until housekeeping purges it ("Pod is finished
    // processing, no further updates"); before #104847 housekeeping never purged one still in config.
    if (status.isFinished()) return;

    // The transition to terminating; the first matching case wins.
    let becameTerminating = false;
    if (!status.isTerminationRequested()) {
      let reason: string | undefined;
      if (isRuntimePod) {
        status.deleted = true;
        reason = 'orphaned runtime pod';
      } else if (pod.metadata.deletionTimestamp !== undefined) {
        status.deleted = true;
        reason = 'marked for graceful deletion';
      } else if (isPodPhaseTerminal(pod.status.phase)) {
        reason = `terminal phase ${pod.status.phase}`;
      } else if (opts.updateType === 'SyncPodKill') {
        if (opts.killPodOptions?.evict === true) {
          status.evicted = true;
          reason = 'evicted by the kubelet';
        } else {
          reason = 'removed by the kubelet';
        }
      }
      if (reason !== undefined) {
        status.terminatingAt = now;
        becameTerminating = true;
        this.sim.touch(WRITES_PODS);
        this.publishPod(pod, { kind: 'podTerminationRequested', reason });
      }
    }

    // Once terminating, every update is a kill and the grace period can only decrease.
    let workType: PodWorkType;
    let wasGracePeriodShortened = false;
    if (status.isTerminated()) {
      // A stale runtime-pod kill (housekeeping saw an old runtime cache) waits for the worker to finish.
      if (isRuntimePod) return;
      workType = 'TerminatedPodWork';
      opts.killPodOptions?.completedCh?.close();
      opts.killPodOptions = undefined;
    } else if (status.isTerminationRequested()) {
      workType = 'TerminatingPodWork';
      const kill = Object.assign({}, opts.killPodOptions ?? { evict: false });
      opts.killPodOptions = kill;
      if (kill.completedCh !== undefined) status.notifyPostTerminating.push(kill.completedCh);
      if (kill.podStatusFunc !== undefined) status.statusPostTerminating.push(kill.podStatusFunc);
      const { gracePeriod, shortened } = calculateEffectiveGracePeriod(status, pod, kill, this.fixes);
      wasGracePeriodShortened = shortened;
      // Only the fallback to the spec (a settled 0) makes the grace longer: upstream's #115819.
      if (status.gracePeriod !== 0 && gracePeriod > status.gracePeriod) {
        this.publishPod(pod, {
          kind: 'gracePeriodFellBack',
          fromSeconds: status.gracePeriod,
          toSeconds: gracePeriod,
          cause: pod.metadata.deletionGracePeriodSeconds === 0 ? 'deletion' : 'override',
        });
      }
      status.gracePeriod = gracePeriod;
      // Always pass the computed value down, so syncTerminatingPod never recalculates; never below 1.
      kill.podTerminationGracePeriodSecondsOverride = gracePeriod;
      // 1.22.0: a static pod comes through, start tracking it explicitly (cleared by the worker loop).
      // #104743 replaced this with the started / waiting maps.
      if (isStaticPod(pod) && !this.fixes.on('static-pod-start-exclusion')) {
        this.terminatingStaticPodFullnames.add(getPodFullName(pod));
      }
    } else {
      workType = 'SyncPodWork';
      // KillPodOptions are meaningless outside the terminating phase: release a waiting killer at once.
      if (opts.killPodOptions !== undefined) {
        opts.killPodOptions.completedCh?.close();
        opts.killPodOptions = undefined;
      }
    }

    const work: PodWork = { workType, options: opts };

    // Start the worker goroutine if there is none.
    let podUpdates = this.podUpdates.get(uid);
    if (podUpdates === undefined) {
      // Capacity 1: completeWorkQueueNext sends from the consuming goroutine, when the channel is empty.
      podUpdates = this.sim.chan<PodWork>(1, `podUpdates/${uid}`);
      this.podUpdates.set(uid, podUpdates);
      // Static pods start in the order UpdatePod first saw them (#104743).
      if (isStaticPod(pod) && this.fixes.on('static-pod-start-exclusion')) {
        const waiting = this.waitingToStartStaticPodsByFullname.get(status.fullname) ?? [];
        waiting.push(uid);
        this.waitingToStartStaticPodsByFullname.set(status.fullname, waiting);
      }
      const outCh = this.workerChannelFn !== undefined ? this.workerChannelFn(uid, podUpdates) : podUpdates;
      // What it changes besides its lifecycle (touched where it changes): src/elisionMasks.ts.
      this.sim.spawn(
        `${this.nodeName}/podWorker/${uid}`,
        this.managePodLoop(uid, outCh),
        this.group,
      ).writeMask = WRITES_POD_WORKER;
    }

    if (pending) {
      // v1.27: the update is the pending one, taken (as the status's phase) when the worker is free.
      setPendingUpdate(status, opts, podUpdates);
      if ((becameTerminating || wasGracePeriodShortened) && status.cancelFn !== undefined) {
        status.cancelFn();
      }
      return;
    }

    // Dispatch at once if the worker is idle; the early return means no cancellation on this path.
    if (!status.isWorking()) {
      status.working = true;
      const sent = podUpdates.trySend(work);
      if (!sent) throw new AssertionError(`pod worker channel of ${uid} full while the worker was idle`);
      if (workType === 'TerminatingPodWork') this.publishPod(pod, { kind: 'podKillDispatched' });
      return;
    }

    // The worker is busy: keep only the newest work (the earliest StartTime is kept for latency metrics).
    const undelivered = this.lastUndeliveredWorkUpdate.get(uid);
    const earlier = undelivered?.options.startTimeMs;
    const later = work.options.startTimeMs;
    if (earlier !== undefined && later !== undefined && earlier < later) work.options.startTimeMs = earlier;
    this.lastUndeliveredWorkUpdate.set(uid, work);

    // Interrupt the running sync*Pod so the termination (or the shorter grace period) takes effect now.
    if ((becameTerminating || wasGracePeriodShortened) && status.cancelFn !== undefined) {
      status.cancelFn();
    }
  }

  // ---- the worker goroutine ----

  private *managePodLoop(workerUID: UID, podUpdates: Chan<PodWork>): Co<void> {
    // Go's zero time: any cache entry (stamped >= 0) is newer than it.
    let lastSyncTime = -1;
    let podStarted = false;
    for (;;) {
      const received = yield* podUpdates.recv();
      if (received === CLOSED) return;
      // v1.27's startPodSync: "pod status has disappeared, the worker should exit". Only #113145's
      // SyncKnownPods forgets an unfinished worker (an orphan that never started) with work still queued.
      if (!this.podSyncStatuses.has(workerUID)) return;
      let update = received;
      if (this.fixes.on('pod-worker-pending-update')) {
        const started = this.startPodSync(workerUID);
        if (started === 'exit') return;
        if (started === 'wait') continue;
        update = started;
      }
      const pod = update.options.pod;
      assert(pod !== undefined, 'pod work without a pod');
      const uid = pod.metadata.uid;

      // A pod terminated before it was allowed to start is cleaned up here and the worker exits. Before
      // #104743 (1.22.0-1.22.4) there was no gate: a new static pod UID started while the old one with
      // the same fullname was still terminating. #107900 only changed this gate, so with #104743 off it
      // has nothing to act on.
      // (allowPodStart lets every non-static pod start: the gate is asked for static pods alone.)
      if (
        !podStarted &&
        received === update &&
        isStaticPod(pod) &&
        this.fixes.on('static-pod-start-exclusion')
      ) {
        const { canStart, canEverStart } = this.allowPodStart(pod);
        if (!canEverStart) {
          this.completeUnstartedTerminated(pod);
          return;
        }
        if (!canStart) continue; // requeued with back-off, working already false
        podStarted = true;
      }
      // v1.27's startPodSync: a pod past the start gate is started (a runtime-only kill does not start
      // it), and the update it takes becomes the one SyncKnownPods replays for an orphan (#113145).
      const taken = this.podSyncStatuses.get(uid);
      if (taken !== undefined && received === update) {
        if (update.options.runningPod === undefined) taken.startedAtMs ??= this.sim.nowMs;
        mergeActiveUpdate(taken, update.options);
      }

      let isTerminal = false;
      let err: GoError | undefined;
      {
        // A runtime pod needs no status; otherwise wait for a PLEG refresh newer than the last sync, so
        // the sync sees the effect of the previous one.
        let podStatus: RuntimePodStatus | undefined;
        if (update.options.runningPod === undefined) {
          podStatus = yield* this.podCache.getNewerThan(uid, lastSyncTime);
        }
        const ctx = this.contextForWorker(uid);
        if (!(ctx !== undefined)) throw new AssertionError(`pod worker ${uid} runs without a sync status`);
        this.publishPhase(pod, phaseOfWork[update.workType]);
        switch (update.workType) {
          case 'TerminatedPodWork':
            err = yield* this.syncer.syncTerminatedPod(ctx, pod, podStatus);
            break;
          case 'TerminatingPodWork': {
            const gracePeriod = update.options.killPodOptions?.podTerminationGracePeriodSecondsOverride;
            const podStatusFn = this.acknowledgeTerminating(pod);
            err = yield* this.syncer.syncTerminatingPod(
              ctx,
              pod,
              podStatus,
              update.options.runningPod,
              gracePeriod,
              podStatusFn,
            );
            break;
          }
          case 'SyncPodWork': {
            const r = yield* this.syncer.syncPod(
              ctx,
              update.options.updateType,
              pod,
              update.options.mirrorPod,
              podStatus,
            );
            isTerminal = r.isTerminal;
            err = r.err;
            break;
          }
        }
        lastSyncTime = this.sim.nowMs;
      }

      let phaseTransition = false;
      if (err !== undefined) {
        // context.Canceled: an update is already queued. Any other error: a retry is queued below.
      } else if (update.workType === 'TerminatedPodWork') {
        this.completeTerminated(pod);
        return; // the worker can shut down
      } else if (update.workType === 'TerminatingPodWork') {
        // Orphans have no config to clean up afterwards: the worker exits without a terminated phase.
        if (update.options.runningPod !== undefined) {
          this.completeTerminatingRuntimePod(pod);
          return;
        }
        this.completeTerminating(pod);
        phaseTransition = true;
      } else if (isTerminal) {
        // syncPod saw the pod reach a terminal phase on its own: move to terminating.
        this.completeSync(pod);
        phaseTransition = true;
      }
      this.completeWork(pod, phaseTransition, err);
    }
  }

  /** completeWork: requeue (phase change at once, resync, or back-off on error), then run pending work. */
  private completeWork(pod: Pod, phaseTransition: boolean, syncErr: GoError | undefined): void {
    let delayMs: number;
    if (phaseTransition) delayMs = 0;
    else if (syncErr === undefined) {
      delayMs = this.rng.jitterMs(
        this.resyncIntervalMs,
        workerResyncIntervalJitterFactor,
        'podWorkers resync',
      );
    } else if (syncErr.message.includes(networkNotReadyErrorMsg)) {
      delayMs = this.rng.jitterMs(
        backOffOnTransientErrorPeriodMs,
        workerBackOffPeriodJitterFactor,
        'podWorkers back-off',
      );
    } else {
      // Any other error, context.Canceled included.
      delayMs = this.rng.jitterMs(
        this.backOffPeriodMs,
        workerBackOffPeriodJitterFactor,
        'podWorkers back-off',
      );
    }
    this.workQueue.enqueue(pod.metadata.uid, delayMs);
    this.completeWorkQueueNext(pod.metadata.uid);
  }
}
