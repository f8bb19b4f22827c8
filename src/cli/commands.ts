// The podrace commands (docs/cli.md): their flags and help, registered with yargs. A command's work is in
// its own module, imported only when it runs, so that `--help` and `list` start at once. Each handler sets
// the exit code through `setExit`; bad input throws InputError (exit 2).
import type { Argv } from 'yargs';
import { setElisionDefault } from '../scenario/elisionDefault.js';
import { registerDiffCommand } from './diffCommand.js';
import { EXIT } from './errors.js';
import { registerExplainCommand } from './explainCommand.js';
import { registerExploreCommand } from './exploreCommand.js';
import { eventsOptions, maxEventsFlag, runFileOptions } from './flags.js';
import { registerFuzzCommands } from './fuzzCommands.js';
import { registerImportCommand } from './importCommand.js';
import { registerMergeCommand } from './mergeCommand.js';
import { elideOption, fixSelectionOptions } from './options.js';

export { colorEnabled, wallClockMs } from './terminal.js';

/** The parsed flags a builder declares, as its handler gets them. */
export type ArgvOf<B extends (y: Argv) => Argv<unknown>> = Awaited<ReturnType<B>['argv']>;

export function runBuilder(y: Argv) {
  return y
    .positional('file', {
      type: 'string',
      describe: 'scenario file (YAML), or the name of a bundled scenario',
      demandOption: true,
    })
    .option('seed', {
      type: 'string',
      requiresArg: true,
      describe: "seed (decimal or 0x-hex uint32); default: the file's",
    })
    .options(fixSelectionOptions)
    .options(elideOption)
    .option('json', { type: 'boolean', default: false, describe: 'print the JSON result only' })
    .options(runFileOptions)
    .option('klog', {
      type: 'string',
      requiresArg: true,
      describe:
        'write the run as kubelet and controller-manager log lines (klog in journald) to this file: podrace import reads it back',
    })
    .options(eventsOptions)
    .option('seeds', {
      type: 'string',
      requiresArg: true,
      describe: 'run it once per seed (1..200, or a comma list) and count the seeds that fire each invariant',
    })
    .option('quiet', { type: 'boolean', default: false, describe: 'print only the summary line' })
    .option('bisect', {
      type: 'boolean',
      default: false,
      describe:
        'then re-run it with each fix switch flipped: which switches close the violations (a flip cut short by --max-events is INCOMPLETE and closes nothing)',
    })
    .option('max-events', maxEventsFlag)
    .option('schedule', {
      type: 'string',
      requiresArg: true,
      describe:
        'follow this order of same-instant events (as `podrace explore` prints it: POINT:PICK,..., or `default`); idle rounds alone at their instant are skipped, so not with --no-elide; a schedule that does not fit is exit 2',
    })
    .example('$0 run pod-deleted-before-start --kubelet legacy', 'a bundled race without its fix: exit 1');
}

export function verifyBuilder(y: Argv) {
  return y
    .positional('paths', {
      type: 'string',
      array: true,
      describe: 'scenario files, folders or bundled scenario names',
    })
    .options(elideOption)
    .option('json', {
      type: 'boolean',
      default: false,
      describe: 'JSON lines: one per claim, then a summary',
    })
    .option('max-events', maxEventsFlag)
    .option('junit', {
      type: 'string',
      requiresArg: true,
      describe: 'also write a JUnit XML report to this file (one test case per claim)',
    })
    .option('exhaustive', {
      type: 'boolean',
      default: false,
      describe:
        'check each `violations: []` claim over every order of same-instant events within --bound deviations (podrace explore); a limit that cuts it short fails the claim',
    })
    .option('bound', {
      type: 'string',
      default: '1',
      describe: 'with --exhaustive (or a claim with exhaustive: true): the deviations explored',
    })
    .option('latencies', {
      type: 'boolean',
      default: false,
      describe:
        'with --exhaustive (or a claim with exhaustive: true): latency draws are choice points too (podrace explore --latencies)',
    })
    .option('max-schedules', {
      type: 'string',
      default: '2000',
      describe: 'with --exhaustive: runs per claim before it gives up (the claim then fails)',
    })
    .option('time-limit', {
      type: 'string',
      default: '120s',
      describe: 'with --exhaustive: wall time per claim before it gives up (the claim then fails)',
    })
    .example('$0 verify scenarios/ my-scenarios/race.yaml', 'check the claims of a folder and a file');
}

export function listBuilder(y: Argv) {
  return y
    .positional('what', {
      type: 'string',
      choices: ['invariants', 'fixes', 'scenarios'],
      default: 'invariants',
    })
    .example('$0 list fixes', 'the fix switches, their upstream PRs and release presets');
}

export function registerCommands(parser: Argv, setExit: (code: number) => void): void {
  // --no-elide (run, verify, diff, fuzz, replay, main): every run of the command goes the plain way.
  parser.middleware((argv) => setElisionDefault(argv['elide'] !== false));
  parser
    .command(
      'run <file>',
      'Run one scenario once with the given configuration and print the violations (ignores its claims)',
      runBuilder,
      async (argv) => setExit(await (await import('./runCommand.js')).runCommand(argv)),
    )
    .command(
      'verify [paths..]',
      "Check every claim of every scenario (default: the project's scenarios/) and print a table",
      verifyBuilder,
      async (argv) => setExit(await (await import('./verifyCommand.js')).verifyCommand(argv)),
    )
    .command(
      'list [what]',
      'List the invariants, fixes or bundled scenarios, one line each',
      listBuilder,
      async (argv) => {
        const { listLines } = await import('./listCommand.js');
        for (const line of await listLines(String(argv.what))) process.stdout.write(`${line}\n`);
        setExit(EXIT.OK);
      },
    );
  registerFuzzCommands(parser, setExit);
  registerMergeCommand(parser, setExit);
  registerExplainCommand(parser, setExit);
  registerDiffCommand(parser, setExit);
  registerImportCommand(parser, setExit);
  registerExploreCommand(parser, setExit);
}
