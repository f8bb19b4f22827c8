// `podrace import`: its flags and help. The work is in src/cli/importRun.ts, imported only when it runs.
import type { Argv } from 'yargs';
import { maxEventsFlag } from './flags.js';

export function importBuilder(y: Argv) {
  return y
    .positional('logs', {
      type: 'string',
      array: true,
      demandOption: true,
      describe:
        'kubelet and kube-controller-manager logs (klog, JSON, journald, grep -n output; .gz read as is)',
    })
    .option('out', {
      type: 'string',
      requiresArg: true,
      describe: 'write the scenario to this file (default: standard output)',
    })
    .option('run', {
      type: 'boolean',
      default: false,
      describe: 'then run it under every release preset and print what fires under each',
    })
    .option('max-events', maxEventsFlag)
    .example(
      '$0 import node-1.log kcm.log --out race.yaml --run',
      'a scenario from two logs, run under every release',
    );
}

export function registerImportCommand(parser: Argv, setExit: (code: number) => void): void {
  parser.command(
    'import <logs..>',
    'Write a scenario from kubelet (and controller-manager) logs: pods, volumes, timeline, faults the failures imply',
    importBuilder,
    async (argv) => setExit((await import('./importRun.js')).importCommand(argv)),
  );
}
