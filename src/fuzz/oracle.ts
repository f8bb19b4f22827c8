// The differential oracle: a failing run re-run with each fix switch flipped, one at a time, from its
// fix set. A switch whose flip makes an invariant stop firing "closes" it: the find is fix-sensitive,
// and the switch names the upstream change that decides it. Pure: a function of the scenario and fixes.
import { FIX_IDS, FIX_TABLE, type FixDef, type Fixes, type FixId } from '../fixes.js';
import type { InvariantId } from '../invariants/types.js';
import { type RunResult, runScenario } from '../run/run.js';
import type { Scenario } from '../scenario/types.js';

/** Per invariant that fired: the switches whose flip closes it (FIX_IDS order; empty: none does). */
export type ClosedBy = Readonly<Partial<Record<InvariantId, readonly FixId[]>>>;

/**
 * The switches worth flipping from `fixes`: those with code to act on. A follow-up of PR #102344 does
 * nothing while `pod-worker-lifecycle` is off, a release-1.20 path nothing while it is on.
 */
export function flippableSwitches(fixes: Fixes): FixId[] {
  const pwl = fixes.on('pod-worker-lifecycle');
  return FIX_IDS.filter((id) => {
    const d: FixDef = FIX_TABLE[id];
    return d.needsPodWorkerLifecycle === undefined || d.needsPodWorkerLifecycle === pwl;
  });
}

export interface FlipRun {
  readonly fix: FixId;
  /** The switch's state in the flipped run. */
  readonly on: boolean;
  readonly fired: readonly InvariantId[];
  /** The first run never read the switch, so the flip was not run: it is the same run (see `first`). */
  readonly unread?: true;
  /**
   * The first run read the switch only after every violation had fired, so the flip was not run: it is
   * the same run up to that read, and fires them again (see `first`).
   */
  readonly readAfter?: true;
}

/** What the oracle needs of the first run to skip flips (RunResult's fields of the same names). */
export type FirstRun = Pick<RunResult, 'fixesFirstReadMs' | 'firedDuringRunAtMs'>;

/**
 * Runs `scenario` once per flippable switch, flipped from `fixes`, and reports for each invariant of
 * `fired` which flips close it. `run` is the runner (the fuzzer passes its guarded, bounded one); a run
 * that throws counts as closing nothing. `first`, the first run's reads of the switches and the times
 * its invariants fired, spares flips that cannot close anything. A run is a function of its scenario,
 * seed and the switches it read, and the same run up to its first read of a switch: flipping a switch
 * it never read gives the same run, and flipping one it first read after every invariant in `fired` had
 * fired while the run went on (not in the end-of-run checks) fires them all again at the same times.
 */
export function closingSwitches(
  scenario: Scenario,
  fixes: Fixes,
  fired: readonly InvariantId[],
  run?: (s: Scenario, f: Fixes, stopOnceFired: readonly InvariantId[]) => RunResult | undefined,
  seed: number = scenario.seed,
  first?: FirstRun,
): { closedBy: ClosedBy; flips: FlipRun[] } {
  // A flipped run only has to tell whether `fired` fire again: it may stop once they all have.
  const runOnce =
    run ??
    ((s: Scenario, f: Fixes, stop: readonly InvariantId[]) =>
      runScenario(s, { fixes: f, seed, stopOnceFired: stop }));
  const flips: FlipRun[] = [];
  for (const fix of flippableSwitches(fixes)) {
    const flipped = fixes.with(fix, !fixes.on(fix));
    if (first !== undefined) {
      const readAtMs = first.fixesFirstReadMs[fix];
      if (readAtMs === undefined) {
        flips.push({ fix, on: flipped.on(fix), fired, unread: true });
        continue;
      }
      if (fired.every((id) => (first.firedDuringRunAtMs[id] ?? Number.POSITIVE_INFINITY) < readAtMs)) {
        flips.push({ fix, on: flipped.on(fix), fired, readAfter: true });
        continue;
      }
    }
    const r = runOnce(scenario, flipped, fired);
    if (r === undefined) continue;
    const firedNow = new Set(r.violations.map((v) => v.invariant));
    flips.push({ fix, on: flipped.on(fix), fired: fired.filter((id) => firedNow.has(id)) });
  }
  const closedBy: Partial<Record<InvariantId, FixId[]>> = {};
  for (const id of fired) closedBy[id] = flips.filter((f) => !f.fired.includes(id)).map((f) => f.fix);
  return { closedBy, flips };
}

/** Whether some switch closes some invariant of the case: a fix-sensitive find. */
export function isFixSensitive(closedBy: ClosedBy): boolean {
  return Object.values(closedBy).some((ids) => ids !== undefined && ids.length > 0);
}
