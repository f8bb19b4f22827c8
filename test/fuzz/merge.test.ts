// podrace merge, in process: the shards of a small campaign merge into the unsharded campaign's lines, and
// every input that is not the whole of one campaign is refused with a message that says what is wrong.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Fixes } from '../../src/fixes.js';
import { runCampaign, type Shard } from '../../src/fuzz/campaign.js';
import { type CampaignLines, campaignLines, jsonLines } from '../../src/fuzz/campaignJson.js';
import { MergeError, mergeShards, parseShardOutputs, type ShardSource } from '../../src/fuzz/merge.js';

const VERSION = '0.0.0-test';
const SEED = 7;
const RUNS = 12;
// Five shrunk failures: with the jobs profile, seed 7's first three all come from one shard.
const SHRINK = 5;

async function linesOf(shard: Shard | undefined): Promise<CampaignLines> {
  const report = await runCampaign({
    seed: SEED,
    runs: RUNS,
    fixes: Fixes.none(),
    shard,
    shrink: SHRINK,
    shrinkRuns: 5,
  });
  return campaignLines(report, {
    files: report.failures.map((f) => join('failures', f.fileName)),
    wallMs: 0,
    version: VERSION,
    shrink: SHRINK,
    shrinkRuns: 5,
    strict: false,
  });
}

let whole: CampaignLines;
/** The JSON lines of shards 1/3, 2/3, 3/3, as text. */
let shardTexts: string[];

beforeAll(async () => {
  whole = await linesOf(undefined);
  shardTexts = [];
  for (const index of [1, 2, 3]) {
    shardTexts.push(`${jsonLines(await linesOf({ index, count: 3 })).join('\n')}\n`);
  }
});

const sources = (texts: readonly string[]): ShardSource[] =>
  texts.map((text, i) => ({ name: `shard-${i}.jsonl`, text }));

function merge(texts: readonly string[], version = VERSION): CampaignLines {
  return mergeShards(
    sources(texts).flatMap((s) => parseShardOutputs(s).outputs),
    { version },
  );
}

/** `text` with its summary line (the last) changed by `edit`. */
function editSummary(text: string, edit: (s: Record<string, unknown>) => void): string {
  const lines = text.trimEnd().split('\n');
  const summary = JSON.parse(lines.pop() ?? '{}') as Record<string, unknown>;
  edit(summary);
  return `${[...lines, JSON.stringify(summary)].join('\n')}\n`;
}

function refusal(texts: readonly string[], version = VERSION): string {
  try {
    merge(texts, version);
  } catch (err) {
    expect(err).toBeInstanceOf(MergeError);
    return (err as Error).message;
  }
  throw new Error('merge accepted it');
}

describe('podrace merge', () => {
  it('gives the unsharded campaign its lines back, byte for byte', () => {
    expect(whole.failures.length).toBeGreaterThan(0);
    // The failures the campaign keeps come from more than one shard here: the selection is exercised.
    expect(new Set(whole.failures.map((f) => f.case % 3)).size).toBeGreaterThan(1);
    const [a, b, c] = shardTexts as [string, string, string];
    expect(jsonLines(merge([a, b, c]))).toEqual(jsonLines(whole));
    // In any order, and run together in one stream (kubectl logs over every pod of the Job).
    expect(jsonLines(merge([c, a, b]))).toEqual(jsonLines(whole));
    expect(jsonLines(merge([b + a + c]))).toEqual(jsonLines(whole));
    // A shard of more than one shrunk failure keeps only those the campaign shrinks.
    const shards = sources(shardTexts).flatMap((s) => parseShardOutputs(s).outputs);
    expect(shards.flatMap((s) => s.lines.failures).length).toBeGreaterThan(whole.failures.length);
  });

  it('merges one unsharded output into itself', () => {
    expect(jsonLines(merge([jsonLines(whole).join('\n')]))).toEqual(jsonLines(whole));
  });

  it('refuses shards of different seeds, runs, fix sets, shard counts, shrink settings or versions', () => {
    const [a, b, c] = shardTexts as [string, string, string];
    const cases: [(s: Record<string, unknown>) => void, RegExp][] = [
      [(s) => (s['campaignSeed'] = 8), /differ in campaign seed \(--seed\): 7 \(shard-0.*\), 8 \(shard-1/],
      [(s) => (s['runs'] = 13), /differ in campaign size \(--runs\): 12 .*, 13/],
      [
        (s) => (s['fixes'] = { ...(s['fixes'] as object), 'pod-worker-lifecycle': true }),
        /differ in fix set .*: none .*, pod-worker-lifecycle/,
      ],
      [(s) => (s['shard'] = '2/4'), /differ in shard count \(--shard I\/N\): 3 .*, 4/],
      [(s) => (s['shrinkRuns'] = 400), /differ in --shrink-runs: 5 .*, 400/],
      [(s) => (s['version'] = '9.9.9'), /differ in podrace version: 0\.0\.0-test .*, 9\.9\.9/],
    ];
    for (const [edit, message] of cases) expect(refusal([a, editSummary(b, edit), c])).toMatch(message);
    expect(refusal([a, b, c], '1.2.3')).toMatch(/written by podrace 0\.0\.0-test, this is podrace 1\.2\.3/);
  });

  it('reports missing and duplicated shards by index', () => {
    const [a, b, c] = shardTexts as [string, string, string];
    expect(refusal([a, c])).toMatch(/missing shard\(s\) 2\/3 \(JOB_COMPLETION_INDEX 1\)/);
    expect(refusal([a, b, c, a])).toMatch(/shard 1\/3 given 2 times: shard-0\.jsonl:1-\d+, shard-3\.jsonl/);
    const both = refusal([b, b]);
    expect(both).toMatch(/missing shard\(s\) 1\/3 .*, 3\/3 \(JOB_COMPLETION_INDEX 2\)/);
    expect(both).toMatch(/shard 2\/3 given 2 times/);
  });

  it('refuses a shard stopped by --time-limit, and output cut short or run together', () => {
    const [a, b, c] = shardTexts as [string, string, string];
    const stopped = editSummary(b, (s) => {
      s['stoppedByTimeLimit'] = true;
      s['stoppedBy'] = 'time-limit';
    });
    expect(refusal([a, stopped, c])).toMatch(
      /stopped by --time-limit or a signal.*shard 2\/3 .*rerun those shards/,
    );
    const lines = b.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(2);
    const cut = `${lines.slice(0, -1).join('\n')}\n`;
    expect(refusal([a, cut, c])).toMatch(/shard-1\.jsonl:1: \d+ line\(s\) with no summary after them/);
    // A cut-short output followed by the whole rerun in the same stream.
    expect(refusal([a, `${lines[0]}\n${b}`, c])).toMatch(/shard-1\.jsonl:2: two outputs run together/);
  });

  it('refuses lines that are not fuzz --json lines, or that do not add up', () => {
    const [a, b, c] = shardTexts as [string, string, string];
    expect(refusal([a, `podrace: internal error\n${b}`, c])).toMatch(
      /shard-1\.jsonl:1: not a line of podrace fuzz --json: "podrace: internal error"/,
    );
    const old = editSummary(b, (s) => {
      delete s['version'];
    });
    expect(refusal([a, old, c])).toMatch(/no "version": it was written by a podrace older than merge/);
    const miscounted = editSummary(b, (s) => {
      s['failingCases'] = (s['failingCases'] as number) + 1;
    });
    expect(refusal([a, miscounted, c])).toMatch(/not one whole run/);
    // Shard 2/3's lines under shard 1/3's name: its cases are not that shard's.
    const relabelled = editSummary(b, (s) => {
      s['shard'] = '1/3';
    });
    expect(refusal([relabelled, editSummary(a, (s) => (s['shard'] = '2/3')), c])).toMatch(
      /does not belong to shard 1\/3/,
    );
  });

  it('an empty output (a pod killed before it printed) is a note, and its shard is missing', () => {
    const parsed = parseShardOutputs({ name: 'shard-2.jsonl', text: '' });
    expect(parsed.outputs).toEqual([]);
    expect(parsed.notes).toEqual(['shard-2.jsonl: no output (a run killed before it printed?)']);
  });
});

describe('podrace merge of a campaign with a switch the user changed', () => {
  // Seed 1 with unmount-device-open-uncertain off: the find that switch closes (case 56, shard 1/2) ranks
  // before the hazards of shard 2/2 (case 1 and on), in the shards as in the whole campaign.
  const fixes = Fixes.all().with('unmount-device-open-uncertain', false);
  const changed = ['unmount-device-open-uncertain'] as const;
  const run = async (shard: Shard | undefined): Promise<CampaignLines> => {
    const report = await runCampaign({ seed: 1, runs: 70, fixes, changed, shard, shrink: 2, shrinkRuns: 5 });
    return campaignLines(report, {
      files: report.failures.map((f) => join('failures', f.fileName)),
      wallMs: 0,
      version: VERSION,
      shrink: 2,
      shrinkRuns: 5,
      strict: false,
    });
  };

  it('takes the failure of the changed switch from the shard that owns it, byte for byte', async () => {
    const all = await run(undefined);
    expect(all.failures.map((f) => [f.invariant, f.case])).toEqual([
      ['mount-device-skipped-after-failure', 39],
      ['device-released-while-open', 1],
    ]);
    const texts: string[] = [];
    for (const index of [1, 2]) texts.push(`${jsonLines(await run({ index, count: 2 })).join('\n')}\n`);
    expect(jsonLines(merge(texts))).toEqual(jsonLines(all));
    expect(merge(texts).summary.exitReason).toBe(all.summary.exitReason);
    const [a, b] = texts as [string, string];
    expect(refusal([a, editSummary(b, (s) => (s['changedFixes'] = []))])).toMatch(
      /differ in switches --fix changed from the --kubelet preset: unmount-device-open-uncertain .*, none/,
    );
  });
});
