// `podrace explore`: bounded exhaustive search of same-instant orderings (docs/explore.md). Stateless:
// every schedule is a fresh run of the scenario from the start. Schedules are visited in order of their
// number of deviations (0, then every 1-deviation schedule, then 2, ... up to the bound), so the first
// violating one found has the fewest deviations there are. Children of a schedule add one deviation at a
// choice point after its last one, so each schedule is generated once.
//
// Reduction: a deviation that moves a ready event ahead of events it commutes with (src/sim/choices.ts
// `dependent`, from each event's footprint) gives the same run as its parent, so it is not explored.

import type { Fixes } from '../fixes.js';
import { type RunResult, runScenario } from '../run/run.js';
import type { Scenario } from '../scenario/types.js';
import { type ChoiceLog, type Deviation, dependent, type Schedule } from '../sim/index.js';

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
  readonly maxEvents?: number | undefined;
  /** Called after each run (a progress line). */
  readonly onRun?: ((explored: number, queued: number) => void) | undefined;
}

export type ExploreStop = 'max-schedules' | 'time-limit';

export interface ExploreResult {
  /** Runs made. */
  readonly explored: number;
  /** Runs made per number of deviations (index 0: the default order). */
  readonly perDepth: readonly number[];
  /** Deviations not explored because they only reorder commuting events. */
  readonly skippedCommuting: number;
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
  const perDepth: number[] = [];
  let explored = 0;
  let skipped = 0;
  let incompleteRuns = 0;
  /** Some child was never queued: the budget could not have run it. */
  let truncated = false;
  let level: Schedule[] = [[]];
  for (let depth = 0; level.length > 0; depth++) {
    const next: Schedule[] = [];
    let cut = false;
    for (let k = 0; k < level.length; k++) {
      if (explored >= o.maxSchedules || o.clock() >= o.deadlineMs) {
        const stoppedBy = explored >= o.maxSchedules ? 'max-schedules' : 'time-limit';
        return done(false, stoppedBy, undefined);
      }
      const schedule = level[k] as Schedule;
      const result = runScenario(scenario, {
        fixes: o.fixes,
        seed: o.seed,
        schedule,
        maxEvents: o.maxEvents,
      });
      explored++;
      perDepth[depth] = (perDepth[depth] ?? 0) + 1;
      if (!result.complete) incompleteRuns++;
      o.onRun?.(explored, level.length - k - 1 + next.length);
      if (result.violations.length > 0) return done(true, undefined, { schedule, result });
      if (depth >= o.bound) continue;
      const log = result.choices?.log;
      if (log === undefined) continue;
      // Children beyond what the budget can run are never queued (the exploration is cut anyway).
      const room = o.maxSchedules - explored - (level.length - k - 1);
      const last = schedule[schedule.length - 1];
      const from = last === undefined ? 0 : last.point + 1;
      const index = reduction ? seqIndex(log) : undefined;
      for (let c = from; c < log.points; c++) {
        const ready = log.pointReady[c] as number[];
        for (let i = 1; i < ready.length; i++) {
          if (index !== undefined && !mustExplore(log, index, c, i)) {
            skipped++;
            continue;
          }
          // Still counted past the budget: what is skipped stays the same whatever the budget.
          if (next.length >= room) cut = true;
          else next.push([...schedule, { point: c, pick: i } satisfies Deviation]);
        }
      }
    }
    if (cut) truncated = true;
    level = next;
  }
  return truncated ? done(false, 'max-schedules', undefined) : done(true, undefined, undefined);

  function done(
    complete: boolean,
    stoppedBy: ExploreStop | undefined,
    violation: ExploreResult['violation'],
  ): ExploreResult {
    return {
      explored,
      perDepth,
      skippedCommuting: skipped,
      complete,
      stoppedBy,
      violation,
      incompleteRuns,
    };
  }
}

/** Each event's index in the log by its sequence number. */
function seqIndex(log: ChoiceLog): Map<number, number> {
  const m = new Map<number, number>();
  for (let j = 0; j < log.seq.length; j++) m.set(log.seq[j] as number, j);
  return m;
}

/**
 * Whether picking the `i`-th ready event at choice point `c` can give another run than the parent's: the
 * parent ran that event later, after the events popped from `c` on; if it commutes with every one of
 * them, and pushed nothing due at its own instant (which would then run earlier too), running it first
 * gives the same run (the same events, each seeing the same state), so there is nothing to explore.
 */
export function mustExplore(
  log: ChoiceLog,
  index: ReadonlyMap<number, number>,
  c: number,
  i: number,
): boolean {
  const seq = (log.pointReady[c] as number[])[i] as number;
  const at = index.get(seq);
  if (at === undefined) return true; // never ran in the parent (the run ended first, or it was taken out)
  if (log.nowPush[at] === 1) return true;
  for (let j = log.pointEvent[c] as number; j < at; j++) if (dependent(log, j, at)) return true;
  return false;
}
