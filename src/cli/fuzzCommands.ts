// `podrace fuzz`, `podrace replay` and `podrace main` (what `npm start` runs): their flags and help. The
// work is in src/cli/fuzzRun.ts, imported only when one of them runs (docs/fuzzing.md).
import type { Argv } from 'yargs';
import { DEFAULT_SHRINK_RUNS } from '../fuzz/limits.js';
import { runFileOptions } from './flags.js';
import { elideOption, fixSelectionOptions } from './options.js';

export function fuzzBuilder(y: Argv) {
  return y
    .option('runs', {
      type: 'string',
      requiresArg: true,
      default: '200',
      describe: 'cases in the campaign (all shards together)',
    })
    .option('seed', {
      type: 'string',
      requiresArg: true,
      default: '1',
      describe: 'campaign seed (decimal or 0x-hex uint32)',
    })
    .options(fixSelectionOptions)
    .options(elideOption)
    .option('workers', {
      type: 'string',
      requiresArg: true,
      default: '1',
      describe:
        'worker threads, 1 to 64 (built code only; start-up counts against --time-limit; docs/fuzzing.md)',
    })
    .option('shard', {
      type: 'string',
      requiresArg: true,
      describe: 'run only shard I/N (1-based; /N takes I from JOB_COMPLETION_INDEX)',
    })
    .option('out', {
      type: 'string',
      requiresArg: true,
      default: 'podrace-failures',
      describe: 'folder for the minimal failing scenarios',
    })
    .option('time-limit', {
      type: 'string',
      requiresArg: true,
      describe: 'stop starting new cases after this wall time (e.g. 60s)',
    })
    .option('json', {
      type: 'boolean',
      default: false,
      describe: 'JSON lines: failing cases, failures, a summary',
    })
    .option('path', {
      type: 'string',
      requiresArg: true,
      describe: 'replay one case (as podrace replay) instead of a campaign',
    })
    .option('shrink', {
      type: 'string',
      default: '1',
      describe:
        'shrink and save this many invariants, one case each, best-ranked first (what a switch you changed closes)',
    })
    .option('shrink-runs', {
      type: 'string',
      default: String(DEFAULT_SHRINK_RUNS),
      describe: 'simulator runs per shrink',
    })
    .option('strict', {
      type: 'boolean',
      default: false,
      describe: 'fail (exit 1) on known-open upstream hazards too',
    })
    .option('oracle', {
      type: 'boolean',
      default: true,
      describe: 're-run each failing case with each fix switch flipped (--no-oracle: skip)',
    })
    .option('junit', {
      type: 'string',
      requiresArg: true,
      describe: 'also write a JUnit XML report to this file (one test case per case; see --junit-cases)',
    })
    .option('junit-cases', {
      type: 'string',
      requiresArg: true,
      choices: ['all', 'failing'],
      describe:
        'which cases --junit writes: all (the default) or failing (failures, errors and known-open hazards; the rest are counted)',
    })
    .option('check-determinism', {
      type: 'boolean',
      default: false,
      describe: 'run every case twice and compare what it published (exit 3 if two runs differ)',
    })
    .example('$0 fuzz --runs 500 --kubelet legacy', 'find the races the fixes close');
}

export function replayBuilder(y: Argv) {
  return y
    .option('seed', {
      type: 'string',
      requiresArg: true,
      demandOption: true,
      describe: 'the campaign seed the fuzzer printed',
    })
    .option('path', {
      type: 'string',
      requiresArg: true,
      default: '0',
      describe: 'the fast-check path: case index, then shrink steps',
    })
    .options(fixSelectionOptions)
    .options(elideOption)
    .option('json', { type: 'boolean', default: false, describe: 'print the JSON result only' })
    .option('save', { type: 'string', describe: 'also write the case as a scenario file' })
    .options(runFileOptions)
    .example('$0 replay --seed 1 --path 0:0:0:1:6 --kubelet legacy', 'a fuzz case and its whole timeline');
}

export function mainBuilder(y: Argv) {
  return y
    .option('runs', {
      type: 'string',
      requiresArg: true,
      default: '60',
      describe: 'cases per campaign',
    })
    .option('seed', { type: 'string', requiresArg: true, default: '1', describe: 'campaign seed' })
    .option('workers', {
      type: 'string',
      requiresArg: true,
      describe: 'worker threads, 1 to 64 (default: one per 2,000 cases, up to 4 CPUs)',
    })
    .options(elideOption)
    .example('$0 main --runs 20 --workers 1', 'a shorter npm start');
}

export function registerFuzzCommands(parser: Argv, setExit: (code: number) => void): void {
  parser
    .command(
      'fuzz',
      'Generate scenarios with fast-check, run them, shrink and save the best-ranked failure',
      fuzzBuilder,
      async (argv) => setExit(await (await import('./fuzzRun.js')).fuzzCommand(argv)),
    )
    .command(
      'replay',
      'Re-create one fuzz case from its seed and path, run it and print its full timeline',
      replayBuilder,
      async (argv) => setExit((await import('./fuzzRun.js')).replayCli(argv)),
    )
    .command(
      'main',
      'What `npm start` runs: verify the bundled scenarios, fuzz the legacy and the fixed kubelet, compare',
      mainBuilder,
      async (argv) => setExit(await (await import('./fuzzRun.js')).mainCommand(argv)),
    );
}
