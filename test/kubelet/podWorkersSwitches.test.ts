// The follow-up fixes of #102344 as switches on the release-1.23 pod worker: each test runs the same
// sequence with the switch on (release-1.23) and off (the code before that change), and checks the
// difference the PR made. The base is the 1.23 preset: the 1.27 rework's switches (#113145, #117019)
// change some of these sequences and have their own tests (podWorkersRework.test.ts).
import { describe, expect, it } from 'vitest';
import type { UID } from '../../src/api/v1.js';
import { Fixes, type FixId } from '../../src/fixes.js';
import { sleepCtx } from '../../src/sim/index.js';
import { createPodWorkers, type Harness, newNamedPod, newPod } from './podWorkersHarness.js';

function withFix(id: FixId, on: boolean, slowTerminationMs = 0): Harness {
  const h = createPodWorkers({ fixes: Fixes.of('1.23').with(id, on) });
  if (slowTerminationMs > 0) {
    h.hooks.syncTerminatingPod = function* (ctx) {
      yield* sleepCtx(slowTerminationMs, ctx);
      return undefined;
    };
  }
  return h;
}

function updateTypes(h: Harness, uid: UID): string[] {
  return (h.processed.get(uid) ?? []).map((r) =>
    r.terminated === true ? 'terminated' : (r.updateType ?? ''),
  );
}

describe('pod-uid-reuse-restart (#104847)', () => {
  /** A pod is killed, re-created with the same UID while it terminates, then housekeeping runs. */
  function reuse(on: boolean): { h: Harness; queuedAfterCreate: string | undefined } {
    const h = withFix('pod-uid-reuse-restart', on, 1000);
    const pod = newPod('reused', 'p');
    h.podWorkers.updatePod({ pod, updateType: 'SyncPodCreate' });
    h.drain();
    h.podWorkers.updatePod({ pod, updateType: 'SyncPodKill' });
    h.sim.run({ horizonMs: h.sim.nowMs + 500, maxEvents: 10_000 });
    h.podWorkers.updatePod({ pod, updateType: 'SyncPodCreate' });
    const queuedAfterCreate = h.podWorkers.lastUndeliveredWorkUpdate.get('reused')?.workType;
    h.drain();
    return { h, queuedAfterCreate };
  }

  it('on: the create is remembered, SyncKnownPods purges the finished UID and reports it recreated', () => {
    const { h, queuedAfterCreate } = reuse(true);
    expect(queuedAfterCreate).toBeUndefined();
    const state = h.podWorkers.syncKnownPods([newPod('reused', 'p')]);
    expect(state.get('reused')).toBe('TerminatedAndRecreatedPod');
    expect(h.podWorkers.podSyncStatuses.has('reused')).toBe(false);
    h.podWorkers.updatePod({ pod: newPod('reused', 'p'), updateType: 'SyncPodCreate' });
    h.drain();
    expect(updateTypes(h, 'reused')).toEqual(['SyncPodCreate', 'SyncPodKill', 'terminated', 'SyncPodCreate']);
  });

  it('off: the create becomes one more kill; the finished UID ignores every update while in config', () => {
    const { h, queuedAfterCreate } = reuse(false);
    // The create went through the terminating case and was queued as terminating work (which the
    // terminated work then superseded).
    expect(queuedAfterCreate).toBe('TerminatingPodWork');
    const status = h.podWorkers.podSyncStatuses.get('reused');
    expect(status?.restartRequested).toBe(false);
    expect(status?.isFinished()).toBe(true);
    expect(updateTypes(h, 'reused')).toEqual(['SyncPodCreate', 'SyncPodKill', 'terminated']);
    const state = h.podWorkers.syncKnownPods([newPod('reused', 'p')]);
    expect(state.get('reused')).toBe('TerminatedPod');
    expect(h.podWorkers.podSyncStatuses.get('reused')?.isFinished()).toBe(true);
    h.podWorkers.updatePod({ pod: newPod('reused', 'p'), updateType: 'SyncPodCreate' });
    h.drain();
    expect(updateTypes(h, 'reused')).toEqual(['SyncPodCreate', 'SyncPodKill', 'terminated']);
    // Only leaving the config (or a kubelet restart) forgets it.
    h.podWorkers.syncKnownPods([]);
    expect(h.podWorkers.podSyncStatuses.has('reused')).toBe(false);
  });
});

describe('terminal-pod-on-first-sight (#105527)', () => {
  it('on: a Succeeded pod first seen with nothing running is finished at once, with no worker', () => {
    const h = withFix('terminal-pod-on-first-sight', true);
    h.podWorkers.updatePod({
      pod: newPod('done', 'done', { phase: 'Succeeded' }),
      updateType: 'SyncPodCreate',
    });
    expect(h.podWorkers.isPodKnownTerminated('done')).toBe(true);
    expect(h.podWorkers.podUpdates.has('done')).toBe(false);
    h.drain();
    expect(updateTypes(h, 'done')).toEqual([]);
    // Only the mark of the first-sight path (the known-open hazard's marker), no lifecycle facts.
    expect(h.facts.filter((f) => 'uid' in f && f.uid === 'done').map((f) => f.kind)).toEqual([
      'podFinishedOnFirstSight',
    ]);
  });

  it('off: the pod gets a worker that terminates it again and counts as active until it has', () => {
    const h = withFix('terminal-pod-on-first-sight', false);
    h.podWorkers.updatePod({
      pod: newPod('done', 'done', { phase: 'Succeeded' }),
      updateType: 'SyncPodCreate',
    });
    // What admission's filterOutInactivePods saw: termination requested, not known terminated.
    expect(h.podWorkers.isPodKnownTerminated('done')).toBe(false);
    expect(h.podWorkers.isPodTerminationRequested('done')).toBe(true);
    expect(h.podWorkers.couldHaveRunningContainers('done')).toBe(true);
    expect(h.podWorkers.podUpdates.has('done')).toBe(true);
    h.drain();
    expect(updateTypes(h, 'done')).toEqual(['SyncPodKill', 'terminated']);
    expect(h.podWorkers.isPodKnownTerminated('done')).toBe(true);
    const phases = h.facts.flatMap((f) => (f.kind === 'podWorkerPhase' && f.uid === 'done' ? [f.phase] : []));
    expect(phases).toEqual(['terminating', 'terminated', 'finished']);
  });
});

describe('static-pod-start-exclusion (#104743)', () => {
  const pod = (uid: UID) => newNamedPod(uid, 'kube-system', 'etcd', true);

  /** The old UID is killed and, while it terminates, a new UID with the same fullname arrives. */
  function replace(on: boolean): Harness {
    const h = withFix('static-pod-start-exclusion', on, 5000);
    h.podWorkers.updatePod({ pod: pod('old'), updateType: 'SyncPodCreate' });
    h.drain();
    h.podWorkers.updatePod({ pod: pod('old'), updateType: 'SyncPodKill' });
    h.podWorkers.updatePod({ pod: pod('new'), updateType: 'SyncPodCreate' });
    h.sim.run({ horizonMs: h.sim.nowMs + 1000, maxEvents: 10_000 });
    return h;
  }

  it('on: the new UID waits until the old one has finished', () => {
    const h = replace(true);
    expect(updateTypes(h, 'new')).toEqual([]);
    expect(h.podWorkers.isPodForMirrorPodTerminatingByFullName('etcd_kube-system')).toBe(true);
    expect(Object.fromEntries(h.podWorkers.waitingToStartStaticPodsByFullname)).toEqual({
      'etcd_kube-system': ['new'],
    });
    h.drain();
    h.podWorkers.updatePod({ pod: pod('new'), updateType: 'SyncPodSync' });
    h.drain();
    expect(updateTypes(h, 'new')).toEqual(['SyncPodSync']);
  });

  it('off (1.22.0-1.22.4): the new UID starts at once; only the terminating fullname is tracked', () => {
    const h = replace(false);
    expect(updateTypes(h, 'new')).toEqual(['SyncPodCreate']);
    expect(h.podWorkers.podSyncStatuses.get('old')?.isTerminated()).toBe(false);
    expect(h.podWorkers.startedStaticPodsByFullname.size).toBe(0);
    expect(h.podWorkers.waitingToStartStaticPodsByFullname.size).toBe(0);
    expect([...h.podWorkers.terminatingStaticPodFullnames]).toEqual(['etcd_kube-system']);
    expect(h.podWorkers.isPodForMirrorPodTerminatingByFullName('etcd_kube-system')).toBe(true);
    h.drain();
    expect(h.podWorkers.isPodForMirrorPodTerminatingByFullName('etcd_kube-system')).toBe(false);
  });
});

describe('unstarted-static-pod-terminated (#107900)', () => {
  const pod = (uid: UID) => newNamedPod(uid, 'kube-system', 'etcd', true);

  /**
   * Issue #107733: v1 runs; v2 arrives and waits; v2 is removed (killed) before it starts and v3
   * arrives; v1 is removed. The kubelet re-dispatches only pods still in its config (v3).
   */
  function rapidUpdates(on: boolean): Harness {
    const h = withFix('unstarted-static-pod-terminated', on, 2000);
    h.podWorkers.updatePod({ pod: pod('v1'), updateType: 'SyncPodCreate' });
    h.drain();
    h.podWorkers.updatePod({ pod: pod('v2'), updateType: 'SyncPodCreate' });
    h.drain();
    h.podWorkers.updatePod({ pod: pod('v2'), updateType: 'SyncPodKill' });
    h.podWorkers.updatePod({ pod: pod('v3'), updateType: 'SyncPodCreate' });
    h.podWorkers.updatePod({ pod: pod('v1'), updateType: 'SyncPodKill' });
    h.drain();
    // The sync loop's retries of v3, and housekeeping with v3 the only static pod in config.
    for (let i = 0; i < 3; i++) {
      h.podWorkers.updatePod({ pod: pod('v3'), updateType: 'SyncPodSync' });
      h.drain();
      h.podWorkers.syncKnownPods([pod('v3')]);
    }
    return h;
  }

  it('on: v2 is cleaned up unstarted and v3 starts once v1 has finished', () => {
    const h = rapidUpdates(true);
    expect(updateTypes(h, 'v2')).toEqual([]);
    expect(h.podWorkers.podSyncStatuses.has('v2')).toBe(false);
    expect(updateTypes(h, 'v3')[0]).toBe('SyncPodSync');
    expect(h.podWorkers.startedStaticPodsByFullname.get('etcd_kube-system')).toBe('v3');
  });

  it('off (1.22.5-1.22.7, 1.23.0-1.23.4): v2 stays first in line for ever and v3 never starts', () => {
    const h = rapidUpdates(false);
    expect(updateTypes(h, 'v2')).toEqual([]);
    expect(updateTypes(h, 'v3')).toEqual([]);
    expect(h.podWorkers.podSyncStatuses.get('v2')?.isTerminationRequested()).toBe(true);
    expect(h.podWorkers.podSyncStatuses.get('v2')?.isTerminated()).toBe(false);
    expect(h.podWorkers.startedStaticPodsByFullname.size).toBe(0);
    expect(Object.fromEntries(h.podWorkers.waitingToStartStaticPodsByFullname)).toEqual({
      'etcd_kube-system': ['v2', 'v3'],
    });
  });

  it('with static-pod-start-exclusion off there is no start gate for it to act on', () => {
    const h = createPodWorkers({
      fixes: Fixes.all()
        .with('static-pod-start-exclusion', false)
        .with('unstarted-static-pod-terminated', true),
    });
    h.podWorkers.updatePod({ pod: pod('v1'), updateType: 'SyncPodCreate' });
    h.podWorkers.updatePod({ pod: pod('v2'), updateType: 'SyncPodCreate' });
    h.drain();
    expect(updateTypes(h, 'v1')).toEqual(['SyncPodCreate']);
    expect(updateTypes(h, 'v2')).toEqual(['SyncPodCreate']);
  });
});
