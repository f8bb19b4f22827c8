// Ported from kubernetes pkg/kubelet/pod_workers_test.go (release-1.23), plus tests of the grace period
// rules, of cancellation of an in-flight sync, of the requeue delays and of the published facts.
import { describe, expect, it } from 'vitest';
import { errContextCanceled, GoError } from '../../src/api/errors.js';
import type { UID } from '../../src/api/v1.js';
import { Fixes } from '../../src/fixes.js';
import {
  calculateEffectiveGracePeriod,
  killPodNow,
  PodSyncStatus,
  type PodWorkers,
} from '../../src/kubelet/podWorkers.js';
import type { MutablePodStatus, PodStatusFunc } from '../../src/kubelet/types.js';
import { type Co, sleepCtx } from '../../src/sim/index.js';
import {
  createPodWorkers,
  type Harness,
  immediately,
  newNamedPod,
  newPod,
  newStaticPod,
  runtimePod,
  WorkChannel,
} from './podWorkersHarness.js';

const numPods = 20;

/**
 * These are release-1.23's tests, so they run release-1.23's queue (a podWork channel with
 * lastUndeliveredWorkUpdate), whose internals several read; the v1.28 tests of the pendingUpdate queue
 * are in podWorkersV128.test.ts.
 */
const QUEUE_1_23 = Fixes.all().with('pod-worker-pending-update', false);

function records(h: Harness, uid: UID) {
  return h.processed.get(uid) ?? [];
}

/** Runs killPodNow as a goroutine; the returned box holds its result once the simulation ran. */
function spawnKill(
  h: Harness,
  pod: ReturnType<typeof newPod>,
  evict: boolean,
  override: number | undefined,
  statusFn: PodStatusFunc | undefined,
): { done: boolean; err: GoError | undefined; atMs: number } {
  const box = { done: false, err: undefined as GoError | undefined, atMs: -1 };
  h.sim.spawn(
    'killer',
    (function* (): Co {
      box.err = yield* killPodNow(h.podWorkers, pod, evict, override, statusFn);
      box.done = true;
      box.atMs = h.sim.nowMs;
    })(),
  );
  return box;
}

describe('UpdatePod', () => {
  it('TestUpdatePod: coalesces updates, processing the first and the last', () => {
    const h = createPodWorkers({ fixes: QUEUE_1_23 });
    for (let i = 0; i < numPods; i++) {
      for (let j = i; j < numPods; j++) {
        h.podWorkers.updatePod({ pod: newPod(String(j), String(i)), updateType: 'SyncPodCreate' });
      }
    }
    h.drain();
    expect(h.processed.size).toBe(numPods);
    for (let i = 0; i < numPods; i++) {
      const events = records(h, String(i));
      expect(events.length).toBeGreaterThanOrEqual(1);
      expect(events.length).toBeLessThanOrEqual(i + 1);
      expect(events[0]?.name).toBe('0');
      expect(events[events.length - 1]?.name).toBe(String(i));
      // Intermediate updates are dropped: at most the first and the newest.
      expect(events.length).toBe(i === 0 ? 1 : 2);
      expect(h.podWorkers.isWorking(String(i))).toBe(false);
    }
  });

  it('TestUpdatePodWithTerminatedPod: a terminal pod with nothing running is terminated on first sight', () => {
    // v1.23's test: #117019 (1.28) leaves such a pod unfinished (podWorkersRework.test.ts).
    const h = createPodWorkers({ fixes: Fixes.of('1.23') });
    const terminatedPod = newPod('0000-0000-0000', 'done-pod', { phase: 'Succeeded' });
    const orphanedPod = runtimePod('0000-0000-0001', 'orphaned-pod');
    const pod = newPod('0000-0000-0002', 'running-pod');
    h.podWorkers.updatePod({ pod: terminatedPod, updateType: 'SyncPodCreate' });
    h.podWorkers.updatePod({ pod, updateType: 'SyncPodCreate' });
    h.podWorkers.updatePod({ updateType: 'SyncPodKill', runningPod: orphanedPod });
    // Before any worker ran: only the first-sight rule (#105527) has terminated anything.
    expect(h.podWorkers.isPodKnownTerminated(terminatedPod.metadata.uid)).toBe(true);
    expect(h.podWorkers.isPodKnownTerminated(pod.metadata.uid)).toBe(false);
    expect(h.podWorkers.isPodKnownTerminated(orphanedPod.id)).toBe(false);
    // No worker was ever started for the terminal pod.
    expect(h.podWorkers.podUpdates.has(terminatedPod.metadata.uid)).toBe(false);
    expect(h.podWorkers.podSyncStatuses.get(terminatedPod.metadata.uid)?.isFinished()).toBe(true);
    h.drain();
    expect(h.podWorkers.isPodKnownTerminated(pod.metadata.uid)).toBe(false);
    expect(h.podWorkers.isPodKnownTerminated(terminatedPod.metadata.uid)).toBe(true);
    expect(h.podWorkers.isPodKnownTerminated(orphanedPod.id)).toBe(true);
    expect(records(h, terminatedPod.metadata.uid)).toEqual([]);
  });

  it('a terminal pod whose runtime still has a running container is not terminated on first sight', () => {
    const h = createPodWorkers({ fixes: QUEUE_1_23 });
    const uid = 'succeeded-but-running';
    h.cache.statuses.set(uid, {
      id: uid,
      name: 'p',
      namespace: '',
      containerStatuses: [{ id: 'c1', name: 'c', state: 'running' }],
      sandboxStatuses: [],
      timestampMs: 0,
    });
    h.podWorkers.updatePod({ pod: newPod(uid, 'p', { phase: 'Succeeded' }), updateType: 'SyncPodCreate' });
    expect(h.podWorkers.isPodKnownTerminated(uid)).toBe(false);
    expect(h.podWorkers.isPodTerminationRequested(uid)).toBe(true);
    h.drain();
    // Terminal phase: straight to terminating, syncPod never runs.
    expect(records(h, uid).map((r) => r.updateType ?? 'terminated')).toEqual(['SyncPodKill', 'terminated']);
  });

  it('TestUpdatePodForRuntimePod: runtime pods can only be killed, and skip the terminated phase', () => {
    const h = createPodWorkers({ fixes: QUEUE_1_23 });
    h.podWorkers.updatePod({ updateType: 'SyncPodCreate', runningPod: runtimePod('1', '1') });
    h.drain();
    expect(h.processed.size).toBe(0);
    expect(h.podWorkers.podSyncStatuses.size).toBe(0);

    h.podWorkers.updatePod({ updateType: 'SyncPodKill', runningPod: runtimePod('1', '1') });
    h.drain();
    expect(h.processed.size).toBe(1);
    const updates = records(h, '1');
    expect(updates).toHaveLength(1);
    expect(updates[0]?.runningPod).toBeDefined();
    expect(updates[0]?.updateType).toBe('SyncPodKill');
    expect(updates[0]?.name).toBe('1');
    const status = h.podWorkers.podSyncStatuses.get('1');
    expect(status?.isFinished()).toBe(true);
    expect(status?.isDeleted()).toBe(true);
    expect(h.podWorkers.podUpdates.has('1')).toBe(false);
  });

  it('TestUpdatePodForTerminatedRuntimePod: a stale runtime kill of a terminated pod is ignored', () => {
    const h = createPodWorkers({ fixes: QUEUE_1_23 });
    h.podWorkers.podSyncStatuses.set(
      '1',
      new PodSyncStatus({
        startedTerminating: true,
        terminatedAt: -1000,
        terminatingAt: -2000,
        gracePeriod: 1,
      }),
    );
    h.podWorkers.updatePod({ updateType: 'SyncPodKill', runningPod: runtimePod('1', '1') });
    h.drain();
    expect(h.processed.size).toBe(0);
    expect(records(h, '1')).toHaveLength(0);
    expect(h.podWorkers.lastUndeliveredWorkUpdate.size).toBe(0);
  });

  it('TestUpdatePodDoesNotForgetSyncPodKill: create, kill, update -> syncPod then syncTerminatingPod', () => {
    const h = createPodWorkers({ fixes: QUEUE_1_23 });
    for (let i = 0; i < numPods; i++) {
      const pod = newPod(String(i), String(i));
      h.podWorkers.updatePod({ pod, updateType: 'SyncPodCreate' });
      h.podWorkers.updatePod({ pod, updateType: 'SyncPodKill' });
      h.podWorkers.updatePod({ pod, updateType: 'SyncPodUpdate' });
    }
    h.drain();
    expect(h.processed.size).toBe(numPods);
    for (let i = 0; i < numPods; i++) {
      const recs = records(h, String(i));
      expect(recs.length).toBeGreaterThanOrEqual(2);
      // The sync already sent still runs (the documented window), the kill is not lost.
      expect(recs[0]?.updateType).toBe('SyncPodCreate');
      expect(recs[1]?.updateType).toBe('SyncPodKill');
      expect(recs[2]?.terminated).toBe(true);
    }
  });

  it('TestTerminalPhaseTransition: syncPod reporting a terminal phase moves the pod to terminated', () => {
    const h = createPodWorkers({ fixes: QUEUE_1_23 });
    const channels = new WorkChannel(h.sim);
    h.podWorkers.workerChannelFn = channels.intercept;
    const update = () =>
      h.podWorkers.updatePod({ pod: newNamedPod('1', 'test1', 'pod1', false), updateType: 'SyncPodUpdate' });
    update();
    h.drain();
    expect(h.podWorkers.podSyncStatuses.get('1')?.isTerminated()).toBe(false);
    update();
    h.drain();
    expect(h.podWorkers.podSyncStatuses.get('1')?.isTerminated()).toBe(false);
    h.terminal.add('1');
    update();
    h.drain();
    const pod1 = h.podWorkers.podSyncStatuses.get('1');
    expect(pod1?.isTerminationRequested()).toBe(true);
    expect(pod1?.isTerminated()).toBe(true);
    // completeSync passes no KillPodOptions: syncTerminatingPod gets no grace period.
    expect(records(h, '1').find((r) => r.updateType === 'SyncPodKill')?.gracePeriod).toBeUndefined();
  });

  it('UID reuse (#104847): a create while terminating is remembered and replayed after SyncKnownPods', () => {
    const h = createPodWorkers({ fixes: QUEUE_1_23 });
    const pod = newPod('reused', 'p');
    h.hooks.syncTerminatingPod = function* (ctx) {
      yield* sleepCtx(1000, ctx);
      return undefined;
    };
    h.podWorkers.updatePod({ pod, updateType: 'SyncPodCreate' });
    h.drain();
    h.podWorkers.updatePod({ pod, updateType: 'SyncPodKill' });
    h.sim.run({ horizonMs: h.sim.nowMs + 500, maxEvents: 10_000 });
    h.podWorkers.updatePod({ pod, updateType: 'SyncPodCreate' });
    expect(h.podWorkers.podSyncStatuses.get('reused')?.restartRequested).toBe(true);
    // The create is only remembered: it is not queued as work for the terminating worker.
    expect(h.podWorkers.lastUndeliveredWorkUpdate.has('reused')).toBe(false);
    h.drain();
    expect(h.podWorkers.podSyncStatuses.get('reused')?.isFinished()).toBe(true);
    // A finished UID ignores updates until housekeeping purges it.
    h.podWorkers.updatePod({ pod, updateType: 'SyncPodCreate' });
    h.drain();
    expect(records(h, 'reused').filter((r) => r.updateType === 'SyncPodCreate')).toHaveLength(1);
    const state = h.podWorkers.syncKnownPods([pod]);
    expect(state.get('reused')).toBe('TerminatedAndRecreatedPod');
    expect(h.podWorkers.podSyncStatuses.has('reused')).toBe(false);
    h.podWorkers.updatePod({ pod, updateType: 'SyncPodCreate' });
    h.drain();
    expect(records(h, 'reused').filter((r) => r.updateType === 'SyncPodCreate')).toHaveLength(2);
  });
});

describe('static pods', () => {
  it('TestStaticPodExclusion: one static pod per fullname, started in arrival order', () => {
    const h = createPodWorkers({ fixes: QUEUE_1_23 });
    const w = h.podWorkers;
    const channels = new WorkChannel(h.sim);
    w.workerChannelFn = channels.intercept;
    const pod = (uid: UID, isStatic = true) => newNamedPod(uid, 'test1', 'pod1', isStatic);
    const update = (uid: UID, isStatic = true) =>
      w.updatePod({ pod: pod(uid, isStatic), updateType: 'SyncPodUpdate' });
    const kill = (uid: UID) => w.updatePod({ pod: pod(uid), updateType: 'SyncPodKill' });
    const started = () => Object.fromEntries(w.startedStaticPodsByFullname);
    const waiting = () => Object.fromEntries(w.waitingToStartStaticPodsByFullname);
    const status = (uid: UID) => w.podSyncStatuses.get(uid);
    const synced = [{ name: 'pod1', updateType: 'SyncPodUpdate' }];

    // 1. A normal and a static pod with the same name both run.
    update('1-normal', false);
    update('2-static');
    h.drain();
    expect(status('1-normal')?.isTerminated()).toBe(false);
    expect(status('2-static')?.isTerminated()).toBe(false);
    expect(h.processed.size).toBe(2);
    expect(records(h, '2-static')).toEqual(synced);
    expect(started()).toEqual({ pod1_test1: '2-static' });

    // 2. A second and third static pod do not start.
    update('3-static');
    update('4-static');
    h.drain();
    for (const uid of ['1-normal', '2-static', '3-static', '4-static']) {
      expect(status(uid)?.isTerminated()).toBe(false);
    }
    expect(h.processed.size).toBe(2);
    expect(records(h, '2-static')).toEqual(synced);
    expect(h.processed.get('3-static')).toBeUndefined();
    expect(h.processed.get('4-static')).toBeUndefined();
    expect(started()).toEqual({ pod1_test1: '2-static' });
    expect(waiting()).toEqual({ pod1_test1: ['3-static', '4-static'] });
    expect(h.queue.set()).toEqual(new Set(['1-normal', '2-static', '4-static', '3-static']));

    // 3. A basic update for 3-static: still not started, requeued for a retry.
    h.queue.getWork();
    update('3-static');
    h.drain();
    expect(started()).toEqual({ pod1_test1: '2-static' });
    expect(waiting()).toEqual({ pod1_test1: ['3-static', '4-static'] });
    expect(new Set(h.queue.getWork())).toEqual(new Set(['3-static']));

    // 4. Kill 3-static while 2-static runs: terminated without ever starting.
    h.queue.getWork();
    kill('3-static');
    h.drain();
    expect(status('3-static')?.isTerminated()).toBe(true);
    expect(new Set(h.queue.getWork())).toEqual(new Set());
    expect(started()).toEqual({ pod1_test1: '2-static' });
    expect(waiting()).toEqual({ pod1_test1: ['3-static', '4-static'] }); // pruned lazily

    // 5. Terminate 2-static: no static pod is started any more.
    kill('2-static');
    h.drain();
    expect(status('2-static')?.isTerminated()).toBe(true);
    expect(started()).toEqual({});
    expect(waiting()).toEqual({ pod1_test1: ['3-static', '4-static'] });

    // 6. A periodic sync of 4-static starts it (3-static terminated).
    update('4-static');
    h.drain();
    expect(status('4-static')?.isTerminated()).toBe(false);
    expect(started()).toEqual({ pod1_test1: '4-static' });
    expect(waiting()).toEqual({});

    // 7. SyncKnownPods with all four: 3-static is still in config, its status stays.
    const all = ['1-normal', '2-static', '3-static', '4-static'];
    let state = w.syncKnownPods(all.map((uid) => pod(uid, uid !== '1-normal')));
    h.drain();
    const expectedState = {
      '1-normal': 'SyncPod',
      '2-static': 'TerminatedPod',
      '3-static': 'TerminatedPod',
      '4-static': 'SyncPod',
    };
    expect(Object.fromEntries(state)).toEqual(expectedState);
    const s3 = status('3-static');
    expect(s3 !== undefined && s3.terminatedAt !== undefined && s3.finished && !s3.working).toBe(true);

    // 8. Without 3-static: it is purged, yet still reported in this result.
    state = w.syncKnownPods(['1-normal', '2-static', '4-static'].map((uid) => pod(uid, uid !== '1-normal')));
    h.drain();
    expect(Object.fromEntries(state)).toEqual(expectedState);
    expect(status('3-static')).toBeUndefined();

    // 9. 5-static gets an update, then (held back from its worker) a kill; 6-static queues behind it.
    update('5-static');
    channels.channel('5-static').hold();
    kill('5-static');
    update('6-static');
    h.drain(); // drainWorkersExcept(5-static): the held worker is simply never woken
    expect(status('5-static')?.isTerminationRequested()).toBe(true);
    expect(status('5-static')?.isTerminated()).toBe(false);
    expect(started()).toEqual({ pod1_test1: '4-static' });
    expect(waiting()).toEqual({ pod1_test1: ['5-static', '6-static'] });

    // 10. Terminate 4-static and wake 6-static: 6 starts, skipping the terminating 5.
    kill('4-static');
    h.drain();
    update('6-static');
    h.drain();
    expect(status('5-static')?.isTerminationRequested()).toBe(true);
    expect(status('5-static')?.isTerminated()).toBe(false);
    expect(started()).toEqual({ pod1_test1: '6-static' });
    expect(waiting()).toEqual({});
    expect(records(h, '6-static')).toEqual(synced);

    // 11. Deliver 5-static's events late: it exits as terminated, never having started.
    channels.channel('5-static').release();
    h.drain();
    expect(status('5-static')?.isTerminated()).toBe(true);
    expect(records(h, '5-static')).toEqual([]);

    // 12. Three more; the blocker 6 is killed; 8 asks first but 7 is ahead of it.
    update('7-static');
    update('8-static');
    update('9-static');
    h.drain();
    kill('6-static');
    h.drain();
    update('8-static');
    h.drain();
    expect(started()).toEqual({});
    expect(waiting()).toEqual({ pod1_test1: ['7-static', '8-static', '9-static'] });
    expect(h.processed.get('7-static')).toBeUndefined();
    expect(h.processed.get('8-static')).toBeUndefined();
    expect(h.processed.get('9-static')).toBeUndefined();

    // 13. Kill 7 and wake 8: 8 runs.
    kill('7-static');
    h.drain();
    update('8-static');
    h.drain();
    expect(records(h, '8-static')).toEqual(synced);
    expect(started()).toEqual({ pod1_test1: '8-static' });
  });

  it('IsPodForMirrorPodTerminatingByFullName: true only while the started static pod is terminating', () => {
    const h = createPodWorkers({ fixes: QUEUE_1_23 });
    h.hooks.syncTerminatingPod = function* (ctx) {
      yield* sleepCtx(2000, ctx);
      return undefined;
    };
    const pod = newNamedPod('2-static', 'test1', 'pod1', true);
    h.podWorkers.updatePod({ pod, updateType: 'SyncPodUpdate' });
    h.drain();
    expect(h.podWorkers.isPodForMirrorPodTerminatingByFullName('pod1_test1')).toBe(false);
    h.podWorkers.updatePod({ pod, updateType: 'SyncPodKill' });
    h.sim.run({ horizonMs: h.sim.nowMs + 1000, maxEvents: 10_000 });
    expect(h.podWorkers.isPodForMirrorPodTerminatingByFullName('pod1_test1')).toBe(true);
    expect(h.podWorkers.isPodForMirrorPodTerminatingByFullName('other_test1')).toBe(false);
    h.drain();
    expect(h.podWorkers.isPodForMirrorPodTerminatingByFullName('pod1_test1')).toBe(false);
  });
});

describe('Test_allowPodStart', () => {
  interface Case {
    desc: string;
    pod: ReturnType<typeof newPod>;
    statuses: Record<UID, ConstructorParameters<typeof PodSyncStatus>[0]>;
    started?: Record<string, UID>;
    waiting?: Record<string, UID[]>;
    expectedStarted?: Record<string, UID>;
    expectedWaiting?: Record<string, UID[]>;
    allowed: boolean;
    allowedEver: boolean;
  }
  const t = 5; // any instant: a set terminatingAt / terminatedAt
  const cases: Case[] = [
    {
      desc: 'non-static pod',
      pod: newPod('uid-0', 'test'),
      statuses: { 'uid-0': { fullname: 'test_' }, 'uid-1': { fullname: 'test_' } },
      allowed: true,
      allowedEver: true,
    },
    {
      desc: 'non-static pod when there is a started static pod with the same full name',
      pod: newPod('uid-0', 'test'),
      statuses: { 'uid-0': { fullname: 'test_' }, 'uid-1': { fullname: 'test_' } },
      started: { test_: 'uid-1' },
      expectedStarted: { test_: 'uid-1' },
      allowed: true,
      allowedEver: true,
    },
    {
      desc: 'static pod when there is a started non-static pod with the same full name',
      pod: newPod('uid-0', 'test'),
      statuses: { 'uid-0': { fullname: 'test_' }, 'uid-1': { fullname: 'test_' } },
      allowed: true,
      allowedEver: true,
    },
    {
      desc: 'static pod when there are no started static pods with the same full name',
      pod: newStaticPod('uid-0', 'foo'),
      statuses: { 'uid-0': { fullname: 'foo_' }, 'uid-1': { fullname: 'bar_' } },
      started: { bar_: 'uid-1' },
      expectedStarted: { foo_: 'uid-0', bar_: 'uid-1' },
      allowed: true,
      allowedEver: true,
    },
    {
      desc: 'static pod when there is a started static pod with the same full name',
      pod: newStaticPod('uid-0', 'foo'),
      statuses: { 'uid-0': { fullname: 'foo_' }, 'uid-1': { fullname: 'foo_' } },
      started: { foo_: 'uid-1' },
      expectedStarted: { foo_: 'uid-1' },
      allowed: false,
      allowedEver: true,
    },
    {
      desc: 'static pod if the static pod has already started',
      pod: newStaticPod('uid-0', 'foo'),
      statuses: { 'uid-0': { fullname: 'foo_' } },
      started: { foo_: 'uid-0' },
      expectedStarted: { foo_: 'uid-0' },
      allowed: true,
      allowedEver: true,
    },
    {
      desc: 'static pod if the static pod is the first pod waiting to start',
      pod: newStaticPod('uid-0', 'foo'),
      statuses: { 'uid-0': { fullname: 'foo_' } },
      waiting: { foo_: ['uid-0'] },
      expectedStarted: { foo_: 'uid-0' },
      expectedWaiting: {},
      allowed: true,
      allowedEver: true,
    },
    {
      desc: 'static pod if the static pod is not the first pod waiting to start',
      pod: newStaticPod('uid-0', 'foo'),
      statuses: { 'uid-0': { fullname: 'foo_' }, 'uid-1': { fullname: 'foo_' } },
      waiting: { foo_: ['uid-1', 'uid-0'] },
      expectedStarted: {},
      expectedWaiting: { foo_: ['uid-1', 'uid-0'] },
      allowed: false,
      allowedEver: true,
    },
    {
      // Not upstream: the trimming of invalid entries ahead of the next pod in line.
      desc: 'static pod behind another waiting pod prunes the invalid entries ahead of that pod',
      pod: newStaticPod('uid-0', 'foo'),
      statuses: {
        'uid-0': { fullname: 'foo_' },
        'uid-1': { fullname: 'foo_' },
        'uid-2': { terminatingAt: t },
      },
      waiting: { foo_: ['uid-3', 'uid-2', 'uid-1', 'uid-0'] },
      expectedStarted: {},
      expectedWaiting: { foo_: ['uid-1', 'uid-0'] },
      allowed: false,
      allowedEver: true,
    },
    {
      desc: 'static pod if the static pod is the first valid pod waiting to start / clean up until picking the first valid pod',
      pod: newStaticPod('uid-0', 'foo'),
      statuses: { 'uid-0': { fullname: 'foo_' }, 'uid-1': { fullname: 'foo_' } },
      waiting: { foo_: ['uid-2', 'uid-2', 'uid-3', 'uid-0', 'uid-1'] },
      expectedStarted: { foo_: 'uid-0' },
      expectedWaiting: { foo_: ['uid-1'] },
      allowed: true,
      allowedEver: true,
    },
    {
      desc: 'static pod if the static pod is the first pod that is not termination requested and waiting to start',
      pod: newStaticPod('uid-0', 'foo'),
      statuses: {
        'uid-0': { fullname: 'foo_' },
        'uid-1': { fullname: 'foo_' },
        'uid-2': { fullname: 'foo_', terminatingAt: t },
        'uid-3': { fullname: 'foo_', terminatedAt: t },
      },
      waiting: { foo_: ['uid-2', 'uid-3', 'uid-0', 'uid-1'] },
      expectedStarted: { foo_: 'uid-0' },
      expectedWaiting: { foo_: ['uid-1'] },
      allowed: true,
      allowedEver: true,
    },
    {
      desc: 'static pod if there is no sync status for the pod should be denied',
      pod: newStaticPod('uid-0', 'foo'),
      statuses: {
        'uid-1': { fullname: 'foo_' },
        'uid-2': { fullname: 'foo_', terminatingAt: t },
        'uid-3': { fullname: 'foo_', terminatedAt: t },
      },
      waiting: { foo_: ['uid-1'] },
      expectedStarted: {},
      expectedWaiting: { foo_: ['uid-1'] },
      allowed: false,
      allowedEver: false,
    },
    {
      desc: 'static pod if the static pod is terminated should not be allowed',
      pod: newStaticPod('uid-0', 'foo'),
      statuses: { 'uid-0': { fullname: 'foo_', terminatingAt: t } },
      waiting: { foo_: ['uid-2', 'uid-3', 'uid-0', 'uid-1'] },
      expectedStarted: {},
      expectedWaiting: { foo_: ['uid-2', 'uid-3', 'uid-0', 'uid-1'] },
      allowed: false,
      allowedEver: false,
    },
  ];
  // v1.28's Test_allowPodStart has the same cases (it only builds the non-static pod with a namespace):
  // run against release-1.23's queue and against the 1.28 preset.
  for (const [queue, fixes] of [
    ['', QUEUE_1_23],
    [' (1.28)', Fixes.of('1.28')],
  ] as const)
    for (const tc of cases) {
      it(`${tc.desc}${queue}`, () => {
        const h = createPodWorkers({ fixes });
        const w = h.podWorkers;
        for (const [uid, init] of Object.entries(tc.statuses))
          w.podSyncStatuses.set(uid, new PodSyncStatus(init));
        for (const [k, v] of Object.entries(tc.started ?? {})) w.startedStaticPodsByFullname.set(k, v);
        for (const [k, v] of Object.entries(tc.waiting ?? {}))
          w.waitingToStartStaticPodsByFullname.set(k, [...v]);
        const { canStart, canEverStart } = w.allowPodStart(tc.pod);
        expect(canStart).toBe(tc.allowed);
        expect(canEverStart).toBe(tc.allowedEver);
        // As upstream: a nil and an empty expected map are the same.
        expect(Object.fromEntries(w.startedStaticPodsByFullname)).toEqual(tc.expectedStarted ?? {});
        expect(Object.fromEntries(w.waitingToStartStaticPodsByFullname)).toEqual(
          tc.expectedWaiting ?? tc.waiting ?? {},
        );
        // A denied start that may happen later is requeued with back-off and leaves the worker idle.
        expect(h.queue.items.length).toBe(tc.allowedEver && !tc.allowed ? 1 : 0);
      });
    }
});

describe('housekeeping', () => {
  it('TestSyncKnownPods: the predicates before and after the first sync, and purging', () => {
    const h = createPodWorkers({ fixes: QUEUE_1_23 });
    const w: PodWorkers = h.podWorkers;
    for (let i = 0; i < numPods; i++)
      w.updatePod({ pod: newPod(String(i), 'name'), updateType: 'SyncPodUpdate' });
    h.drain();
    expect(w.podUpdates.size).toBe(numPods);

    const desired = new Set(['2', '14']);
    const desiredPodList = [newPod('2', 'name'), newPod('14', 'name')];
    // Kill all but the desired pods; the even ones are also deleted in the API server.
    for (let i = 0; i < numPods; i++) {
      if (desired.has(String(i))) continue;
      const extras = i % 2 === 0 ? { deletionTimestamp: h.sim.nowMs } : {};
      w.updatePod({ pod: newPod(String(i), 'name', extras), updateType: 'SyncPodKill' });
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
    expect(w.shouldPodContentBeRemoved('0')).toBe(true); // deleted and terminated
    expect(w.shouldPodContentBeRemoved('1')).toBe(false); // terminated, not deleted
    expect(w.shouldPodContentBeRemoved('2')).toBe(false); // not terminated
    expect(w.shouldPodRuntimeBeRemoved('1')).toBe(true);
    expect(w.shouldPodRuntimeBeRemoved('2')).toBe(false);
    // Unknown UID before the first SyncKnownPods.
    expect(w.shouldPodContainersBeTerminating('abc')).toBe(false);
    expect(w.couldHaveRunningContainers('abc')).toBe(true);
    expect(w.shouldPodContentBeRemoved('abc')).toBe(false);
    expect(w.shouldPodRuntimeBeRemoved('abc')).toBe(false);
    expect(w.isPodKnownTerminated('abc')).toBe(false);

    w.syncKnownPods(desiredPodList);
    expect(w.podUpdates.size).toBe(2);
    expect(w.podUpdates.has('2')).toBe(true);
    expect(w.podUpdates.has('14')).toBe(true);
    expect(w.isPodTerminationRequested('2')).toBe(false);
    // Unknown UID after it: known not to run.
    expect(w.shouldPodContainersBeTerminating('abc')).toBe(true);
    expect(w.couldHaveRunningContainers('abc')).toBe(false);
    expect(w.shouldPodContentBeRemoved('abc')).toBe(true);
    expect(w.shouldPodRuntimeBeRemoved('abc')).toBe(true);
    expect(w.isPodTerminationRequested('abc')).toBe(false);

    // Workers that are not finished survive even when config no longer has them.
    w.syncKnownPods([]);
    expect(w.podUpdates.size).toBe(2);
    expect(w.podSyncStatuses.size).toBe(2);
    expect(w.lastUndeliveredWorkUpdate.size).toBe(0);

    for (const uid of desired) w.updatePod({ pod: newPod(uid, 'name'), updateType: 'SyncPodKill' });
    h.drain();
    // Once they terminated, the workers are cleared.
    w.syncKnownPods([]);
    expect(w.podUpdates.size).toBe(0);
    expect(w.podSyncStatuses.size).toBe(0);
    expect(w.lastUndeliveredWorkUpdate.size).toBe(0);
  });

  it('Test_removeTerminatedWorker: only finished workers are removed', () => {
    const podUID = 'pod-uid';
    const cases = [
      { desc: 'finished worker', init: { finished: true }, removed: true },
      {
        desc: 'waiting to start worker because of another started pod with the same fullname',
        init: { finished: false, fullname: 'fake-fullname' },
        started: { 'fake-fullname': 'another-pod-uid' },
        waiting: { 'fake-fullname': [podUID] },
        removed: false,
      },
      {
        desc: 'not yet started worker',
        init: { finished: false, fullname: 'fake-fullname' },
        waiting: { 'fake-fullname': [podUID] },
        removed: false,
      },
    ];
    for (const tc of cases) {
      const w = createPodWorkers({ fixes: QUEUE_1_23 }).podWorkers;
      w.podSyncStatuses.set(podUID, new PodSyncStatus(tc.init));
      for (const [k, v] of Object.entries(tc.started ?? {})) w.startedStaticPodsByFullname.set(k, v);
      for (const [k, v] of Object.entries(tc.waiting ?? {})) w.waitingToStartStaticPodsByFullname.set(k, v);
      w.removeTerminatedWorker(podUID);
      expect(w.podSyncStatuses.has(podUID), tc.desc).toBe(!tc.removed);
    }
  });

  it('a kubelet restart (its process group killed) stops the workers mid-sync', () => {
    const h = createPodWorkers({ fixes: QUEUE_1_23 });
    let finished = false;
    h.hooks.syncPod = function* (ctx) {
      yield* sleepCtx(5000, ctx);
      finished = true;
      return { isTerminal: false, err: undefined };
    };
    h.podWorkers.updatePod({ pod: newPod('p', 'p'), updateType: 'SyncPodCreate' });
    h.sim.run({ horizonMs: 1000, maxEvents: 10_000 });
    expect(h.group.members.size).toBe(1);
    h.group.kill();
    h.drain();
    expect(finished).toBe(false);
    expect(h.queue.items).toHaveLength(0);
  });
});

describe('killPodNow', () => {
  // v1.28's TestKillPodNowFunc is release-1.23's: run against both queues.
  for (const [queue, fixes] of [
    ['', QUEUE_1_23],
    [' (1.28)', Fixes.of('1.28')],
  ] as const)
    it(`TestKillPodNowFunc: kills without ever running syncPod, passing the status function${queue}`, () => {
      const h = createPodWorkers({ fixes });
      const seen: MutablePodStatus[] = [];
      h.hooks.syncTerminatingPod = (_ctx, _pod, _gp, podStatusFn) => {
        const status: MutablePodStatus = { phase: 'Running' };
        podStatusFn?.(status);
        seen.push(status);
        return immediately(undefined);
      };
      const pod = newPod('test', 'test');
      const result = spawnKill(h, pod, false, 0, (status) => {
        status.phase = 'Failed';
        status.reason = 'reason';
        status.message = 'message';
      });
      h.drain();
      expect(result.done).toBe(true);
      expect(result.err).toBeUndefined();
      expect(result.atMs).toBe(0);
      expect(h.processed.size).toBe(1);
      const recs = records(h, 'test');
      expect(recs).toHaveLength(2);
      expect(recs[0]?.updateType).toBe('SyncPodKill');
      expect(recs[0]?.gracePeriod).toBe(1); // override 0, no spec value: at least 1
      expect(recs[1]?.terminated).toBe(true);
      expect(seen).toEqual([{ phase: 'Failed', reason: 'reason', message: 'message' }]);
      expect(h.podWorkers.podSyncStatuses.get('test')?.isEvicted()).toBe(false);
    });

  it('every kill completedCh is closed on termination and the newest kill status function is used', () => {
    const h = createPodWorkers({ fixes: QUEUE_1_23 });
    h.hooks.syncPod = function* (ctx) {
      const done = yield* sleepCtx(10_000, ctx);
      return { isTerminal: false, err: done ? undefined : errContextCanceled };
    };
    const used: string[] = [];
    h.hooks.syncTerminatingPod = (_ctx, _pod, _gp, podStatusFn) => {
      const status: MutablePodStatus = { phase: 'Running' };
      podStatusFn?.(status);
      used.push(status.reason ?? '');
      return immediately(undefined);
    };
    const pod = newPod('k', 'k');
    h.podWorkers.updatePod({ pod, updateType: 'SyncPodCreate' });
    h.sim.run({ horizonMs: 500, maxEvents: 10_000 });
    // Two kills in a row (a preemption, then an eviction) before the worker runs again.
    const chans = [h.sim.chan<never>(1), h.sim.chan<never>(1)];
    const reasons = ['Preempting', 'Evicted'];
    chans.forEach((completedCh, i) => {
      h.podWorkers.updatePod({
        pod,
        updateType: 'SyncPodKill',
        killPodOptions: {
          evict: true,
          completedCh,
          podStatusFunc: (st) => {
            st.reason = reasons[i];
          },
        },
      });
    });
    expect(chans.map((c) => c.closed)).toEqual([false, false]);
    h.drain();
    expect(chans.map((c) => c.closed)).toEqual([true, true]);
    expect(used).toEqual(['Evicted']);
    expect(h.podWorkers.podSyncStatuses.get('k')?.notifyPostTerminating).toEqual([]);
  });

  it('an eviction marks the pod evicted, so its content may be removed before it is deleted', () => {
    const h = createPodWorkers({ fixes: QUEUE_1_23 });
    const pod = newPod('ev', 'ev');
    h.podWorkers.updatePod({ pod, updateType: 'SyncPodCreate' });
    h.drain();
    const result = spawnKill(h, pod, true, 0, undefined);
    h.drain();
    expect(result.err).toBeUndefined();
    expect(h.podWorkers.podSyncStatuses.get('ev')?.isEvicted()).toBe(true);
    expect(h.podWorkers.shouldPodContentBeRemoved('ev')).toBe(true);
  });

  it('times out after max(10s, 1.5 x grace) when the pod is already finished (completedCh never closed)', () => {
    // Finished on first sight, as v1.23 has it (#117019 leaves it unfinished).
    const h = createPodWorkers({ fixes: Fixes.of('1.23') });
    const shortPod = newPod('done', 'done', { phase: 'Succeeded' });
    h.podWorkers.updatePod({ pod: shortPod, updateType: 'SyncPodCreate' });
    expect(h.podWorkers.podSyncStatuses.get('done')?.isFinished()).toBe(true);
    const short = spawnKill(h, shortPod, false, 2, undefined);
    const longPod = newPod('done-30', 'done', { phase: 'Succeeded', terminationGracePeriodSeconds: 30 });
    h.podWorkers.updatePod({ pod: longPod, updateType: 'SyncPodCreate' });
    const long = spawnKill(h, longPod, false, undefined, undefined);
    h.drain();
    expect(short.err?.message).toBe('timeout waiting to kill pod');
    expect(short.atMs).toBe(10_000);
    expect(long.err).toBeInstanceOf(GoError);
    expect(long.atMs).toBe(45_000);
    expect(h.processed.size).toBe(0);
  });
});

describe('grace period', () => {
  it('calculateEffectiveGracePeriod: only decreases; 0 falls back to the spec value (#115819)', () => {
    const before131 = Fixes.all().with('immediate-eviction-grace', false);
    const pod = newPod('g', 'g', { terminationGracePeriodSeconds: 30 });
    const status = new PodSyncStatus();
    const calc = (override: number | undefined, p = pod) => {
      const r = calculateEffectiveGracePeriod(
        status,
        p,
        { evict: false, podTerminationGracePeriodSecondsOverride: override },
        before131,
      );
      status.gracePeriod = r.gracePeriod;
      return r;
    };
    expect(calc(undefined)).toEqual({ gracePeriod: 30, shortened: false });
    expect(calc(10)).toEqual({ gracePeriod: 10, shortened: true });
    expect(calc(20)).toEqual({ gracePeriod: 10, shortened: false }); // never increases
    expect(calc(undefined, newPod('g', 'g', { deletionGracePeriodSeconds: 3 }))).toEqual({
      gracePeriod: 3,
      shortened: true,
    });
    // #115819: an override of 0 reaches 0 and is then replaced by the spec's value.
    const fresh = new PodSyncStatus();
    expect(
      calculateEffectiveGracePeriod(
        fresh,
        pod,
        { evict: true, podTerminationGracePeriodSecondsOverride: 0 },
        before131,
      ),
    ).toEqual({ gracePeriod: 30, shortened: false });
    // ... which upstream applies even after a shorter grace period was already chosen.
    const shortened = new PodSyncStatus({ gracePeriod: 5 });
    expect(
      calculateEffectiveGracePeriod(
        shortened,
        pod,
        { evict: true, podTerminationGracePeriodSecondsOverride: 0 },
        before131,
      ),
    ).toEqual({ gracePeriod: 30, shortened: true });
    // No spec value: at least 1 second.
    const noSpec = newPod('n', 'n', { deletionGracePeriodSeconds: 0 });
    expect(calculateEffectiveGracePeriod(new PodSyncStatus(), noSpec, undefined, before131)).toEqual({
      gracePeriod: 1,
      shortened: false,
    });
  });

  it('calculateEffectiveGracePeriod (v1.31.12, #124063): a 0 the deletion or an override set is the 1 s floor', () => {
    const fixed = Fixes.all();
    const pod = newPod('g', 'g', { terminationGracePeriodSeconds: 30 });
    // A force delete (deletionGracePeriodSeconds 0) after the worker settled on 5 s: 1 s, not the spec's 30 s.
    const forceDeleted = newPod('g', 'g', {
      terminationGracePeriodSeconds: 30,
      deletionGracePeriodSeconds: 0,
    });
    expect(
      calculateEffectiveGracePeriod(new PodSyncStatus({ gracePeriod: 5 }), forceDeleted, undefined, fixed),
    ).toEqual({ gracePeriod: 1, shortened: true });
    // The same deletion seen first: 1 s.
    expect(calculateEffectiveGracePeriod(new PodSyncStatus(), forceDeleted, undefined, fixed)).toEqual({
      gracePeriod: 1,
      shortened: false,
    });
    // An override of 0 (a hard eviction before #124063's eviction-manager half passed 1): 1 s.
    expect(
      calculateEffectiveGracePeriod(
        new PodSyncStatus(),
        pod,
        { evict: true, podTerminationGracePeriodSecondsOverride: 0 },
        fixed,
      ),
    ).toEqual({ gracePeriod: 1, shortened: false });
    // Nothing requested: still the spec's value.
    expect(calculateEffectiveGracePeriod(new PodSyncStatus(), pod, undefined, fixed)).toEqual({
      gracePeriod: 30,
      shortened: false,
    });
    // The switch is read only where it decides (a run that never reads it is the same run flipped).
    const reads = new Map();
    const recording = fixed.recording(reads, () => 0);
    calculateEffectiveGracePeriod(
      new PodSyncStatus(),
      pod,
      { evict: false, podTerminationGracePeriodSecondsOverride: 10 },
      recording,
    );
    expect(reads.has('immediate-eviction-grace')).toBe(false);
    calculateEffectiveGracePeriod(new PodSyncStatus(), forceDeleted, undefined, recording);
    expect(reads.has('immediate-eviction-grace')).toBe(true);
  });

  it('a shorter grace period cancels the running syncTerminatingPod; a longer one does not', () => {
    const h = createPodWorkers({ fixes: QUEUE_1_23 });
    const starts: { gp: number | undefined; atMs: number }[] = [];
    h.hooks.syncTerminatingPod = function* (ctx, _pod, gp) {
      starts.push({ gp, atMs: h.sim.nowMs });
      const done = yield* sleepCtx((gp ?? 0) * 1000, ctx);
      return done ? undefined : errContextCanceled;
    };
    const pod = newPod('g', 'g', { terminationGracePeriodSeconds: 30 });
    const kill = (override: number | undefined) =>
      h.podWorkers.updatePod({
        pod,
        updateType: 'SyncPodKill',
        killPodOptions: { evict: false, podTerminationGracePeriodSecondsOverride: override },
      });
    kill(undefined);
    h.sim.run({ horizonMs: 1000, maxEvents: 10_000 });
    const firstCtx = h.podWorkers.podSyncStatuses.get('g')?.ctx;
    kill(5);
    expect(firstCtx?.canceled).toBe(true);
    h.sim.run({ horizonMs: 2000, maxEvents: 10_000 });
    const secondCtx = h.podWorkers.podSyncStatuses.get('g')?.ctx;
    kill(20);
    expect(secondCtx?.canceled).toBe(false);
    expect(h.podWorkers.podSyncStatuses.get('g')?.gracePeriod).toBe(5);
    h.drain();
    expect(starts).toEqual([
      { gp: 30, atMs: 0 },
      { gp: 5, atMs: 1000 },
    ]);
    expect(h.podWorkers.podSyncStatuses.get('g')?.terminatedAt).toBe(6000);
  });

  it('killPodNow with an override of 0 kills with the spec value (#115819 quirk, before 1.31)', () => {
    const h = createPodWorkers({ fixes: QUEUE_1_23.with('immediate-eviction-grace', false) });
    const pod = newPod('q', 'q', { terminationGracePeriodSeconds: 30 });
    const result = spawnKill(h, pod, true, 0, undefined);
    h.drain();
    expect(result.err).toBeUndefined();
    expect(records(h, 'q')[0]?.gracePeriod).toBe(30);
  });

  it('killPodNow with an override of 0 kills with 1 s from 1.31 (#124063, overridden)', () => {
    const h = createPodWorkers({ fixes: QUEUE_1_23 });
    const pod = newPod('q', 'q', { terminationGracePeriodSeconds: 30 });
    const result = spawnKill(h, pod, true, 0, undefined);
    h.drain();
    expect(result.err).toBeUndefined();
    expect(records(h, 'q')[0]?.gracePeriod).toBe(1);
  });
});

describe('worker loop', () => {
  it('a kill cancels the sync in flight through its context; a plain update does not', () => {
    const h = createPodWorkers({ backOffPeriodMs: 10_000, fixes: QUEUE_1_23 });
    const log: string[] = [];
    h.hooks.syncPod = function* (ctx) {
      const done = yield* sleepCtx(10_000, ctx);
      log.push(`syncPod ${done ? 'done' : 'canceled'}@${h.sim.nowMs}`);
      return { isTerminal: false, err: done ? undefined : errContextCanceled };
    };
    h.hooks.syncTerminatingPod = () => {
      log.push(`syncTerminatingPod@${h.sim.nowMs}`);
      return immediately(undefined);
    };
    const pod = newPod('c', 'c');
    h.podWorkers.updatePod({ pod, updateType: 'SyncPodCreate' });
    h.sim.run({ horizonMs: 500, maxEvents: 10_000 });
    const ctx = h.podWorkers.podSyncStatuses.get('c')?.ctx;
    h.podWorkers.updatePod({ pod, updateType: 'SyncPodUpdate' });
    expect(ctx?.canceled).toBe(false);
    h.sim.run({ horizonMs: 1000, maxEvents: 10_000 });
    h.podWorkers.updatePod({ pod, updateType: 'SyncPodKill' });
    expect(ctx?.canceled).toBe(true);
    // Requested, but the worker has not yet left syncPod: containers may still be starting.
    expect(h.podWorkers.isPodTerminationRequested('c')).toBe(true);
    expect(h.podWorkers.shouldPodContainersBeTerminating('c')).toBe(false);
    h.drain();
    expect(log).toEqual(['syncPod canceled@1000', 'syncTerminatingPod@1000']);
    expect(h.podWorkers.shouldPodContainersBeTerminating('c')).toBe(true);
    // The cancelled sync is requeued with the error back-off, the phase changes at once.
    const delays = h.queue.items.map((i) => i.delayMs);
    expect(delays).toHaveLength(2);
    expect(delays[0]).toBeGreaterThanOrEqual(10_000);
    expect(delays[0]).toBeLessThan(15_000);
    expect(delays[1]).toBe(0);
    expect(h.podWorkers.isPodKnownTerminated('c')).toBe(true);
  });

  it('completeWork requeues: resync on success, back-off on error, 1s when the network is not ready', () => {
    const h = createPodWorkers({ resyncIntervalMs: 60_000, backOffPeriodMs: 10_000, fixes: QUEUE_1_23 });
    const results: { isTerminal: boolean; err: GoError | undefined }[] = [
      { isTerminal: false, err: undefined },
      { isTerminal: false, err: new GoError('boom') },
      { isTerminal: false, err: new GoError('network is not ready: cni config uninitialized') },
      { isTerminal: true, err: undefined },
    ];
    h.hooks.syncPod = () => immediately(results.shift() ?? { isTerminal: false, err: undefined });
    const pod = newPod('r', 'r');
    for (let i = 0; i < 4; i++) {
      h.podWorkers.updatePod({ pod, updateType: 'SyncPodSync' });
      h.drain();
    }
    const d = h.queue.items.map((i) => i.delayMs);
    // sync ok, error, network error, terminal -> terminating (0) -> terminating done (0); terminated exits.
    expect(d).toHaveLength(5);
    expect(d[0]).toBeGreaterThanOrEqual(60_000);
    expect(d[0]).toBeLessThan(90_000);
    expect(d[1]).toBeGreaterThanOrEqual(10_000);
    expect(d[1]).toBeLessThan(15_000);
    expect(d[2]).toBeGreaterThanOrEqual(1000);
    expect(d[2]).toBeLessThan(1500);
    expect(d.slice(3)).toEqual([0, 0]);
    expect(h.podWorkers.podSyncStatuses.get('r')?.isFinished()).toBe(true);
  });

  it('publishes the phases, the termination request and the termination as facts', () => {
    const h = createPodWorkers({ fixes: QUEUE_1_23 });
    const pod = newNamedPod('f', 'ns', 'web', false);
    h.podWorkers.updatePod({ pod, updateType: 'SyncPodCreate' });
    h.drain();
    h.podWorkers.updatePod({ pod, updateType: 'SyncPodUpdate' });
    h.drain();
    h.podWorkers.updatePod({
      pod: newNamedPod('f', 'ns', 'web', false, { deletionTimestamp: 0 }),
      updateType: 'SyncPodUpdate',
    });
    h.drain();
    const summary = h.facts.map((f) =>
      f.kind === 'podWorkerPhase'
        ? `phase:${f.phase}`
        : f.kind === 'podTerminationRequested' || f.kind === 'podTerminated'
          ? `${f.kind}:${f.reason}`
          : f.kind,
    );
    expect(summary).toEqual([
      'phase:sync',
      'podTerminationRequested:marked for graceful deletion',
      'podKillDispatched',
      'phase:terminating',
      'podTerminated:syncTerminatingPod completed',
      'phase:terminated',
      'phase:finished',
    ]);
    for (const f of h.facts) {
      expect(f).toMatchObject({ node: 'node-a', uid: 'f', pod: 'web' });
      expect(f.atMs).toBe(h.sim.nowMs);
    }
  });

  it('publishes podTerminated for a static pod terminated before it started', () => {
    const h = createPodWorkers({ fixes: QUEUE_1_23 });
    const a = newNamedPod('a', 'test1', 'pod1', true);
    const b = newNamedPod('b', 'test1', 'pod1', true);
    h.podWorkers.updatePod({ pod: a, updateType: 'SyncPodCreate' });
    h.podWorkers.updatePod({ pod: b, updateType: 'SyncPodCreate' });
    h.drain();
    h.podWorkers.updatePod({ pod: b, updateType: 'SyncPodKill' });
    h.drain();
    const forB = h.facts.filter((f) => f.kind !== 'podWorkerPhase' && 'uid' in f && f.uid === 'b');
    expect(forB.map((f) => f.kind)).toEqual([
      'podTerminationRequested',
      'podKillDispatched',
      'podTerminated',
    ]);
    expect(forB[2]).toMatchObject({ reason: 'terminated before it started' });
    expect(records(h, 'b')).toEqual([]);
  });
});
