// Every bundled scenario's claims hold (what `podrace verify scenarios/` checks), and every run is
// deterministic: the same scenario, seed and fixes give the same facts and violations, byte for byte.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Fixes } from '../../src/fixes.js';
import { checkClaim, claimLabel, runScenario } from '../../src/run/run.js';
import { loadScenarioFile } from '../../src/scenario/load.js';
import { fixesOfClaim } from '../../src/scenario/types.js';

const dir = join(import.meta.dirname, '..', '..', 'scenarios');
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.yaml'))
  .sort();

describe('bundled scenarios', () => {
  it('exist', () => {
    expect(files.length).toBeGreaterThanOrEqual(6);
  });

  for (const file of files) {
    const scenario = loadScenarioFile(join(dir, file));
    describe(scenario.name, () => {
      it('has claims both ways (all fixes, and at least one fix off)', () => {
        const all = (c: (typeof scenario.claims)[number]) => fixesOfClaim(c.fixes).equals(Fixes.all());
        expect(scenario.claims.some(all)).toBe(true);
        expect(scenario.claims.some((c) => !all(c))).toBe(true);
      });
      for (const claim of scenario.claims) {
        it(`claim ${claimLabel(claim)} holds`, () => {
          const r = checkClaim(scenario, claim);
          expect(r.actual).toEqual(r.expected);
          expect(r.result.outcome).not.toBe('max-events');
        });
      }
      it('is deterministic (same seed, same facts and violations)', () => {
        for (const fixes of [Fixes.all(), Fixes.none()]) {
          const a = runScenario(scenario, { fixes, recordFacts: true });
          const b = runScenario(scenario, { fixes, recordFacts: true });
          expect(JSON.stringify(b.facts)).toBe(JSON.stringify(a.facts));
          expect(JSON.stringify(b.violations)).toBe(JSON.stringify(a.violations));
          expect(b.events).toBe(a.events);
        }
      });
    });
  }
});
