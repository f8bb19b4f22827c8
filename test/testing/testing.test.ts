// podrace/testing as a user's test suite sees it: imported by the package name from the built code
// (the package's "exports"), a scenario file run with two kubelets, a fuzz budget that fails with
// replayable seeds, and a fast-check property over the fuzzer's scenarios whose reported seed and path
// are the ones `podrace replay` takes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scenarioAt } from '../../src/fuzz/shrink.js';

type Testing = typeof import('../../src/testing.js');
// By name, as a user imports it: Node resolves the package's own "exports" (dist/testing.js).
const name = 'podrace/testing';
const t = (await import(name)) as Testing;

describe('podrace/testing', () => {
  it('runs a scenario file with a kubelet and toggles', () => {
    const s = t.loadScenario('scenarios/pod-deleted-before-start.yaml');
    expect(t.firedInvariants(t.run(s))).toEqual([]);
    expect(t.firedInvariants(t.run(s, { kubelet: 'legacy' }))).toContain(
      'container-started-after-terminated',
    );
    expect(t.firedInvariants(t.run(s, { fix: { 'pod-worker-lifecycle': false } }))).toContain(
      'container-started-after-terminated',
    );
    expect(() => t.run(s, { kubelet: 'nope' as 'fixed' })).toThrow(/unknown kubelet "nope"/);
    expect(() => t.run(s, { fix: { nope: true } as never })).toThrow(/unknown fix "nope"/);
  });

  it('a fuzz budget reports each failure with the command that replays it', async () => {
    const out = await t.fuzz({ runs: 6, kubelet: 'legacy', shrinkRuns: 40 });
    expect(out.ran).toBe(6);
    expect(out.exitCode).toBe(1);
    const f = out.failures[0];
    expect(f?.replay).toMatch(/^npx podrace replay --seed 1 --path \d+(:\d+)* --kubelet legacy$/);
    const replayed = t.run(scenarioAt(1, f?.path ?? '0'), { kubelet: 'legacy' });
    expect(t.firedInvariants(replayed)).toContain(f?.invariant);
    await expect(t.expectNoViolations({ runs: 6, kubelet: 'legacy', shrinkRuns: 40 })).rejects.toThrow(
      /violations in 6 case\(s\) with --kubelet legacy:\n {2}\S+ \(case \d+\): npx podrace replay --seed 1 --path/,
    );
    await expect(t.fuzz({ runs: 0 })).rejects.toThrow(/runs must be a whole number from 1 to 100000/);
  });

  it('a fast-check property over scenarios() fails with the seed and path podrace replay takes', () => {
    const property = fc.property(
      t.scenarios(),
      (s) => t.firedInvariants(t.run(s, { kubelet: 'legacy' })).length === 0,
    );
    const details = fc.check(property, { seed: 1, numRuns: 20, endOnFailure: true });
    expect(details.failed).toBe(true);
    const path = details.counterexamplePath ?? '';
    const [counterexample] = details.counterexample ?? [];
    // What `podrace replay --seed 1 --path <path>` runs is the counterexample itself.
    expect({ ...scenarioAt(1, path), name: '' }).toEqual({ ...counterexample, name: '' });
  });
});
