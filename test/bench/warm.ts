// Warm speed of one scenario: a second of runs so that V8 has optimised the simulator, then the best of
// several batches, as a fuzz campaign or `verify` over many files runs it. Used in the bench's process
// (after every other scenario has run, so V8 has seen them all) and in a child process of its own
// (test/bench/warmChild.ts), where the scenario is all V8 has seen.
import type * as FixesModule from '../../src/fixes.js';
import type * as RunModule from '../../src/run/run.js';
import type { Scenario } from '../../src/scenario/types.js';
import { nowMs } from './measure.js';

const WARM_MS = 1000;
const BATCH_MS = 400;
const BATCHES = 5;

export interface Warm {
  readonly msPerRun: number;
  /** Virtual seconds per wall second. */
  readonly compression: number;
  readonly events: number;
}

export function measureWarm(
  runScenario: typeof RunModule.runScenario,
  scenario: Scenario,
  fixes: FixesModule.Fixes,
): Warm {
  let virtualMs = 0;
  let events = 0;
  const batch = (ms: number): number => {
    const start = nowMs();
    let runs = 0;
    while (nowMs() - start < ms) {
      const r = runScenario(scenario, { fixes });
      virtualMs = r.virtualTimeMs;
      events = r.events;
      runs++;
    }
    return (nowMs() - start) / runs;
  };
  batch(WARM_MS);
  let best = Number.POSITIVE_INFINITY;
  for (let r = 0; r < BATCHES; r++) best = Math.min(best, batch(BATCH_MS));
  return { msPerRun: best, compression: virtualMs / best, events };
}
