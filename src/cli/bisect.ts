// `podrace run FILE --bisect`: the differential oracle on one scenario. The run with the given fixes, then
// one run per switch flipped from them; which flips close which violations.
import { Chalk } from 'chalk';
import type { Fixes } from '../fixes.js';
import { closingSwitches, type FlipRun } from '../fuzz/oracle.js';
import { INVARIANT_IDS, type InvariantId } from '../invariants/types.js';
import type { RunResult } from '../scenario/run.js';
import type { Scenario } from '../scenario/types.js';

export interface Bisection {
  readonly fired: readonly InvariantId[];
  readonly flips: readonly FlipRun[];
  readonly closedBy: Readonly<Partial<Record<InvariantId, readonly string[]>>>;
}

export function bisect(scenario: Scenario, fixes: Fixes, seed: number, result: RunResult): Bisection {
  const fired = INVARIANT_IDS.filter((id) => result.violations.some((v) => v.invariant === id));
  const { closedBy, flips } = closingSwitches(scenario, fixes, fired, undefined, seed);
  return { fired, flips, closedBy };
}

/** The table: one line a switch (flipped to on / off: what still fires), then what closes what. */
export function formatBisection(b: Bisection, color: boolean): string[] {
  const c = new Chalk({ level: color ? 1 : 0 });
  if (b.fired.length === 0) return [c.green('bisect: no violation to bisect')];
  const lines = [c.bold(`bisect: ${b.flips.length} runs, one switch flipped each`)];
  const width = Math.max(...b.flips.map((f) => f.fix.length));
  for (const f of b.flips) {
    const closes = b.fired.filter((id) => !f.fired.includes(id));
    const what = closes.length === 0 ? c.dim('closes nothing') : c.green(`closes ${closes.join(', ')}`);
    lines.push(`  ${f.on ? '+' : '-'}${f.fix.padEnd(width)}  ${what}`);
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
