#!/usr/bin/env node
// The podrace command line (docs/cli.md). This shell is the only place that touches the process:
// argv, stdout, exit codes and the wall clock for `wallMs`.
import './cli/quietWarnings.js';
import { hideBin } from 'yargs/helpers';
import { EXIT, InputError } from './cli/errors.js';
import { buildParser } from './cli/parser.js';
import { escapeControl } from './cli/terminal.js';
import { shellQuote } from './shellQuote.js';

async function main(argv: string[]): Promise<number> {
  let exitCode: number = EXIT.OK;
  await buildParser(argv, (code) => {
    exitCode = code;
  }).parseAsync();
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
    // `file:line:col: field: ...` as editors and CI parse it: the location first, no prefix before it.
    process.stderr.write(escapeControl(err.located ? `${err.message}\n` : `podrace: ${err.message}\n`));
    process.exitCode = EXIT.USAGE;
  } else {
    const stack = err instanceof Error ? (err.stack ?? err.message) : String(err);
    process.stderr.write(escapeControl(`podrace: internal error\n${stack}\n`));
    process.stderr.write(
      escapeControl(
        `This is a bug in podrace. Please report it with the command you ran: podrace ${hideBin(process.argv).map(shellQuote).join(' ')}\n`,
      ),
    );
    process.exitCode = EXIT.INTERNAL;
  }
}
