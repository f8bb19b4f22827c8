// Elision of idle loop rounds over thousands of generated fuzz cases (the campaign's own generator,
// scenariosOfCases): each case gives the same facts, violations, findings and end the plain way and
// elided. The fix sets rotate over the fixed and legacy kubelets and two releases in between.
import { describe, expect, it } from 'vitest';
import { Fixes, type KubeletName } from '../../src/fixes.js';
import { CASE_MAX_EVENTS, scenariosOfCases } from '../../src/fuzz/shrink.js';
import { bothWays } from '../elision/bothWays.js';

/** Generated cases compared, in chunks (one test each). */
const CASES = 2000;
const CHUNK = 250;
const SEED = 0xe11de;
const KUBELETS: readonly KubeletName[] = ['fixed', 'legacy', '1.23', '1.22'];

describe('elision on generated cases', () => {
  for (let first = 0; first < CASES; first += CHUNK) {
    it(`cases ${first}..${first + CHUNK - 1} of seed ${SEED}: same run both ways`, () => {
      const indices = Array.from({ length: CHUNK }, (_, k) => first + k);
      let plainEvents = 0;
      let elidedEvents = 0;
      scenariosOfCases(SEED, indices).forEach((scenario, k) => {
        const fixes = Fixes.of(KUBELETS[(first + k) % KUBELETS.length] as KubeletName);
        const r = bothWays(scenario, fixes, CASE_MAX_EVENTS);
        expect(r.difference, `${scenario.name} with ${fixes.label()}`).toBeUndefined();
        plainEvents += r.plain.events;
        elidedEvents += r.elided.events;
      });
      // The point of it: far fewer events for the same run.
      expect(elidedEvents * 4).toBeLessThan(plainEvents);
    }, 600_000);
  }
});
