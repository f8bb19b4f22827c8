// Tests of the release-1.20 pod worker port: pod_workers_test.go (release-1.20) ported case by case, then
// the 1.20 rules that let the early-termination races of PR #102344 happen.
import { describe, expect, it } from 'vitest';
import { GoError } from '../../../src/api/errors.js';
import type { Pod, PodStatus, RuntimePodStatus } from '../../../src/api/v1.js';
import {
  killPodNow,
  LegacyPodWorkers,
  NetworkNotReadyErrorMsg,
  zeroTimeMs,
} from '../../../src/kubelet/legacy/podWorkers.js';
import type { SyncPodOptions, UpdatePodOptions } from '../../../src/kubelet/legacy/types.js';
import { WorkQueue } from '../../../src/kubelet/workQueue.js';
import { type Co, ProcessGroup, Sim, sleep } from '../../../src/sim/index.js';
import { bounds, createPodWorkers, drainWorkers, drive, FakeCache, newPod } from './helpers.js';

const failedStatus: PodStatus = {
  phase: 'Failed',
  reason: 'reason',
  message: 'message',
  containerStatuses: [],
};

describe('pod_workers_test.go (release-1.20)', () => {
  it('TestUpdatePod: every pod processed, first and last update always synced', () => {
    const h = createPodWorkers();
    const numPods = 20;
    for (let i = 0; i < numPods; i++) {
      for (let j = i; j < numPods; j++) {
        h.podWorkers.updatePod({ pod: newPod(String(j), String(i)), updateType: 'SyncPodCreate' });
      }
    }
    drainWorkers(h);
    expect(h.processed.size).toBe(numPods);
    for (let i = 0; i < numPods; i++) {
      const records = h.processed.get(String(i)) ?? [];
      expect(records.length).toBeGreaterThanOrEqual(1);
      expect(records.length).toBeLessThanOrEqual(i + 1);
      // PodWorker guarantees the first and the last event will be processed
      expect(records[0]?.name).toBe('0');
      expect(records[records.length - 1]?.name).toBe(String(i));
    }
  });

  it('TestUpdatePod with interleaved senders and slow syncs, over many seeds', () => {
    for (let seed = 1; seed <= 25; seed++) {
      const h = createPodWorkers({ seed, syncDelayMs: (_o, sim) => sim.rng.int(0, 30) });
      const numPods = 20;
      drive(h.sim, function* (): Co<void> {
        for (let i = 0; i < numPods; i++) {
          for (let j = i; j < numPods; j++) {
            h.podWorkers.updatePod({ pod: newPod(String(j), String(i)), updateType: 'SyncPodCreate' });
            yield* sleep(h.sim.rng.int(0, 3));
          }
        }
      });
      drainWorkers(h);
      expect(h.processed.size).toBe(numPods);
      for (let i = 0; i < numPods; i++) {
        const records = h.processed.get(String(i)) ?? [];
        expect(records.length).toBeLessThanOrEqual(i + 1);
        expect(records[0]?.name).toBe('0');
        expect(records[records.length - 1]?.name).toBe(String(i));
        // one goroutine per UID, one sync at a time
        for (let k = 1; k < records.length; k++) {
          expect(records[k]?.startMs).toBeGreaterThanOrEqual(
            records[k - 1]?.endMs ?? Number.POSITIVE_INFINITY,
          );
        }
      }
    }
  });

  it('TestUpdatePodDoesNotForgetSyncPodKill: create, kill, update gives create then kill', () => {
    const h = createPodWorkers();
    const numPods = 20;
    for (let i = 0; i < numPods; i++) {
      const pod = newPod(String(i), String(i));
      h.podWorkers.updatePod({ pod, updateType: 'SyncPodCreate' });
      h.podWorkers.updatePod({ pod, updateType: 'SyncPodKill' });
      h.podWorkers.updatePod({ pod, updateType: 'SyncPodUpdate' });
    }
    drainWorkers(h);
    expect(h.processed.size).toBe(numPods);
    for (let i = 0; i < numPods; i++) {
      // each pod should be processed two times (create, kill, but not update)
      const records = h.processed.get(String(i)) ?? [];
      expect(records.map((r) => r.updateType)).toEqual(['SyncPodCreate', 'SyncPodKill']);
    }
  });

  it('TestForgetNonExistingPodWorkers', () => {
    const h = createPodWorkers();
    const numPods = 20;
    for (let i = 0; i < numPods; i++) {
      h.podWorkers.updatePod({ pod: newPod(String(i), 'name'), updateType: 'SyncPodUpdate' });
    }
    drainWorkers(h);
    expect(h.podWorkers.podUpdates.size).toBe(numPods);
    expect(h.group.members.size).toBe(numPods);

    h.podWorkers.forgetNonExistingPodWorkers(new Set(['2', '14']));
    expect(h.podWorkers.podUpdates.size).toBe(2);
    expect(h.podWorkers.podUpdates.has('2')).toBe(true);
    expect(h.podWorkers.podUpdates.has('14')).toBe(true);
    h.sim.run(bounds);
    // the goroutines of the forgotten workers ended on their closed channels
    expect(h.group.members.size).toBe(2);

    h.podWorkers.forgetNonExistingPodWorkers(new Set());
    expect(h.podWorkers.podUpdates.size).toBe(0);
    h.sim.run(bounds);
    expect(h.group.members.size).toBe(0);
  });

  it('TestFakePodWorkers: real and fake workers call syncPod with the same pod, mirror pod and status', () => {
    const sim = new Sim(3);
    const cache = new FakeCache(sim);
    type Seen = {
      pod?: Pod | undefined;
      mirrorPod?: Pod | undefined;
      podStatus?: RuntimePodStatus | undefined;
    };
    const forReal: Seen = {};
    const forFake: Seen = {};
    const record = (into: Seen, o: SyncPodOptions): undefined => {
      into.pod = o.pod;
      into.mirrorPod = o.mirrorPod;
      into.podStatus = o.podStatus;
      return undefined;
    };
    const realPodWorkers = new LegacyPodWorkers({
      sim,
      rng: sim.rng.fork('w'),
      group: new ProcessGroup('kubelet'),
      // biome-ignore lint/correctness/useYield: simpleFakeKubelet.syncPod does not block.
      syncPodFn: function* (o) {
        return record(forReal, o);
      },
      workQueue: new WorkQueue(sim),
      podCache: cache,
      resyncIntervalMs: 1000,
      backOffPeriodMs: 1000,
      nodeName: 'node-a',
    });
    // fakePodWorkers: runs the sync function serially, inside UpdatePod.
    const fakePodWorkers = {
      updatePod(options: UpdatePodOptions): void {
        const status = cache.get(options.pod.metadata.uid);
        // biome-ignore lint/correctness/useYield: simpleFakeKubelet.syncPod does not block.
        const gen = (function* (o: SyncPodOptions): Co<undefined> {
          return record(forFake, o);
        })({
          mirrorPod: options.mirrorPod,
          pod: options.pod,
          podStatus: status,
          updateType: options.updateType,
          killPodOptions: options.killPodOptions,
        });
        const r = gen.next();
        expect(r.done).toBe(true);
        expect(r.value).toBeUndefined();
      },
    };
    const tests: { pod: Pod; mirrorPod: Pod }[] = [
      { pod: newPod('', ''), mirrorPod: newPod('', '') },
      { pod: newPod('12345678', 'foo', 'new'), mirrorPod: newPod('12345678', 'fooMirror', 'new') },
      { pod: newPod('98765', 'bar', 'new'), mirrorPod: newPod('98765', 'barMirror', 'new') },
    ];
    for (const tt of tests) {
      realPodWorkers.updatePod({ pod: tt.pod, mirrorPod: tt.mirrorPod, updateType: 'SyncPodUpdate' });
      fakePodWorkers.updatePod({ pod: tt.pod, mirrorPod: tt.mirrorPod, updateType: 'SyncPodUpdate' });
      sim.run(bounds);
      expect(forReal.pod).toEqual(forFake.pod);
      expect(forReal.mirrorPod).toEqual(forFake.mirrorPod);
      expect(forReal.podStatus).toEqual(forFake.podStatus);
      expect(forReal.pod).toBe(tt.pod);
    }
  });

  it('TestKillPodNowFunc: the blocking kill goes through the pod worker', () => {
    const h = createPodWorkers();
    const killPodFunc = killPodNow(h.sim, h.podWorkers);
    const pod = newPod('test', 'test');
    let err: GoError | undefined = new GoError('not returned');
    drive(h.sim, function* (): Co<void> {
      err = yield* killPodFunc(pod, failedStatus, 0);
    });
    drainWorkers(h);
    expect(err).toBeUndefined();
    expect(h.processed.size).toBe(1);
    const records = h.processed.get('test') ?? [];
    expect(records.length).toBe(1);
    expect(records[0]?.updateType).toBe('SyncPodKill');
    const kpo = records[0]?.options.killPodOptions;
    expect(kpo?.podTerminationGracePeriodSecondsOverride).toBe(0);
    expect(kpo?.podStatusFunc?.(pod, undefined)).toEqual(failedStatus);
  });
});

describe('the 1.20 pod worker loop', () => {
  it('syncs through the cache with lastSyncTime, publishes one sync fact per sync', () => {
    const h = createPodWorkers({ syncDelayMs: () => 40 });
    const pod = newPod('u1', 'web');
    h.podWorkers.updatePod({ pod, updateType: 'SyncPodCreate' });
    h.podWorkers.updatePod({ pod, updateType: 'SyncPodUpdate' });
    drainWorkers(h);
    expect(h.cache.newerThanCalls).toEqual([
      { uid: 'u1', minTimeMs: zeroTimeMs, atMs: 0 },
      { uid: 'u1', minTimeMs: 40, atMs: 40 },
    ]);
    expect(h.facts).toEqual([
      { kind: 'podWorkerPhase', phase: 'sync', atMs: 0, node: 'node-a', uid: 'u1', pod: 'web' },
      { kind: 'podWorkerPhase', phase: 'sync', atMs: 40, node: 'node-a', uid: 'u1', pod: 'web' },
    ]);
    expect(h.processed.get('u1')?.[0]?.options.podStatus).toEqual(h.cache.get('u1'));
  });

  it('calls OnCompleteFunc with the sync error, and wrapUp requeues by resync, network or backoff', () => {
    const results = new Map<string, GoError | undefined>([
      ['ok', undefined],
      ['net', new GoError(`${NetworkNotReadyErrorMsg}: cni not initialised`)],
      ['err', new GoError('boom')],
    ]);
    const h = createPodWorkers({
      resyncIntervalMs: 60_000,
      backOffPeriodMs: 10_000,
      syncResult: (o) => results.get(o.pod.metadata.uid),
    });
    const completed = new Map<string, GoError | undefined>();
    for (const uid of results.keys()) {
      h.podWorkers.updatePod({
        pod: newPod(uid, uid),
        updateType: 'SyncPodCreate',
        onCompleteFunc: (err) => completed.set(uid, err),
      });
    }
    const due = new Map<number, string[]>();
    for (const t of [999, 1500, 9_999, 15_000, 59_999, 90_000]) {
      h.sim.at(t, () => due.set(t, h.workQueue.getWork().sort()));
    }
    drainWorkers(h);
    expect(completed).toEqual(results);
    // Jitter(d, 0.5) lies in [d, 1.5 d]
    expect(due.get(999)).toEqual([]);
    expect(due.get(1500)).toEqual(['net']);
    expect(due.get(9_999)).toEqual([]);
    expect(due.get(15_000)).toEqual(['err']);
    expect(due.get(59_999)).toEqual([]);
    expect(due.get(90_000)).toEqual(['ok']);
  });

  it('a pending non-kill update is overwritten by the newest update, and by a kill', () => {
    const h = createPodWorkers({ syncDelayMs: () => 100 });
    const pod = newPod('u1', 'web');
    h.podWorkers.updatePod({ pod, updateType: 'SyncPodCreate' });
    h.podWorkers.updatePod({ pod: newPod('u1', 'second'), updateType: 'SyncPodUpdate' });
    h.podWorkers.updatePod({ pod: newPod('u1', 'third'), updateType: 'SyncPodUpdate' });
    expect(h.podWorkers.lastUndeliveredWorkUpdate.get('u1')?.pod.metadata.name).toBe('third');
    h.podWorkers.updatePod({ pod: newPod('u1', 'kill'), updateType: 'SyncPodKill' });
    expect(h.podWorkers.lastUndeliveredWorkUpdate.get('u1')?.updateType).toBe('SyncPodKill');
    drainWorkers(h);
    expect(h.processed.get('u1')?.map((r) => `${r.name}:${r.updateType}`)).toEqual([
      'web:SyncPodCreate',
      'kill:SyncPodKill',
    ]);
  });
});

describe('1.20 rule (a): a pending kill is never overwritten', () => {
  it('neither a later update nor a later kill replaces it', () => {
    const h = createPodWorkers({ syncDelayMs: () => 100 });
    const pod = newPod('u1', 'web');
    const done: string[] = [];
    const update = (u: UpdatePodOptions['updateType'], tag: string, grace?: number): void =>
      h.podWorkers.updatePod({
        pod,
        updateType: u,
        onCompleteFunc: () => done.push(tag),
        killPodOptions: grace === undefined ? undefined : { podTerminationGracePeriodSecondsOverride: grace },
      });
    update('SyncPodCreate', 'create');
    h.sim.at(10, () => update('SyncPodKill', 'evict', 30));
    h.sim.at(20, () => update('SyncPodUpdate', 'update'));
    h.sim.at(30, () => update('SyncPodKill', 'hard-evict', 1));
    h.sim.at(40, () => update('SyncPodCreate', 'create-again'));
    h.sim.at(50, () => {
      const pending = h.podWorkers.lastUndeliveredWorkUpdate.get('u1');
      expect(pending?.updateType).toBe('SyncPodKill');
      expect(pending?.killPodOptions?.podTerminationGracePeriodSecondsOverride).toBe(30);
    });
    drainWorkers(h);
    const records = h.processed.get('u1') ?? [];
    expect(records.map((r) => r.updateType)).toEqual(['SyncPodCreate', 'SyncPodKill']);
    // the kill that ran is the first one, with its (longer) grace period; the shorter one was dropped
    expect(records[1]?.options.killPodOptions?.podTerminationGracePeriodSecondsOverride).toBe(30);
    expect(records[1]?.startMs).toBe(100);
    expect(done).toEqual(['create', 'evict']);
  });

  it('so a second killPodNow behind a pending kill is dropped and times out', () => {
    const h = createPodWorkers({ syncDelayMs: (o) => (o.updateType === 'SyncPodKill' ? 2_000 : 500) });
    const killPodFunc = killPodNow(h.sim, h.podWorkers);
    const pod = newPod('u1', 'web');
    const results: { who: string; atMs: number; err: string | undefined }[] = [];
    h.podWorkers.updatePod({ pod, updateType: 'SyncPodCreate' });
    for (const [who, at, grace] of [
      ['eviction', 100, 30],
      ['preemption', 200, 0],
    ] as const) {
      h.sim.at(at, () =>
        drive(h.sim, function* (): Co<void> {
          const err = yield* killPodFunc(pod, failedStatus, grace);
          results.push({ who, atMs: h.sim.nowMs, err: err?.message });
        }),
      );
    }
    drainWorkers(h);
    expect(h.processed.get('u1')?.map((r) => r.updateType)).toEqual(['SyncPodCreate', 'SyncPodKill']);
    expect(results).toEqual([
      // the delivered kill: create sync ends at 500, kill sync 500..2500
      { who: 'eviction', atMs: 2_500, err: undefined },
      // the dropped kill waits max(10 s, 0 + 0/2) for a callback that never comes
      { who: 'preemption', atMs: 10_200, err: 'timeout waiting to kill pod' },
    ]);
  });
});

describe('1.20 rule (b): ForgetWorker does not stop an in-flight sync', () => {
  it('the forgotten goroutine finishes its sync, then exits; a later update starts a NEW worker', () => {
    const h = createPodWorkers({ syncDelayMs: () => 100 });
    const pod = newPod('u1', 'web');
    h.podWorkers.updatePod({ pod, updateType: 'SyncPodCreate' });
    const oldCh = h.podWorkers.podUpdates.get('u1');
    h.sim.at(10, () => {
      h.podWorkers.forgetWorker('u1');
      expect(h.podWorkers.podUpdates.has('u1')).toBe(false);
      expect(oldCh?.closed).toBe(true);
      // isWorking survives ForgetWorker upstream
      expect(h.podWorkers.isWorking.get('u1')).toBe(true);
    });
    h.sim.at(20, () => {
      h.podWorkers.updatePod({ pod: newPod('u1', 'web-again'), updateType: 'SyncPodUpdate' });
      const newCh = h.podWorkers.podUpdates.get('u1');
      expect(newCh).toBeDefined();
      expect(newCh).not.toBe(oldCh);
      // two goroutines for one UID now: the forgotten one (mid-sync) and the new one
      expect([...h.group.members].filter((p) => p.name === 'node-a/podWorker/u1').length).toBe(2);
      // the old sync is still running, so the update waits as undelivered work
      expect(h.podWorkers.lastUndeliveredWorkUpdate.get('u1')?.pod.metadata.name).toBe('web-again');
    });
    drainWorkers(h);
    const records = h.processed.get('u1') ?? [];
    expect(records.map((r) => [r.name, r.startMs, r.endMs])).toEqual([
      ['web', 0, 100], // not interrupted by ForgetWorker at 10
      ['web-again', 100, 200], // handed over by the old goroutine's checkForUpdates
    ]);
    const [first, second] = records;
    expect(first?.proc).toBeDefined();
    expect(second?.proc).toBeDefined();
    expect(second?.proc).not.toBe(first?.proc);
    expect(first?.proc?.state).toBe('done');
    expect(second?.proc?.state).toBe('blocked');
    expect(h.group.members.size).toBe(1);
  });

  it('with no later update the forgotten worker completes its sync, requeues, and ends', () => {
    const h = createPodWorkers({ syncDelayMs: () => 100 });
    h.podWorkers.updatePod({ pod: newPod('u1', 'web'), updateType: 'SyncPodCreate' });
    h.sim.at(10, () => h.podWorkers.forgetWorker('u1'));
    drainWorkers(h);
    const records = h.processed.get('u1') ?? [];
    expect(records.map((r) => r.endMs)).toEqual([100]);
    expect(records[0]?.proc?.state).toBe('done');
    expect(h.podWorkers.isWorking.get('u1')).toBe(false);
    expect(h.workQueue.size).toBe(1);
  });

  it('ForgetWorker drops a pending update, even a kill (the REMOVE race, R3)', () => {
    const h = createPodWorkers({ syncDelayMs: () => 100 });
    const pod = newPod('u1', 'web');
    let killCompleted = false;
    h.podWorkers.updatePod({ pod, updateType: 'SyncPodCreate' });
    h.sim.at(5, () =>
      h.podWorkers.updatePod({
        pod,
        updateType: 'SyncPodKill',
        onCompleteFunc: () => (killCompleted = true),
      }),
    );
    h.sim.at(10, () => h.podWorkers.forgetWorker('u1'));
    drainWorkers(h);
    expect(h.processed.get('u1')?.map((r) => r.updateType)).toEqual(['SyncPodCreate']);
    expect(killCompleted).toBe(false);
  });

  it('a forgotten idle worker ends at once, and the next update syncs in a new goroutine', () => {
    const h = createPodWorkers();
    const pod = newPod('u1', 'web');
    h.podWorkers.updatePod({ pod, updateType: 'SyncPodCreate' });
    h.sim.at(10, () => h.podWorkers.forgetWorker('u1'));
    h.sim.at(20, () => h.podWorkers.updatePod({ pod, updateType: 'SyncPodCreate' }));
    drainWorkers(h);
    const records = h.processed.get('u1') ?? [];
    expect(records.map((r) => r.startMs)).toEqual([0, 20]);
    expect(records[1]?.proc).not.toBe(records[0]?.proc);
  });
});
