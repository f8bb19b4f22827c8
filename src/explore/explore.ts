// `podrace explore`: bounded exhaustive search of same-instant orderings (docs/explore.md). Stateless:
// every schedule is a fresh run of the scenario from the start. Schedules are visited in order of their
// number of deviations (0, then every 1-deviation schedule, then 2, ... up to the bound), so the first
// violating one found has the fewest deviations there are. Children of a schedule add one deviation at a
// choice point after its last one, so each schedule is generated once.
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
import type { Scenario } from '../scenario/types.js';
import {
  type ChoiceLog,
  type Deviation,
  dependent,
  isLatencyDeviation,
  type LatencyDeviation,
  type LatencyLog,
  type Schedule,
  type Step,
} from '../sim/index.js';

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
  /** Of the runs made, how many had at least one latency deviation. */
  readonly withLatency: number;
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
  const perDepth: number[] = [];
  let explored = 0;
  let withLatency = 0;
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
        collectLatencies: latencies,
      });
      explored++;
      if (schedule.some(isLatencyDeviation)) withLatency++;
      perDepth[depth] = (perDepth[depth] ?? 0) + 1;
      if (!result.complete) incompleteRuns++;
      o.onRun?.(explored, level.length - k - 1 + next.length);
      if (result.violations.length > 0) return done(true, undefined, { schedule, result });
      if (depth >= o.bound) continue;
      const choices = result.choices;
      if (choices === undefined) continue;
      const log = choices.log;
      const lat = choices.latency;
      // Children beyond what the budget can run are never queued (the exploration is cut anyway).
      const room = o.maxSchedules - explored - (level.length - k - 1);
      const last = schedule[schedule.length - 1];
      const after = last === undefined ? undefined : stepKey(log, lat, last);
      const push = (d: Step): void => {
        if (next.length >= room) cut = true;
        else next.push([...schedule, d]);
      };
      const index = reduction ? seqIndex(log) : undefined;
      // Both kinds of choice point in the order the run met them: an event's pop, then its draws.
      let l = 0;
      for (let c = 0; c <= log.points; c++) {
        const event = c < log.points ? (log.pointEvent[c] as number) : Number.POSITIVE_INFINITY;
        for (; latencies && l < lat.points && (lat.event[l] as number) < event; l++) {
          if (after !== undefined && !keyAfter(lat.event[l] as number, 1, l, after)) continue;
          for (const latencyMs of lat.candidates[l] ?? [])
            push({ latencyPoint: l, latencyMs } satisfies LatencyDeviation);
        }
        if (c === log.points) break;
        if (after !== undefined && !keyAfter(event, 0, c, after)) continue;
        const ready = log.pointReady[c] as number[];
        for (let i = 1; i < ready.length; i++) {
          if (index !== undefined && !mustExplore(log, index, c, i)) {
            // Still counted past the budget: what is skipped stays the same whatever the budget.
            skipped++;
            continue;
          }
          push({ point: c, pick: i } satisfies Deviation);
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
      withLatency,
      complete,
      stoppedBy,
      violation,
      incompleteRuns,
    };
  }
}

/**
 * Where a deviation sits in the order the run meets choice points: [event index, 0 for the event's pop
 * or 1 for a latency drawn while it runs, the point's number].
 */
type StepKey = readonly [number, number, number];

function stepKey(log: ChoiceLog, lat: LatencyLog, d: Step): StepKey {
  return isLatencyDeviation(d)
    ? [lat.event[d.latencyPoint] as number, 1, d.latencyPoint]
    : [log.pointEvent[d.point] as number, 0, d.point];
}

function keyAfter(event: number, kind: number, point: number, k: StepKey): boolean {
  if (event !== k[0]) return event > k[0];
  if (kind !== k[1]) return kind > k[1];
  return point > k[2];
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
