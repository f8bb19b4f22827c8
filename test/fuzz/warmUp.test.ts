// The warm-up (src/fuzz/warmUp.ts): a seed's first WARM_UP_CASES cases are the classic swarm's (or a
// rare profile's), draw for draw, so the switches found there are found as soon as they were when their
// time to bug was first measured; every later case is the whole mix's, draw for draw.
import fc from 'fast-check';
import { xorshift128plus } from 'pure-rand/generator/xorshift128plus';
import { describe, expect, it } from 'vitest';
import {
  draftArbitraryAfterWarmUp,
  draftArbitraryClassicSwarm,
  draftArbitraryWarmUpWithSlowStaging,
  type ScenarioDraft,
  scenarioDraftArbitrary,
} from '../../src/fuzz/arbitraries.js';
import { CaseStream } from '../../src/fuzz/caseStream.js';
import { scenarioAt, scenariosOfCases } from '../../src/fuzz/shrink.js';
import { WARM_UP_CASES } from '../../src/fuzz/warmUp.js';

/** The rare profiles that are early finders of a switch's bug; slow staging waits for the rest. */
const RARE = ['slowTearDown', 'attachAfterRestart'];
const WARM_UP_PROFILES = new Set(['mixed', 'volumeChain', 'staticChain', ...RARE]);

describe('warm-up', () => {
  it("the first cases are the classic swarm's draw for draw, or a rare profile's; no jobs, no kill sequence", () => {
    for (const seed of [1, 2, 7]) {
      const now = new CaseStream(scenarioDraftArbitrary, seed);
      const classic = new CaseStream(draftArbitraryClassicSwarm, seed);
      let rare = 0;
      for (let i = 0; i < WARM_UP_CASES; i++) {
        const d = now.valueAt(i);
        expect(WARM_UP_PROFILES.has(d.profile), `case ${i} of seed ${seed}: ${d.profile}`).toBe(true);
        if (RARE.includes(d.profile)) rare++;
        else expect(d, `case ${i} of seed ${seed}`).toEqual(classic.valueAt(i));
      }
      // Two profiles of one in 40 each: about 5 of 99 cases.
      expect(rare).toBeLessThan(15);
    }
  });

  it('a case that slow staging displaced before is the classic case again; no warm-up case is slow staging', () => {
    let was = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const now = new CaseStream(scenarioDraftArbitrary, seed);
      const classic = new CaseStream(draftArbitraryClassicSwarm, seed);
      const withStaging = new CaseStream(draftArbitraryWarmUpWithSlowStaging, seed);
      for (let i = 0; i < WARM_UP_CASES; i++) {
        const d = now.valueAt(i);
        expect(d.profile, `case ${i} of seed ${seed}`).not.toBe('slowStaging');
        const before = withStaging.valueAt(i);
        if (before.profile !== 'slowStaging') expect(d, `case ${i} of seed ${seed}`).toEqual(before);
        else {
          was++;
          // The classic case, or the other rare profile its draws picked too (slow staging came first).
          if (!RARE.includes(d.profile)) expect(d, `case ${i} of seed ${seed}`).toEqual(classic.valueAt(i));
        }
      }
    }
    // One in 40 of 3,960 cases, give or take: the ones given back to the classic swarm.
    expect(was).toBeGreaterThan(50);
  });

  it("from case WARM_UP_CASES on, every case is the whole mix's, jobs and kill sequences included", () => {
    const seen = new Set<string>();
    for (const seed of [1, 2]) {
      const now = new CaseStream(scenarioDraftArbitrary, seed);
      const rest = new CaseStream(draftArbitraryAfterWarmUp, seed);
      for (let i = WARM_UP_CASES; i < WARM_UP_CASES + 400; i++) {
        const d = now.valueAt(i);
        expect(d, `case ${i} of seed ${seed}`).toEqual(rest.valueAt(i));
        seen.add(d.profile);
      }
    }
    expect(seen.has('jobs')).toBe(true);
    expect(seen.has('killSequence')).toBe(true);
  });

  it('a case is the same however it is reached: the stream, fc.sample by path, and an unbiased draw is never one', () => {
    const streamed = scenariosOfCases(3, [5, WARM_UP_CASES + 5]);
    expect(streamed[0]).toEqual(scenarioAt(3, '5'));
    expect(streamed[1]).toEqual(scenarioAt(3, String(WARM_UP_CASES + 5)));
    const rng = () => new fc.Random(xorshift128plus(42));
    expect(scenarioDraftArbitrary.generate(rng(), undefined).value).toEqual(
      draftArbitraryAfterWarmUp.generate(rng(), undefined).value,
    );
  });

  it('a shrink stays with the arbitrary that generated the case', () => {
    const profilesOf = (bias: number): Set<string> => {
      const v = scenarioDraftArbitrary.generate(new fc.Random(xorshift128plus(9)), bias);
      const out = new Set<string>();
      let steps = 0;
      let level: Iterable<fc.Value<ScenarioDraft>> = scenarioDraftArbitrary.shrink(v.value, v.context);
      // Walk the first candidate of each level down, and look at every candidate on the way.
      for (let depth = 0; depth < 30; depth++) {
        let first: fc.Value<ScenarioDraft> | undefined;
        for (const c of level) {
          out.add(c.value.profile);
          first ??= c;
          if (++steps > 2_000) break;
        }
        if (first === undefined) break;
        level = scenarioDraftArbitrary.shrink(first.value, first.context);
      }
      expect(steps).toBeGreaterThan(0);
      return out;
    };
    for (const p of profilesOf(2)) expect(WARM_UP_PROFILES.has(p), p).toBe(true);
    expect(scenarioDraftArbitrary.canShrinkWithoutContext({})).toBe(false);
  });
});
