// Random fact streams: checkers never throw, the monitor keeps one violation per key, and every
// violation's causes are few and oldest first.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Fact } from '../../src/facts.js';
import { createCheckers, InvariantMonitor } from '../../src/invariants/index.js';

const node = fc.constantFrom('node-a', 'node-b');
const pod = fc.constantFrom(['web', 'uid-1'] as const, ['web', 'uid-2'] as const, ['db', 'uid-3'] as const);
const volume = fc.constantFrom('lun-1', 'lun-2');
const container = fc.constantFrom('app', 'sidecar');

type Draft = Omit<Fact, 'atMs'> & { atMs?: never };
const draft: fc.Arbitrary<Draft> = fc.oneof(
  fc.record({ node, p: pod, c: container }).map(({ node, p, c }) => ({
    kind: 'containerStarted' as const,
    node,
    pod: p[0],
    uid: p[1],
    container: c,
    ...(p[0] === 'web' ? { staticFullname: 'web_default' } : {}),
  })),
  fc.record({ node, p: pod, c: container }).map(({ node, p, c }) => ({
    kind: 'containerExited' as const,
    node,
    pod: p[0],
    uid: p[1],
    container: c,
    exitCode: 0,
  })),
  fc.record({ node, p: pod }).map(({ node, p }) => ({
    kind: 'podTerminated' as const,
    node,
    pod: p[0],
    uid: p[1],
    reason: 'r',
  })),
  fc.record({ p: pod, by: fc.constantFrom('kubelet' as const, 'user-force' as const) }).map(({ p, by }) => ({
    kind: 'apiPodDeleted' as const,
    node: '',
    pod: p[0],
    uid: p[1],
    by,
  })),
  fc.record({ p: pod, g: fc.integer({ min: 0, max: 30 }) }).map(({ p, g }) => ({
    kind: 'apiPodDeletionRequested' as const,
    node: '',
    pod: p[0],
    uid: p[1],
    gracePeriodSeconds: g,
  })),
  fc.record({ node, p: pod, g: fc.integer({ min: 0, max: 30 }) }).map(({ node, p, g }) => ({
    kind: 'killPodStarted' as const,
    node,
    pod: p[0],
    uid: p[1],
    gracePeriodSeconds: g,
    source: 's',
  })),
  fc
    .record({ node, p: pod })
    .map(({ node, p }) => ({ kind: 'killPodFinished' as const, node, pod: p[0], uid: p[1] })),
  fc.record({ node, p: pod, volume }).map(({ node, p, volume }) => ({
    kind: 'volumeSetUp' as const,
    node,
    pod: p[0],
    uid: p[1],
    volume,
  })),
  fc.record({ node, p: pod, volume, ok: fc.boolean() }).map(({ node, p, volume, ok }) => ({
    kind: 'volumeTearDown' as const,
    node,
    pod: p[0],
    uid: p[1],
    volume,
    ok,
  })),
  fc.record({ node, volume, rw: fc.boolean() }).map(({ node, volume, rw }) => ({
    kind: 'lunAccessOpened' as const,
    node,
    volume,
    readWrite: rw,
  })),
  fc.record({ node, volume }).map(({ node, volume }) => ({ kind: 'lunAccessClosed' as const, node, volume })),
  fc.record({ node, volume, fenced: fc.boolean() }).map(({ node, volume, fenced }) => ({
    kind: 'lunFenced' as const,
    node,
    volume,
    fenced,
  })),
  fc.record({ node, vs: fc.subarray(['lun-1', 'lun-2']) }).map(({ node, vs }) => ({
    kind: 'nodeVolumesInUse' as const,
    node,
    volumes: vs,
  })),
  fc.record({ node, volume, ok: fc.boolean() }).map(({ node, volume, ok }) => ({
    kind: 'unmountDevice' as const,
    node,
    volume,
    ok,
  })),
) as fc.Arbitrary<Draft>;

const stream = fc
  .array(fc.tuple(fc.integer({ min: 0, max: 5000 }), draft), { minLength: 20, maxLength: 120 })
  .map((steps) => {
    let t = 0;
    return steps.map(([dt, d]) => {
      t += dt;
      return { ...d, atMs: t } as Fact;
    });
  });

describe('invariant monitor on random fact streams', () => {
  it('never throws, deduplicates, and keeps causes short and ordered', () => {
    fc.assert(
      fc.property(stream, fc.boolean(), (facts, faults) => {
        const monitor = new InvariantMonitor(
          createCheckers({
            volumes: [{ name: 'lun-2', accessMode: 'ReadWriteMany' }],
            faultsActiveAtEnd: () => faults,
          }),
        );
        for (const f of facts) monitor.onFact(f);
        monitor.onEnd((facts.at(-1)?.atMs ?? 0) + 1_000_000);
        const keys = new Set<string>();
        for (const v of monitor.violations()) {
          const key = `${v.invariant}|${v.uid ?? v.volume ?? ''}|${v.node ?? ''}`;
          expect(keys.has(key)).toBe(false);
          keys.add(key);
          expect(v.message).not.toContain('\n');
          expect(v.causes.length).toBeGreaterThan(0);
          expect(v.causes.length).toBeLessThanOrEqual(16);
          for (let i = 1; i < v.causes.length; i++) {
            expect(v.causes[i]!.atMs).toBeGreaterThanOrEqual(v.causes[i - 1]!.atMs);
          }
        }
      }),
    );
  });
});
