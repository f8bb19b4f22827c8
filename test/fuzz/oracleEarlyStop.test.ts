// The differential oracle's flipped runs stop once every invariant in question has fired again
// (RunOptions.stopOnceFired): the closing switches are the same as with runs to the horizon.
import { describe, expect, it } from 'vitest';
import { Fixes } from '../../src/fixes.js';
import { closingSwitches } from '../../src/fuzz/oracle.js';
import { scenariosOfCases } from '../../src/fuzz/shrink.js';
import { INVARIANT_IDS } from '../../src/invariants/types.js';
import { runScenario } from '../../src/run/run.js';

describe('oracle runs that stop once the invariants fired', () => {
  it('close the same invariants as runs to the horizon', () => {
    let failing = 0;
    for (const fixes of [Fixes.all(), Fixes.none()]) {
      for (const scenario of scenariosOfCases(
        5,
        Array.from({ length: 120 }, (_, i) => i),
      )) {
        const r = runScenario(scenario, { fixes });
        const fired = INVARIANT_IDS.filter((id) => r.violations.some((v) => v.invariant === id));
        if (fired.length === 0) continue;
        failing++;
        const early = closingSwitches(scenario, fixes, fired);
        const full = closingSwitches(scenario, fixes, fired, (s, f) => runScenario(s, { fixes: f }));
        expect(early).toEqual(full);
      }
    }
    expect(failing).toBeGreaterThan(20);
  }, 300_000);

  it('stops the run as soon as they have all fired', () => {
    const scenario = scenariosOfCases(
      5,
      Array.from({ length: 60 }, (_, i) => i),
    )
      .map((s) => ({ s, r: runScenario(s, { fixes: Fixes.none() }) }))
      .find(({ r }) => r.violations.some((v) => v.invariant !== 'termination-stuck'));
    expect(scenario).toBeDefined();
    if (scenario === undefined) return;
    const first = scenario.r.violations.find((v) => v.invariant !== 'termination-stuck');
    if (first === undefined) return;
    const stopped = runScenario(scenario.s, { fixes: Fixes.none(), stopOnceFired: [first.invariant] });
    expect(stopped.outcome).toBe('stopped');
    expect(stopped.virtualTimeMs).toBe(first.atMs);
    expect(stopped.violations.map((v) => v.invariant)).toContain(first.invariant);
  });
});
