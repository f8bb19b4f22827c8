#!/usr/bin/env node
// The podrace command line (SPEC section 2). This shell is the only place that touches the process:
// argv, stdout, exit codes and the wall clock for `wallMs`.
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { registerCommands } from './cli/commands.js';
import { EXIT, InputError } from './cli/errors.js';

async function main(argv: string[]): Promise<number> {
  let exitCode: number = EXIT.OK;
  const parser = yargs(argv)
    .scriptName('podrace')
    .usage('$0 <command> [options]\n\nDeterministic simulator of kubelet pod-lifecycle and volume races.')
    .option('color', {
      type: 'boolean',
      describe: 'colour the output (default: when stdout is a TTY; NO_COLOR is honoured)',
    })
    .demandCommand(1, 'Name a command; `podrace --help` lists them.')
    .strict()
    .recommendCommands()
    .exitProcess(false)
    .wrap(Math.min(110, process.stdout.columns ?? 110))
    .fail((msg: string | null, err: Error | undefined) => {
      if (err !== undefined && err !== null && !(err instanceof InputError) && msg === null) throw err;
      throw new InputError(msg ?? err?.message ?? 'invalid command line');
    });
  registerCommands(parser, (code) => {
    exitCode = code;
  });
  await parser.parseAsync();
  return exitCode;
}

// `podrace ... | head` closes the pipe early: stop quietly, as a Unix tool does. Any other write error on
// standard output or error (a full disk, /dev/full, a closed terminal) is the environment's, not a
// verdict: one line on standard error if it still works, exit 2, never 0 or 1.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
    const which = stream === process.stdout ? 'standard output' : 'standard error';
    try {
      if (stream !== process.stderr)
        process.stderr.write(`podrace: cannot write ${which} (${err.code ?? err.message})\n`);
    } catch {
      // standard error is gone too: the exit code says it
    }
    process.exit(EXIT.USAGE);
  });
}

try {
  process.exitCode = await main(hideBin(process.argv));
} catch (err) {
  if (err instanceof InputError) {
    process.stderr.write(`podrace: ${err.message}\n`);
    process.exitCode = EXIT.USAGE;
  } else {
    const stack = err instanceof Error ? (err.stack ?? err.message) : String(err);
    process.stderr.write(`podrace: internal error\n${stack}\n`);
    process.stderr.write(
      `This is a bug in podrace. Please report it with the command you ran: podrace ${hideBin(process.argv).join(' ')}\n`,
    );
    process.exitCode = EXIT.INTERNAL;
  }
}
