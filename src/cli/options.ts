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
  looksLikeRelease,
  RELEASE_PRESETS,
  UNMODELLED_RELEASE_HINT,
} from '../fixes.js';
import { didYouMean } from '../scenario/didYouMean.js';
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

/** Deviations beyond this make the schedule count explode: refuse them rather than run for ever. */
export const MAX_BOUND = 5;

/** `--bound K` (explore, verify --exhaustive): deviations from the default order, 0 to MAX_BOUND. */
export function boundOption(value: unknown): number {
  const text = String(value);
  if (!/^\d+$/.test(text) || Number(text) > MAX_BOUND)
    throw new InputError(`--bound: expected a whole number from 0 to ${MAX_BOUND}, got "${text}"`);
  return Number(text);
}

export function durationOption(value: unknown, flag: string): number {
  const text = String(value);
  const r = parseDurationMs(text);
  if (r.ok) return r.value;
  // A bare number is the most common mistake (`--since 80`): which unit it needs, with the value in it.
  const n = text.trim();
  if (/^\d+(\.\d+)?$/.test(n))
    throw new InputError(
      `${flag}: "${n}" needs a unit: ${n}ms, ${n}s or ${n}m (a duration like 250ms, 30s or 5m)`,
    );
  throw new InputError(`${flag}: ${r.error}`);
}

/**
 * `all` and `none` are what output headers and claims (`fixes: all`, `fixes: none`) call `fixed` and
 * `legacy`, so the CLI takes those words too.
 */
export const KUBELET_ALIASES = { all: 'fixed', none: 'legacy' } as const satisfies Record<
  string,
  KubeletName
>;

/**
 * `--kubelet fixed|legacy|all|none|<release>` then each `--fix ID=on|off` in order (`prefix` 'base-':
 * diff's `--base-kubelet` and `--base-fix`).
 */
export function fixesOption(kubelet: unknown, fix: unknown, prefix: '' | 'base-' = ''): Fixes {
  const given = kubelet === undefined ? 'fixed' : String(kubelet);
  const name = Object.hasOwn(KUBELET_ALIASES, given)
    ? KUBELET_ALIASES[given as keyof typeof KUBELET_ALIASES]
    : given;
  if (!isKubeletName(name)) throw new InputError(kubeletChoiceMessage(`--${prefix}kubelet`, given));
  let fixes = Fixes.of(name);
  const items = fix === undefined ? [] : Array.isArray(fix) ? fix : [fix];
  for (const item of items) {
    const [id, value] = fixToggle(String(item), `--${prefix}fix`);
    fixes = fixes.with(id, value);
  }
  return fixes;
}

/** One `--fix ID=on|off`, with a did-you-mean for a misspelt ID or state. */
function fixToggle(text: string, flag: string): [FixId, boolean] {
  const m = /^([^=]*)=(.*)$/.exec(text);
  if (m === null) {
    const hint = isFixId(text) ? ` (${text}=on or ${text}=off)` : didYouMean(text, FIX_IDS);
    throw new InputError(`${flag}: expected ID=on or ID=off, got "${text}"${hint}`);
  }
  const id = m[1] ?? '';
  const state = m[2] ?? '';
  if (!isFixId(id))
    throw new InputError(
      `${flag}: unknown fix "${id}"${didYouMean(id, FIX_IDS)}; known fixes: ${FIX_IDS.join(', ')}`,
    );
  if (state !== 'on' && state !== 'off')
    throw new InputError(
      `${flag}: ${id}=${state}: expected on or off after "="${didYouMean(state, ['off', 'on'])}`,
    );
  return [id, state === 'on'];
}

/**
 * A `--kubelet` value that names no kubelet: which names there are, and that a release podrace does not
 * model (1.19, 1.32) is not one of them, so the user looks for the nearest release rather than a typo.
 */
export function kubeletChoiceMessage(flag: string, given: string): string {
  const releases = RELEASE_PRESETS.join(', ');
  const names = [...KUBELET_NAMES, ...Object.keys(KUBELET_ALIASES)];
  const hint = looksLikeRelease(given) ? UNMODELLED_RELEASE_HINT : didYouMean(given, names);
  return `${flag}: expected fixed (also all), legacy (also none) or a modelled release (${releases}), got ${JSON.stringify(given)}${hint}`;
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
