// A run is a function of its scenario, seed and the fix switches it read (RunResult.fixesRead): flipping
// switches it never read gives the very same run. The differential oracle leans on it to skip flips, so
// here it is checked the hard way: every unread switch flipped at once, over generated cases under the
// fixed and legacy kubelets and two releases, must publish the same facts and violations.
import { describe, expect, it } from 'vitest';
import { FIX_IDS, Fixes, type KubeletName } from '../../src/fixes.js';
import { runDigest } from '../../src/fuzz/determinism.js';
import { closingSwitches } from '../../src/fuzz/oracle.js';
import { CASE_MAX_EVENTS, scenariosOfCases } from '../../src/fuzz/shrink.js';
import { INVARIANT_IDS } from '../../src/invariants/types.js';
import { runScenario } from '../../src/run/run.js';

const KUBELETS: readonly KubeletName[] = ['fixed', 'legacy', '1.23', '1.22'];

describe('the fix switches a run read', () => {
  it('are all it depends on: the unread ones flipped at once give the same run', () => {
    let flippedSome = 0;
    scenariosOfCases(
      0xf1,
      Array.from({ length: 240 }, (_, i) => i),
    ).forEach((scenario, k) => {
      const fixes = Fixes.of(KUBELETS[k % KUBELETS.length] as KubeletName);
      const first = runScenario(scenario, { fixes, recordFacts: true, maxEvents: CASE_MAX_EVENTS });
      const unread = FIX_IDS.filter((id) => !first.fixesRead.includes(id));
      if (unread.length === 0) return;
      flippedSome++;
      const flipped = unread.reduce((f, id) => f.with(id, !f.on(id)), fixes);
      const second = runScenario(scenario, { fixes: flipped, recordFacts: true, maxEvents: CASE_MAX_EVENTS });
      expect(runDigest(second), `${scenario.name} with ${fixes.label()}, flipped ${unread.join(',')}`).toBe(
        runDigest(first),
      );
      expect(second.fixesRead).toEqual(first.fixesRead);
    });
    expect(flippedSome).toBeGreaterThan(200);
  }, 300_000);

  it('let the oracle skip the other flips, and those read only after the violations, with the same closing switches', () => {
    let failing = 0;
    let skipped = 0;
    let readAfter = 0;
    for (const fixes of [Fixes.all(), Fixes.none()]) {
      for (const scenario of scenariosOfCases(
        6,
        Array.from({ length: 100 }, (_, i) => i),
      )) {
        const r = runScenario(scenario, { fixes });
        const fired = INVARIANT_IDS.filter((id) => r.violations.some((v) => v.invariant === id));
        if (fired.length === 0) continue;
        failing++;
        const every = closingSwitches(scenario, fixes, fired);
        const spared = closingSwitches(scenario, fixes, fired, undefined, scenario.seed, r);
        expect(spared.closedBy).toEqual(every.closedBy);
        skipped += spared.flips.filter((f) => f.unread === true).length;
        readAfter += spared.flips.filter((f) => f.readAfter === true).length;
      }
    }
    expect(failing).toBeGreaterThan(20);
    // The point of it: many flips are never run.
    expect(skipped).toBeGreaterThan(failing);
    expect(readAfter).toBeGreaterThan(5);
  }, 300_000);

  it('are recorded by reading, not by holding: a run reads pod-worker-lifecycle, a bare cluster no volume fix', () => {
    const [scenario] = scenariosOfCases(1, [0]);
    if (scenario === undefined) throw new Error('no case');
    const r = runScenario(scenario, { fixes: Fixes.all() });
    expect(r.fixesRead).toContain('pod-worker-lifecycle');
    expect(r.fixesRead.length).toBeLessThan(FIX_IDS.length);
  });
});
