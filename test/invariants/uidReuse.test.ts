// A static pod put back from the same manifest reuses its UID (#104847): the checkers must judge the new
// lifecycle on its own, and still catch a container started in the old one after termination.
import { describe, expect, it } from 'vitest';
import type { Fact } from '../../src/facts.js';
import {
  ConcurrentKill,
  ContainerStartedAfterTerminated,
  GracePeriodIncreased,
  NodeShutdownMarkedFailed,
  TerminationStuck,
} from '../../src/invariants/index.js';
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
    const created: Fact = {
      kind: 'apiPodCreated',
      atMs: 0,
      ...base,
      static: true,
      restartPolicy: 'Always',
      containers: ['c1'],
      startDelayMs: 0,
      volumes: [],
      gracePeriodSeconds: 30,
    };
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

describe('kubelet restarts and UID reuse reset what one kubelet process decided', () => {
  const kill = (atMs: number, grace: number, node = 'node-a'): Fact => ({
    kind: 'killPodStarted',
    atMs,
    node,
    uid: 'u1',
    pod: 'p',
    gracePeriodSeconds: grace,
    source: 'test',
  });

  it('concurrent-kill: a kill by the next kubelet process is not concurrent with the dead one', () => {
    expect(run(new ConcurrentKill(), [kill(1000, 5), kill(2000, 5)])).toHaveLength(1);
    expect(
      run(new ConcurrentKill(), [
        kill(1000, 5),
        { kind: 'kubeletStopped', atMs: 1500, node: 'node-a' },
        kill(2000, 5),
      ]),
    ).toEqual([]);
  });

  /** The static pod u1 put back from its manifest (the same UID). */
  const recreated = (atMs: number): Fact => ({
    kind: 'apiPodCreated',
    atMs,
    node: 'node-a',
    uid: 'u1',
    pod: 'p',
    static: true,
    restartPolicy: 'Always',
    containers: ['c1'],
    startDelayMs: 0,
    volumes: [],
    gracePeriodSeconds: 30,
  });

  it('grace-period-increased: a restart or a re-created UID starts over', () => {
    expect(run(new GracePeriodIncreased(), [kill(1000, 1), kill(2000, 30)])).toHaveLength(1);
    expect(
      run(new GracePeriodIncreased(), [
        kill(1000, 1),
        { kind: 'kubeletStopped', atMs: 1500, node: 'node-a' },
        kill(2000, 30),
      ]),
    ).toEqual([]);
    const created = recreated(1500);
    expect(run(new GracePeriodIncreased(), [kill(1000, 1), created, kill(2000, 30)])).toEqual([]);
  });

  it('grace-period-increased: a lifecycle that finished does not bind the next one (seed 24, case 14838)', () => {
    // The static pod is put back with its UID before the old lifecycle's kill (1 s) started; that
    // lifecycle finishes, the pod worker restarts the pod (#104847), and an eviction kills the new one
    // with 19 s: a new podSyncStatus, so no earlier grace binds it.
    const phase = (atMs: number, p: 'sync' | 'finished'): Fact => ({
      kind: 'podWorkerPhase',
      atMs,
      node: 'node-a',
      uid: 'u1',
      pod: 'p',
      phase: p,
    });
    const created = recreated(500);
    const lifecycles = [created, kill(1000, 1), phase(2000, 'finished'), phase(2000, 'sync'), kill(3000, 19)];
    expect(run(new GracePeriodIncreased(), lifecycles)).toEqual([]);
    // Within one lifecycle (no finished between) the increase still fires.
    expect(
      run(new GracePeriodIncreased(), [created, kill(1000, 1), phase(2000, 'sync'), kill(3000, 19)]),
    ).toHaveLength(1);
  });

  it('container-started-after-terminated: the next kubelet process judges anew', () => {
    const t: Fact = {
      kind: 'podTerminated',
      atMs: 1000,
      node: 'node-a',
      uid: 'u1',
      pod: 'p',
      reason: 'test',
    };
    const start: Fact = {
      kind: 'containerStarted',
      atMs: 3000,
      node: 'node-a',
      uid: 'u1',
      pod: 'p',
      container: 'c',
    };
    expect(run(new ContainerStartedAfterTerminated(), [t, start])).toHaveLength(1);
    expect(
      run(new ContainerStartedAfterTerminated(), [
        t,
        { kind: 'kubeletStopped', atMs: 2000, node: 'node-a' },
        start,
      ]),
    ).toEqual([]);
  });

  it('node-shutdown-marked-failed only blames the shutdown status function (reason Shutdown)', () => {
    const shutdown: Fact = {
      kind: 'nodeShutdownStarted',
      atMs: 0,
      node: 'node-a',
      podGracePeriodSeconds: 20,
    };
    const phase = (reason: string): Fact => ({
      kind: 'apiPodPhase',
      atMs: 100,
      node: 'node-a',
      uid: 'u1',
      pod: 'p',
      phase: 'Failed',
      reason,
      restartable: true,
    });
    expect(run(new NodeShutdownMarkedFailed(), [shutdown, phase('Shutdown')])).toHaveLength(1);
    expect(run(new NodeShutdownMarkedFailed(), [shutdown, phase('Evicted')])).toEqual([]);
  });
});
