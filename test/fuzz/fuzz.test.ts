import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { Fixes } from '../../src/fixes.js';
import { FUZZ_NODES, SETTLE_MS, scenarioArbitrary } from '../../src/fuzz/arbitraries.js';
import {
  type CampaignReport,
  type CaseOutcome,
  claimFixesOf,
  fixFlags,
  runCampaign,
  runCaseChunk,
  type Shard,
  shardRange,
} from '../../src/fuzz/campaign.js';
import {
  caseProperty,
  checkPath,
  MAX_RUNS,
  scenarioAt,
  scenariosOfCases,
  shrinkCase,
} from '../../src/fuzz/shrink.js';
import { runScenario } from '../../src/run/run.js';
import { loadScenarioFile, parseScenarioText, scenarioToYaml } from '../../src/scenario/load.js';
import { type Scenario, stripSourcePositions } from '../../src/scenario/types.js';

const dir = mkdtempSync(join(tmpdir(), 'podrace-fuzz-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * The worker entry as TypeScript: a data: module that registers tsx's loader in the worker thread and
 * then imports src/fuzz/worker.ts (the CLI uses the built dist/fuzz/worker.js instead).
 */
function tsWorkerUrl(): URL {
  const tsxPackage = createRequire(import.meta.url).resolve('tsx/package.json');
  const api = pathToFileURL(join(dirname(tsxPackage), 'dist/esm/api/index.mjs')).href;
  const worker = new URL('../../src/fuzz/worker.ts', import.meta.url).href;
  const code = `const { register } = await import(${JSON.stringify(api)}); register(); await import(${JSON.stringify(worker)});`;
  return new URL(`data:text/javascript,${encodeURIComponent(code)}`);
}

const withoutWall = (results: readonly CaseOutcome[]) => results.map((r) => ({ ...r, wallMs: 0 }));

describe('the scenario generator', () => {
  it('generates valid scenarios that survive a YAML round trip unchanged', () => {
    fc.assert(
      fc.property(scenarioArbitrary, (s) => {
        const back = parseScenarioText(scenarioToYaml(s), 'fuzz.yaml');
        expect(stripSourcePositions(back)).toEqual(s);
      }),
      { numRuns: 150 },
    );
  });

  it('keeps cases small and leaves time to settle after the last action', () => {
    fc.assert(
      fc.property(scenarioArbitrary, (s) => {
        expect(s.nodes.length).toBeGreaterThanOrEqual(1);
        expect(s.nodes.length).toBeLessThanOrEqual(FUZZ_NODES.length);
        expect(s.volumes.length).toBeLessThanOrEqual(3);
        const creates = s.timeline.filter((e) => e.action.kind === 'createPod').length;
        expect(creates).toBeGreaterThanOrEqual(1);
        expect(creates).toBeLessThanOrEqual(12);
        const last = Math.max(...s.timeline.map((e) => e.atMs));
        expect(s.horizonMs).toBeGreaterThanOrEqual(last + SETTLE_MS);
      }),
      { numRuns: 100 },
    );
  });

  it('shrinks to scenarios that are still valid', () => {
    // A property that fails on any scenario with 3+ pods: fast-check shrinks it; every step must load.
    const details = fc.check(
      caseProperty((s) => {
        parseScenarioText(scenarioToYaml(s), 'shrunk.yaml');
        return s.timeline.filter((e) => e.action.kind === 'createPod').length < 3;
      }),
      { seed: 42, numRuns: 200 },
    );
    expect(details.failed).toBe(true);
    const minimal = details.counterexample?.[0];
    expect(minimal?.timeline.filter((e) => e.action.kind === 'createPod')).toHaveLength(3);
    // Nothing else is left but the deletions a chain profile needs between its pods (no faults, no
    // restarts, no other actions).
    expect(
      minimal?.timeline.every((e) => e.action.kind === 'createPod' || e.action.kind === 'deletePod'),
    ).toBe(true);
    expect(minimal?.timeline.length).toBeLessThanOrEqual(6);
  });
});

describe('cases of a campaign', () => {
  it('depend on the seed and the case index only', () => {
    const a = scenariosOfCases(7, [0, 1, 2, 3, 4, 5, 6, 7]);
    const b = scenariosOfCases(7, [0, 1, 2, 3, 4, 5, 6, 7]);
    expect(b).toEqual(a);
    expect(scenariosOfCases(7, [3, 5])).toEqual([a[3], a[5]]);
    expect(scenarioAt(7, '5')).toEqual(a[5]);
    expect(scenariosOfCases(8, [5])[0]).not.toEqual(a[5]);
  });

  it('are the runs fast-check itself makes for that seed', () => {
    const seen: Scenario[] = [];
    fc.check(
      caseProperty((s) => {
        seen.push(s);
        return true;
      }),
      { seed: 7, numRuns: 8 },
    );
    const ours = scenariosOfCases(7, [0, 1, 2, 3, 4, 5, 6, 7]).map((s) => ({ ...s, name: 'fuzz' }));
    expect(seen).toEqual(ours);
  });

  it('are split by --shard I/N into disjoint shards that cover every case once', () => {
    for (const [runs, n] of [
      [50, 3],
      [7, 7],
      [5, 8],
      [200, 4],
    ] as const) {
      const all = Array.from({ length: n }, (_, i) => listed(runs, { index: i + 1, count: n })).flat();
      expect(all.sort((x, y) => x - y)).toEqual(Array.from({ length: runs }, (_, i) => i));
    }
    expect(listed(10, { index: 2, count: 3 })).toEqual([1, 4, 7]);
    expect(listed(4)).toEqual([0, 1, 2, 3]);
  });

  it('are never listed whole: the range of the largest campaign is arithmetic, not an array', () => {
    const r = shardRange(MAX_RUNS, { index: MAX_RUNS, count: MAX_RUNS });
    expect(r.size).toBe(1);
    expect(r.caseAt(0)).toBe(MAX_RUNS - 1);
    expect(checkPath(String(r.caseAt(0)))).toBeUndefined();
    expect(checkPath(String(MAX_RUNS))).toMatch(/at most 9999999/);
    expect(shardRange(MAX_RUNS).size).toBe(MAX_RUNS);
    expect(shardRange(3, { index: 5, count: 8 }).size).toBe(0);
  });
});

/** The case indices of a shard, listed (small campaigns only). */
function listed(runs: number, shard?: Shard): number[] {
  const r = shardRange(runs, shard);
  return Array.from({ length: r.size }, (_, p) => r.caseAt(p));
}

describe("each case's wall time", () => {
  it('is measured around that case alone, in the thread that runs it', () => {
    // A clock whose steps grow: the k-th case of the chunk sees (2k+2)^2 - (2k+1)^2 = 4k + 3 ms, where a
    // chunk's average would give every case the same.
    let calls = 0;
    const now = () => (++calls) ** 2;
    const out = runCaseChunk({ seed: 1, fixes: [], oracle: false }, [0, 1, 2, 3], now);
    expect(out.map((o) => o.wallMs)).toEqual([3, 7, 11, 15]);
    // Without a clock nothing is timed, and nothing else depends on it.
    const untimed = runCaseChunk({ seed: 1, fixes: [], oracle: false }, [0, 1, 2, 3]);
    expect(untimed.map((o) => o.wallMs)).toEqual([0, 0, 0, 0]);
    expect(withoutWall(out)).toEqual(untimed);
  });
});

describe('a campaign against the legacy kubelet', () => {
  let report: CampaignReport | undefined;
  const legacy = Fixes.none();
  const campaign = async () => {
    report ??= await runCampaign({ seed: 1, runs: 12, fixes: legacy, shrink: 1, shrinkRuns: 80 });
    return report;
  };

  it('finds a violation and shrinks it to a file that reproduces it', async () => {
    const rep = await campaign();
    expect(rep.results).toHaveLength(12);
    expect(rep.kinds.length).toBeGreaterThan(0);
    const f = rep.failures[0];
    expect(f).toBeDefined();
    if (f === undefined) return;
    expect(f.reproduces).toBe(true);
    expect(f.fileName).toBe(`${f.kind}-1-${f.caseIndex}.yaml`);
    // What `podrace run FILE --kubelet legacy` does: load the file, run it with the same fixes.
    const file = join(dir, f.fileName);
    writeFileSync(file, f.yaml);
    const loaded = loadScenarioFile(file);
    const result = runScenario(loaded, { fixes: legacy });
    expect(result.violations.map((v) => v.invariant)).toContain(f.kind);
    // The file records what fired as a claim, so `podrace verify` can keep it as a regression test.
    expect(loaded.claims[0]).toEqual({
      line: loaded.claims[0]?.line ?? 0,
      fixes: claimFixesOf(legacy),
      violations: f.scenario.claims[0]?.violations,
      findings: null,
    });
    // A fix-sensitive find (the legacy kubelet's first is the pod worker race) was shrunk keeping the
    // switch that closes it, and the file's second claim is that contrast: the switch on, the kind gone.
    expect(f.closedBy).not.toBeNull();
    const closedBy = f.closedBy ?? 'pod-worker-lifecycle';
    expect(loaded.claims).toHaveLength(2);
    expect(loaded.claims[1]?.fixes).toEqual(claimFixesOf(legacy.with(closedBy, true)));
    expect(loaded.claims[1]?.violations).not.toContain(f.kind);
    const contrast = runScenario(loaded, { fixes: legacy.with(closedBy, true) });
    expect(contrast.violations.map((v) => v.invariant)).not.toContain(f.kind);
    expect(fixFlags(legacy)).toEqual(['--kubelet legacy']);
    // Shrinking made it no bigger than the case it came from.
    const original = scenarioAt(1, String(f.caseIndex));
    expect(f.scenario.timeline.length).toBeLessThanOrEqual(original.timeline.length);
  });

  it('prints a seed and path that replay the same violation', async () => {
    const rep = await campaign();
    const f = rep.failures[0];
    if (f === undefined) throw new Error('no failure');
    const replayed = scenarioAt(1, f.shrink.path);
    expect({ ...replayed, name: '' }).toEqual({ ...f.shrink.scenario, name: '' });
    const result = runScenario(replayed, { fixes: legacy });
    expect(result.violations.map((v) => v.invariant)).toContain(f.kind);
    // Shrinking is deterministic: the same case shrinks to the same path again (keeping the same switch
    // closing it, as the campaign did).
    const again = await shrinkCase({
      seed: 1,
      path: String(f.caseIndex),
      fixes: legacy,
      kind: f.kind,
      maxRuns: 80,
      ...(f.closedBy === null ? {} : { closedWith: legacy.with(f.closedBy, !legacy.on(f.closedBy)) }),
    });
    expect(again.path).toBe(f.shrink.path);
  });

  it('gives the same results whatever the number of workers and chunk size', async () => {
    const rep = await campaign();
    const two = await runCampaign({
      seed: 1,
      runs: 12,
      fixes: legacy,
      shrink: 0,
      workers: 2,
      chunkSize: 5,
      workerUrl: null, // in this thread: the worker script is TypeScript here
    });
    expect(withoutWall(two.results)).toEqual(withoutWall(rep.results));
    expect(two.kinds).toEqual(rep.kinds);
  });

  it('runs the same cases in worker threads', async () => {
    const rep = await campaign();
    const threads = await runCampaign({
      seed: 1,
      runs: 12,
      fixes: legacy,
      shrink: 0,
      workers: 2,
      chunkSize: 3,
      workerUrl: tsWorkerUrl(),
      now: () => performance.now(),
    });
    expect(threads.threads).toBe(2);
    expect(withoutWall(threads.results)).toEqual(withoutWall(rep.results));
    // Each case timed on its own in its worker thread, not its chunk's average.
    const times = threads.results.map((r) => r.wallMs);
    expect(times.every((ms) => ms > 0)).toBe(true);
    const chunks = [0, 3, 6, 9].map((at) => new Set(times.slice(at, at + 3)).size);
    expect(Math.max(...chunks)).toBeGreaterThan(1);
  });

  it('stops starting cases when told to, and keeps a prefix of the cases', async () => {
    let chunks = 0;
    const rep = await runCampaign({
      seed: 1,
      runs: 12,
      fixes: legacy,
      shrink: 0,
      chunkSize: 4,
      shouldStop: () => chunks >= 2,
      onChunk: () => {
        chunks++;
      },
    });
    expect(rep.stopped).toBe(true);
    expect(rep.results.map((r) => r.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('runs only its shard', async () => {
    const rep = await campaign();
    const shard = await runCampaign({
      seed: 1,
      runs: 12,
      fixes: legacy,
      shrink: 0,
      shard: { index: 2, count: 3 },
    });
    expect(shard.results.map((r) => r.index)).toEqual([1, 4, 7, 10]);
    expect(withoutWall(shard.results)).toEqual(withoutWall(rep.results.filter((r) => r.index % 3 === 1)));
  });
});
