#!/usr/bin/env node
// The podrace command line (SPEC section 2). This shell is the only place that touches the process:
// argv, stdout, exit codes and the wall clock for `wallMs`.
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { registerCommands } from './cli/commands.js';
import { EXIT, InputError } from './cli/errors.js';
import { refuseRepeatedFlags } from './cli/repeatedFlags.js';

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
      if (err !== undefined && err !== null && msg === null) throw err; // an InputError keeps its location
      throw new InputError(msg ?? err?.message ?? 'invalid command line');
    });
  refuseRepeatedFlags(parser, argv);
  registerCommands(parser, (code) => {
    exitCode = code;
  });
  await parser.parseAsync();
  return exitCode;
}

// `podrace ... | head` closes the pipe early: stop quietly, as a Unix tool does.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
    throw err;
  });
}

try {
  process.exitCode = await main(hideBin(process.argv));
} catch (err) {
  if (err instanceof InputError) {
    // `file:line:col: field: ...` as editors and CI parse it: the location first, no prefix before it.
    process.stderr.write(err.located ? `${err.message}\n` : `podrace: ${err.message}\n`);
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
