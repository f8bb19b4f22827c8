// Runs a scenario the plain way and with idle loop rounds elided (src/sim/elision.ts) and says whether
// the two runs are the same: every fact in order (so every violation at the same virtual time), the
// violations and findings, how the run stopped and its virtual time. Only the event count may differ.
import type { Fixes } from '../../src/fixes.js';
import { type RunResult, runScenario } from '../../src/run/run.js';
import type { Scenario } from '../../src/scenario/types.js';

export interface BothWays {
  readonly plain: RunResult;
  readonly elided: RunResult;
  /** undefined when the runs are the same; else what differs first. */
  readonly difference: string | undefined;
}

export function bothWays(scenario: Scenario, fixes: Fixes, maxEvents?: number): BothWays {
  const plain = runScenario(scenario, { fixes, recordFacts: true, elide: false, maxEvents });
  const elided = runScenario(scenario, { fixes, recordFacts: true, elide: true, maxEvents });
  return { plain, elided, difference: differenceOf(plain, elided) };
}

function differenceOf(a: RunResult, b: RunResult): string | undefined {
  const fa = a.facts ?? [];
  const fb = b.facts ?? [];
  for (let i = 0; i < Math.max(fa.length, fb.length); i++) {
    const x = JSON.stringify(fa[i]);
    const y = JSON.stringify(fb[i]);
    if (x !== y) return `fact #${i}: plain ${x}, elided ${y}`;
  }
  const va = JSON.stringify([a.violations, a.findings]);
  const vb = JSON.stringify([b.violations, b.findings]);
  if (va !== vb) return `violations: plain ${va}, elided ${vb}`;
  if (a.outcome !== b.outcome || a.virtualTimeMs !== b.virtualTimeMs)
    return `end: plain ${a.outcome} at ${a.virtualTimeMs}, elided ${b.outcome} at ${b.virtualTimeMs}`;
  return undefined;
}
