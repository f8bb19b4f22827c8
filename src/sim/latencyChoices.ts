// Latencies as choice points (podrace explore --latencies, `run --schedule`). Every latency draw of a
// schedule run (a sleep of the runtime, the storage, the API server; a watch delivery; a pod worker's
// jittered requeue: Rng.latencyMs and friends) is a latency choice point, numbered from 0 in the order the
// run meets them. A latency deviation `L<point>=<ms>` makes that draw take `ms` instead of the value the
// stream drew; the stream draws its number either way, so no other draw moves.
//
// The values worth trying (`candidates`, recorded for the explorer) are those that can change what
// happens: the range's minimum, typical (middle) and maximum value, and for a delay from now, the
// values just before and just after the times of the events already pending in its range, nearest to
// the drawn value first (moving the delay past a pending event swaps the two; staying between the same
// two pending events changes little). A container's exit after SIGTERM may also be `never` (it ignores
// the signal and dies at the grace period's SIGKILL), as the stream draws it half the time.
import type { EventQueue, Target } from './queue.js';
import type { LatencyChooser, LatencyDraw } from './rng.js';

/** At the `latencyPoint`-th latency draw of the run (0-based), take `latencyMs` instead of the draw. */
export interface LatencyDeviation {
  readonly latencyPoint: number;
  readonly latencyMs: number;
}

/** A latency as the schedule text and messages write it: `120 ms`, or `never`. */
export function formatLatencyMs(ms: number): string {
  return ms === Number.POSITIVE_INFINITY ? 'never' : `${ms} ms`;
}

/** Pending events on each side of the drawn value whose times give candidates. */
const PENDING_NEAR_MAX = 2;

/** What the latency draws of one schedule run were, for the explorer and the HTML timeline. */
export class LatencyLog {
  /** Per latency point: the index of the event (in ChoiceLog's per-event arrays) that drew it. */
  readonly event: number[] = [];
  readonly timeMs: number[] = [];
  readonly loMs: number[] = [];
  readonly hiMs: number[] = [];
  readonly drawnMs: number[] = [];
  readonly takenMs: number[] = [];
  readonly what: string[] = [];
  /** Whether the draw may also never end (Infinity): a container's exit after SIGTERM. */
  readonly neverAllowed: boolean[] = [];
  /** Per latency point, the other values worth trying (only when collecting them for the explorer). */
  readonly candidates: number[][] = [];

  get points(): number {
    return this.event.length;
  }
}

/** The run's side of a latency choice: where it is, and what the schedule says to take there. */
export interface LatencyHost {
  nowMs(): number;
  /** The index the current event will have in the choice log (-1: before the first event). */
  eventIndex(): number;
  readonly queue: EventQueue;
  /** Whether a queued entry would do something when popped (not a stale wake-up). */
  live(target: Target, arg: number): boolean;
  /** A deviation does not fit: stop the run. */
  misfit(position: number, reason: string): void;
}

export class LatencyChoices implements LatencyChooser {
  readonly log = new LatencyLog();
  private next = 0;
  private readonly pending: number[] = [];

  constructor(
    /** The schedule's latency deviations, in increasing order of point, with their positions in it. */
    private readonly deviations: readonly { readonly d: LatencyDeviation; readonly position: number }[],
    private readonly host: LatencyHost,
    /** Record each point's candidates (the explorer's children); off, a replay pays nothing for them. */
    private readonly collect: boolean,
  ) {}

  choose(draw: LatencyDraw): number {
    const { loMs, hiMs, drawnMs, anchored, what, neverAllowed } = draw;
    const log = this.log;
    const point = log.points;
    let takenMs = drawnMs;
    const dev = this.deviations[this.next];
    if (dev !== undefined && dev.d.latencyPoint === point) {
      this.next++;
      const want = dev.d.latencyMs;
      const never = want === Number.POSITIVE_INFINITY;
      if (never ? !neverAllowed : want < loMs || want > hiMs)
        this.host.misfit(
          dev.position,
          `latency point ${point} (${what}) draws from ${loMs}..${hiMs} ms${neverAllowed ? ' or never' : ''}, not ${formatLatencyMs(want)}`,
        );
      else takenMs = want;
    }
    log.event.push(this.host.eventIndex());
    log.timeMs.push(this.host.nowMs());
    log.loMs.push(loMs);
    log.hiMs.push(hiMs);
    log.drawnMs.push(drawnMs);
    log.takenMs.push(takenMs);
    log.what.push(what);
    log.neverAllowed.push(neverAllowed);
    if (this.collect) log.candidates.push(this.candidates(loMs, hiMs, takenMs, anchored, neverAllowed));
    return takenMs;
  }

  /** The first latency deviation the run never reached, if any (called at the run's end). */
  unreached(): { readonly position: number; readonly reason: string } | undefined {
    const dev = this.deviations[this.next];
    if (dev === undefined) return undefined;
    return {
      position: dev.position,
      reason: `latency point ${dev.d.latencyPoint} is never reached (the run has ${this.log.points} latency points)`,
    };
  }

  /** The values other than `takenMs` worth trying at this draw, ascending (pure but for the queue scan). */
  private candidates(
    loMs: number,
    hiMs: number,
    takenMs: number,
    anchored: boolean,
    neverAllowed: boolean,
  ): number[] {
    const out = new Set<number>([loMs, Math.floor((loMs + hiMs) / 2), hiMs]);
    if (neverAllowed) out.add(Number.POSITIVE_INFINITY);
    if (anchored) {
      const nowMs = this.host.nowMs();
      const times = this.pending;
      times.length = 0;
      this.host.queue.timesIn(nowMs + loMs, nowMs + hiMs, (t, arg) => this.host.live(t, arg), times);
      const offsets = [...new Set(times)].map((t) => t - nowMs).sort((a, b) => a - b);
      let below = 0;
      let above = 0;
      for (let i = offsets.length - 1; i >= 0 && below < PENDING_NEAR_MAX; i--) {
        const o = offsets[i] as number;
        if (o > takenMs) continue;
        below++;
        if (o - 1 >= loMs) out.add(o - 1);
      }
      for (const o of offsets) {
        if (above >= PENDING_NEAR_MAX) break;
        if (o < takenMs) continue;
        above++;
        if (o + 1 <= hiMs) out.add(o + 1);
      }
    }
    out.delete(takenMs);
    return [...out].sort((a, b) => a - b);
  }
}
