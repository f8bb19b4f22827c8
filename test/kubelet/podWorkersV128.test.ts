// Ported from kubernetes pkg/kubelet/pod_workers_test.go at v1.28.0: the tests #113145 (1.27) rewrote
// for the pendingUpdate / activeUpdate queue, run against the 1.28 preset (`pod-worker-pending-update`
// and `orphan-pod-worker-terminates` on). Release-1.23's versions are in podWorkers.test.ts;
// Test_allowPodStart and TestKillPodNowFunc, unchanged since, run there under both queues.
//
// What podrace asserts differently, and why:
// - Upstream's timeIncrementingWorkers advance a fake clock by 1 s per UpdatePod and per worker wake-up
//   and compare exact timestamps. podrace's clock is the simulation's virtual time, which no step here
//   advances, so a timestamp is asserted set or unset, not its value.
// - A Go goroutine may race the calls of a test; here UpdatePod and the worker never interleave within a
//   step, so where upstream accepts several histories podrace always gets one of them (said per test).
// - podrace's UpdatePodOptions carry a synthetic pod beside a runtime pod (upstream's Pod is nil there).
// - SyncKnownPods returns the state alone: upstream's PodWorkerSync adds Orphan, HasConfig and Static,
//   read only by the kubelet_working_pods metric, which podrace does not model.
// - TestFakePodWorkers is not ported: it tests the fake pod workers of the kubelet's own unit tests,
//   which podrace does not have (its kubelet tests run the real pod worker).
import { describe, expect, it } from 'vitest';
import type { Pod, UID } from '../../src/api/v1.js';
import { Fixes } from '../../src/fixes.js';
import { PodSyncStatus, type PodSyncStatusInit } from '../../src/kubelet/podWorkersStatus.js';
import type { UpdatePodOptions } from '../../src/kubelet/types.js';
import {
  createPodWorkers,
  type Harness,
  immediately,
  newNamedPod,
  runtimePod,
  type SyncPodRecord,
  WorkChannel,
} from './podWorkersHarness.js';

const V128 = Fixes.of('1.28');

/** newNamedPod of the v1.28 test: spec grace 30. */
function named(uid: UID, ns: string, name: string, isStatic = false, extra: { deletionGrace?: number } = {}) {
  return newNamedPod(uid, ns, name, isStatic, {
    terminationGracePeriodSeconds: 30,
    ...(extra.deletionGrace !== undefined
      ? { deletionTimestamp: 1000, deletionGracePeriodSeconds: extra.deletionGrace }
      : {}),
  });
}

function withPhase(pod: Pod, phase: 'Succeeded' | 'Failed'): Pod {
  return { ...pod, status: { ...pod.status, phase } };
}

function v128(): Harness {
  return createPodWorkers({ fixes: V128 });
}

function history(h: Harness, uid: UID): string[] {
  return (h.processed.get(uid) ?? []).map((r: SyncPodRecord) =>
    r.terminated === true
      ? 'terminated'
      : `${r.updateType}${r.gracePeriod !== undefined ? `(${r.gracePeriod})` : ''}`,
  );
}

describe('TestUpdatePod (v1.28)', () => {
  it('a new pod is recorded and started', () => {
    const h = v128();
    const pod = named('1', 'ns', 'running-pod');
    h.podWorkers.updatePod({ updateType: 'SyncPodCreate', pod });
    h.drain();
    const s = h.podWorkers.podSyncStatuses.get('1');
    expect(s?.fullname).toBe('running-pod_ns');
    expect(s?.syncedAt).toBeDefined();
    expect(s?.isStarted()).toBe(true);
    expect(s?.ctx).toBeDefined();
    expect(s?.isTerminationRequested()).toBe(false);
    expect(s?.activeUpdate?.pod).toBe(pod);
    expect(s?.pendingUpdate).toBeUndefined();
    expect(s?.isWorking()).toBe(false);
    expect(h.podWorkers.isPodKnownTerminated('1')).toBe(false);
  });

  it('a new pod is recorded and started unless it is a duplicate of an existing terminating pod UID', () => {
    const h = v128();
    const channels = new WorkChannel(h.sim);
    h.podWorkers.workerChannelFn = channels.intercept;
    const pod = named('1', 'ns', 'running-pod');
    h.podWorkers.updatePod({ updateType: 'SyncPodCreate', pod });
    h.drain();
    // PauseWorkers("1"): the kill waits; the create with a changed pod comes while it is pending.
    channels.channel('1').hold();
    h.podWorkers.updatePod({ updateType: 'SyncPodKill', pod });
    const updated: Pod = {
      ...pod,
      metadata: { ...pod.metadata, annotations: { ...pod.metadata.annotations, updated: 'value' } },
    };
    h.podWorkers.updatePod({ updateType: 'SyncPodCreate', pod: updated });
    channels.channel('1').release();
    h.drain();
    const s = h.podWorkers.podSyncStatuses.get('1');
    expect(s?.isStarted()).toBe(true);
    expect(s?.isTerminationRequested()).toBe(true);
    expect(s?.isTerminated()).toBe(true);
    expect(s?.gracePeriod).toBe(30);
    expect(s?.isTerminationStarted()).toBe(true);
    expect(s?.restartRequested).toBe(true); // a create during termination
    expect(s?.isFinished()).toBe(true);
    // The kill's pod, not the recreated one: the create never became an update.
    expect(s?.activeUpdate?.pod).toBe(pod);
    expect(s?.activeUpdate?.killPodOptions?.podTerminationGracePeriodSecondsOverride).toBe(30);
    expect(h.podWorkers.isPodKnownTerminated('1')).toBe(true);
    expect(history(h, '1')).toEqual(['SyncPodCreate', 'SyncPodKill(30)', 'terminated']);
  });

  it('a new pod is recorded and started and running pod is ignored', () => {
    const h = v128();
    const pod = named('1', 'ns', 'running-pod');
    h.podWorkers.updatePod({
      updateType: 'SyncPodCreate',
      pod,
      runningPod: runtimePod('1', 'orphaned-pod', 'ns'),
    });
    h.drain();
    const s = h.podWorkers.podSyncStatuses.get('1');
    expect(s?.fullname).toBe('running-pod_ns');
    expect(s?.isStarted()).toBe(true);
    expect(s?.activeUpdate?.pod).toBe(pod);
    expect(s?.activeUpdate?.runningPod).toBeUndefined();
    expect(s?.observedRuntime).toBe(false);
  });

  it('a running pod is terminated when an update contains a deletionTimestamp', () => {
    const h = v128();
    h.podWorkers.updatePod({ updateType: 'SyncPodCreate', pod: named('1', 'ns', 'running-pod') });
    h.drain();
    const deleted = named('1', 'ns', 'running-pod', false, { deletionGrace: 15 });
    h.podWorkers.updatePod({ updateType: 'SyncPodUpdate', pod: deleted });
    h.drain();
    const s = h.podWorkers.podSyncStatuses.get('1');
    expect(s?.isTerminated()).toBe(true);
    expect(s?.gracePeriod).toBe(15);
    expect(s?.isTerminationStarted()).toBe(true);
    expect(s?.isFinished()).toBe(true);
    expect(s?.isDeleted()).toBe(true);
    expect(s?.activeUpdate?.pod).toBe(deleted);
    expect(s?.activeUpdate?.killPodOptions?.podTerminationGracePeriodSecondsOverride).toBe(15);
    expect(h.podWorkers.isPodKnownTerminated('1')).toBe(true);
  });

  it('a running pod is terminated when an eviction is requested', () => {
    const h = v128();
    const pod = named('1', 'ns', 'running-pod');
    h.podWorkers.updatePod({ updateType: 'SyncPodCreate', pod });
    h.drain();
    h.podWorkers.updatePod({ updateType: 'SyncPodKill', pod, killPodOptions: { evict: true } });
    h.drain();
    const s = h.podWorkers.podSyncStatuses.get('1');
    expect(s?.isTerminated()).toBe(true);
    expect(s?.gracePeriod).toBe(30);
    expect(s?.isFinished()).toBe(true);
    expect(s?.isEvicted()).toBe(true);
    expect(s?.activeUpdate?.killPodOptions).toEqual({
      evict: true,
      podTerminationGracePeriodSecondsOverride: 30,
    });
    expect(h.podWorkers.isPodKnownTerminated('1')).toBe(true);
  });

  it('a pod that is terminal and has never started must be terminated if the runtime does not have a cached terminal state', () => {
    const h = v128();
    // Upstream's runtime answers NotFound, so the first-sight check is skipped; podrace's cache always
    // answers, so "no cached terminal state" is a container still running in it.
    h.cache.statuses.set('1', {
      id: '1',
      name: 'done-pod',
      namespace: 'ns',
      containerStatuses: [{ id: 'c', name: 'c', state: 'running' }],
      sandboxStatuses: [],
      timestampMs: 0,
    });
    const pod = withPhase(named('1', 'ns', 'done-pod'), 'Succeeded');
    h.podWorkers.updatePod({ updateType: 'SyncPodCreate', pod });
    h.drain();
    const s = h.podWorkers.podSyncStatuses.get('1');
    expect(s?.isTerminationRequested()).toBe(true);
    expect(s?.isStarted()).toBe(true);
    expect(s?.isTerminated()).toBe(true);
    expect(s?.gracePeriod).toBe(30);
    expect(s?.isTerminationStarted()).toBe(true);
    expect(s?.isFinished()).toBe(true);
    expect(s?.activeUpdate?.killPodOptions?.podTerminationGracePeriodSecondsOverride).toBe(30);
    expect(h.podWorkers.isPodKnownTerminated('1')).toBe(true);
    expect(history(h, '1')).toEqual(['SyncPodKill(30)', 'terminated']);
  });

  it('a pod that is terminal and has never started advances to finished if the runtime has a cached terminal state', () => {
    const h = v128();
    const pod = withPhase(named('1', 'ns', 'done-pod'), 'Succeeded');
    h.podWorkers.updatePod({ updateType: 'SyncPodCreate', pod });
    // expectBeforeWorker: terminated, not finished, the create pending.
    const before = h.podWorkers.podSyncStatuses.get('1');
    expect(before?.isTerminationRequested()).toBe(true);
    expect(before?.isTerminated()).toBe(true);
    expect(before?.pendingUpdate?.updateType).toBe('SyncPodCreate');
    expect(before?.pendingUpdate?.pod).toBe(pod);
    expect(before?.isFinished()).toBe(false);
    expect(before?.isTerminationStarted()).toBe(true);
    expect(before?.isWorking()).toBe(true);
    h.drain();
    const s = h.podWorkers.podSyncStatuses.get('1');
    expect(s?.isStarted()).toBe(true);
    expect(s?.isFinished()).toBe(true);
    // mergeLastUpdate keeps no update type: the active update is a plain sync.
    expect(s?.activeUpdate?.updateType).toBe('SyncPodSync');
    expect(s?.activeUpdate?.pod).toBe(pod);
    // if we have never seen the pod before, a restart makes no sense
    expect(s?.restartRequested).toBe(false);
    expect(h.podWorkers.isPodKnownTerminated('1')).toBe(true);
    expect(history(h, '1')).toEqual(['terminated']);
  });

  it('an orphaned running pod we have not seen is marked terminating and advances to finished and then is removed', () => {
    const h = v128();
    const rp = runtimePod('1', 'orphaned-pod', 'ns');
    h.podWorkers.updatePod({
      updateType: 'SyncPodKill',
      runningPod: rp,
      killPodOptions: { evict: false, podTerminationGracePeriodSecondsOverride: 1 },
    });
    const before = h.podWorkers.podSyncStatuses.get('1');
    expect(before?.fullname).toBe('orphaned-pod_ns');
    expect(before?.isTerminationRequested()).toBe(true);
    expect(before?.pendingUpdate?.runningPod).toBe(rp);
    expect(before?.pendingUpdate?.killPodOptions?.podTerminationGracePeriodSecondsOverride).toBe(1);
    expect(before?.gracePeriod).toBe(1);
    expect(before?.isDeleted()).toBe(true);
    expect(before?.observedRuntime).toBe(true);
    expect(before?.isWorking()).toBe(true);
    h.drain();
    // Once fully terminated a runtime pod is no longer tracked, so it is not known terminated.
    expect(h.podWorkers.podSyncStatuses.has('1')).toBe(false);
    expect(h.podWorkers.isPodKnownTerminated('1')).toBe(false);
    expect(h.processed.get('1')?.map((r) => r.runningPod)).toEqual([rp]);
  });

  it('an orphaned running pod with a non-kill update type does nothing', () => {
    const h = v128();
    h.podWorkers.updatePod({
      updateType: 'SyncPodCreate',
      runningPod: runtimePod('1', 'orphaned-pod', 'ns'),
    });
    h.drain();
    expect(h.podWorkers.podSyncStatuses.has('1')).toBe(false);
    expect(h.processed.size).toBe(0);
  });
});

describe('v1.28 update ordering', () => {
  it('TestUpdatePodParallel: each pod is synced at least once, the last update last', () => {
    const h = v128();
    const numPods = 20;
    for (let i = 0; i < numPods; i++) {
      for (let j = i; j < numPods; j++) {
        h.podWorkers.updatePod({ updateType: 'SyncPodCreate', pod: named(String(j), 'ns', String(i)) });
      }
    }
    h.drain();
    expect(h.processed.size).toBe(numPods);
    for (let i = 0; i < numPods; i++) {
      const events = h.processed.get(String(i)) ?? [];
      expect(events.length).toBeGreaterThanOrEqual(1);
      expect(events.length).toBeLessThanOrEqual(i + 1);
      expect(events[events.length - 1]?.name).toBe(String(i));
      // podrace: all updates come before the worker runs, so only the last one is taken.
      expect(events).toHaveLength(1);
    }
  });

  it('TestUpdatePodDoesNotForgetSyncPodKill: kill then terminated, the create compressed into the kill', () => {
    const run = (fixes: Fixes) => {
      const h = createPodWorkers({ fixes });
      for (let i = 0; i < 20; i++) {
        const pod = named(String(i), 'ns', String(i));
        h.podWorkers.updatePod({ pod, updateType: 'SyncPodCreate' });
        h.podWorkers.updatePod({ pod, updateType: 'SyncPodKill' });
        h.podWorkers.updatePod({ pod, updateType: 'SyncPodUpdate' });
      }
      h.drain();
      expect(h.processed.size).toBe(20);
      return h;
    };
    const h = run(V128);
    for (let i = 0; i < 20; i++) {
      // Upstream accepts [kill, terminated] or [create, kill, terminated]; here the three calls are one
      // step, so the worker takes the newest update as the terminating phase: the first.
      expect(history(h, String(i))).toEqual(['SyncPodKill(30)', 'terminated']);
    }
    // release-1.23's queue sent the create to the idle worker first, so it ran the sync of a pod already
    // being killed.
    const old = run(V128.with('pod-worker-pending-update', false));
    expect(history(old, '0')).toEqual(['SyncPodCreate', 'SyncPodKill(30)', 'terminated']);
  });

  it('TestUpdatePodForRuntimePod: runtime pods can only be killed', () => {
    const h = v128();
    h.podWorkers.updatePod({ updateType: 'SyncPodCreate', runningPod: runtimePod('1', '1') });
    h.drain();
    expect(h.processed.size).toBe(0);
    h.podWorkers.updatePod({ updateType: 'SyncPodKill', runningPod: runtimePod('1', '1') });
    h.drain();
    const updates = h.processed.get('1') ?? [];
    expect(updates).toHaveLength(1);
    expect(updates[0]?.runningPod).toBeDefined();
    expect(updates[0]?.updateType).toBe('SyncPodKill');
    expect(updates[0]?.name).toBe('1');
  });

  it('TestUpdatePodForTerminatedRuntimePod: a runtime kill of a terminated pod is ignored', () => {
    const h = v128();
    h.podWorkers.podSyncStatuses.set(
      '1',
      new PodSyncStatus({ startedTerminating: true, terminatedAt: 1, terminatingAt: 0, gracePeriod: 1 }),
    );
    h.podWorkers.updatePod({ updateType: 'SyncPodKill', runningPod: runtimePod('1', '1') });
    h.drain();
    expect(h.processed.size).toBe(0);
  });

  it('a runtime pod kill of a UID with a pending pod kills that pod (its spec and status), not the runtime pod', () => {
    const h = v128();
    const channels = new WorkChannel(h.sim);
    h.podWorkers.workerChannelFn = channels.intercept;
    const pod = named('1', 'ns', 'p');
    h.podWorkers.updatePod({ updateType: 'SyncPodCreate', pod });
    h.drain();
    channels.channel('1').hold();
    h.podWorkers.updatePod({ updateType: 'SyncPodUpdate', pod });
    h.podWorkers.updatePod({
      updateType: 'SyncPodKill',
      runningPod: runtimePod('1', 'p', 'ns'),
      killPodOptions: { evict: false, podTerminationGracePeriodSecondsOverride: 1 },
    });
    expect(h.podWorkers.podSyncStatuses.get('1')?.pendingUpdate?.pod).toBe(pod);
    expect(h.podWorkers.podSyncStatuses.get('1')?.pendingUpdate?.runningPod).toBeUndefined();
    channels.channel('1').release();
    h.drain();
    const recs = h.processed.get('1') ?? [];
    expect(recs.map((r) => r.runningPod)).toEqual([undefined, undefined, undefined]);
    expect(history(h, '1')).toEqual(['SyncPodCreate', 'SyncPodKill(1)', 'terminated']);
  });

  it('TestTerminalPhaseTransition: syncPod reporting a terminal phase moves the pod to terminated', () => {
    const h = v128();
    const channels = new WorkChannel(h.sim);
    h.podWorkers.workerChannelFn = channels.intercept;
    const update = () =>
      h.podWorkers.updatePod({ pod: named('1', 'test1', 'pod1'), updateType: 'SyncPodUpdate' });
    update();
    h.drain();
    expect(h.podWorkers.podSyncStatuses.get('1')?.isTerminated()).toBe(false);
    update();
    h.drain();
    expect(h.podWorkers.podSyncStatuses.get('1')?.isTerminated()).toBe(false);
    h.terminal.add('1');
    update();
    h.drain();
    const s = h.podWorkers.podSyncStatuses.get('1');
    expect(s?.isTerminationRequested()).toBe(true);
    expect(s?.isTerminated()).toBe(true);
  });

  it('a kill pending while syncPod reports a terminal phase keeps its grace (completeSync requeues, 1.23 replaced it)', () => {
    const run = (fixes: Fixes) => {
      const h = createPodWorkers({ fixes });
      const pod = named('1', 'ns', 'p');
      h.hooks.syncPod = () => {
        // The kill arrives while the sync runs; this sync does not see its cancellation and reports
        // the pod terminal.
        h.podWorkers.updatePod({
          pod,
          updateType: 'SyncPodKill',
          killPodOptions: { evict: true, podTerminationGracePeriodSecondsOverride: 5 },
        });
        delete h.hooks.syncPod;
        return immediately({ isTerminal: true, err: undefined });
      };
      h.podWorkers.updatePod({ pod, updateType: 'SyncPodCreate' });
      h.drain();
      return history(h, '1');
    };
    expect(run(V128)).toEqual(['SyncPodCreate', 'SyncPodKill(5)', 'terminated']);
    expect(run(V128.with('pod-worker-pending-update', false))).toEqual([
      'SyncPodCreate',
      'SyncPodKill',
      'terminated',
    ]);
  });
});

describe('TestStaticPodExclusion (v1.28)', () => {
  it('one static pod per fullname; a pod killed before it started exits; SyncKnownPods leaves out removed workers', () => {
    const h = v128();
    const w = h.podWorkers;
    const channels = new WorkChannel(h.sim);
    w.workerChannelFn = channels.intercept;
    const update = (
      uid: UID,
      isStatic: boolean,
      updateType: UpdatePodOptions['updateType'] = 'SyncPodUpdate',
    ) => w.updatePod({ pod: named(uid, 'test1', 'pod1', isStatic), updateType });
    const started = () => Object.fromEntries(w.startedStaticPodsByFullname);
    const waiting = () => Object.fromEntries(w.waitingToStartStaticPodsByFullname);
    const sync = (uids: UID[], isStatic: (uid: UID) => boolean) =>
      Object.fromEntries(w.syncKnownPods(uids.map((u) => named(u, 'test1', 'pod1', isStatic(u)))));
    const isStatic = (uid: UID) => uid !== '1-normal';

    // start two pods with the same name, one static, one apiserver
    update('1-normal', false);
    update('2-static', true);
    h.drain();
    expect(w.podSyncStatuses.get('1-normal')?.isTerminated()).toBe(false);
    expect(w.podSyncStatuses.get('2-static')?.isTerminated()).toBe(false);
    expect(h.processed.size).toBe(2);
    expect(history(h, '2-static')).toEqual(['SyncPodUpdate']);
    expect(started()).toEqual({ pod1_test1: '2-static' });

    // attempt to start a second and third static pod, which should not start
    update('3-static', true);
    update('4-static', true);
    h.drain();
    expect(h.processed.size).toBe(2);
    expect(history(h, '3-static')).toEqual([]);
    expect(history(h, '4-static')).toEqual([]);
    expect(started()).toEqual({ pod1_test1: '2-static' });
    expect(waiting()).toEqual({ pod1_test1: ['3-static', '4-static'] });
    // verify all are enqueued
    expect(h.queue.set()).toEqual(new Set(['1-normal', '2-static', '3-static', '4-static']));
    // #116995: the update of a pod that cannot start yet stays pending.
    expect(w.podSyncStatuses.get('3-static')?.pendingUpdate?.pod?.metadata.uid).toBe('3-static');
    expect(w.podSyncStatuses.get('3-static')?.isWorking()).toBe(false);

    // send a basic update for 3-static: still not started, queued for a retry
    h.queue.getWork();
    update('3-static', true);
    h.drain();
    expect(started()).toEqual({ pod1_test1: '2-static' });
    expect(waiting()).toEqual({ pod1_test1: ['3-static', '4-static'] });
    expect(new Set(h.queue.getWork())).toEqual(new Set(['3-static']));

    // mark 3-static as deleted while 2-static is still running: terminated without ever starting
    update('3-static', true, 'SyncPodKill');
    h.drain();
    expect(w.podSyncStatuses.get('3-static')?.isTerminated()).toBe(true);
    expect(h.queue.getWork()).toEqual([]);
    expect(started()).toEqual({ pod1_test1: '2-static' });
    expect(waiting()).toEqual({ pod1_test1: ['3-static', '4-static'] });

    // terminate 2-static
    update('2-static', true, 'SyncPodKill');
    h.drain();
    expect(w.podSyncStatuses.get('2-static')?.isTerminated()).toBe(true);
    expect(started()).toEqual({});
    expect(waiting()).toEqual({ pod1_test1: ['3-static', '4-static'] });

    // a periodic event for 4-static starts it: 3-static has terminated
    update('4-static', true);
    h.drain();
    expect(w.podSyncStatuses.get('4-static')?.isTerminated()).toBe(false);
    expect(started()).toEqual({ pod1_test1: '4-static' });
    expect(waiting()).toEqual({});

    // a sync with all pods remaining: 2-static and 3-static terminated, 3-static still tracked
    expect(sync(['1-normal', '2-static', '3-static', '4-static'], isStatic)).toEqual({
      '1-normal': 'SyncPod',
      '2-static': 'TerminatedPod',
      '3-static': 'TerminatedPod',
      '4-static': 'SyncPod',
    });
    h.drain();
    const s3 = w.podSyncStatuses.get('3-static');
    expect(s3?.isTerminated() && s3.isFinished() && !s3.isWorking()).toBe(true);

    // with 3-static removed its status goes, and the map leaves it out (1.23 reported it)
    expect(sync(['1-normal', '2-static', '4-static'], isStatic)).toEqual({
      '1-normal': 'SyncPod',
      '2-static': 'TerminatedPod',
      '4-static': 'SyncPod',
    });
    h.drain();
    expect(w.podSyncStatuses.has('3-static')).toBe(false);

    // start a static pod, kill it, then add another one, but hold the kill back from pod 5's worker
    update('5-static', true);
    h.drain();
    channels.channel('5-static').hold();
    update('5-static', true, 'SyncPodKill');
    update('6-static', true);
    h.drain();
    const s5 = () => w.podSyncStatuses.get('5-static');
    expect(s5()?.isTerminationRequested() && !s5()?.isTerminated()).toBe(true);
    expect(started()).toEqual({ pod1_test1: '4-static' });
    expect(waiting()).toEqual({ pod1_test1: ['5-static', '6-static'] });

    // terminate 4-static and wake 6-static
    update('4-static', true, 'SyncPodKill');
    h.drain();
    update('6-static', true);
    h.drain();
    expect(s5()?.isTerminationRequested() && !s5()?.isTerminated()).toBe(true);
    expect(started()).toEqual({ pod1_test1: '6-static' });
    expect(waiting()).toEqual({});
    expect(history(h, '6-static')).toEqual(['SyncPodUpdate']);

    // 5-static exits when its kill is delivered out of order
    channels.channel('5-static').release();
    h.drain();
    expect(s5()?.isTerminated()).toBe(true);

    // three more static pods; kill the one blocking them, recreate it; 8 asks first
    update('7-static', true);
    update('8-static', true);
    update('9-static', true);
    h.drain();
    update('6-static', true, 'SyncPodKill');
    h.drain();
    update('6-static', true, 'SyncPodCreate');
    h.drain();
    update('8-static', true);
    h.drain();
    expect(w.podSyncStatuses.get('6-static')?.restartRequested).toBe(true);
    expect(started()).toEqual({});
    // only 7-static can start now, but it has not received an event
    expect(waiting()).toEqual({ pod1_test1: ['7-static', '8-static', '9-static'] });
    expect(history(h, '7-static')).toEqual([]);
    expect(history(h, '8-static')).toEqual([]);
    expect(history(h, '9-static')).toEqual([]);

    // terminate 7-static and wake 8-static
    update('7-static', true, 'SyncPodKill');
    h.drain();
    update('8-static', true);
    h.drain();
    expect(history(h, '8-static')).toEqual(['SyncPodUpdate']);

    // a sync with all but 8-static undesired: 1-normal (started) is an orphan now terminating; the
    // finished ones and 9-static (never started) are removed and left out
    expect(sync(['8-static'], isStatic)).toEqual({ '1-normal': 'TerminatingPod', '8-static': 'SyncPod' });
    h.drain();
  });
});

describe('TestSyncKnownPods (v1.28)', () => {
  it('the predicates before and after the first sync; orphans are terminated, then purged', () => {
    const h = v128();
    const w = h.podWorkers;
    const numPods = 20;
    for (let i = 0; i < numPods; i++) {
      w.updatePod({ pod: named(String(i), 'ns', 'name'), updateType: 'SyncPodUpdate' });
    }
    h.drain();
    expect(w.podUpdates.size).toBe(numPods);
    const desired = new Set(['2', '14']);
    // kill all but the requested pods
    for (let i = 0; i < numPods; i++) {
      const uid = String(i);
      if (desired.has(uid)) continue;
      const pod =
        i % 2 === 0
          ? newNamedPod(uid, 'ns', 'name', false, { terminationGracePeriodSeconds: 30, deletionTimestamp: 0 })
          : named(uid, 'ns', 'name');
      w.updatePod({ pod, updateType: 'SyncPodKill' });
    }
    h.drain();
    expect(w.shouldPodContainersBeTerminating('0')).toBe(true);
    expect(w.shouldPodContainersBeTerminating('1')).toBe(true);
    expect(w.shouldPodContainersBeTerminating('2')).toBe(false);
    expect(w.isPodTerminationRequested('0')).toBe(true);
    expect(w.isPodTerminationRequested('2')).toBe(false);
    expect(w.couldHaveRunningContainers('0')).toBe(false);
    expect(w.couldHaveRunningContainers('1')).toBe(false);
    expect(w.couldHaveRunningContainers('2')).toBe(true);
    expect(w.shouldPodContentBeRemoved('0')).toBe(true);
    expect(w.shouldPodContentBeRemoved('1')).toBe(false);
    expect(w.shouldPodContentBeRemoved('2')).toBe(false);
    expect(w.shouldPodContainersBeTerminating('abc')).toBe(false);
    expect(w.couldHaveRunningContainers('abc')).toBe(true);
    expect(w.shouldPodContentBeRemoved('abc')).toBe(false);

    w.syncKnownPods([named('2', 'ns', 'name'), named('14', 'ns', 'name')]);
    expect(w.podUpdates.size).toBe(2);
    expect(w.podUpdates.has('2')).toBe(true);
    expect(w.podUpdates.has('14')).toBe(true);
    expect(w.isPodTerminationRequested('2')).toBe(false);
    expect(w.shouldPodContainersBeTerminating('abc')).toBe(true);
    expect(w.couldHaveRunningContainers('abc')).toBe(false);
    expect(w.shouldPodContentBeRemoved('abc')).toBe(true);

    // workers that are not terminated are driven to completion once the config no longer has them
    w.syncKnownPods([]);
    h.drain();
    expect(w.podUpdates.size).toBe(0);
    expect(w.podSyncStatuses.size).toBe(2);

    for (const uid of desired) w.updatePod({ pod: named(uid, 'ns', 'name'), updateType: 'SyncPodKill' });
    h.drain();
    // once those pods terminate the workers are cleared
    w.syncKnownPods([]);
    expect(w.podUpdates.size).toBe(0);
    expect(w.podSyncStatuses.size).toBe(0);
  });
});

describe('Test_removeTerminatedWorker (v1.28)', () => {
  const podUID: UID = 'pod-uid';
  const p1 = named(podUID, '', '1');
  const p2 = named(podUID, '', '2');
  interface Case {
    desc: string;
    orphan?: boolean;
    status: PodSyncStatusInit;
    started?: Record<string, UID>;
    waiting?: Record<string, UID[]>;
    removed: boolean;
    expectPending?: Pod;
  }
  const cases: Case[] = [
    { desc: 'finished worker', status: { finished: true }, removed: true },
    {
      desc: 'waiting to start worker because of another started pod with the same fullname',
      status: { finished: false, fullname: 'fake-fullname' },
      started: { 'fake-fullname': 'another-pod-uid' },
      waiting: { 'fake-fullname': [podUID] },
      removed: false,
    },
    {
      desc: 'not yet started worker',
      status: { finished: false, fullname: 'fake-fullname' },
      waiting: { 'fake-fullname': [podUID] },
      removed: false,
    },
    {
      desc: 'orphaned not started worker',
      status: { fullname: 'fake-fullname' },
      orphan: true,
      removed: true,
    },
    {
      desc: 'orphaned started worker',
      status: { startedAtMs: 1, fullname: 'fake-fullname' },
      orphan: true,
      removed: false,
    },
    {
      desc: 'orphaned terminating worker with no activeUpdate',
      status: { startedAtMs: 1, terminatingAt: 2, fullname: 'fake-fullname' },
      orphan: true,
      removed: false,
    },
    {
      desc: 'orphaned terminating worker',
      status: {
        startedAtMs: 1,
        terminatingAt: 2,
        fullname: 'fake-fullname',
        activeUpdate: { updateType: 'SyncPodSync', pod: p1 },
      },
      orphan: true,
      removed: false,
      expectPending: p1,
    },
    {
      desc: 'orphaned terminating worker with pendingUpdate',
      status: {
        startedAtMs: 1,
        terminatingAt: 2,
        fullname: 'fake-fullname',
        working: true,
        pendingUpdate: { updateType: 'SyncPodSync', pod: p2 },
        activeUpdate: { updateType: 'SyncPodSync', pod: p1 },
      },
      orphan: true,
      removed: false,
      expectPending: p2,
    },
    {
      desc: 'orphaned terminated worker with no activeUpdate',
      status: { startedAtMs: 1, terminatingAt: 2, terminatedAt: 3, fullname: 'fake-fullname' },
      orphan: true,
      removed: false,
    },
    {
      desc: 'orphaned terminated worker',
      status: {
        startedAtMs: 1,
        terminatingAt: 2,
        terminatedAt: 3,
        fullname: 'fake-fullname',
        activeUpdate: { updateType: 'SyncPodSync', pod: p1 },
      },
      orphan: true,
      removed: false,
      expectPending: p1,
    },
    {
      desc: 'orphaned terminated worker with pendingUpdate',
      status: {
        startedAtMs: 1,
        terminatingAt: 2,
        terminatedAt: 3,
        working: true,
        fullname: 'fake-fullname',
        pendingUpdate: { updateType: 'SyncPodSync', pod: p2 },
        activeUpdate: { updateType: 'SyncPodSync', pod: p1 },
      },
      orphan: true,
      removed: false,
      expectPending: p2,
    },
  ];
  for (const tc of cases) {
    it(tc.desc, () => {
      const h = v128();
      const w = h.podWorkers;
      const status = new PodSyncStatus(tc.status);
      w.podSyncStatuses.set(podUID, status);
      const ch = h.sim.chan<never>(1, 'podUpdates');
      w.podUpdates.set(podUID, ch);
      if (status.working) ch.trySend(undefined as never);
      for (const [k, v] of Object.entries(tc.started ?? {})) w.startedStaticPodsByFullname.set(k, v);
      for (const [k, v] of Object.entries(tc.waiting ?? {}))
        w.waitingToStartStaticPodsByFullname.set(k, [...v]);
      // podrace's orphan branch is reached through SyncKnownPods (the pod in no config), the other
      // through removeTerminatedWorker itself (release-1.23's signature, without the orphan flag).
      if (tc.orphan === true) w.syncKnownPods([]);
      else w.removeTerminatedWorker(podUID);
      const after = w.podSyncStatuses.get(podUID);
      expect(after === undefined).toBe(tc.removed);
      if (after === undefined) return;
      expect(after.pendingUpdate?.pod).toBe(tc.expectPending);
      if (tc.expectPending !== undefined) {
        expect(after.isWorking()).toBe(true);
        expect(ch.length).toBe(1);
      }
    });
  }
});
