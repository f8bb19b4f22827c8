// `podrace merge SHARD.jsonl... | DIR | -`: the `fuzz --shard I/N --json` outputs of every shard of a
// campaign become the campaign's own output, printed by the same printer as `podrace fuzz` (docs/fuzzing.md,
// "Many machines"). This file reads the inputs and prints; src/fuzz/merge.ts does the merging.

import { jsonLines } from '../fuzz/campaignJson.js';
import { MergeError, mergeShards, parseShardOutputs, type ShardSource } from '../fuzz/merge.js';
import { inputFiles, type ReadLimit, readInputText } from '../scenario/files.js';
import type { ArgvOf } from './commands.js';
import { InputError } from './errors.js';
import { type Out, printCampaignText } from './fuzzRun.js';
import type { mergeBuilder } from './mergeCommand.js';
import { colorEnabled } from './terminal.js';
import { podraceVersion } from './version.js';

/** A shard's JSON lines; V8 cannot hold a string much longer than 512 MiB anyway. */
const SHARD_LIMIT: ReadLimit = { maxBytes: 256 * 1024 * 1024, maxText: '256 MiB' };
const readText = (path: string): string => readInputText(path, SHARD_LIMIT, 'a shard output (*.jsonl)');

/** All of standard input (read as a stream: readFileSync(0) fails with EAGAIN on some pipes). */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of process.stdin) {
    chunks.push(chunk as Buffer);
    total += (chunk as Buffer).length;
    if (total > SHARD_LIMIT.maxBytes) {
      throw new InputError(
        `-: too large: more than ${SHARD_LIMIT.maxText} (at most ${SHARD_LIMIT.maxText})`,
        {
          located: true,
        },
      );
    }
  }
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
    for (const f of inputFiles([p], ['.jsonl'], 'shard outputs (*.jsonl)'))
      out.push({ name: f, text: readText(f) });
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
    if (err instanceof MergeError) {
      // `shard.jsonl:12: ...` starts with its location, as editors and CI parse it; others say who speaks.
      const located = sources.some((src) => err.message.startsWith(`${src.name}:`));
      throw new InputError(located ? err.message : `merge: ${err.message}`, { located });
    }
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

export async function mergeCommand(argv: ArgvOf<typeof mergeBuilder>): Promise<number> {
  const color = colorEnabled(argv['color'], process.stdout.isTTY === true, process.env);
  // yargs drops a lone `-` from positionals: look for it in the raw arguments.
  const paths = (argv.shards ?? []).map(String);
  if (paths.length === 0 || process.argv.slice(2).includes('-')) {
    if (paths.length === 0 && process.stdin.isTTY === true)
      throw new InputError('merge: name the shard outputs (files or folders), or pipe them in');
    paths.push('-');
  }
  return await merge(paths, argv.json, color, (line) => process.stdout.write(`${line}\n`));
}
