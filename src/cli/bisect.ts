// `podrace run FILE --bisect`: the differential oracle on one scenario. The run with the given fixes, then
// one run per switch flipped from them; which flips close which violations.
import { Chalk } from 'chalk';
import { FIX_IDS, type Fixes, type FixId } from '../fixes.js';
import { closingSwitches, type FlipRun } from '../fuzz/oracle.js';
import { INVARIANT_IDS, type InvariantId } from '../invariants/types.js';
import { type RunResult, runScenario } from '../run/run.js';
import type { Scenario } from '../scenario/types.js';

export interface Bisection {
  readonly fired: readonly InvariantId[];
  readonly flips: readonly FlipRun[];
  readonly closedBy: Readonly<Partial<Record<InvariantId, readonly string[]>>>;
  /**
   * Flips cut short by the event budget before they had fired everything again: not judged, so they
   * close nothing (a run that stopped early proves nothing about what it would have fired).
   */
  readonly incomplete: readonly FixId[];
}

/** `maxEvents`: the same event budget as the first run (--max-events), for every flipped run. */
export function bisect(
  scenario: Scenario,
  fixes: Fixes,
  seed: number,
  result: RunResult,
  maxEvents?: number,
): Bisection {
  const fired = INVARIANT_IDS.filter((id) => result.violations.some((v) => v.invariant === id));
  const incomplete: FixId[] = [];
  const run = (s: Scenario, f: Fixes, stopOnceFired: readonly InvariantId[]): RunResult | undefined => {
    const r = runScenario(s, { fixes: f, seed, stopOnceFired, maxEvents });
    if (r.outcome !== 'max-events') return r;
    const fix = FIX_IDS.find((id) => f.on(id) !== fixes.on(id));
    if (fix !== undefined) incomplete.push(fix);
    return undefined;
  };
  const { closedBy, flips } = closingSwitches(scenario, fixes, fired, run, seed);
  return { fired, flips, closedBy, incomplete };
}

/** The table: one line a switch (flipped to on / off: what still fires), then what closes what. */
export function formatBisection(b: Bisection, color: boolean): string[] {
  const c = new Chalk({ level: color ? 1 : 0 });
  if (b.fired.length === 0) return [c.green('bisect: no violation to bisect')];
  const lines = [c.bold(`bisect: ${b.flips.length + b.incomplete.length} runs, one switch flipped each`)];
  const width = Math.max(0, ...b.flips.map((f) => f.fix.length));
  for (const f of b.flips) {
    const closes = b.fired.filter((id) => !f.fired.includes(id));
    const what = closes.length === 0 ? c.dim('closes nothing') : c.green(`closes ${closes.join(', ')}`);
    lines.push(`  ${f.on ? '+' : '-'}${f.fix.padEnd(width)}  ${what}`);
  }
  for (const fix of b.incomplete) {
    lines.push(
      `  ${c.yellow(`${fix}: INCOMPLETE, cut short by the event budget (--max-events) before it fired them again: not judged`)}`,
    );
  }
  for (const id of b.fired) {
    const by = b.closedBy[id] ?? [];
    lines.push(
      by.length === 0
        ? `${id}: no single switch closes it`
        : `${id}: closed by ${by.map((x) => `${b.flips.find((f) => f.fix === x)?.on ? '+' : '-'}${x}`).join(', ')}`,
    );
  }
  return lines;
}
