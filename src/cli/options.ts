// Parsing and validation of the flags shared by several commands. Every bad value is an InputError
// (exit 2) naming the flag and what was expected; nothing here touches the simulation.
import {
  FIX_IDS,
  Fixes,
  type FixId,
  isFixId,
  isKubeletName,
  KUBELET_NAMES,
  type KubeletName,
} from '../fixes.js';
import { parseDurationMs, parseSeed } from '../sim/units.js';
import { InputError } from './errors.js';

export function seedOption(value: unknown, flag = '--seed'): number {
  const r = parseSeed(String(value));
  if (!r.ok) throw new InputError(`${flag}: ${r.error}`);
  return r.value;
}

export function positiveIntOption(value: unknown, flag: string): number {
  const text = String(value);
  if (!/^\d+$/.test(text) || Number(text) < 1 || !Number.isSafeInteger(Number(text))) {
    throw new InputError(`${flag}: expected a positive whole number, got "${text}"`);
  }
  return Number(text);
}

export function durationOption(value: unknown, flag: string): number {
  const r = parseDurationMs(String(value));
  if (!r.ok) throw new InputError(`${flag}: ${r.error}`);
  return r.value;
}

/**
 * `all` and `none` are what output headers and claims (`fixes: all`, `fixes: none`) call `fixed` and
 * `legacy`, so the CLI takes those words too.
 */
export const KUBELET_ALIASES = { all: 'fixed', none: 'legacy' } as const satisfies Record<
  string,
  KubeletName
>;

/** `--kubelet fixed|legacy|all|none|<release>` then each `--fix ID=on|off` in order. */
export function fixesOption(kubelet: unknown, fix: unknown): Fixes {
  const given = kubelet === undefined ? 'fixed' : String(kubelet);
  const name = Object.hasOwn(KUBELET_ALIASES, given)
    ? KUBELET_ALIASES[given as keyof typeof KUBELET_ALIASES]
    : given;
  if (!isKubeletName(name))
    throw new InputError(
      `--kubelet: expected one of ${[...KUBELET_NAMES, ...Object.keys(KUBELET_ALIASES)].join(', ')}, got "${name}"`,
    );
  let fixes = Fixes.of(name);
  const items = fix === undefined ? [] : Array.isArray(fix) ? fix : [fix];
  for (const item of items) {
    const m = /^([a-z-]+)=(on|off)$/.exec(String(item));
    if (m === null) throw new InputError(`--fix: expected ID=on or ID=off, got "${String(item)}"`);
    const id = m[1] ?? '';
    if (!isFixId(id)) throw new InputError(`--fix: unknown fix "${id}"; known fixes: ${FIX_IDS.join(', ')}`);
    fixes = fixes.with(id as FixId, m[2] === 'on');
  }
  return fixes;
}

/** `--shard I/N` (1-based); `--shard /N` or `--shard N` takes I from JOB_COMPLETION_INDEX (0-based). */
export function shardOption(value: unknown, env: NodeJS.ProcessEnv): { index: number; count: number } {
  const text = String(value);
  const m = /^(\d*)\/?(\d+)$/.exec(text);
  if (m === null) throw new InputError(`--shard: expected I/N (1-based), got "${text}"`);
  const count = Number(m[2]);
  let index: number;
  if (m[1] === '' || m[1] === undefined || !text.includes('/')) {
    const jobIndex = env['JOB_COMPLETION_INDEX'];
    if (jobIndex === undefined)
      throw new InputError('--shard: no shard index given and JOB_COMPLETION_INDEX is not set');
    if (!/^\d+$/.test(jobIndex)) {
      throw new InputError(
        `--shard: JOB_COMPLETION_INDEX must be a whole number (0-based), got "${jobIndex}"`,
      );
    }
    index = Number(jobIndex) + 1;
  } else index = Number(m[1]);
  if (count < 1 || index < 1 || index > count)
    throw new InputError(`--shard: ${index}/${count} is not a shard (1 <= I <= N)`);
  return { index, count };
}

/** `--no-elide`: run every round of the polling loops, the plain way (same results, more events). */
export const elideOption = {
  elide: {
    type: 'boolean',
    default: true,
    describe: 'skip the rounds of idle polling loops (--no-elide: run every round; same results, slower)',
  },
} as const;

/** `--kubelet fixed|legacy` and repeatable `--fix ID=on|off`, shared by run, fuzz and replay (see fixesOption). */
export const fixSelectionOptions = {
  kubelet: {
    type: 'string',
    requiresArg: true,
    choices: [...KUBELET_NAMES, ...Object.keys(KUBELET_ALIASES)],
    describe:
      'every fix on (fixed, also all; the default), every fix off (legacy, also none), or a release: every fix as its last patch shipped it',
  },
  fix: {
    type: 'string',
    requiresArg: true,
    array: true,
    describe: 'toggle one fix after --kubelet: ID=on|off (repeatable; `podrace list fixes` lists the IDs)',
  },
} as const;

/** `--max-events N`: undefined when not given (the budget is then sized from the scenario). */
export function maxEventsOption(value: unknown): number | undefined {
  return value === undefined ? undefined : positiveIntOption(value, '--max-events');
}
