// The children of an explored schedule (podrace explore, docs/explore.md): one more deviation at a choice
// point after its last one, read off the schedule's own run. Up to that point a child's run is its
// parent's (runs are deterministic), so the parent's choice log says what the child can pick there.

import {
  type ChoiceLog,
  type Deviation,
  dependent,
  FP_STALE,
  isLatencyDeviation,
  isTickFire,
  type LatencyDeviation,
  type LatencyLog,
  type Schedule,
  type Step,
} from '../sim/index.js';
import { idleTickClusters } from './idleConsumers.js';

/** A parent's children in the order the run met their choice points, and the reorderings skipped. */
export interface Children {
  readonly steps: readonly Step[];
  /** Deviations not explored because they only reorder commuting events. */
  readonly skipped: number;
}

/**
 * The deviations a child of `schedule` may add, from its run's logs: both kinds of choice point in the
 * order the run met them (an event's pop, then the latencies it draws), after the schedule's last one.
 * `atBound`: the children are at the bound, so none of them will have children of its own.
 */
export function childrenOf(
  schedule: Schedule,
  log: ChoiceLog,
  lat: LatencyLog,
  latencies: boolean,
  reduction: boolean,
  atBound = false,
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
    const readyCount = log.readyCount(c);
    for (let i = 1; i < readyCount; i++) {
      if (
        index !== undefined &&
        (!mustExplore(log, index, c, i) || (atBound && sameAsNextSibling(log, index, c, i)))
      ) {
        skipped++;
        continue;
      }
      steps.push({ point: c, pick: i } satisfies Deviation);
    }
  }
  return { steps: byReach(steps, lat), skipped };
}

/**
 * The children in the order they are run: first the latency deviations that change the most (a
 * container that never exits on its SIGTERM, so its kill takes the whole grace period; then a latency
 * at either end of its range), then the rest in the order the run met them. Every child is run before
 * any schedule with one deviation more, so the first violating schedule found still has the fewest
 * deviations there are; the order only decides which of those is found first, and how soon. A race that
 * lies in a latency is found in a few runs this way where the run's own order reached it after a hundred
 * or more (docs/explore.md, "Measured").
 */
function byReach(steps: readonly Step[], lat: LatencyLog): Step[] {
  const rank = (d: Step): number => {
    if (!isLatencyDeviation(d)) return 2;
    if (d.latencyMs === Number.POSITIVE_INFINITY) return 0;
    return d.latencyMs === lat.loMs[d.latencyPoint] || d.latencyMs === lat.hiMs[d.latencyPoint] ? 1 : 2;
  };
  const out: Step[] = [];
  for (let r = 0; r <= 2; r++) for (const d of steps) if (rank(d) === r) out.push(d);
  return out;
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
 * Whether picking the `i`-th ready event at choice point `c` can give another run than the parent's. The
 * parent ran that event (E) later in the same instant. The child runs E first, then, as the kernel does,
 * the least tie among the events due and pushed so far: every event of the instant has the tie it had in
 * the parent (a tie is a function of its owner and the instant), and pushes what it pushed there, as long
 * as it sees the state it saw there. So the child's order of the instant can be worked out from the
 * parent's log; if every pair of events it puts in the other order commutes (`dependent`), each event
 * sees the state it saw in the parent, the instant ends in the same state with the same events pending,
 * and the child's run is the parent's: nothing to explore.
 *
 * A wake-up stale in the parent (it does nothing) stays stale in the child if every event that touched its
 * process's wait keeps its side of it: only such an event (a wake, a kill, the process's own step) moves
 * the generation that makes it stale (`staleOrderMatters`). Where the reading cannot be trusted, the
 * older, coarser rule decides (E must commute with every event the parent ran between `c` and E, and push
 * nothing due at its own instant): the run's last instant (the run may have stopped inside it). Where the
 * coarse rule already skips, so does this one: it can put pushed events in an order the coarse rule need
 * not look at. E itself stale in the parent is always explored: run first, it would be live and run its
 * process's round.
 */
export function mustExplore(
  log: ChoiceLog,
  index: ReadonlyMap<number, number>,
  c: number,
  i: number,
): boolean {
  const seq = log.readySeq(c, i);
  const at = index.get(seq);
  if (at === undefined) return true; // never ran in the parent (the run ended first, or it was taken out)
  if (log.kind[at] === FP_STALE) return true;
  const from = log.pointEvent[c] as number;
  const timeMs = log.timeMs[from] as number;
  let to = from;
  while (to + 1 < log.seq.length && log.timeMs[to + 1] === timeMs) to++;
  // Either rule is enough to skip: each shows the child's instant ends as the parent's did.
  if (!mustExploreCoarse(log, from, at)) return false;
  if (to === log.seq.length - 1) return true;
  const order = childOrder(log, from, to, at);
  if (order === undefined) return true;
  // position[j - from]: where event j of the parent runs in the child's instant.
  const position = new Array<number>(to - from + 1);
  for (let p = 0; p < order.length; p++) position[(order[p] as number) - from] = p;
  const cluster = idleTickClusters(log, from, to);
  for (let x = from; x <= to; x++)
    for (let y = x + 1; y <= to; y++) {
      if ((position[y - from] as number) > (position[x - from] as number)) continue;
      const cx = cluster[x - from] as number;
      if (cx >= 0 && cx === cluster[y - from]) continue;
      if (dependent(log, x, y) || staleOrderMatters(log, x, y)) return true;
    }
  return false;
}

/**
 * Whether one of `x` and `y` is a wake-up stale in the parent and the other touched its process's wait:
 * put in the other order, the wake-up might be live (or a live one stale), so the run may differ.
 */
function staleOrderMatters(log: ChoiceLog, x: number, y: number): boolean {
  if (log.kind[x] === FP_STALE) return touchedOwner(log, y, x);
  if (log.kind[y] === FP_STALE) return touchedOwner(log, x, y);
  return false;
}

/** Whether event `j` touched the wait of the process of stale wake-up `s` (any, if `s` is a callback). */
function touchedOwner(log: ChoiceLog, j: number, s: number): boolean {
  const owner = log.owner[s] as number;
  return owner < 0 || touched(log, j, owner);
}

/**
 * Whether picking the `i`-th ready event E at choice point `c` gives the run of picking E at the next
 * choice point instead, a sibling of the same parent: the parent popped A at `c` and the next pop is
 * choice point c + 1 with E ready there; E commutes with A and pushes nothing due at its instant. Then
 * "E, A, then the default order" and "A, E, then the default order" are the same run: after both, the
 * same events are due with the same ties. Used only for schedules at the bound: the sibling gives the
 * same run, but the children of "E first" (a deviation at c + 1 that moves another event ahead of A)
 * are not all children of the sibling, so a schedule that will have children is never skipped so.
 * The instants mustExplore does not trust (a stale wake-up in it, the run's last) are not skipped either.
 */
export function sameAsNextSibling(
  log: ChoiceLog,
  index: ReadonlyMap<number, number>,
  c: number,
  i: number,
): boolean {
  const from = log.pointEvent[c] as number;
  if (c + 1 >= log.points || log.pointEvent[c + 1] !== from + 1) return false;
  const seq = log.readySeq(c, i);
  const at = index.get(seq);
  if (at === undefined || log.kind[at] === FP_STALE || log.nowPush[at] === 1) return false;
  let readyNext = false;
  for (let k = 0; k < log.readyCount(c + 1); k++) if (log.readySeq(c + 1, k) === seq) readyNext = true;
  if (!readyNext) return false;
  const timeMs = log.timeMs[from] as number;
  let to = from;
  while (to + 1 < log.seq.length && log.timeMs[to + 1] === timeMs) to++;
  if (to === log.seq.length - 1) return false;
  for (let j = from; j <= to; j++) if (log.kind[j] === FP_STALE) return false;
  return !dependent(log, from, at);
}

/** The older rule: E commutes with every event from `from` to it, and pushed nothing due at its instant. */
function mustExploreCoarse(log: ChoiceLog, from: number, at: number): boolean {
  if (log.nowPush[at] === 1) return true;
  for (let j = from; j < at; j++) if (dependent(log, j, at)) return true;
  return false;
}

/**
 * The order in which a child that pops event `first` at parent index `from` runs the parent's events
 * `from..to` (one instant): at each pop the least (tie, sequence number) among those due, an event pushed
 * during the instant being due once its pusher has run. Undefined if `first` was not due at `from`.
 */
function childOrder(log: ChoiceLog, from: number, to: number, first: number): number[] | undefined {
  const n = to - from + 1;
  const due = new Array<boolean>(n).fill(false);
  const done = new Array<boolean>(n).fill(false);
  for (let j = from; j <= to; j++) if ((log.pusher[j] as number) < from) due[j - from] = true;
  if (!due[first - from]) return undefined;
  const order: number[] = [];
  let next = first;
  while (next >= 0) {
    order.push(next);
    done[next - from] = true;
    for (let j = from; j <= to; j++)
      if (log.pusher[j] === next || wokenByFire(log, next, j)) due[j - from] = true;
    next = -1;
    for (let j = from; j <= to; j++) {
      if (!due[j - from] || done[j - from]) continue;
      if (next < 0 || before(log, j, next)) next = j;
    }
  }
  return order.length === n ? order : undefined;
}

/**
 * Whether tick fire `f` wakes event `j`'s process in the child: `j` is a consumer's round that a tick fire
 * woke in the parent, and `f`, a tick fire the parent ran before it, touched the same wait. Whichever
 * such fire the child runs first is the one that wakes the consumer.
 */
function wokenByFire(log: ChoiceLog, f: number, j: number): boolean {
  const p = log.pusher[j] as number;
  if (p < 0 || f >= j || !isTickFire(log, f) || !isTickFire(log, p)) return false;
  const owner = log.owner[j] as number;
  if (owner < 0 || !touched(log, f, owner) || !touched(log, p, owner)) return false;
  // A fire before the consumer's previous round of the instant found that round's wait, not this one's.
  for (let k = f + 1; k < j; k++) if (log.owner[k] === owner) return false;
  return true;
}

function touched(log: ChoiceLog, j: number, id: number): boolean {
  for (let k = log.touchStart[j] as number; k < (log.touchStart[j + 1] as number); k++)
    if (log.touches[k] === id) return true;
  return false;
}

/** The kernel's order of two entries due at one instant: tie, then sequence number. */
function before(log: ChoiceLog, a: number, b: number): boolean {
  const ta = log.tie[a] as number;
  const tb = log.tie[b] as number;
  return ta !== tb ? ta < tb : (log.seq[a] as number) < (log.seq[b] as number);
}
