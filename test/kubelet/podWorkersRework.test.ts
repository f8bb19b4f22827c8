// The two v1.27 pod worker changes podrace ports as switches on the release-1.23 pod worker: #113145's
// orphan handling in SyncKnownPods (orphan-pod-worker-terminates) and #117019's unfinished first-sight
// status (terminal-pod-first-sight-synced). Each runs the same sequence with the switch off (1.26) and on
// (1.27), from the 1.26 preset. The queue half of #113145 (pod-worker-pending-update) is tested by
// podWorkersV128.test.ts and housekeepingV128.test.ts.
import { describe, expect, it } from 'vitest';
import { GoError } from '../../src/api/errors.js';
import type { UID } from '../../src/api/v1.js';
import { Fixes, type FixId } from '../../src/fixes.js';
import { createPodWorkers, type Harness, newNamedPod, newPod } from './podWorkersHarness.js';

function withFix(id: FixId, on: boolean): Harness {
  return createPodWorkers({ fixes: Fixes.of('1.26').with(id, on) });
}

function updateTypes(h: Harness, uid: UID): string[] {
  return (h.processed.get(uid) ?? []).map((r) =>
    r.terminated === true ? 'terminated' : (r.updateType ?? ''),
  );
}

function reasons(h: Harness, uid: UID): string[] {
  return h.facts.flatMap((f) => (f.kind === 'podTerminationRequested' && f.uid === uid ? [f.reason] : []));
}

describe('orphan-pod-worker-terminates (#113145)', () => {
  /** A static pod starts; its REMOVE never reaches the worker (dropped before sources were ready). */
  function orphaned(on: boolean): Harness {
    const h = withFix('orphan-pod-worker-terminates', on);
    const pod = newNamedPod('agent-1', 'kube-system', 'agent', true, { terminationGracePeriodSeconds: 5 });
    h.podWorkers.updatePod({ pod, updateType: 'SyncPodCreate' });
    h.drain();
    // Housekeeping, twice: the pod is in no source any more.
    h.podWorkers.syncKnownPods([]);
    h.drain();
    h.podWorkers.syncKnownPods([]);
    h.drain();
    return h;
  }

  it('off (1.22-1.26): the started worker stays in SyncPod for ever and is reported so', () => {
    const h = orphaned(false);
    expect(updateTypes(h, 'agent-1')).toEqual(['SyncPodCreate']);
    expect(h.podWorkers.isPodTerminationRequested('agent-1')).toBe(false);
    expect(h.podWorkers.syncKnownPods([]).get('agent-1')).toBe('SyncPod');
    // Orphaned mirror pod cleanup sees no terminating static pod of the name: it deletes the mirror pod.
    expect(h.podWorkers.isPodForMirrorPodTerminatingByFullName('agent_kube-system')).toBe(false);
  });

  it('on: SyncKnownPods terminates it with the spec grace (no override), then forgets it', () => {
    const h = withFix('orphan-pod-worker-terminates', true);
    const pod = newNamedPod('agent-1', 'kube-system', 'agent', true, { terminationGracePeriodSeconds: 5 });
    h.podWorkers.updatePod({ pod, updateType: 'SyncPodCreate' });
    h.drain();
    expect(h.podWorkers.syncKnownPods([]).get('agent-1')).toBe('TerminatingPod');
    const status = h.podWorkers.podSyncStatuses.get('agent-1');
    expect(status?.isDeleted()).toBe(true);
    expect(status?.gracePeriod).toBe(5);
    // While it terminates, the mirror pod is kept (IsPodForMirrorPodTerminatingByFullName).
    expect(h.podWorkers.isPodForMirrorPodTerminatingByFullName('agent_kube-system')).toBe(true);
    expect(reasons(h, 'agent-1')).toEqual(['orphaned: no longer in the config (SyncKnownPods)']);
    h.drain();
    expect(updateTypes(h, 'agent-1')).toEqual(['SyncPodCreate', 'SyncPodKill', 'terminated']);
    // The replayed update carries no kill override: killContainer's own grace applies.
    expect(h.processed.get('agent-1')?.[1]?.gracePeriod).toBeUndefined();
    // No podKillDispatched for it: that fact marks a kill whose grace the worker passed down.
    expect(h.facts.some((f) => f.kind === 'podKillDispatched' && f.uid === 'agent-1')).toBe(false);
    expect(h.podWorkers.podSyncStatuses.get('agent-1')?.isFinished()).toBe(true);
    h.podWorkers.syncKnownPods([]);
    expect(h.podWorkers.podSyncStatuses.has('agent-1')).toBe(false);
    expect(orphaned(true).podWorkers.podSyncStatuses.has('agent-1')).toBe(false);
  });

  it('on: an orphan that never started (waiting behind another static pod) is forgotten without a sync', () => {
    const h = withFix('orphan-pod-worker-terminates', true);
    const v1 = newNamedPod('v1', 'kube-system', 'etcd', true);
    const v2 = newNamedPod('v2', 'kube-system', 'etcd', true);
    h.podWorkers.updatePod({ pod: v1, updateType: 'SyncPodCreate' });
    h.drain();
    h.podWorkers.updatePod({ pod: v2, updateType: 'SyncPodCreate' });
    h.drain();
    expect(updateTypes(h, 'v2')).toEqual([]);
    const state = h.podWorkers.syncKnownPods([v1]);
    expect(state.has('v2')).toBe(false);
    expect(h.podWorkers.podSyncStatuses.has('v2')).toBe(false);
    expect(h.podWorkers.podUpdates.has('v2')).toBe(false);
    h.drain();
    expect(updateTypes(h, 'v2')).toEqual([]);
    // v1, still desired, is untouched.
    expect(state.get('v1')).toBe('SyncPod');
    expect(h.podWorkers.isPodTerminationRequested('v1')).toBe(false);
  });

  it('on: a terminating orphan whose termination failed is retried by housekeeping (#113091)', () => {
    const h = withFix('orphan-pod-worker-terminates', true);
    let failures = 1;
    // biome-ignore lint/correctness/useYield: a runtime that fails at once, then answers
    h.hooks.syncTerminatingPod = function* () {
      if (failures-- > 0) return new GoError('rpc error: runtime down');
      return undefined;
    };
    const pod = newPod('web-1', 'web', { terminationGracePeriodSeconds: 3 });
    h.podWorkers.updatePod({ pod, updateType: 'SyncPodCreate' });
    h.drain();
    h.podWorkers.updatePod({ pod, updateType: 'SyncPodKill' });
    h.drain();
    // The kill failed; the work queue's retry re-dispatches only pods still in the config: none.
    expect(updateTypes(h, 'web-1')).toEqual(['SyncPodCreate', 'SyncPodKill']);
    expect(h.podWorkers.podSyncStatuses.get('web-1')?.isTerminated()).toBe(false);
    h.podWorkers.syncKnownPods([]);
    h.drain();
    expect(updateTypes(h, 'web-1')).toEqual(['SyncPodCreate', 'SyncPodKill', 'SyncPodKill', 'terminated']);
    expect(h.podWorkers.podSyncStatuses.get('web-1')?.isFinished()).toBe(true);
  });
});

describe('terminal-pod-first-sight-synced (#117019)', () => {
  function firstSight(on: boolean): Harness {
    const h = withFix('terminal-pod-first-sight-synced', on);
    // After a kubelet restart: the API has the pod Succeeded, the runtime runs nothing of it.
    h.podWorkers.updatePod({
      pod: newPod('done', 'done', { phase: 'Succeeded', deletionTimestamp: 1000 }),
      updateType: 'SyncPodCreate',
    });
    return h;
  }

  it('off (1.22.3-1.26): finished at once, no worker, no SyncTerminatedPod (#116954)', () => {
    const h = firstSight(false);
    expect(h.podWorkers.isPodKnownTerminated('done')).toBe(true);
    expect(h.podWorkers.podUpdates.has('done')).toBe(false);
    h.drain();
    expect(updateTypes(h, 'done')).toEqual([]);
    expect(h.facts.filter((f) => 'uid' in f && f.uid === 'done').map((f) => f.kind)).toEqual([
      'podFinishedOnFirstSight',
    ]);
  });

  it('on: terminated (never active) but not finished: its worker runs SyncTerminatedPod once', () => {
    const h = firstSight(true);
    // Admission still sees it as terminated (#105523 stays fixed).
    expect(h.podWorkers.isPodKnownTerminated('done')).toBe(true);
    expect(h.podWorkers.couldHaveRunningContainers('done')).toBe(false);
    const status = h.podWorkers.podSyncStatuses.get('done');
    expect(status?.isFinished()).toBe(false);
    // A create on first sight is not a UID reuse (v1.28's !firstTime).
    expect(status?.restartRequested).toBe(false);
    h.drain();
    expect(updateTypes(h, 'done')).toEqual(['terminated']);
    expect(h.podWorkers.podSyncStatuses.get('done')?.isFinished()).toBe(true);
    expect(reasons(h, 'done')).toEqual([
      'terminal phase Succeeded when first seen, nothing running: SyncTerminatedPod still runs',
    ]);
  });

  it('on: a static pod first seen terminal finishes through the start gate, with no sync', () => {
    const h = withFix('terminal-pod-first-sight-synced', true);
    const pod = newNamedPod('s-1', 'kube-system', 'job', true, { phase: 'Failed' });
    h.podWorkers.updatePod({ pod, updateType: 'SyncPodCreate' });
    h.drain();
    expect(updateTypes(h, 's-1')).toEqual([]);
    expect(h.podWorkers.podSyncStatuses.get('s-1')?.isFinished()).toBe(true);
  });
});
