// `run --bisect` under an event budget: a flipped run cut short by --max-events before it fired the
// violations again proves nothing, so it closes nothing and is listed as INCOMPLETE (it used to count
// as closing everything it had not fired yet).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bisect, formatBisection } from '../../src/cli/bisect.js';
import { Fixes } from '../../src/fixes.js';
import { runScenario } from '../../src/run/run.js';
import { bundledScenariosDir } from '../../src/scenario/bundled.js';
import { loadScenarioFile } from '../../src/scenario/load.js';

describe('bisect honours the event budget', () => {
  const scenario = loadScenarioFile(join(bundledScenariosDir(), 'pod-deleted-before-start.yaml'));
  const fixes = Fixes.none();
  const first = runScenario(scenario, { fixes });

  it('without a budget some flip closes the race', () => {
    const b = bisect(scenario, fixes, scenario.seed, first);
    expect(b.fired.length).toBeGreaterThan(0);
    expect(b.incomplete).toEqual([]);
    expect(Object.values(b.closedBy).some((by) => (by ?? []).length > 0)).toBe(true);
  });

  it('a budget too small for any flipped run: every run flip is INCOMPLETE and nothing is closed', () => {
    const b = bisect(scenario, fixes, scenario.seed, first, 5);
    expect(b.incomplete.length).toBeGreaterThan(0);
    for (const by of Object.values(b.closedBy)) expect(by).toEqual([]);
    const text = formatBisection(b, false).join('\n');
    expect(text).toContain('INCOMPLETE, cut short by the event budget');
    expect(text).not.toMatch(/closed by/);
  });
});
