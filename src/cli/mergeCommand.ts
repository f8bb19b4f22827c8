// `podrace merge`: its flags and help. The work is in src/cli/mergeRun.ts, imported only when it runs.
import type { Argv } from 'yargs';

export function mergeBuilder(y: Argv) {
  return y
    .positional('shards', {
      type: 'string',
      array: true,
      describe: 'outputs of podrace fuzz --shard I/N --json: files, folders of *.jsonl, - or none: stdin',
    })
    .option('json', {
      type: 'boolean',
      default: false,
      describe: 'print the JSON lines of the whole campaign',
    })
    .example('$0 merge shards/', "every shard's output (*.jsonl) in a folder");
}

export function registerMergeCommand(parser: Argv, setExit: (code: number) => void): void {
  parser.command(
    'merge [shards..]',
    "Combine the --json outputs of a campaign's shards into the campaign's output (as one machine prints it)",
    mergeBuilder,
    async (argv) => setExit(await (await import('./mergeRun.js')).mergeCommand(argv)),
  );
}
