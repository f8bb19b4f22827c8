#!/usr/bin/env node
// The podrace command line (docs/cli.md). This shell is the only place that touches the process:
// argv, stdout, exit codes and the wall clock for `wallMs`.
import { hideBin } from 'yargs/helpers';
import { EXIT, InputError } from './cli/errors.js';
import { buildParser } from './cli/parser.js';

async function main(argv: string[]): Promise<number> {
  let exitCode: number = EXIT.OK;
  await buildParser(argv, (code) => {
    exitCode = code;
  }).parseAsync();
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
