// yargs' own failure messages ("Unknown arguments: run, sed", "Invalid values: Argument: kubelet, Given:
// ...", "Not enough arguments following: seed") rewritten in podrace's style: one line that names the flag
// or the argument first, says what was expected and, for a typo, the nearest name there is (`--run`:
// did you mean `--runs`?). The command being run and its flags come from the command definitions
// (introspect.ts), so every flag the parser takes is a candidate and nothing here lists them again. Light
// on purpose: a bad command line loads only the command definitions, never the simulator.
import { didYouMean } from '../scenario/didYouMean.js';
import type { CommandSpec, OptionSpec } from './introspect.js';
import { kubeletChoiceMessage } from './options.js';

/** What a rewrite needs to know: the raw command line, the commands and the global flags. */
export interface UsageContext {
  readonly args: readonly string[];
  readonly commands: readonly CommandSpec[];
  readonly globals: readonly OptionSpec[];
}

/** Flags yargs adds to every command itself (its --help and --version). */
const BUILT_IN = ['help', 'version'];

/** The command the raw command line runs: its first word that is not a flag (global flags take no value). */
export function commandOf(ctx: UsageContext): CommandSpec | undefined {
  const first = ctx.args.find((a) => !a.startsWith('-'));
  return ctx.commands.find((c) => c.name === first);
}

/** `--shrinkRuns` is `--shrink-runs`, as yargs reads it. */
const kebab = (name: string): string => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** The flags `command` takes, as written on a command line (`--no-elide` for a boolean default on). */
function flagNames(command: CommandSpec | undefined, ctx: UsageContext): string[] {
  const options = [...ctx.globals, ...(command?.options ?? [])];
  const names = new Set([...BUILT_IN, ...options.map((o) => o.name)]);
  for (const o of options) if (o.type === 'boolean') names.add(`no-${o.name}`);
  return [...names].map((n) => `--${n}`);
}

/** `--run 3`, `--run=3`, `-q`: the flag as the user wrote it, or undefined for a positional argument. */
function writtenFlag(name: string, args: readonly string[]): string | undefined {
  const stop = args.indexOf('--');
  const flags = stop === -1 ? args : args.slice(0, stop);
  for (const arg of flags) {
    if (!arg.startsWith('-') || arg === '-') continue;
    const written = arg.split('=', 1)[0] ?? arg;
    const bare = written.replace(/^--?/, '');
    // yargs names `--no-oracl` as `oracl`.
    const plain = arg.startsWith('--no-') ? bare.slice(3) : bare;
    if (bare === name || kebab(bare) === kebab(name) || kebab(plain) === kebab(name)) return written;
    // `-xq`: yargs reads a group of one-letter flags as each of them.
    if (!arg.startsWith('--') && name.length === 1 && bare.includes(name)) return `-${name}`;
  }
  return undefined;
}

function unknownArguments(list: string, ctx: UsageContext): string {
  const command = commandOf(ctx);
  const names = list.split(', ').filter((n) => n !== '');
  // yargs names an unknown flag twice, as written and camel-cased (`shrink-run, shrinkRun`): take the first
  // one the command line has, in its order.
  const found = names
    .map((name) => ({ name, written: writtenFlag(name, ctx.args) }))
    .sort((a, b) => position(a, ctx.args) - position(b, ctx.args));
  const first = found.find((f) => f.written !== undefined) ?? found[0];
  if (first === undefined) return 'invalid command line';
  if (first.written === undefined) return unexpectedPositional(first.name, command, ctx);
  const flag = first.written.startsWith('--') ? first.written : `-${first.name}`;
  const where = command === undefined ? 'podrace' : command.name;
  const candidates = flagNames(command, ctx);
  const others = ctx.commands
    .filter((c) => c !== command && c.options.some((o) => `--${o.name}` === flag))
    .map((c) => c.name);
  // A near miss of this command's own flag is the likelier slip than a flag of another command.
  const nearMiss = didYouMean(flag, candidates);
  const elsewhere = others.length === 0 || nearMiss !== '' ? '' : ` (a flag of ${others.join(', ')})`;
  const help = command === undefined ? '`npx podrace --help`' : `\`npx podrace ${command.name} --help\``;
  return `${flag}: unknown flag of ${where}${elsewhere}${nearMiss}; ${help} lists its flags`;
}

/** Where an unknown name first appears on the command line (positionals and flags alike). */
function position(f: { name: string; written: string | undefined }, args: readonly string[]): number {
  const i = args.findIndex(
    (a) => a === f.name || (f.written !== undefined && (a === f.written || a.startsWith(`${f.written}=`))),
  );
  return i === -1 ? args.length : i;
}

function unexpectedPositional(word: string, command: CommandSpec | undefined, ctx: UsageContext): string {
  if (command === undefined) return unknownCommand(word, ctx);
  return `${command.name}: unexpected argument "${word}"; usage: npx podrace ${command.usage} [options]`;
}

function unknownCommand(word: string, ctx: UsageContext): string {
  // `--colr run x`: yargs took `run` for the value of the unknown `--colr` and then `x` for the command.
  const globals = flagNames(undefined, ctx);
  const flag = ctx.args.find((a) => a.startsWith('--') && !globals.includes(a.split('=', 1)[0] ?? a));
  if (flag !== undefined) {
    const written = flag.split('=', 1)[0] ?? flag;
    return `${written}: unknown flag of podrace${didYouMean(written, globals)}; \`npx podrace --help\` lists its flags`;
  }
  const names = ctx.commands.map((c) => c.name);
  if (word === '') return `name a command: ${names.join(', ')}; \`npx podrace --help\` says what each does`;
  return `${word}: unknown command${didYouMean(word, names)}; commands: ${names.join(', ')}`;
}

/** The option or positional a yargs name refers to, in the running command or the global flags. */
function optionOf(name: string, ctx: UsageContext): { spec: OptionSpec; positional: boolean } | undefined {
  const command = commandOf(ctx);
  const key = kebab(name);
  const positional = command?.positionals.find((p) => kebab(p.name) === key);
  if (positional !== undefined) return { spec: positional, positional: true };
  const option = [...(command?.options ?? []), ...ctx.globals].find((o) => kebab(o.name) === key);
  return option === undefined ? undefined : { spec: option, positional: false };
}

/** How a message names an option: `--seed`, or the command for its positional (`list`). */
function subject(name: string, ctx: UsageContext): string {
  const o = optionOf(name, ctx);
  if (o?.positional === true) return commandOf(ctx)?.name ?? name;
  return `--${kebab(name)}`;
}

/** `Argument: kubelet, Given: "1.32", Choices: "fixed", "legacy", ...` (the first of the list). */
function invalidValues(text: string, ctx: UsageContext): string {
  const m = /Argument: ([^,]+), Given: (.*?), Choices: (.*)$/m.exec(text);
  if (m === null) return text.replace(/\s+/g, ' ').trim();
  const name = m[1] ?? '';
  const given = parseQuoted(m[2] ?? '');
  const choices = (m[3] ?? '').split(', ').map(parseQuoted);
  const flag = subject(name, ctx);
  if (kebab(name) === 'kubelet' || kebab(name) === 'base-kubelet') return kubeletChoiceMessage(flag, given);
  const listed =
    choices.length <= 1
      ? choices.join('')
      : `${choices.slice(0, -1).join(', ')} or ${choices[choices.length - 1] ?? ''}`;
  return `${flag}: expected ${listed}, got ${JSON.stringify(given)}${didYouMean(given, choices)}`;
}

/** yargs writes given values and choices as JSON strings (a number given as a number). */
function parseQuoted(text: string): string {
  const t = text.trim();
  try {
    return String(JSON.parse(t));
  } catch {
    return t;
  }
}

/** `requiresArg` flags given last or before another flag. */
function missingValue(name: string, ctx: UsageContext): string {
  const describe = optionOf(name, ctx)?.spec.describe ?? '';
  return `--${kebab(name)}: needs a value${describe === '' ? '' : ` (${describe})`}`;
}

function missingRequired(list: string, ctx: UsageContext): string {
  const command = commandOf(ctx);
  const name = list.split(', ')[0] ?? list;
  const o = optionOf(name, ctx);
  const what = o?.positional === true ? `<${o.spec.name}>` : `--${kebab(name)}`;
  const describe = o?.spec.describe ?? '';
  return `${command?.name ?? 'podrace'}: ${what} is required${describe === '' ? '' : ` (${describe})`}`;
}

function missingPositional(ctx: UsageContext): string {
  const command = commandOf(ctx);
  if (command === undefined) return 'name a command; `npx podrace --help` lists them';
  const required = command.positionals.find((p) => p.required) ?? command.positionals[0];
  const what = required === undefined ? 'an argument' : `<${required.name}>`;
  const describe = required?.describe ?? '';
  return `${command.name}: missing ${what}${describe === '' ? '' : ` (${describe})`}; usage: npx podrace ${command.usage} [options]`;
}

/** Each yargs failure message podrace rewrites, and how. */
const REWRITES: readonly (readonly [RegExp, (m: RegExpExecArray, ctx: UsageContext) => string])[] = [
  [/^Unknown arguments?: (.*)$/s, (m, ctx) => unknownArguments(m[1] ?? '', ctx)],
  [/^Invalid values:(.*)$/s, (m, ctx) => invalidValues(m[1] ?? '', ctx)],
  [/^Not enough arguments following: (.*)$/, (m, ctx) => missingValue(m[1] ?? '', ctx)],
  [/^Missing required arguments?: (.*)$/, (m, ctx) => missingRequired(m[1] ?? '', ctx)],
  [/^Not enough non-option arguments/, (_m, ctx) => missingPositional(ctx)],
  [/^Did you mean .*\?$/, (_m, ctx) => unknownCommand(ctx.args.find((a) => !a.startsWith('-')) ?? '', ctx)],
  [/^Name a command/, (_m, ctx) => unknownCommand('', ctx)],
];

/** podrace's one line for a yargs failure message; a message it does not know is joined into one line. */
export function usageErrorMessage(message: string, ctx: UsageContext): string {
  for (const [re, rewrite] of REWRITES) {
    const m = re.exec(message);
    if (m !== null) return rewrite(m, ctx);
  }
  return message.replace(/\s*\n\s*/g, '; ');
}
