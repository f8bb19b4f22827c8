// `--schedule S` (run): the schedule string of src/explore/scheduleText.ts, and the error for one that
// does not fit the scenario (a choice point never reached, a pick beyond the ready events): exit 2, naming
// the position in the string.
import { parseSchedule } from '../explore/scheduleText.js';
import type { Misfit, Schedule } from '../sim/index.js';
import { InputError } from './errors.js';

export function scheduleOption(value: unknown): Schedule {
  const text = String(value);
  const r = parseSchedule(text);
  if (!r.ok) throw new InputError(`--schedule: position ${r.position} of "${text}": ${r.error}`);
  return r.schedule;
}

export function scheduleMisfit(value: unknown, scenario: string, m: Misfit): InputError {
  const text = String(value);
  const pair = text.split(',')[m.position]?.trim() ?? '';
  return new InputError(
    `--schedule: position ${m.position + 1} of "${text}" (${pair}) does not fit ${scenario}: ${m.reason}`,
  );
}
