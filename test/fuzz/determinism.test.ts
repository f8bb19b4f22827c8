// The determinism guard: every case run twice (the second time after the rest of its chunk, in reverse)
// publishes exactly the same facts. Over a few hundred cases of both kubelets it finds nothing; and a
// simulator that leaks state from one run into the next is caught.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EXIT } from '../../src/cli/errors.js';
import { FIX_IDS, Fixes } from '../../src/fixes.js';
import { runCampaign, runCaseChunk } from '../../src/fuzz/campaign.js';
import { campaignLines } from '../../src/fuzz/campaignJson.js';
import { runDigest } from '../../src/fuzz/determinism.js';
import { scenarioAt } from '../../src/fuzz/shrink.js';
import { runScenario } from '../../src/scenario/run.js';
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
  });
});
