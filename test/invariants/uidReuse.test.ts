// A static pod put back from the same manifest reuses its UID (#104847): the checkers must judge the new
// lifecycle on its own, and still catch a container started in the old one after termination.
import { describe, expect, it } from 'vitest';
import type { Fact } from '../../src/facts.js';
import { ContainerStartedAfterTerminated, TerminationStuck } from '../../src/invariants/index.js';
import type { Checker, Violation } from '../../src/invariants/types.js';

const base = { node: 'node-a', uid: 'static-proxy-1', pod: 'proxy' };

function run(checker: Checker, facts: readonly Fact[], endMs = 200_000): Violation[] {
  const out: Violation[] = [];
  for (const f of facts) checker.onFact(f, (v) => out.push(v));
  checker.onEnd(endMs, (v) => out.push(v));
  return out;
}

const terminated: Fact[] = [
  { kind: 'podWorkerPhase', atMs: 8000, ...base, phase: 'terminating' },
  { kind: 'podTerminated', atMs: 18_000, ...base, reason: 'syncTerminatingPod completed' },
  { kind: 'podWorkerPhase', atMs: 18_500, ...base, phase: 'terminated' },
];

describe('UID reuse', () => {
  it('a new release-1.23 lifecycle (sync after finished) is not a start after termination', () => {
    const facts: Fact[] = [
      ...terminated,
      { kind: 'podWorkerPhase', atMs: 18_500, ...base, phase: 'finished' },
      { kind: 'podWorkerPhase', atMs: 20_000, ...base, phase: 'sync' },
      { kind: 'containerStarted', atMs: 20_300, ...base, container: 'c1' },
    ];
    expect(run(new ContainerStartedAfterTerminated(), facts)).toEqual([]);
  });

  it('a start before the old lifecycle finished still fires', () => {
    const facts: Fact[] = [
      ...terminated,
      { kind: 'containerStarted', atMs: 18_600, ...base, container: 'c1' },
    ];
    const v = run(new ContainerStartedAfterTerminated(), facts);
    expect(v).toHaveLength(1);
    expect(v[0]?.invariant).toBe('container-started-after-terminated');
  });

  it('re-creating a deleted static pod withdraws the deletion for termination-stuck', () => {
    const created: Fact = { kind: 'apiPodCreated', atMs: 0, ...base, static: true, restartPolicy: 'Always' };
    const started: Fact = {
      kind: 'containerStarted',
      atMs: 300,
      ...base,
      container: 'c1',
      staticFullname: 'proxy_default',
    };
    const deleted: Fact = { kind: 'apiPodDeletionRequested', atMs: 8000, ...base, gracePeriodSeconds: 10 };
    const checker = () => new TerminationStuck({ faultsActiveAtEnd: () => false, terminationBudgetMs: 0 });
    expect(run(checker(), [created, started, deleted])).toHaveLength(1);
    expect(run(checker(), [created, started, deleted, { ...created, atMs: 9000 }])).toEqual([]);
  });
});
