// Elision of idle loop rounds changes nothing but the event count: every bundled scenario, under every
// fix set its claims name and under all fixes on and off, gives the same facts (so the same violations
// at the same virtual times), the same findings and the same end the plain way and elided.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Fixes } from '../../src/fixes.js';
import { loadScenarioFile } from '../../src/scenario/load.js';
import { fixesOfClaim } from '../../src/scenario/types.js';
import { bothWays } from '../elision/bothWays.js';

const dir = join(import.meta.dirname, '..', '..', 'scenarios');
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.yaml'))
  .sort();

describe('elision on bundled scenarios', () => {
  for (const file of files) {
    const scenario = loadScenarioFile(join(dir, file));
    const fixSets = new Map<string, Fixes>();
    for (const fixes of [Fixes.all(), Fixes.none(), ...scenario.claims.map((c) => fixesOfClaim(c.fixes))])
      fixSets.set(fixes.label(), fixes);
    it(`${scenario.name}: same run both ways under ${fixSets.size} fix sets`, () => {
      for (const fixes of fixSets.values()) {
        const r = bothWays(scenario, fixes);
        expect(r.difference, `${scenario.name} with ${fixes.label()}`).toBeUndefined();
        // Elision must have something to skip in every bundled scenario.
        expect(r.elided.events).toBeLessThan(r.plain.events);
      }
    });
  }
});
