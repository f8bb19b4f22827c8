// `podrace merge SHARD.jsonl... | DIR | -`: the `fuzz --shard I/N --json` outputs of every shard of a
// campaign become the campaign's own output, printed by the same printer as `podrace fuzz` (docs/fuzzing.md,
// "Many machines"). This file reads the inputs and prints; src/fuzz/merge.ts does the merging.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Argv } from 'yargs';
import { jsonLines } from '../fuzz/campaignJson.js';
import { MergeError, mergeShards, parseShardOutputs, type ShardSource } from '../fuzz/merge.js';
import { colorEnabled } from './commands.js';
import { InputError } from './errors.js';
import { type Out, printCampaignText } from './fuzzCommands.js';
import { podraceVersion } from './version.js';

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new InputError(`${path}: cannot read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
}

/** All of standard input (read as a stream: readFileSync(0) fails with EAGAIN on some pipes). */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Each file as given, each folder as its `*.jsonl` files (sorted), `-` as standard input. */
export async function shardSources(paths: readonly string[]): Promise<ShardSource[]> {
  const out: ShardSource[] = [];
  for (const p of paths) {
    if (p === '-') {
      out.push({ name: '-', text: await readStdin() });
      continue;
    }
    let dir = false;
    try {
      dir = statSync(p).isDirectory();
    } catch {
      throw new InputError(`${p}: no such file or directory`);
    }
    if (!dir) {
      out.push({ name: p, text: readText(p) });
      continue;
    }
    const files = readdirSync(p)
      .filter((f) => f.endsWith('.jsonl'))
      .sort()
      .map((f) => join(p, f));
    if (files.length === 0) throw new InputError(`${p}: no shard outputs (*.jsonl) in this folder`);
    for (const f of files) out.push({ name: f, text: readText(f) });
  }
  return out;
}

async function merge(paths: readonly string[], json: boolean, color: boolean, out: Out): Promise<number> {
  const sources = await shardSources(paths);
  let merged: ReturnType<typeof mergeShards>;
  try {
    const parsed = sources.map(parseShardOutputs);
    for (const note of parsed.flatMap((p) => p.notes)) process.stderr.write(`merge: ${note}\n`);
    merged = mergeShards(
      parsed.flatMap((p) => p.outputs),
      { version: podraceVersion() },
    );
  } catch (err) {
    if (err instanceof MergeError) throw new InputError(`merge: ${err.message}`);
    throw err;
  }
  if (json) {
    for (const line of jsonLines(merged)) out(line);
  } else {
    printCampaignText(merged, { color }, out);
    const s = merged.summary;
    process.stderr.write(
      `merge: ${sources.length} input(s), ${s.ran} case(s), ${(s.wallMs / 1000).toFixed(1)}s of shard wall time\n`,
    );
  }
  return merged.summary.exitCode;
}

export function registerMergeCommand(parser: Argv, setExit: (code: number) => void): void {
  parser.command(
    'merge [shards..]',
    "Combine the --json outputs of a campaign's shards into the campaign's output (as one machine prints it)",
    (y) =>
      y
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
        .example('$0 merge shards/', "every shard's output (*.jsonl) in a folder"),
    async (argv) => {
      const color = colorEnabled(argv['color'], process.stdout.isTTY === true, process.env);
      // yargs drops a lone `-` from positionals: look for it in the raw arguments.
      const paths = (argv.shards ?? []).map(String);
      if (paths.length === 0 || process.argv.slice(2).includes('-')) {
        if (paths.length === 0 && process.stdin.isTTY === true)
          throw new InputError('merge: name the shard outputs (files or folders), or pipe them in');
        paths.push('-');
      }
      setExit(await merge(paths, argv.json, color, (line) => process.stdout.write(`${line}\n`)));
    },
  );
}
