// Ported from kubernetes pkg/kubelet/pod_workers.go, release-1.23.
// The half of podWorkers that the podLock guards: the per-UID statuses, the static pod maps, the
// predicates other kubelet loops ask, the complete* transitions the worker goroutine reports through,
// and housekeeping (SyncKnownPods). No method here yields; the goroutine side is in podWorkers.ts.
// Fix `static-pod-start-exclusion` off (1.22.0-1.22.4, before #104743) tracks terminating static pods
// by fullname only (terminatingStaticPodFullnames, for orphaned mirror pod cleanup); fix
// `pod-uid-reuse-restart` off (before #104847) purges only UIDs that left the config.

import { getPodFullName, type Pod, type UID } from '../api/v1.js';
import { WRITES_PODS } from '../elisionMasks.js';
import type { Fact } from '../facts.js';
import { Fixes } from '../fixes.js';
import { AssertionError, type Chan, type Context, type Sim, VersionedMap } from '../sim/index.js';
import { requeueLastPodUpdate as requeuePending, signal } from './podWorkersPending.js';
import { calculateEffectiveGracePeriod, type PodSyncStatus, type PodWork } from './podWorkersStatus.js';
import type { PodStateProvider, PodStatusFunc, PodWorkerState } from './types.js';

export type WorkerPhase = 'sync' | 'terminating' | 'terminated' | 'finished';
type PodFact = Extract<
  Fact,
  {
    kind:
      | 'podTerminated'
      | 'podWorkerPhase'
      | 'podTerminationRequested'
      | 'podFinishedOnFirstSight'
      | 'podKillDispatched'
      | 'gracePeriodFellBack';
  }
>;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type PodFactBody = DistributiveOmit<PodFact, 'atMs' | 'node' | 'uid' | 'pod'>;

/**
 * The state of podWorkers. The maps are public because upstream's tests read and preset these
 * package-private fields; nothing outside tests should write them.
 */
export class PodWorkerStates implements PodStateProvider {
  /** True once SyncKnownPods ran: every working pod has been sent through UpdatePod. */
  podsSynced = false;
  /** One cap-1 channel per worker goroutine. */
  readonly podUpdates = new Map<UID, Chan<PodWork>>();
  /** The newest work that arrived while the worker was busy; at most one per UID. */
  readonly lastUndeliveredWorkUpdate = new Map<UID, PodWork>();
  /** Versioned: housekeeping's idle check counts its changes (src/sim/versioned.ts). */
  readonly podSyncStatuses = new VersionedMap<UID, PodSyncStatus>();
  /** The one static pod per fullname allowed to run (#104743). */
  readonly startedStaticPodsByFullname = new Map<string, UID>();
  /** Static pods waiting to start, in UpdatePod order. */
  readonly waitingToStartStaticPodsByFullname = new Map<string, UID[]>();
  /**
   * Before #104743 (fix `static-pod-start-exclusion` off): the fullnames of static pods being killed,
   * set by UpdatePod and cleared when any UID of that fullname completes termination. Only orphaned
   * mirror pod cleanup reads it; nothing holds a new UID back.
   */
  readonly terminatingStaticPodFullnames = new Set<string>();

  /** The phase last published per status object (facts only; a reused UID gets a new status). */
  private readonly publishedPhase = new WeakMap<PodSyncStatus, WorkerPhase>();

  constructor(
    readonly sim: Sim,
    readonly nodeName: string,
    private readonly publishFn: ((fact: Fact) => void) | undefined,
    readonly fixes: Fixes = Fixes.all(),
  ) {}

  // ---- PodStateProvider (section 3.5 of the notes: known UID / unknown UID) ----

  isPodKnownTerminated(uid: UID): boolean {
    // An unknown pod is not known to be terminated (the worker is not aware of it).
    return this.podSyncStatuses.get(uid)?.isTerminated() ?? false;
  }

  couldHaveRunningContainers(uid: UID): boolean {
    const status = this.podSyncStatuses.get(uid);
    // Once all pods are synced, a pod without a sync status is known not to be running.
    return status !== undefined ? !status.isTerminated() : !this.podsSynced;
  }

  isPodTerminationRequested(uid: UID): boolean {
    // The pod may still be setting up; an unknown pod is not terminating (cleanup loops use
    // shouldPodContainersBeTerminating so they do not skip pods already removed from config).
    return this.podSyncStatuses.get(uid)?.isTerminationRequested() ?? false;
  }

  shouldPodContainersBeTerminating(uid: UID): boolean {
    const status = this.podSyncStatuses.get(uid);
    // Wait until the worker observed the termination: syncPod will not run again, no container can start.
    return status !== undefined ? status.isTerminationStarted() : this.podsSynced;
  }

  shouldPodRuntimeBeRemoved(uid: UID): boolean {
    const status = this.podSyncStatuses.get(uid);
    return status !== undefined ? status.isTerminated() : this.podsSynced;
  }

  shouldPodContentBeRemoved(uid: UID): boolean {
    const status = this.podSyncStatuses.get(uid);
    if (status === undefined) return this.podsSynced;
    return status.isEvicted() || (status.isDeleted() && status.isTerminated());
  }

  /** A started static pod of this fullname is terminating and not yet terminated (orphan mirror cleanup). */
  isPodForMirrorPodTerminatingByFullName(podFullName: string): boolean {
    // Before #104743 the fullname set was the whole answer (pod_workers.go of 1.22.0).
    if (!this.fixes.on('static-pod-start-exclusion'))
      return this.terminatingStaticPodFullnames.has(podFullName);
    const uid = this.startedStaticPodsByFullname.get(podFullName);
    if (uid === undefined) return false;
    const status = this.podSyncStatuses.get(uid);
    if (status === undefined) return false;
    return status.isTerminationRequested() && !status.isTerminated();
  }

  /** IsWorking of the UID's status (false when unknown): the drain helpers of the tests poll it. */
  isWorking(uid: UID): boolean {
    return this.podSyncStatuses.get(uid)?.isWorking() ?? false;
  }

  /**
   * allowStaticPodStart: true if no other static pod of this fullname is started and this UID is the
   * first waiting one that is still valid (known, not terminating, not terminated). Invalid UIDs ahead
   * of the first valid one are pruned from the waiting list.
   */
  allowStaticPodStart(fullname: string, uid: UID): boolean {
    const startedUID = this.startedStaticPodsByFullname.get(fullname);
    if (startedUID !== undefined) return startedUID === uid;

    let waitingPods = this.waitingToStartStaticPodsByFullname.get(fullname) ?? [];
    for (let i = 0; i < waitingPods.length; i++) {
      const waitingUID = waitingPods[i] as UID;
      const status = this.podSyncStatuses.get(waitingUID);
      // has pod already terminated or been deleted? Before #107900 only a forgotten UID was skipped: one
      // killed before it started stayed ahead of every later UID (issue #107733).
      if (status === undefined) continue;
      if (
        this.fixes.on('unstarted-static-pod-terminated') &&
        (status.isTerminationRequested() || status.isTerminated())
      ) {
        continue;
      }
      if (waitingUID !== uid) {
        // Another pod is next in line.
        this.waitingToStartStaticPodsByFullname.set(fullname, waitingPods.slice(i));
        this.sim.touch(WRITES_PODS);
        return false;
      }
      waitingPods = waitingPods.slice(i + 1); // we are next: remove ourselves
      break;
    }
    if (waitingPods.length !== 0) this.waitingToStartStaticPodsByFullname.set(fullname, waitingPods);
    else this.waitingToStartStaticPodsByFullname.delete(fullname);
    this.startedStaticPodsByFullname.set(fullname, uid);
    this.sim.touch(WRITES_PODS); // elision: housekeeping reads who started
    return true;
  }

  /**
   * acknowledgeTerminating: the worker has seen the termination, so no container will start any more;
   * returns the newest kill status function, if any.
   */
  protected acknowledgeTerminating(pod: Pod): PodStatusFunc | undefined {
    const status = this.podSyncStatuses.get(pod.metadata.uid);
    if (status === undefined) return undefined;
    if (status.terminatingAt !== undefined && !status.startedTerminating) {
      status.startedTerminating = true;
      this.sim.touch(WRITES_PODS); // elision: the populator and housekeeping read the lifecycle
    }
    return status.statusPostTerminating[status.statusPostTerminating.length - 1];
  }

  /** completeSync: syncPod reported a terminal phase (the natural end of a non-restarting pod). */
  protected completeSync(pod: Pod): void {
    const uid = pod.metadata.uid;
    this.sim.touch(WRITES_PODS); // elision: a lifecycle change (src/elisionMasks.ts)
    const status = this.podSyncStatuses.get(uid);
    if (status !== undefined) {
      if (status.terminatingAt === undefined) {
        status.terminatingAt = this.sim.nowMs;
        this.publishPod(pod, {
          kind: 'podTerminationRequested',
          reason: 'syncPod reported a terminal phase',
        });
      }
      status.startedTerminating = true;
      // v1.27: a pending update is run as the terminating phase (its pod and kill options kept); else
      // the sync's own update is replayed. 1.23 replaced any pending update with a bare kill.
      if (this.fixes.on('pod-worker-pending-update')) {
        this.requeueLastPodUpdate(uid, status);
        return;
      }
    }
    // No KillPodOptions: syncTerminatingPod gets no grace period and uses the pod's own.
    this.lastUndeliveredWorkUpdate.set(uid, {
      workType: 'TerminatingPodWork',
      options: { updateType: 'SyncPodSync', pod },
    });
  }

  /**
   * completeTerminating: syncTerminatingPod succeeded, so no container runs or will start. Other loops
   * may now tear down; kill callers waiting on completedCh are released.
   */
  protected completeTerminating(pod: Pod): void {
    const uid = pod.metadata.uid;
    this.sim.touch(WRITES_PODS);
    // if a static pod is being tracked, forget it (1.22.0; never set once #104743 is on)
    this.terminatingStaticPodFullnames.delete(getPodFullName(pod));
    const status = this.podSyncStatuses.get(uid);
    if (status !== undefined) {
      if (!(status.terminatingAt !== undefined))
        throw new AssertionError(`pod ${uid} terminated without terminatingAt`);
      status.terminatedAt = this.sim.nowMs;
      this.publishPod(pod, { kind: 'podTerminated', reason: 'syncTerminatingPod completed' });
      for (const ch of status.notifyPostTerminating) ch.close();
      status.notifyPostTerminating = [];
      status.statusPostTerminating = [];
      // v1.27: SyncTerminatedPod gets the pending update's pod (the newest) if one came meanwhile, else
      // the terminating update's; 1.23 always the pod it terminated.
      if (this.fixes.on('pod-worker-pending-update')) {
        this.requeueLastPodUpdate(uid, status);
        return;
      }
    }
    this.lastUndeliveredWorkUpdate.set(uid, {
      workType: 'TerminatedPodWork',
      options: { updateType: 'SyncPodSync', pod },
    });
  }

  /** completeTerminatingRuntimePod: an orphan's containers are stopped; it has no API state to clean. */
  protected completeTerminatingRuntimePod(pod: Pod): void {
    const uid = pod.metadata.uid;
    this.sim.touch(WRITES_PODS);
    this.terminatingStaticPodFullnames.delete(getPodFullName(pod));
    const status = this.podSyncStatuses.get(uid);
    if (status !== undefined) {
      status.terminatedAt = this.sim.nowMs;
      status.finished = true;
      status.working = false;
      this.publishPod(pod, { kind: 'podTerminated', reason: 'orphaned runtime pod killed' });
      this.publishPhase(pod, 'finished');
      if (this.startedStaticPodsByFullname.get(status.fullname) === uid) {
        this.startedStaticPodsByFullname.delete(status.fullname);
      }
      // v1.27: a runtime pod is not part of the desired state; once terminated it is forgotten at once,
      // so a later update of the UID starts afresh. 1.23 kept it finished (every update but a create
      // ignored) until SyncKnownPods purged it, and only once it had left the config.
      if (this.fixes.on('pod-worker-pending-update')) this.podSyncStatuses.delete(uid);
    }
    this.cleanupPodUpdates(uid);
  }

  /** completeTerminated: syncTerminatedPod succeeded; the pod is finalised and the worker stops. */
  protected completeTerminated(pod: Pod): void {
    const uid = pod.metadata.uid;
    this.sim.touch(WRITES_PODS);
    this.cleanupPodUpdates(uid);
    this.terminatingStaticPodFullnames.delete(getPodFullName(pod));
    const status = this.podSyncStatuses.get(uid);
    if (status !== undefined) {
      if (!(status.terminatedAt !== undefined))
        throw new AssertionError(`pod ${uid} finished without terminatedAt`);
      status.finished = true;
      status.working = false;
      this.publishPhase(pod, 'finished');
      if (this.startedStaticPodsByFullname.get(status.fullname) === uid) {
        this.startedStaticPodsByFullname.delete(status.fullname);
      }
    }
  }

  /** completeUnstartedTerminated: a (static) pod was terminated before it was ever allowed to start. */
  protected completeUnstartedTerminated(pod: Pod): void {
    const uid = pod.metadata.uid;
    this.sim.touch(WRITES_PODS);
    this.cleanupPodUpdates(uid);
    const status = this.podSyncStatuses.get(uid);
    if (status !== undefined) {
      status.finished = true;
      status.working = false;
      status.terminatedAt = this.sim.nowMs;
      this.publishPod(pod, { kind: 'podTerminated', reason: 'terminated before it started' });
      this.publishPhase(pod, 'finished');
      if (this.startedStaticPodsByFullname.get(status.fullname) === uid) {
        this.startedStaticPodsByFullname.delete(status.fullname);
      }
    }
  }

  /** completeWorkQueueNext: hand the pending work to the worker, or mark it idle. */
  protected completeWorkQueueNext(uid: UID): void {
    if (this.fixes.on('pod-worker-pending-update')) {
      // v1.27 completeWork: signal the worker if an update is pending, else it is idle.
      const status = this.podSyncStatuses.get(uid);
      if (status === undefined) return;
      if (status.pendingUpdate !== undefined) signal(status, this.podUpdates.get(uid));
      else status.working = false;
      return;
    }
    const workUpdate = this.lastUndeliveredWorkUpdate.get(uid);
    if (workUpdate !== undefined) {
      const ch = this.podUpdates.get(uid);
      if (!(ch !== undefined)) throw new AssertionError(`pending work for ${uid} without a worker channel`);
      // The worker itself consumed the last item, so the channel is empty and the send cannot block.
      const sent = ch.trySend(workUpdate);
      if (!sent) throw new AssertionError(`pod worker channel of ${uid} full in completeWorkQueueNext`);
      const pod = workUpdate.options.pod;
      if (workUpdate.workType === 'TerminatingPodWork' && pod !== undefined && workUpdate.replayed !== true)
        this.publishPod(pod, { kind: 'podKillDispatched' });
      this.lastUndeliveredWorkUpdate.delete(uid);
    } else {
      const status = this.podSyncStatuses.get(uid);
      if (!(status !== undefined)) throw new AssertionError(`completeWorkQueueNext for unknown pod ${uid}`);
      status.working = false;
    }
  }

  /** contextForWorker: the status's context, renewed if it was cancelled; undefined with no status. */
  protected contextForWorker(uid: UID): Context | undefined {
    const status = this.podSyncStatuses.get(uid);
    if (status === undefined) return undefined;
    if (status.ctx === undefined || status.ctx.canceled) {
      const ctx = this.sim.context();
      status.ctx = ctx;
      // A bound function, not an arrow: V8 keeps a closure stored into a finished object alive past
      // young-generation GCs, and with it the whole world (a bound function it does not).
      status.cancelFn = ctx.cancel.bind(ctx);
    }
    return status.ctx;
  }

  // ---- housekeeping ----

  /**
   * SyncKnownPods purges finished workers whose pods left the desired set (or whose UID was recreated)
   * and reports the state of every worker, the purged ones included. The first call marks the workers
   * synced, which flips the predicates' answers for unknown UIDs.
   */
  syncKnownPods(desiredPods: readonly Pod[]): Map<UID, PodWorkerState> {
    const workers = new Map<UID, PodWorkerState>();
    const known = new Set<UID>(desiredPods.map((p) => p.metadata.uid));
    if (!this.podsSynced) this.sim.touch(WRITES_PODS); // elision: the predicates' answers flip
    this.podsSynced = true;
    // Before #104847 only UIDs that left the config were purged, so a finished UID still in the config
    // kept its finished status (and ignored every update) until the kubelet restarted (issue #104648).
    // restartRequested is only ever set with the fix on; asked first, the switch is read only when it
    // decides something (a run that never reads a switch is the same run with it flipped: oracle.ts).
    for (const [uid, status] of this.podSyncStatuses) {
      const restart = status.restartRequested && this.fixes.on('pod-uid-reuse-restart');
      const orphan = !known.has(uid);
      // #113145 (1.27): a worker whose pod left the config and is not finished is the pod worker's to
      // drive to completion, since nothing else will send it an update (a REMOVE dropped before the
      // sources were ready, a force-deleted pod whose termination failed). Before it, such a worker was
      // kept as it was: in SyncPod for ever, its containers running.
      if (orphan && !status.finished && this.fixes.on('orphan-pod-worker-terminates')) {
        if (this.terminateOrphan(uid, status)) continue; // removed, never started: no worker to report
      } else if (orphan || restart) {
        this.removeTerminatedWorker(uid);
        // v1.27 (#113145) leaves a removed worker out of the map, so housekeeping restarts a desired pod
        // it no longer knows; 1.23 reported it (TerminatedAndRecreatedPod for a reused UID).
        if (!this.podSyncStatuses.has(uid) && this.fixes.on('pod-worker-pending-update')) continue;
      }
      if (status.terminatedAt !== undefined) {
        workers.set(uid, restart ? 'TerminatedAndRecreatedPod' : 'TerminatedPod');
      } else if (status.terminatingAt !== undefined) {
        workers.set(uid, 'TerminatingPod');
      } else {
        workers.set(uid, 'SyncPod');
      }
    }
    return workers;
  }

  /**
   * The orphaned branch of v1.27's removeTerminatedWorker (#113145): every orphan counts as deleted; one
   * that never started and was never seen in the runtime is forgotten without a sync (true: removed);
   * a started one not yet terminating begins terminating now, with the grace period of the last pod the
   * worker took (1 s without one); one already terminating is only woken. Both replay the worker's last
   * update, which the worker takes as the phase the status is now in.
   */
  private terminateOrphan(uid: UID, status: PodSyncStatus): boolean {
    if (!status.deleted) {
      status.deleted = true;
      this.sim.touch(WRITES_PODS); // elision: content removal reads it (ShouldPodContentBeRemoved)
    }
    if (!status.isStarted() && !status.observedRuntime) {
      this.podSyncStatuses.delete(uid);
      this.sim.touch(WRITES_PODS);
      this.cleanupPodUpdates(uid);
      if (this.startedStaticPodsByFullname.get(status.fullname) === uid) {
        this.startedStaticPodsByFullname.delete(status.fullname);
      }
      return true;
    }
    const pod = status.activeUpdate?.pod;
    if (!status.isTerminationRequested()) {
      status.terminatingAt = this.sim.nowMs;
      this.sim.touch(WRITES_PODS);
      status.gracePeriod =
        pod !== undefined ? calculateEffectiveGracePeriod(status, pod, undefined, this.fixes).gracePeriod : 1;
      if (pod !== undefined) {
        this.publishPod(pod, {
          kind: 'podTerminationRequested',
          reason: 'orphaned: no longer in the config (SyncKnownPods)',
        });
      }
    }
    this.requeueLastPodUpdate(uid, status);
    return false;
  }

  /**
   * requeueLastPodUpdate (v1.27): wake the worker with its last update again, unless an update is
   * already pending or it never took one. v1.27 derives the work from the status when the worker takes
   * it; here a pending podWork carries its type, so it is brought up to the status's phase instead.
   */
  protected requeueLastPodUpdate(uid: UID, status: PodSyncStatus): void {
    if (this.fixes.on('pod-worker-pending-update')) {
      if (requeuePending(status, this.podUpdates.get(uid))) this.sim.noteEffect();
      return;
    }
    const pending = this.lastUndeliveredWorkUpdate.get(uid);
    if (pending !== undefined) {
      if (pending.workType !== status.workType()) {
        pending.workType = status.workType();
        pending.replayed = true; // its options carry no kill override
        this.sim.noteEffect(); // a round that changed the worker's next work is not idle
      }
      return;
    }
    const active = status.activeUpdate;
    const ch = this.podUpdates.get(uid);
    if (active === undefined || ch === undefined) return;
    const work: PodWork = { workType: status.workType(), options: Object.assign({}, active), replayed: true };
    this.sim.noteEffect();
    if (status.isWorking()) {
      // The worker is in a sync: it takes the replay when that returns (completeWorkQueueNext).
      this.lastUndeliveredWorkUpdate.set(uid, work);
      return;
    }
    status.working = true;
    if (!ch.trySend(work)) throw new AssertionError(`pod worker channel of ${uid} full while it was idle`);
  }

  /** removeTerminatedWorker forgets a finished UID so a pod with the same UID may be created again. */
  removeTerminatedWorker(uid: UID): void {
    const status = this.podSyncStatuses.get(uid);
    if (status === undefined) return; // already forgotten
    if (!status.finished) return; // still running or terminating: keep it even without config
    this.podSyncStatuses.delete(uid);
    this.sim.touch(WRITES_PODS);
    this.cleanupPodUpdates(uid);
    if (this.startedStaticPodsByFullname.get(status.fullname) === uid) {
      this.startedStaticPodsByFullname.delete(status.fullname);
    }
  }

  /** cleanupPodUpdates closes the worker's channel (its goroutine exits) and drops pending work. */
  private cleanupPodUpdates(uid: UID): void {
    const ch = this.podUpdates.get(uid);
    if (ch !== undefined) ch.close();
    this.podUpdates.delete(uid);
    this.lastUndeliveredWorkUpdate.delete(uid);
  }

  // ---- facts ----

  protected publishPod(pod: Pod, fact: PodFactBody): void {
    if (this.publishFn === undefined) return;
    // Object.assign, not a spread: V8 gives each megamorphic spread's copy a hidden class of its own.
    this.publishFn(
      Object.assign({}, fact, {
        atMs: this.sim.nowMs,
        node: this.nodeName,
        uid: pod.metadata.uid,
        pod: pod.metadata.name,
      }) as Fact,
    );
  }

  /** Publishes a podWorkerPhase fact when the worker enters a phase other than the one it was in. */
  protected publishPhase(pod: Pod, phase: WorkerPhase): void {
    const status = this.podSyncStatuses.get(pod.metadata.uid);
    if (status === undefined || this.publishedPhase.get(status) === phase) return;
    this.publishedPhase.set(status, phase);
    this.publishPod(pod, { kind: 'podWorkerPhase', phase });
  }
}
