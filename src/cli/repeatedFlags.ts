// A single-valued flag given twice (`--out a --out b`, `--seed 1 --seed 2`, `--json --no-json`) is bad
// input (exit 2, "given twice"), never "the last one wins" nor yargs' own habit of joining the values into
// a list (a folder named `a,b`, "got "1,2""): podrace cannot tell which one the user meant. Flags declared
// as lists (`--fix`) stay repeatable. One check for every command, from yargs' table of the options of the
// command being run, so a new flag is covered without a word here.
import type { Argv } from 'yargs';
import { InputError } from './errors.js';

/** The part of yargs' option table this check reads (yargs' getOptions(), which @types/yargs leaves out). */
export interface OptionTable {
  readonly key: Readonly<Record<string, unknown>>;
  readonly array: readonly string[];
  readonly boolean: readonly string[];
  readonly alias: Readonly<Record<string, readonly string[]>>;
}

/** `--shrinkRuns` is `--shrink-runs`, as yargs reads it. */
function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** Flags nobody gives twice by mistake, and that yargs answers before any command runs. */
const EXEMPT = new Set(['help', 'version']);

/** The first single-valued flag that `args` (the raw command line) gives twice, as `--name`. */
export function repeatedFlag(args: readonly string[], options: OptionTable): string | undefined {
  const canonical = new Map<string, string>();
  for (const key of Object.keys(options.key)) canonical.set(kebab(key), kebab(key));
  for (const [key, aliases] of Object.entries(options.alias)) {
    for (const alias of aliases) canonical.set(kebab(alias), kebab(key));
  }
  const repeatable = new Set(options.array.map(kebab));
  const booleans = new Set(options.boolean.map(kebab));
  const seen = new Set<string>();
  for (const arg of args) {
    if (arg === '--') break; // what follows is not flags
    if (!arg.startsWith('--')) continue; // a value, a positional or a one-letter flag
    let name = kebab(arg.slice(2).split('=', 1)[0] ?? '');
    const negated = name.startsWith('no-') ? canonical.get(name.slice(3)) : undefined;
    if (!canonical.has(name) && negated !== undefined && booleans.has(negated)) name = negated;
    const key = canonical.get(name);
    if (key === undefined || repeatable.has(key) || EXEMPT.has(key)) continue;
    if (seen.has(key)) return `--${key}`;
    seen.add(key);
  }
  return undefined;
}

/** Makes every command of `parser` refuse a single-valued flag given twice in `args`. */
export function refuseRepeatedFlags(parser: Argv, args: readonly string[]): void {
  parser.middleware(() => {
    const table = (parser as unknown as { getOptions(): OptionTable }).getOptions();
    const flag = repeatedFlag(args, table);
    if (flag !== undefined) throw new InputError(`${flag}: given twice; give it once`);
  }, true);
}
