import { describe, expect, it } from 'vitest';
import type { Fact } from '../../src/facts.js';
import {
  createCheckers,
  INVARIANT_DESCRIPTIONS,
  INVARIANT_IDS,
  InvariantMonitor,
} from '../../src/invariants/index.js';

const config = { volumes: [], faultsActiveAtEnd: () => false };

describe('InvariantMonitor', () => {
  it('creates one checker per invariant ID, in order', () => {
    expect(createCheckers(config).map((c) => c.id)).toEqual([...INVARIANT_IDS]);
  });

  it('keeps the first violation per (invariant, uid or volume, node)', () => {
    const monitor = new InvariantMonitor(createCheckers(config));
    const base = { pod: 'web', uid: 'uid-web' };
    const facts: Fact[] = [
      { kind: 'podTerminated', atMs: 100, node: 'node-a', ...base, reason: 'x' },
      { kind: 'podTerminated', atMs: 100, node: 'node-b', ...base, reason: 'x' },
      { kind: 'containerStarted', atMs: 200, node: 'node-a', ...base, container: 'app' },
      { kind: 'containerStarted', atMs: 300, node: 'node-a', ...base, container: 'sidecar' },
      { kind: 'containerStarted', atMs: 400, node: 'node-b', ...base, container: 'app' },
      { kind: 'kubeletPanic', atMs: 500, node: 'node-a', component: 'stats', message: 'nil' },
      { kind: 'kubeletPanic', atMs: 600, node: 'node-a', component: 'stats', message: 'nil' },
    ];
    for (const f of facts) monitor.onFact(f);
    monitor.onEnd(1000);
    monitor.onEnd(1000);
    expect(monitor.violations().map((v) => [v.invariant, v.node, v.atMs])).toEqual([
      ['container-started-after-terminated', 'node-a', 200],
      ['container-started-after-terminated', 'node-b', 400],
      ['kubelet-panic', 'node-a', 500],
    ]);
  });

  it('passes the termination budget and fault state to termination-stuck', () => {
    const facts: Fact[] = [
      {
        kind: 'apiPodCreated',
        atMs: 0,
        node: '',
        pod: 'web',
        uid: 'u1',
        static: false,
        restartPolicy: 'Always',
        containers: ['c1'],
        startDelayMs: 0,
        volumes: [],
        gracePeriodSeconds: 30,
      },
      { kind: 'apiPodDeletionRequested', atMs: 0, node: '', pod: 'web', uid: 'u1', gracePeriodSeconds: 30 },
    ];
    const run = (endMs: number, budget?: number, faults = false): number => {
      const monitor = new InvariantMonitor(
        createCheckers({ volumes: [], faultsActiveAtEnd: () => faults, terminationBudgetMs: budget }),
      );
      for (const f of facts) monitor.onFact(f);
      monitor.onEnd(endMs);
      return monitor.violations().length;
    };
    expect(run(149_999)).toBe(0);
    expect(run(150_000)).toBe(1);
    expect(run(40_000, 10_000)).toBe(1);
    expect(run(150_000, undefined, true)).toBe(0);
  });

  it('describes every invariant in one line', () => {
    for (const id of INVARIANT_IDS) {
      expect(INVARIANT_DESCRIPTIONS[id]).toMatch(/^[^\n]{10,140}$/);
    }
  });
});
