// The fast-check side of a fuzz case: the property whose runs are the cases, re-creating a case from its
// (seed, path), running a case without letting a simulator crash escape, and shrinking a failing case
// to a minimal scenario with fast-check's own shrinker.
//
// A case is identified exactly as fast-check identifies a run: campaign seed S and path P, where P's
// first segment is the case index i (fast-check's run index) and each further segment picks a shrink.
// So `fc.check(caseProperty(...), {seed: S, path: P})` and `fc.sample(caseProperty(), {seed: S, path: P})`
// see exactly the scenario `podrace replay --seed S --path P` runs.
import fc from 'fast-check';
import type { Fixes } from '../fixes.js';
import type { InvariantId } from '../invariants/types.js';
import { type RunResult, runScenario } from '../run/run.js';
import type { Scenario } from '../scenario/types.js';
import { scenarioArbitrary } from './arbitraries.js';
import { CaseStream } from './caseStream.js';
import { CASE_MAX_EVENTS, DEFAULT_SHRINK_RUNS, MAX_CASE_INDEX } from './limits.js';

export { CASE_MAX_EVENTS, DEFAULT_SHRINK_RUNS, MAX_CASE_INDEX, MAX_RUNS } from './limits.js';

/** What a failure is about: an invariant, or the simulator itself throwing (a podrace bug). */
export type FailureKind = InvariantId | 'simulator-error' | 'nondeterminism';

/**
 * The property whose runs are the fuzz cases (the predicate only matters to fc.check). fc.sample is given
 * the arbitrary itself, never this property: sample wraps whatever it gets in a Property of its own
 * (it does not recognise a Property by an own `isAsync`), which would apply the run's bias twice and
 * generate other values than fc.check does. Sampling the arbitrary generates and shrinks exactly as
 * fc.check(fc.property(arbitrary, ...)) does.
 */
export function caseProperty(
  predicate: (s: Scenario) => boolean = () => true,
): fc.IPropertyWithHooks<[Scenario]> {
  return fc.property(scenarioArbitrary, predicate);
}

/** `fuzz-<seed>-<path>` with ':' as '.', a valid scenario name. */
export function caseName(seed: number, path: string): string {
  return `fuzz-${seed}-${path.replaceAll(':', '.')}`;
}

/** What is wrong with a path that is not `i` or `i:a:b...` (non-negative integers); undefined if nothing. */

export function checkPath(path: string): string | undefined {
  if (!/^\d+(:\d+)*$/.test(path)) {
    return `expected a path like 17 or 17:2:0 (the case, then shrink steps), got "${path}"`;
  }
  const steps = path.split(':').map(Number);
  if ((steps[0] ?? 0) > MAX_CASE_INDEX)
    return `the case index must be at most ${MAX_CASE_INDEX}, got ${steps[0]}`;
  if (steps.some((n) => !Number.isSafeInteger(n))) return `path step out of range in "${path}"`;
  return undefined;
}

/** The scenario of case path P of campaign seed S (named after the case). */
export function scenarioAt(seed: number, path: string): Scenario {
  const problem = checkPath(path);
  if (problem !== undefined) throw new Error(problem);
  const value = fc.sample(scenarioArbitrary, { seed, path, numRuns: 1 })[0];
  if (value === undefined) throw new Error(`no fuzz case at seed ${seed} path ${path}`);
  return { ...value, name: caseName(seed, path) };
}

/** This thread's stream of cases (src/fuzz/caseStream.ts): chunks asked in ascending order resume it. */
let stream: CaseStream<Scenario> | undefined;

/**
 * The scenarios of cases `indices` (ascending) of campaign seed S, named after their case: fast-check's
 * values for paths "i". Reaching case i costs a jump per case since the last call's first case (a new
 * seed, or an earlier case, starts again from case 0): linear in a campaign, not quadratic.
 */
export function scenariosOfCases(seed: number, indices: readonly number[]): Scenario[] {
  const first = indices[0];
  if (first === undefined) return [];
  if (stream === undefined || stream.seed !== seed || first < stream.nextIndex)
    stream = new CaseStream(scenarioArbitrary, seed);
  const s = stream;
  let previous = -1;
  return indices.map((i) => {
    if (!(i > previous)) throw new Error(`case indices must ascend, got ${i} after ${previous}`);
    previous = i;
    return { ...s.valueAt(i), name: caseName(seed, String(i)) };
  });
}

export type GuardedRun =
  | { readonly ok: true; readonly result: RunResult }
  | { readonly ok: false; readonly error: string };

/** Runs a scenario; a throw of the simulator becomes an error value (with its stack) instead of escaping. */
export function runGuarded(
  scenario: Scenario,
  fixes: Fixes,
  recordFacts = false,
  stopOnceFired?: readonly InvariantId[],
): GuardedRun {
  try {
    return {
      ok: true,
      result: runScenario(scenario, { fixes, recordFacts, maxEvents: CASE_MAX_EVENTS, stopOnceFired }),
    };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
  }
}

/** Whether a run shows the failure: the invariant fired, or the simulator threw. */
export function showsFailure(run: GuardedRun, kind: FailureKind): boolean {
  if (kind === 'simulator-error') return !run.ok;
  if (kind === 'nondeterminism') return false; // one run cannot show it: never shrunk
  return run.ok && run.result.violations.some((v) => v.invariant === kind);
}

export interface ShrinkOptions {
  readonly seed: number;
  /** The failing case's path (usually just its index). */
  readonly path: string;
  readonly fixes: Fixes;
  readonly kind: FailureKind;
  /** At most this many simulator runs (the first included); then the smallest failure so far is kept. */
  readonly maxRuns?: number;
  /** Asked before every run; true stops shrinking (the CLI's --time-limit). */
  readonly shouldStop?: () => boolean;
  /**
   * Keep the case fix-sensitive: every smaller case must also not show `kind` with these fixes (the
   * campaign's with the closing switch flipped). Costs a second run per step that fails.
   */
  readonly closedWith?: Fixes;
  /** Lets the host's event loop run before each shrink run (signals; see PoolOptions.yieldToHost). */
  readonly yieldToHost?: () => Promise<void>;
}

export interface ShrinkOutcome {
  /** The minimal case's full path `i:a:b...` (replay: --seed S --path P). */
  readonly path: string;
  /** The minimal scenario, named after its path. */
  readonly scenario: Scenario;
  readonly shrinks: number;
  readonly runs: number;
  /** The budget or the time limit ended shrinking (the result still fails, it may not be minimal). */
  readonly cutShort: boolean;
}

/**
 * Shrinks a failing case with fast-check: runs case `path` of seed `seed` and, as long as it keeps
 * showing `kind` (the same invariant, not just any), fast-check's shrinker tries smaller drafts. The
 * budget is counted in runs, so the result is deterministic (unless shouldStop ends it).
 */
export async function shrinkCase(o: ShrinkOptions): Promise<ShrinkOutcome> {
  const maxRuns = o.maxRuns ?? DEFAULT_SHRINK_RUNS;
  let runs = 0;
  let cutShort = false;
  const predicate = async (s: Scenario): Promise<boolean> => {
    if (o.yieldToHost !== undefined) await o.yieldToHost();
    if (runs >= maxRuns || (runs > 0 && o.shouldStop?.() === true)) {
      cutShort = true;
      return true; // out of budget: no further candidate counts as failing
    }
    runs++;
    if (!showsFailure(runGuarded(s, o.fixes), o.kind)) return true;
    return o.closedWith !== undefined && showsFailure(runGuarded(s, o.closedWith), o.kind);
  };
  // An async property: the same values, shrinks and paths as caseProperty's, with room between runs for
  // the host's event loop.
  const details = await fc.check(fc.asyncProperty(scenarioArbitrary, predicate), {
    seed: o.seed,
    path: o.path,
    numRuns: 1,
    endOnFailure: false,
  });
  if (!details.failed || details.counterexample === null || details.counterexamplePath === null) {
    throw new Error(`fuzz case seed ${o.seed} path ${o.path} does not show ${o.kind} when run again`);
  }
  const path = details.counterexamplePath;
  return {
    path,
    scenario: { ...details.counterexample[0], name: caseName(o.seed, path) },
    shrinks: details.numShrinks,
    runs,
    cutShort,
  };
}
