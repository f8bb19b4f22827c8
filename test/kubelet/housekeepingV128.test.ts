// HandlePodCleanups of v1.28.0 (kubelet_pods.go after #113145; `pod-worker-pending-update` on) against
// release-1.23's (off), on the real pod workers of podWorkersHarness.ts and a stand-in for the rest of the
// kubelet: what housekeeping restarts, what it kills, and the runtime cache it reads.
import { describe, expect, it } from 'vitest';
import type { Pod, PodStatus, RuntimePod, UID } from '../../src/api/v1.js';
import { Fixes } from '../../src/fixes.js';
import type { Kubelet } from '../../src/kubelet/kubelet.js';
import { handlePodCleanups } from '../../src/kubelet/kubeletPods.js';
import type { Co } from '../../src/sim/index.js';
import { createPodWorkers, type Harness, newNamedPod, runtimePod } from './podWorkersHarness.js';

interface Housekeeping {
  h: Harness;
  config: Pod[];
  statuses: Map<UID, PodStatus>;
  /** What the runtime lists now, and what the 2 s cache still holds. */
  runtime: RuntimePod[];
  cached: RuntimePod[];
  calls: string[];
  run(): void;
}

function housekeeping(fixes: Fixes): Housekeeping {
  const h = createPodWorkers({ fixes });
  const hk: Housekeeping = {
    h,
    config: [],
    statuses: new Map(),
    runtime: [],
    cached: [],
    calls: [],
    run() {
      h.sim.spawn('housekeeping', handlePodCleanups(kl));
      h.drain();
    },
  };
  function* noMirrorPods(): Co<void> {}
  const kl = {
    fixes,
    podWorkers: h.podWorkers,
    legacy: undefined,
    sim: h.sim,
    podManager: {
      getPodsAndMirrorPods: () => ({ pods: hk.config, mirrorPods: [] }),
      getOrphanedMirrorPodNames: () => [],
      getMirrorPodByPod: () => undefined,
    },
    mirrorClient: { deleteMirrorPod: noMirrorPods },
    statusManager: {
      getPodStatus: (uid: UID) => hk.statuses.get(uid),
      removeOrphanedStatuses: () => {},
    },
    forceUpdateRuntimeCacheIfOlder: (minTimeMs: number) => {
      hk.calls.push(`forceUpdateIfOlder(${minTimeMs})`);
      hk.cached = hk.runtime;
    },
    runtimeCacheGetPods: () => {
      hk.calls.push('getPods');
      return hk.cached;
    },
    host: { podCgroups: new Set<UID>() },
    volumeManager: { podVolumesExist: () => false },
    runtimeManager: { backOffGC: () => {} },
    dispatchWork: (pod: Pod, updateType: 'SyncPodCreate') =>
      h.podWorkers.updatePod({ pod, updateType, startTimeMs: h.sim.nowMs }),
  } as unknown as Kubelet;
  return hk;
}

const pod = (uid: UID) => newNamedPod(uid, 'ns', uid, false, { terminationGracePeriodSeconds: 30 });

function history(h: Harness, uid: UID): string[] {
  return (h.processed.get(uid) ?? []).map((r) =>
    r.terminated === true ? 'terminated' : `${r.updateType}${r.runningPod !== undefined ? '(runtime)' : ''}`,
  );
}

describe('HandlePodCleanups (v1.28) against release-1.23', () => {
  it('housekeeping-restart-same-round (#116690): 1.27 restarts a reused UID one round later', () => {
    const hk = housekeeping(Fixes.of('1.27'));
    const a = pod('a');
    hk.config = [a];
    hk.h.podWorkers.updatePod({ pod: a, updateType: 'SyncPodCreate' });
    hk.h.drain();
    hk.h.podWorkers.updatePod({ pod: a, updateType: 'SyncPodKill' });
    hk.h.podWorkers.updatePod({ pod: a, updateType: 'SyncPodCreate' });
    hk.h.drain();
    // Picked before SyncKnownPods forgot it, the terminated UID is not active: no restart this round.
    hk.run();
    expect(history(hk.h, 'a')).toEqual(['SyncPodCreate', 'SyncPodKill', 'terminated']);
    expect(hk.h.podWorkers.podSyncStatuses.has('a')).toBe(false);
    hk.run();
    expect(history(hk.h, 'a')).toEqual(['SyncPodCreate', 'SyncPodKill', 'terminated', 'SyncPodCreate']);
  });

  it('a UID reused while it terminated is restarted either way; v1.28 through the pods the worker does not know', () => {
    for (const fixes of [Fixes.of('1.28'), Fixes.of('1.26')]) {
      const hk = housekeeping(fixes);
      const a = pod('a');
      hk.config = [a];
      hk.h.podWorkers.updatePod({ pod: a, updateType: 'SyncPodCreate' });
      hk.h.drain();
      hk.h.podWorkers.updatePod({ pod: a, updateType: 'SyncPodKill' });
      hk.h.podWorkers.updatePod({ pod: a, updateType: 'SyncPodCreate' }); // the same UID again
      hk.h.drain();
      hk.run();
      expect(history(hk.h, 'a'), fixes.label()).toEqual([
        'SyncPodCreate',
        'SyncPodKill',
        'terminated',
        'SyncPodCreate',
      ]);
    }
  });

  it('v1.28 restarts an admitted pod the worker forgot (a runtime pod of that UID was killed), not a terminal one', () => {
    const run = (fixes: Fixes) => {
      const hk = housekeeping(fixes);
      // Housekeeping kills a runtime pod no config has, with that UID.
      hk.runtime = [runtimePod('b', 'b', 'ns')];
      hk.cached = hk.runtime;
      hk.run();
      // The pod comes into the config with an update the worker does not take as a create.
      const b = pod('b');
      hk.config = [b, pod('done')];
      hk.statuses.set('done', { phase: 'Succeeded', containerStatuses: [] });
      hk.runtime = [];
      hk.cached = [];
      hk.h.podWorkers.updatePod({ pod: b, updateType: 'SyncPodUpdate' });
      hk.h.drain();
      hk.run();
      return hk;
    };
    const v128 = run(Fixes.of('1.28'));
    // The runtime pod's worker was forgotten once it was killed: the update starts the pod.
    expect(history(v128.h, 'b')).toEqual(['SyncPodKill(runtime)', 'SyncPodUpdate']);
    expect(history(v128.h, 'done')).toEqual([]);
    // release-1.23 kept the runtime pod's worker finished: the update is ignored, and since it was no
    // create, SyncKnownPods keeps the status of a UID in the config and nothing restarts it. (The kubelet
    // delivers a pod's ADD, a create, first: that one release-1.23 takes as a UID reuse and restarts.)
    const v126 = run(Fixes.of('1.26'));
    expect(history(v126.h, 'b')).toEqual(['SyncPodKill(runtime)']);
    expect(v126.h.podWorkers.podSyncStatuses.get('b')?.isFinished()).toBe(true);
  });

  it('v1.28 kills a runtime pod the worker does not know even when its pod is in the config (inactive)', () => {
    const run = (fixes: Fixes) => {
      const hk = housekeeping(fixes);
      const c = pod('c');
      hk.config = [c];
      hk.statuses.set('c', { phase: 'Failed', containerStatuses: [] }); // e.g. rejected at admission
      hk.runtime = [runtimePod('c', 'c', 'ns')];
      hk.cached = hk.runtime;
      hk.run();
      return history(hk.h, 'c');
    };
    expect(run(Fixes.of('1.28'))).toEqual(['SyncPodKill(runtime)']);
    // release-1.23 left the containers of a pod in the config to the pod worker, which never had it.
    expect(run(Fixes.of('1.26'))).toEqual([]);
  });

  it('v1.28 refreshes the runtime cache before it reads it (ForceUpdateIfOlder); release-1.23 read it as it was', () => {
    // The cache (up to 2 s old) does not list a runtime pod the runtime has now.
    const run = (fixes: Fixes) => {
      const hk = housekeeping(fixes);
      hk.runtime = [runtimePod('e', 'e', 'ns')];
      hk.run();
      return hk;
    };
    const v128 = run(Fixes.of('1.28'));
    expect(v128.calls).toEqual([`forceUpdateIfOlder(${v128.h.sim.nowMs})`, 'getPods']);
    expect(history(v128.h, 'e')).toEqual(['SyncPodKill(runtime)']);
    const v126 = run(Fixes.of('1.26'));
    expect(v126.calls).toEqual(['getPods']);
    expect(history(v126.h, 'e')).toEqual([]);
  });
});
