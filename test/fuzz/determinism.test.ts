// The determinism guard: every case run twice (the second time after the rest of its chunk, in reverse)
// publishes exactly the same facts. Over a few hundred cases of both kubelets it finds nothing; and a
// simulator that leaks state from one run into the next is caught.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EXIT } from '../../src/cli/errors.js';
import { FIX_IDS, Fixes } from '../../src/fixes.js';
import { runCampaign, runCaseChunk } from '../../src/fuzz/campaign.js';
import { type CampaignLines, campaignLines, jsonLines } from '../../src/fuzz/campaignJson.js';
import { DIGEST_COVERS, runDigest } from '../../src/fuzz/determinism.js';
import { mergeShards, parseShardOutputs } from '../../src/fuzz/merge.js';
import { scenarioAt } from '../../src/fuzz/shrink.js';
import { runScenario } from '../../src/run/run.js';
import { Host } from '../../src/storage/host.js';

const cases = (from: number, count: number): number[] => Array.from({ length: count }, (_, i) => from + i);

afterEach(() => vi.restoreAllMocks());

describe('--check-determinism', () => {
  it('finds every case of 150 fixed and 150 legacy cases identical on its second run', () => {
    for (const fixes of [Fixes.all(), Fixes.none()]) {
      const ids = FIX_IDS.filter((id) => fixes.on(id));
      const out = runCaseChunk({ seed: 5, fixes: ids, oracle: false, checkDeterminism: true }, cases(0, 150));
      expect(out).toHaveLength(150);
      expect(out.filter((o) => o.outcome === 'nondeterministic').map((o) => o.error)).toEqual([]);
    }
  });

  it('the digest covers every fact: one changed fact changes it', () => {
    const r = runScenario(scenarioAt(1, '3'), { fixes: Fixes.all(), recordFacts: true });
    const facts = r.facts ?? [];
    expect(facts.length).toBeGreaterThan(10);
    const moved = facts.map((f, i) => (i === 7 ? { ...f, atMs: f.atMs + 1 } : f));
    expect(runDigest({ ...r, facts: moved })).not.toBe(runDigest(r));
    expect(runDigest({ ...r, facts: [...facts] })).toBe(runDigest(r));
  });

  it('catches state that leaks from one run into the next, and the campaign exits 3 on it', async () => {
    // A latency that drifts with every call made in this process: what a module-level cache would do.
    const latency = Host.prototype.latency;
    let calls = 0;
    vi.spyOn(Host.prototype, 'latency').mockImplementation(function (this: Host, op) {
      calls++;
      return latency.call(this, op) + (calls % 7 === 0 ? 1 : 0);
    });
    const out = runCaseChunk(
      { seed: 5, fixes: [...FIX_IDS], oracle: false, checkDeterminism: true },
      cases(0, 4),
    );
    const bad = out.filter((o) => o.outcome === 'nondeterministic');
    expect(bad.length).toBeGreaterThan(0);
    expect(bad[0]?.error).toMatch(
      /not deterministic.*digests [0-9a-f]{8}\/\d+f\/\d+e and [0-9a-f]{8}\/\d+f\/\d+e/,
    );
    calls = 0;
    const report = await runCampaign({
      seed: 5,
      runs: 12,
      fixes: Fixes.all(),
      checkDeterminism: true,
      shrink: 1,
    });
    expect(report.kinds.map((k) => k.kind)).toContain('nondeterminism');
    expect(report.failures.map((f) => f.kind)).not.toContain('nondeterminism');
    const lines = campaignLines(report, {
      files: report.failures.map((f) => f.fileName),
      wallMs: 0,
      version: 'test',
      shrink: 1,
      shrinkRuns: 400,
      strict: false,
    });
    expect(lines.summary.exitCode).toBe(EXIT.INTERNAL);
    expect(lines.summary.determinism?.differed).toBeGreaterThan(0);
    expect(lines.summary.exitReason).toMatch(
      /^exit 3: two runs of case \d+ differed \(--check-determinism\)/,
    );
  });
});

describe('what --check-determinism leaves behind', () => {
  const linesOfShard = async (shard: { index: number; count: number } | undefined, check = true) => {
    const report = await runCampaign({
      seed: 5,
      runs: 24,
      fixes: Fixes.none(),
      shard,
      checkDeterminism: check,
      oracle: false,
      shrink: 0,
    });
    return campaignLines(report, {
      files: [],
      wallMs: 0,
      version: 'test',
      shrink: 0,
      shrinkRuns: 1,
      strict: false,
    });
  };
  let memo: CampaignLines | undefined;
  const wholeCampaign = async (): Promise<CampaignLines> => {
    memo ??= await linesOfShard(undefined);
    return memo;
  };

  it('the summary says how many cases ran twice, what was compared, and a campaign digest', async () => {
    const whole = await wholeCampaign();
    expect(whole.summary.determinism).toEqual({
      rerun: 24,
      differed: 0,
      digest: expect.stringMatching(/^[0-9a-f]{8}$/),
      compared: DIGEST_COVERS,
    });
    expect((await linesOfShard(undefined, false)).summary.determinism).toBeNull();
  });

  it("the digest is the campaign's: the same with other chunks, and shards merge into it", async () => {
    const whole = await wholeCampaign();
    const again = await runCampaign({
      seed: 5,
      runs: 24,
      fixes: Fixes.none(),
      checkDeterminism: true,
      oracle: false,
      shrink: 0,
      workers: 2,
      chunkSize: 5,
      workerUrl: null,
    });
    expect(again.determinism).toEqual(whole.summary.determinism);
    // Another campaign (another fix set) has another digest.
    const other = await runCampaign({
      seed: 5,
      runs: 24,
      fixes: Fixes.all(),
      checkDeterminism: true,
      shrink: 0,
    });
    expect(other.determinism?.digest).not.toBe(whole.summary.determinism?.digest);
    const texts: string[] = [];
    for (const index of [1, 2]) texts.push(jsonLines(await linesOfShard({ index, count: 2 })).join('\n'));
    const shards = texts.flatMap((text, i) => parseShardOutputs({ name: `s${i}`, text }).outputs);
    expect(shards.map((s) => s.lines.summary.determinism?.rerun)).toEqual([12, 12]);
    expect(mergeShards(shards, { version: 'test' }).summary.determinism).toEqual(whole.summary.determinism);
    // A shard checked and one not are not one campaign.
    const unchecked = jsonLines(await linesOfShard({ index: 2, count: 2 }, false)).join('\n');
    const mixed = [texts[0] ?? '', unchecked].flatMap(
      (text, i) => parseShardOutputs({ name: `s${i}`, text }).outputs,
    );
    expect(() => mergeShards(mixed, { version: 'test' })).toThrow(
      /differ in --check-determinism: true .*, false/,
    );
  });
});
