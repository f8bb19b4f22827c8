// The differential oracle: a failing run re-run with each fix switch flipped, one at a time, from its
// fix set. A switch whose flip makes an invariant stop firing "closes" it: the find is fix-sensitive,
// and the switch names the upstream change that decides it. Pure: a function of the scenario and fixes.
import { FIX_IDS, FIX_TABLE, type FixDef, type Fixes, type FixId } from '../fixes.js';
import type { InvariantId } from '../invariants/types.js';
import { type RunResult, runScenario } from '../scenario/run.js';
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
  /** The first run never read the switch, so the flip was not run: it is the same run (see `read`). */
  readonly unread?: true;
}

/**
 * Runs `scenario` once per flippable switch, flipped from `fixes`, and reports for each invariant of
 * `fired` which flips close it. `run` is the runner (the fuzzer passes its guarded, bounded one); a run
 * that throws counts as closing nothing. `read`, the switches the first run read (RunResult.fixesRead),
 * spares the flips of the others: a run that never read a switch is the same run with it flipped, so
 * such a flip closes nothing.
 */
export function closingSwitches(
  scenario: Scenario,
  fixes: Fixes,
  fired: readonly InvariantId[],
  run?: (s: Scenario, f: Fixes, stopOnceFired: readonly InvariantId[]) => RunResult | undefined,
  seed: number = scenario.seed,
  read?: readonly FixId[],
): { closedBy: ClosedBy; flips: FlipRun[] } {
  // A flipped run only has to tell whether `fired` fire again: it may stop once they all have.
  const runOnce =
    run ??
    ((s: Scenario, f: Fixes, stop: readonly InvariantId[]) =>
      runScenario(s, { fixes: f, seed, stopOnceFired: stop }));
  const flips: FlipRun[] = [];
  for (const fix of flippableSwitches(fixes)) {
    const flipped = fixes.with(fix, !fixes.on(fix));
    if (read !== undefined && !read.includes(fix)) {
      flips.push({ fix, on: flipped.on(fix), fired, unread: true });
      continue;
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
