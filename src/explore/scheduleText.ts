// A schedule as text (`run --schedule`, explore's output): comma-separated `point:pick` pairs, choice
// points in increasing order, e.g. `3:1,17:2` (at the 4th choice point pick the 2nd ready event, at the
// 18th the 3rd). The empty schedule, the default order, is written `default`.
import { scheduleText } from '../report/json.js';
import type { Deviation, Schedule } from '../sim/index.js';

export const DEFAULT_SCHEDULE_TEXT = 'default';

export function formatSchedule(s: Schedule): string {
  return scheduleText(s);
}

export type ScheduleParse =
  | { readonly ok: true; readonly schedule: Schedule }
  | { readonly ok: false; readonly position: number; readonly error: string };

/** Parses a schedule string; an error names the 1-based position of the pair that does not parse. */
export function parseSchedule(text: string): ScheduleParse {
  const t = text.trim();
  if (t === DEFAULT_SCHEDULE_TEXT || t === '') return { ok: true, schedule: [] };
  const out: Deviation[] = [];
  const parts = t.split(',');
  for (let i = 0; i < parts.length; i++) {
    const part = (parts[i] as string).trim();
    const m = /^(\d{1,9}):(\d{1,6})$/.exec(part);
    const fail = (error: string): ScheduleParse => ({ ok: false, position: i + 1, error });
    if (m === null) return fail(`"${part}" is not POINT:PICK (two whole numbers, e.g. 17:1)`);
    const point = Number(m[1]);
    const pick = Number(m[2]);
    if (pick === 0) return fail(`"${part}": pick 0 is the default order, not a deviation`);
    const prev = out[out.length - 1];
    if (prev !== undefined && point <= prev.point)
      return fail(`"${part}": choice points must increase (${point} after ${prev.point})`);
    out.push({ point, pick });
  }
  return { ok: true, schedule: out };
}
