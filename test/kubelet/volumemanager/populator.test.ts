// The desired-state populator's removal rules: release-1.23 (fix `pod-worker-lifecycle` on) keeps a pod's
// volumes until the pod worker says ShouldPodRuntimeBeRemoved; release-1.20 (off) removes them once the
// status says terminated and the runtime lists no running container (race R2, issue #88766).
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/api/v1.js';
import { Fixes } from '../../../src/fixes.js';
import { Harness, makePod } from './fakes.js';

function mounted(h: Harness, pod: Pod): void {
  h.addPod(pod);
  h.runUntil(h.sim.nowMs + 2_000);
  expect(h.vm.getMountedVolumesForPod(pod.metadata.uid).size).toBe(1);
}

describe('DSWP, release-1.23 rules (fix pod-worker-lifecycle on)', () => {
  it('keeps the volumes until ShouldPodRuntimeBeRemoved, in and out of the pod manager', () => {
    const h = new Harness();
    const pod = makePod('a', ['lun-1']);
    mounted(h, pod);
    const dsw = h.vm.desiredStateOfWorld;
    // Termination started: the pod worker is stopping the containers. Even a terminal-looking status
    // and an empty runtime listing do not matter any more.
    h.terminating.add('uid-a');
    h.statusTerminated.add('uid-a');
    h.runUntil(h.sim.nowMs + 5_000);
    expect(dsw.podExistsInVolume('uid-a', 'lun-1')).toBe(true);
    // Deleted from the pod manager (API deletion), containers may still run.
    h.pods.delete('uid-a');
    h.runUntil(h.sim.nowMs + 5_000);
    expect(dsw.podExistsInVolume('uid-a', 'lun-1')).toBe(true);
    expect(h.plugin.count('tearDown')).toBe(0);
    // The pod worker finished syncTerminatingPod: now the volumes go.
    h.runtimeRemovable.add('uid-a');
    h.runUntil(h.sim.nowMs + 2_000);
    expect(dsw.podExistsInVolume('uid-a', 'lun-1')).toBe(false);
    expect(h.plugin.count('tearDown')).toBe(1);
    expect(h.vm.podVolumesExist('uid-a')).toBe(false);
  });

  it('keeps a known pod whose mount is not in the actual state yet (PodRemovedFromVolume)', () => {
    const h = new Harness({ reportInUse: false });
    h.addPod(makePod('a', ['lun-1']));
    h.runUntil(1_000);
    h.runtimeRemovable.add('uid-a');
    h.runUntil(3_000);
    expect(h.vm.desiredStateOfWorld.podExistsInVolume('uid-a', 'lun-1')).toBe(true);
    h.pods.delete('uid-a');
    h.runUntil(4_000);
    expect(h.vm.desiredStateOfWorld.podExistsInVolume('uid-a', 'lun-1')).toBe(false);
  });

  it('does not add volumes of a pod whose containers should be terminating, once hasAddedPods', () => {
    const h = new Harness();
    // The first round (at 100 ms, sources ready) sets hasAddedPods; the pod comes after it.
    h.runUntil(150);
    h.terminating.add('uid-a');
    h.addPod(makePod('a', ['lun-1']));
    h.runUntil(2_000);
    expect(h.vm.desiredStateOfWorld.getVolumesToMount()).toEqual([]);
    expect(h.plugin.calls).toEqual([]);
  });
});

describe('DSWP before hasAddedPods (fix dsw-terminating-pod-on-restart, #114326)', () => {
  // The rounds before hasAddedPods are the ones a restarted kubelet's syncStates waits for: a pod the API
  // already has terminating is in the pod manager and its worker is terminating, its container may run.
  const terminatingAtStart = (fixes: Fixes): Harness => {
    const h = new Harness({ fixes });
    h.terminating.add('uid-a');
    h.addPod(makePod('a', ['lun-1']));
    h.runUntil(150);
    return h;
  };

  it('on: adds a terminating pod whose runtime may still run; off (release-1.23): skips it', () => {
    const on = terminatingAtStart(Fixes.of('1.25'));
    expect(on.vm.desiredStateOfWorld.podExistsInVolume('uid-a', 'lun-1')).toBe(true);
    const off = terminatingAtStart(Fixes.of('1.25').with('dsw-terminating-pod-on-restart', false));
    expect(off.vm.desiredStateOfWorld.podExistsInVolume('uid-a', 'lun-1')).toBe(false);
  });

  it('on: still skips a pod whose runtime should already be removed', () => {
    const h = new Harness({ fixes: Fixes.of('1.25') });
    h.terminating.add('uid-a');
    h.runtimeRemovable.add('uid-a');
    h.addPod(makePod('a', ['lun-1']));
    h.runUntil(150);
    expect(h.vm.desiredStateOfWorld.getVolumesToMount()).toEqual([]);
  });
});

describe('DSWP, release-1.20 rules (fix pod-worker-lifecycle off)', () => {
  it('removes a terminated-status pod while the runtime lists no running container', () => {
    const h = new Harness({ fixes: Fixes.all().with('pod-worker-lifecycle', false) });
    const pod = makePod('a', ['lun-1']);
    mounted(h, pod);
    // Deletion requested, containers all Waiting: util.IsPodTerminated says terminated; the runtime
    // cache lists the pod without running containers (it is about to start one).
    h.statusTerminated.add('uid-a');
    h.runningRuntimePods = [{ id: 'uid-a', name: 'a', namespace: 'default', containers: [], sandboxes: [] }];
    h.runUntil(h.sim.nowMs + 3_000);
    expect(h.vm.desiredStateOfWorld.podExistsInVolume('uid-a', 'lun-1')).toBe(false);
    // The pod is still in the pod manager and the pod worker never said it may be removed.
    expect(h.pods.has('uid-a')).toBe(true);
    expect(h.runtimeRemovable.has('uid-a')).toBe(false);
    expect(h.factsOf('volumeTearDown')).toMatchObject([{ uid: 'uid-a', ok: true }]);
    // A terminated-status pod is not added back.
    h.runUntil(h.sim.nowMs + 2_000);
    expect(h.plugin.count('setUp')).toBe(1);
  });

  it('keeps the volumes while the runtime lists a running container', () => {
    const h = new Harness({ fixes: Fixes.none() });
    mounted(h, makePod('a', ['lun-1']));
    h.statusTerminated.add('uid-a');
    h.runningRuntimePods = [
      {
        id: 'uid-a',
        name: 'a',
        namespace: 'default',
        containers: [{ id: 'c1', name: 'c', state: 'running' }],
        sandboxes: [],
      },
    ];
    h.runUntil(h.sim.nowMs + 5_000);
    expect(h.vm.desiredStateOfWorld.podExistsInVolume('uid-a', 'lun-1')).toBe(true);
    h.runningRuntimePods = [];
    h.runUntil(h.sim.nowMs + 3_000);
    expect(h.vm.desiredStateOfWorld.podExistsInVolume('uid-a', 'lun-1')).toBe(false);
  });

  it('the same situation with the fix on keeps the volumes (the pod worker has not terminated the pod)', () => {
    const h = new Harness();
    mounted(h, makePod('a', ['lun-1']));
    h.statusTerminated.add('uid-a');
    h.runningRuntimePods = [];
    h.runUntil(h.sim.nowMs + 5_000);
    expect(h.vm.desiredStateOfWorld.podExistsInVolume('uid-a', 'lun-1')).toBe(true);
    expect(h.plugin.count('tearDown')).toBe(0);
  });
});
