// The children of an explored schedule (podrace explore, docs/explore.md): one more deviation at a choice
// point after its last one, read off the schedule's own run. Up to that point a child's run is its
// parent's (runs are deterministic), so the parent's choice log says what the child can pick there.
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

/** A parent's children in the order the run met their choice points, and the reorderings skipped. */
export interface Children {
  readonly steps: readonly Step[];
  /** Deviations not explored because they only reorder commuting events. */
  readonly skipped: number;
}

/**
 * The deviations a child of `schedule` may add, from its run's logs: both kinds of choice point in the
 * order the run met them (an event's pop, then the latencies it draws), after the schedule's last one.
 */
export function childrenOf(
  schedule: Schedule,
  log: ChoiceLog,
  lat: LatencyLog,
  latencies: boolean,
  reduction: boolean,
): Children {
  const steps: Step[] = [];
  let skipped = 0;
  const last = schedule[schedule.length - 1];
  const after = last === undefined ? undefined : stepKey(log, lat, last);
  const index = reduction ? seqIndex(log) : undefined;
  let l = 0;
  for (let c = 0; c <= log.points; c++) {
    const event = c < log.points ? (log.pointEvent[c] as number) : Number.POSITIVE_INFINITY;
    for (; latencies && l < lat.points && (lat.event[l] as number) < event; l++) {
      if (after !== undefined && !keyAfter(lat.event[l] as number, 1, l, after)) continue;
      for (const latencyMs of lat.candidates[l] ?? [])
        steps.push({ latencyPoint: l, latencyMs } satisfies LatencyDeviation);
    }
    if (c === log.points) break;
    if (after !== undefined && !keyAfter(event, 0, c, after)) continue;
    const ready = log.pointReady[c] as number[];
    for (let i = 1; i < ready.length; i++) {
      if (index !== undefined && !mustExplore(log, index, c, i)) {
        skipped++;
        continue;
      }
      steps.push({ point: c, pick: i } satisfies Deviation);
    }
  }
  return { steps, skipped };
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
