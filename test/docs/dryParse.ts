// A command line parsed by the real parser (every command, flag, choice, required argument) and the
// shared flag checks (--kubelet / --fix, --seed, --shard, durations), without running the command: a
// middleware stops the parse where the handler would start.
import { InputError } from '../../src/cli/errors.js';
import { durationOption, fixesOption, seedOption, shardOption } from '../../src/cli/options.js';
import { buildParser } from '../../src/cli/parser.js';

class Parsed extends Error {
  constructor(readonly argv: Record<string, unknown>) {
    super('parsed');
  }
}

export type DryParse =
  | { readonly ok: true; readonly command: string; readonly argv: Record<string, unknown> }
  | { readonly ok: false; readonly error: string };

export async function dryParse(args: readonly string[]): Promise<DryParse> {
  const parser = buildParser(args, () => {}).middleware((argv) => {
    throw new Parsed(argv as Record<string, unknown>);
  });
  try {
    await parser.parseAsync();
    return { ok: false, error: 'the parser ran no command' };
  } catch (err) {
    if (!(err instanceof Parsed)) return { ok: false, error: (err as Error).message };
    const argv = err.argv;
    try {
      if ('kubelet' in argv || 'fix' in argv) fixesOption(argv['kubelet'], argv['fix']);
      if (argv['seed'] !== undefined) seedOption(argv['seed']);
      if (argv['shard'] !== undefined) shardOption(argv['shard'], { JOB_COMPLETION_INDEX: '0' });
      if (argv['time-limit'] !== undefined) durationOption(argv['time-limit'], '--time-limit');
    } catch (e) {
      if (e instanceof InputError) return { ok: false, error: e.message };
      throw e;
    }
    const command = String((argv['_'] as unknown[] | undefined)?.[0] ?? '');
    return { ok: true, command, argv };
  }
}
