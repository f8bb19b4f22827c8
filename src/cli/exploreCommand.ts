// `podrace explore`: its flags and help. The work is in src/cli/exploreRun.ts, imported only when it runs.
import type { Argv } from 'yargs';
import { maxEventsFlag } from './flags.js';
import { fixSelectionOptions } from './options.js';

export function exploreBuilder(y: Argv) {
  return y
    .positional('file', {
      type: 'string',
      demandOption: true,
      describe: 'scenario file (YAML), or the name of a bundled scenario',
    })
    .option('bound', {
      type: 'string',
      default: '1',
      describe:
        'at most this many deviations from the default order of same-instant events (0 runs the default only)',
    })
    .option('max-schedules', {
      type: 'string',
      default: '1000',
      describe: 'stop after this many runs (the exploration is then reported incomplete)',
    })
    .option('time-limit', {
      type: 'string',
      default: '60s',
      describe: 'stop after this much wall time (reported incomplete; the one limit that makes output vary)',
    })
    .option('seed', {
      type: 'string',
      requiresArg: true,
      describe: "seed (decimal or 0x-hex uint32); default: the file's",
    })
    .options(fixSelectionOptions)
    .option('reduction', {
      type: 'boolean',
      default: true,
      describe:
        'skip reorderings of events that commute (--no-reduction: try every one; same verdicts, more runs)',
    })
    .option('latencies', {
      type: 'boolean',
      default: false,
      describe:
        "latency draws are choice points too: each may take its range's minimum, typical or maximum value, or one just before or after a pending event (each such pick is a deviation)",
    })
    .option('checkpoint', {
      type: 'string',
      requiresArg: true,
      describe:
        'save where the exploration is to this file as it goes; run the same command again to go on from there',
    })
    .option('json', { type: 'boolean', default: false, describe: 'print one JSON object only' })
    .option('max-events', maxEventsFlag)
    .example(
      '$0 explore pod-deleted-before-start --bound 1',
      'every ordering with one deviation: exit 0 if none breaks it',
    );
}

export function registerExploreCommand(parser: Argv, setExit: (code: number) => void): void {
  parser.command(
    'explore <file>',
    'Run every order of same-instant events within a bound of deviations from the default one; print the first that violates an invariant, with the fewest deviations',
    exploreBuilder,
    async (argv) => setExit(await (await import('./exploreRun.js')).exploreCommand(argv)),
  );
}
