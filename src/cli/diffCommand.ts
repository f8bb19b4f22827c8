// `podrace diff`: its flags and help. The work is in src/cli/diffRun.ts, imported only when it runs.
import type { Argv } from 'yargs';
import { eventsOptions } from './flags.js';
import { elideOption, fixSelectionOptions } from './options.js';

const { events: _events, ...filters } = eventsOptions;

export function diffBuilder(y: Argv) {
  return y
    .positional('a', {
      type: 'string',
      demandOption: true,
      describe: 'a scenario file, or run A as events JSON lines',
    })
    .positional('b', {
      type: 'string',
      describe: 'run B as events JSON lines (podrace run FILE --events --json)',
    })
    .option('seed', { type: 'string', requiresArg: true, describe: "run B's seed (default: the file's)" })
    .options(fixSelectionOptions)
    .options(elideOption)
    .option('base-seed', {
      type: 'string',
      requiresArg: true,
      describe: "run A's seed (default: the file's)",
    })
    .option('base-kubelet', {
      ...fixSelectionOptions.kubelet,
      describe: "run A's kubelet (default: fixed)",
    })
    .option('base-fix', {
      ...fixSelectionOptions.fix,
      describe: "run A's fix toggles: ID=on|off (repeatable)",
    })
    .options(filters)
    .option('context', {
      type: 'string',
      requiresArg: true,
      default: '5',
      describe: 'shared events shown before the divergence',
    })
    .option('next', {
      type: 'string',
      requiresArg: true,
      default: '15',
      describe: 'events of each run shown from the divergence',
    })
    .option('json', { type: 'boolean', default: false, describe: 'print one JSON object' })
    .example(
      '$0 diff scenarios/pod-deleted-before-start.yaml --fix pod-worker-lifecycle=off',
      'the fix on (A) and off (B)',
    );
}

export function registerDiffCommand(parser: Argv, setExit: (code: number) => void): void {
  parser.command(
    'diff <a> [b]',
    'Where two runs of one scenario (two seeds, two fix sets) first diverge, and what each did next',
    diffBuilder,
    async (argv) => setExit((await import('./diffRun.js')).diffCommand(argv)),
  );
}
