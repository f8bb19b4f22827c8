// `podrace explore`: bounded exhaustive search of same-instant orderings (docs/explore.md). Stateless:
// every schedule is a fresh run of the scenario from the start. Schedules are visited in order of their
// number of deviations (0, then every 1-deviation schedule, then 2, ... up to the bound), so the first
// violating one found has the fewest deviations there are. Children of a schedule add one deviation at a
// choice point after its last one, so each schedule is generated once.
//
// A level's schedules are not kept: each schedule of depth d-1 (a parent) is run again when its children
// (depth d) are due, and its children are read off that run (src/explore/children.ts), one run more per
// parent against its hundreds of children. So the state of an exploration is small (the parents, where
// in them it is, the counts), and that is what a checkpoint saves (`resume`, `onCheckpoint`).
//
// Reduction: a deviation that moves a ready event ahead of events it commutes with (src/sim/choices.ts
// `dependent`, from each event's footprint) gives the same run as its parent, so it is not explored.
//
// With `latencies`, every latency draw is a choice point too (src/sim/latencyChoices.ts): its candidate
// values (minimum, typical, maximum, just before and after a pending event) are children like the picks
// of an ordering choice point, and count against the same bound. A child's deviation comes after its
// parent's last one in the order the run meets them (an event's pop, then the draws it makes).

import type { Fixes } from '../fixes.js';

import { type RunResult, runScenario } from '../run/run.js';
import { outcomeDigest } from '../run/runDigest.js';
import type { Scenario } from '../scenario/types.js';
import { isLatencyDeviation, type Schedule } from '../sim/index.js';
import { childrenOf } from './children.js';

export { mustExplore } from './children.js';

export interface ExploreOptions {
  readonly fixes: Fixes;
  readonly seed?: number | undefined;
  /** At most this many deviations from the default order. */
  readonly bound: number;
  /** Stop after this many runs (reported incomplete). */
  readonly maxSchedules: number;
  /** Stop once `clock()` passes this (reported incomplete); Infinity: no limit. */
  readonly deadlineMs: number;
  readonly clock: () => number;
  /** Skip deviations that only reorder commuting events (default true; off measures the reduction). */
  readonly reduction?: boolean | undefined;
  /** Latency draws are choice points too (default false: only same-instant orderings). */
  readonly latencies?: boolean | undefined;
  readonly maxEvents?: number | undefined;
  /** Called after each run (a progress line). */
  readonly onRun?: ((p: ExploreProgress) => void) | undefined;
  /** Continue an exploration from this state (a checkpoint of the same scenario and options). */
  readonly resume?: ExploreState | undefined;
  /** Called with the state every `checkpointEvery` runs and when the exploration stops. */
  readonly onCheckpoint?: ((state: ExploreState) => void) | undefined;
  readonly checkpointEvery?: number | undefined;
}

export interface ExploreProgress {
  readonly explored: number;
  /** The deviations of the schedules being run now. */
  readonly depth: number;
  /** Which parent's children (1-based), of how many at this depth. */
  readonly parent: number;
  readonly parents: number;
}

/**
 * Where an exploration is, after its last run: enough to continue it as if it had never stopped. The
 * schedules of `depth` deviations being run are the children of `parents` (depth - 1 deviations);
 * those of parents[0 .. parentIndex) are done, and the first `childIndex` of parents[parentIndex]'s.
 */
export interface ExploreState {
  /** 0: the default order has not run yet. */
  readonly depth: number;
  readonly parents: readonly Schedule[];
  readonly parentIndex: number;
  readonly childIndex: number;
  /** This depth's schedules run so far, the parents of the next depth (kept only below the bound). */
  readonly nextParents: readonly Schedule[];
  readonly explored: number;
  readonly perDepth: readonly number[];
  readonly skippedCommuting: number;
  readonly withLatency: number;
  readonly incompleteRuns: number;
  /** The digests of the distinct outcomes so far (src/run/runDigest.ts outcomeDigest), sorted. */
  readonly outcomes: readonly string[];
  /** The violating schedule found, if the exploration ended so. */
  readonly violation: Schedule | undefined;
  /** The exploration ended: complete, or on a violation. */
  readonly finished: boolean;
}

export const INITIAL_STATE: ExploreState = {
  depth: 0,
  parents: [],
  parentIndex: 0,
  childIndex: 0,
  nextParents: [],
  explored: 0,
  perDepth: [],
  skippedCommuting: 0,
  withLatency: 0,
  incompleteRuns: 0,
  outcomes: [],
  violation: undefined,
  finished: false,
};

export type ExploreStop = 'max-schedules' | 'time-limit';

export interface ExploreResult {
  /** Runs made. */
  readonly explored: number;
  /** Runs made per number of deviations (index 0: the default order). */
  readonly perDepth: readonly number[];
  /** Deviations not explored because they only reorder commuting events. */
  readonly skippedCommuting: number;
  /** Of the runs made, how many had at least one latency deviation. */
  readonly withLatency: number;
  /**
   * How many different runs the schedules gave: runs that published different facts (or a different
   * event count, end or verdict). No state hash (docs/explore.md): what a user can see differ.
   */
  readonly distinctOutcomes: number;
  /** Every schedule within the bound was explored (or a violation was found before a limit cut in). */
  readonly complete: boolean;
  readonly stoppedBy: ExploreStop | undefined;
  /** The first violating schedule (fewest deviations) and its run. */
  readonly violation: { readonly schedule: Schedule; readonly result: RunResult } | undefined;
  /** Runs cut short by their event budget (their tails were not checked). */
  readonly incompleteRuns: number;
}

export function explore(scenario: Scenario, o: ExploreOptions): ExploreResult {
  const reduction = o.reduction !== false;
  const latencies = o.latencies === true;
  const every = o.checkpointEvery ?? 50;
  const st = o.resume ?? INITIAL_STATE;
  let depth = st.depth;
  let parents = [...st.parents];
  let parentIndex = st.parentIndex;
  let childIndex = st.childIndex;
  let nextParents = [...st.nextParents];
  const perDepth = [...st.perDepth];
  let explored = st.explored;
  let withLatency = st.withLatency;
  let skipped = st.skippedCommuting;
  let incompleteRuns = st.incompleteRuns;
  const outcomes = new Set(st.outcomes);
  const run = (schedule: Schedule, recordChoices = true): RunResult =>
    runScenario(scenario, {
      fixes: o.fixes,
      seed: o.seed,
      schedule,
      maxEvents: o.maxEvents,
      collectLatencies: latencies,
      recordFacts: true,
      recordChoices,
    });
  const state = (violation: Schedule | undefined, finished: boolean): ExploreState => ({
    depth,
    parents,
    parentIndex,
    childIndex,
    nextParents,
    explored,
    perDepth,
    skippedCommuting: skipped,
    withLatency,
    incompleteRuns,
    outcomes: [...outcomes].sort(),
    violation,
    finished,
  });
  const limit = (): ExploreStop | undefined =>
    explored >= o.maxSchedules ? 'max-schedules' : o.clock() >= o.deadlineMs ? 'time-limit' : undefined;
  /** Runs one schedule to explore; its result if it violates. */
  const explore1 = (schedule: Schedule): RunResult => {
    // Its choice log is not read: a schedule's children are read off a run of it made when they are due.
    // The default run is the exception (the parent of depth 1, kept).
    const result = run(schedule, schedule.length === 0);
    outcomes.add(outcomeDigest(result));
    explored++;
    if (schedule.some(isLatencyDeviation)) withLatency++;
    perDepth[depth] = (perDepth[depth] ?? 0) + 1;
    if (!result.complete) incompleteRuns++;
    return result;
  };

  if (st.finished) {
    // A finished exploration resumed: its verdict again, with the violating run made anew.
    const v = st.violation;
    return done(v === undefined, undefined, v === undefined ? undefined : { schedule: v, result: run(v) });
  }
  /** The default run, kept as the parent of depth 1 (no need to run it twice). */
  let defaultRun: RunResult | undefined;
  if (depth === 0) {
    const stop = limit();
    if (stop !== undefined) return stopped(stop);
    defaultRun = explore1([]);
    o.onRun?.({ explored, depth, parent: 1, parents: 1 });
    if (defaultRun.violations.length > 0) return found([], defaultRun);
    depth = 1;
    parents = [[]];
    parentIndex = 0;
    childIndex = 0;
    nextParents = [];
  }
  for (; depth <= o.bound && parents.length > 0; depth++) {
    for (; parentIndex < parents.length; parentIndex++, childIndex = 0) {
      const parent = parents[parentIndex] as Schedule;
      const stop = o.clock() >= o.deadlineMs ? 'time-limit' : undefined;
      if (stop !== undefined) return stopped(stop);
      const parentRun = parent.length === 0 && defaultRun !== undefined ? defaultRun : run(parent);
      const choices = parentRun.choices;
      if (choices === undefined) continue;
      const children = childrenOf(
        parent,
        choices.log,
        choices.latency,
        latencies,
        reduction,
        depth === o.bound,
      );
      // Counted once per parent, when its first child is due (a resumed parent was counted already).
      if (childIndex === 0) skipped += children.skipped;
      for (; childIndex < children.steps.length; ) {
        const childStop = limit();
        if (childStop !== undefined) return stopped(childStop);
        const schedule: Schedule = [...parent, children.steps[childIndex] as (typeof children.steps)[number]];
        const result = explore1(schedule);
        childIndex++;
        if (depth < o.bound) nextParents.push(schedule);
        o.onRun?.({ explored, depth, parent: parentIndex + 1, parents: parents.length });
        if (result.violations.length > 0) return found(schedule, result);
        if (o.onCheckpoint !== undefined && explored % every === 0) o.onCheckpoint(state(undefined, false));
      }
    }
    parents = nextParents;
    nextParents = [];
    parentIndex = 0;
    childIndex = 0;
  }
  o.onCheckpoint?.(state(undefined, true));
  return done(true, undefined, undefined);

  function stopped(by: ExploreStop): ExploreResult {
    o.onCheckpoint?.(state(undefined, false));
    return done(false, by, undefined);
  }

  function found(schedule: Schedule, result: RunResult): ExploreResult {
    o.onCheckpoint?.(state(schedule, true));
    // The violating run with its choice log (the same run: runs are deterministic), for whoever shows it.
    const shown = schedule.length === 0 ? result : run(schedule);
    return done(true, undefined, { schedule, result: shown });
  }

  function done(
    complete: boolean,
    stoppedBy: ExploreStop | undefined,
    violation: ExploreResult['violation'],
  ): ExploreResult {
    return {
      explored,
      perDepth,
      skippedCommuting: skipped,
      withLatency,
      distinctOutcomes: outcomes.size,
      complete,
      stoppedBy,
      violation,
      incompleteRuns,
    };
  }
}
