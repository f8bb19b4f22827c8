// What the commands declare (names, positionals, options with defaults, examples), read by handing the
// registration functions a recorder instead of yargs. The CLI reference (docs/cli.md) and `help` are
// built from it, so they list exactly the flags the parser accepts.
import type { Argv } from 'yargs';

export interface OptionSpec {
  readonly name: string;
  readonly type: string | undefined;
  readonly describe: string;
  readonly default: unknown;
  readonly choices: readonly string[] | undefined;
  readonly required: boolean;
  readonly array: boolean;
}

export interface CommandSpec {
  /** The first word: `run`. */
  readonly name: string;
  /** As declared: `run <file>`. */
  readonly usage: string;
  readonly description: string;
  readonly positionals: readonly OptionSpec[];
  readonly options: readonly OptionSpec[];
  readonly examples: readonly { readonly command: string; readonly description: string }[];
}

interface Call {
  readonly method: string;
  readonly args: readonly unknown[];
}

function recorder(calls: Call[]): Argv {
  const proxy: Argv = new Proxy({} as Argv, {
    get: (_target, method) =>
      method === 'then'
        ? undefined
        : (...args: unknown[]) => {
            calls.push({ method: String(method), args });
            return proxy;
          },
  });
  return proxy;
}

function optionSpec(name: string, def: Record<string, unknown>): OptionSpec {
  return {
    name,
    type: typeof def['type'] === 'string' ? def['type'] : undefined,
    describe: typeof def['describe'] === 'string' ? def['describe'] : '',
    default: def['default'],
    choices: Array.isArray(def['choices']) ? def['choices'].map(String) : undefined,
    required: def['demandOption'] === true,
    array: def['array'] === true,
  };
}

/** The options, positionals and examples one builder (or the global setup) declares. */
export function declared(calls: readonly Call[]): Pick<CommandSpec, 'positionals' | 'options' | 'examples'> {
  const positionals: OptionSpec[] = [];
  const options: OptionSpec[] = [];
  const examples: { command: string; description: string }[] = [];
  for (const c of calls) {
    const [a, b] = c.args;
    if (c.method === 'positional')
      positionals.push(optionSpec(String(a), (b ?? {}) as Record<string, unknown>));
    else if (c.method === 'option') options.push(optionSpec(String(a), (b ?? {}) as Record<string, unknown>));
    else if (c.method === 'options')
      for (const [k, v] of Object.entries((a ?? {}) as Record<string, Record<string, unknown>>))
        options.push(optionSpec(k, v));
    else if (c.method === 'example') examples.push({ command: String(a), description: String(b ?? '') });
  }
  return { positionals, options, examples };
}

/** Every command `register` declares, in registration order. */
export function commandSpecs(register: (parser: Argv) => void): CommandSpec[] {
  const calls: Call[] = [];
  register(recorder(calls));
  const out: CommandSpec[] = [];
  for (const c of calls) {
    if (c.method !== 'command') continue;
    const [usage, description, builder] = c.args;
    const inner: Call[] = [];
    if (typeof builder === 'function') (builder as (y: Argv) => unknown)(recorder(inner));
    const usageText = String(usage);
    out.push({
      name: usageText.split(' ')[0] ?? usageText,
      usage: usageText,
      description: String(description),
      ...declared(inner),
    });
  }
  return out;
}

export function commandNames(register: (parser: Argv) => void): string[] {
  return commandSpecs(register).map((c) => c.name);
}

/** The global options the top-level setup declares. */
export function globalOptionSpecs(configure: (parser: Argv) => void): readonly OptionSpec[] {
  const calls: Call[] = [];
  configure(recorder(calls));
  return declared(calls).options;
}
