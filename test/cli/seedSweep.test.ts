import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/cli/errors.js';
import { formatSweep, parseSeedList, sweepSeeds, sweepToJson } from '../../src/cli/seedSweep.js';
import { Fixes } from '../../src/fixes.js';
import { firedInvariants, runScenario } from '../../src/run/run.js';
import { loadScenarioFile } from '../../src/scenario/load.js';

describe('parseSeedList', () => {
  it('reads ranges, single seeds, hex and comma lists, each seed once in the order given', () => {
    expect(parseSeedList('1..5')).toEqual([1, 2, 3, 4, 5]);
    expect(parseSeedList('9, 1..3,2,0x10..0x11')).toEqual([9, 1, 2, 3, 16, 17]);
    expect(parseSeedList('42')).toEqual([42]);
  });

  it('rejects empty ranges, junk and absurd sizes', () => {
    expect(() => parseSeedList('5..1')).toThrow(/empty range/);
    expect(() => parseSeedList('1..x')).toThrow(InputError);
    expect(() => parseSeedList('1,,2')).toThrow(InputError);
    expect(() => parseSeedList('1..1000000')).toThrow(/at most 100000/);
  });
});

describe('sweepSeeds', () => {
  // A race that needs an unlucky interleaving: it fires for some seeds only.
  const scenario = loadScenarioFile('scenarios/csi-nodeunstage-timeout.yaml');
  const fixes = Fixes.none();
  const seeds = parseSeedList('1..12');
  const sweep = sweepSeeds(scenario, fixes, seeds);

  it('counts, per invariant, the seeds that fire it and the first of them, as single runs do', () => {
    const single = seeds.map((seed) => ({
      seed,
      fired: firedInvariants(runScenario(scenario, { fixes, seed })),
    }));
    const ids = [...new Set(single.flatMap((s) => s.fired))];
    expect(ids.length).toBeGreaterThan(0);
    for (const id of ids) {
      const firing = single.filter((s) => s.fired.includes(id));
      expect(sweep.invariants.get(id)).toMatchObject({ seeds: firing.length, firstSeed: firing[0]?.seed });
    }
    expect(sweep.clean).toBe(single.filter((s) => s.fired.length === 0).length);
    // Some seeds fire it and some do not: what a sweep is for.
    const counts = [...sweep.invariants.values()].map((t) => t.seeds);
    expect(counts.some((n) => n > 0 && n < seeds.length)).toBe(true);
  });

  it('prints a table with a replay command of the first violating seed, and JSON', () => {
    const lines = formatSweep(sweep, scenario.file, false);
    expect(lines[0]).toBe(`${scenario.name}  seeds 1..12 (12)  fixes none`);
    const first = Math.min(...[...sweep.invariants.values()].map((t) => t.firstSeed));
    expect(lines).toContain(
      `  replay a seed: npx podrace run ${scenario.file} --seed ${first} --kubelet legacy`,
    );
    expect(lines[lines.length - 1]).toBe(`${12 - sweep.clean} of 12 seeds with violations or cut short`);
    const json = sweepToJson(sweep, 5);
    expect(json).toMatchObject({
      scenario: scenario.name,
      seeds: 12,
      firstSeed: 1,
      lastSeed: 12,
      clean: sweep.clean,
    });
    expect(Object.keys(json['invariants'] as object)).toEqual([...sweep.invariants.keys()]);
  });
});
