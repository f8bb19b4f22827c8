// A log longer than a scenario may run (a day), made to fit: the stretches in which nothing the scenario
// replays happens (a pod stuck for two days, the same orphan line every 2 s) are cut to IDLE_GAP_KEPT_MS,
// and what is still past the day is left out and said so (docs/import.md, "Long logs"). Pure.

import { LIMITS } from '../scenario/limits.js';

/** The longest a scenario may run (its horizon's bound, as every duration's), less the quiet time an import adds at the end. */
export const MAX_HORIZON_MS = LIMITS.durationMs;
export const QUIET_AFTER_MS = 5 * 60_000;
export const SPAN_MAX_MS = MAX_HORIZON_MS - QUIET_AFTER_MS;
/** The least horizon of an imported scenario. */
export const MIN_HORIZON_MS = 10 * 60_000;
/**
 * What is kept of an idle stretch: longer than every timer of the modelled paths (the attach/detach
 * controller's 6 min maxWaitForUnmountDuration, the 5 min back-off cap, the 2 min runtime request
 * timeout), so a cut changes no outcome that those timers decide.
 */
export const IDLE_GAP_KEPT_MS = 10 * 60_000;

/** One idle stretch cut: it began at `atMs` (after the cut, the same before it) and lost `removedMs`. */
export interface IdleCut {
  readonly atMs: number;
  readonly removedMs: number;
}

/** Maps the log's time (ms from its start) to the scenario's, once the cuts are made. Monotonic. */
export class TimeMap {
  /** The cut stretches in the log's time: [fromMs, toMs) is dropped, after removedBeforeMs by earlier cuts. */
  private readonly stretches: {
    readonly fromMs: number;
    readonly toMs: number;
    readonly removedBeforeMs: number;
  }[] = [];
  readonly cuts: IdleCut[] = [];

  /**
   * The cuts for `times` (the log-time instants of what the scenario replays), made only when the span
   * does not fit in SPAN_MAX_MS: a log that fits keeps the log's own times.
   */
  static of(times: readonly number[]): TimeMap {
    const map = new TimeMap();
    const sorted = [...times].sort((a, b) => a - b);
    if ((sorted[sorted.length - 1] ?? 0) <= SPAN_MAX_MS) return map;
    let removedMs = 0;
    for (let i = 1; i < sorted.length; i++) {
      const before = sorted[i - 1] as number;
      const after = sorted[i] as number;
      if (after - before <= IDLE_GAP_KEPT_MS) continue;
      const fromMs = before + IDLE_GAP_KEPT_MS;
      map.stretches.push({ fromMs, toMs: after, removedBeforeMs: removedMs });
      map.cuts.push({ atMs: fromMs - removedMs, removedMs: after - fromMs });
      removedMs += after - fromMs;
    }
    return map;
  }

  /**
   * The scenario time of log time `t`: less what the cuts before it removed; inside a cut stretch, the
   * stretch's kept end (what happened there is not replayed).
   */
  map(t: number): number {
    let removedMs = 0;
    for (const c of this.stretches) {
      if (t < c.fromMs) break;
      if (t < c.toMs) return c.fromMs - c.removedBeforeMs;
      removedMs = c.removedBeforeMs + (c.toMs - c.fromMs);
    }
    return t - removedMs;
  }
}

/** `26h 3m`, `14m`, `45s`: a removed stretch for a comment. */
export function durationText(ms: number): string {
  const s = Math.round(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (h > 0) return m > 0 ? `${h}h ${m}m` : `${h}h`;
  if (m > 0) return `${m}m`;
  return `${s}s`;
}
