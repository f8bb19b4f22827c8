// A schedule as text (`run --schedule`, explore's output): comma-separated items, e.g. `3:1,L40=2,17:2`.
// `point:pick`: at the (point+1)-th choice point pick the (pick+1)-th ready event; `Lpoint=ms`: the
// (point+1)-th latency draw takes ms milliseconds (`never`: a container's exit after SIGTERM that never
// comes). Each kind in increasing order of its points; the two
// kinds may interleave (explore lists them in the order the run meets them). The empty schedule, the
// default order with the drawn latencies, is written `default`.
import { scheduleText } from '../report/json.js';
import { isLatencyDeviation, type Schedule, type Step } from '../sim/index.js';

export const DEFAULT_SCHEDULE_TEXT = 'default';

export function formatSchedule(s: Schedule): string {
  return scheduleText(s);
}

/** How many of a schedule's deviations are latencies. */
export function latencyDeviations(s: Schedule): number {
  let n = 0;
  for (const d of s) if (isLatencyDeviation(d)) n++;
  return n;
}

export type ScheduleParse =
  | { readonly ok: true; readonly schedule: Schedule }
  | { readonly ok: false; readonly position: number; readonly error: string };

/** Parses a schedule string; an error names the 1-based position of the pair that does not parse. */
export function parseSchedule(text: string): ScheduleParse {
  const t = text.trim();
  if (t === DEFAULT_SCHEDULE_TEXT || t === '') return { ok: true, schedule: [] };
  const out: Step[] = [];
  let lastPoint = -1;
  let lastLatencyPoint = -1;
  const parts = t.split(',');
  for (let i = 0; i < parts.length; i++) {
    const part = (parts[i] as string).trim();
    const fail = (error: string): ScheduleParse => ({ ok: false, position: i + 1, error });
    const l = /^L(\d{1,9})=(\d{1,12}|never)$/.exec(part);
    if (l !== null) {
      const latencyPoint = Number(l[1]);
      const latencyMs = l[2] === 'never' ? Number.POSITIVE_INFINITY : Number(l[2]);
      if (latencyPoint <= lastLatencyPoint)
        return fail(`"${part}": latency points must increase (${latencyPoint} after ${lastLatencyPoint})`);
      lastLatencyPoint = latencyPoint;
      out.push({ latencyPoint, latencyMs });
      continue;
    }
    const m = /^(\d{1,9}):(\d{1,6})$/.exec(part);
    if (m === null)
      return fail(
        `"${part}" is neither POINT:PICK (two whole numbers, e.g. 17:1) nor LPOINT=MS (a latency in whole ms, or never, e.g. L40=2)`,
      );
    const point = Number(m[1]);
    const pick = Number(m[2]);
    if (pick === 0) return fail(`"${part}": pick 0 is the default order, not a deviation`);
    if (point <= lastPoint)
      return fail(`"${part}": choice points must increase (${point} after ${lastPoint})`);
    lastPoint = point;
    out.push({ point, pick });
  }
  return { ok: true, schedule: out };
}
