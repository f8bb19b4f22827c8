// Memory and scale: the RSS of a long campaign (the simulator's cases run in chunks in this process, their
// results dropped: what the simulator keeps, not what a campaign's summary keeps) and its live heap after
// a full GC at every tenth (RSS also moves as V8 sizes its generations; a leak shows in the live heap),
// and pods on one node
// over 10 virtual minutes (test/bench/podScale.ts): events, wall time and peak RSS per size, each size in
// a child process. A section of `npm run bench`; it measures, it never asserts.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type * as FixesModule from '../../src/fixes.js';
import type * as Campaign from '../../src/fuzz/campaign.js';
import { type BenchSection, nowMs } from './measure.js';

/** Cases of the long campaign; BENCH_MEMORY_CASES lowers it for a quick run. */
const CAMPAIGN_CASES = Number(process.env['BENCH_MEMORY_CASES'] ?? 100_000);
const CHUNK = 100;
const SEED = 1;
/** The pods table (issue 9) and the scale curve (issue 12); BENCH_POD_SIZES=100,1000 for a quick run. */
const POD_SIZES = (process.env['BENCH_POD_SIZES'] ?? '100,1000,5000,10000,20000').split(',').map(Number);

const root = join(import.meta.dirname, '..', '..');
const mb = (bytes: number): number => Math.round(bytes / 1024 / 1024);

interface PodRow {
  readonly pods: number;
  readonly events: number;
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly peakRssMB: number;
  readonly outcome: string;
}

async function campaignMemory(): Promise<{
  cases: number;
  rssStartMB: number;
  rssEndMB: number;
  heapStartMB: number;
  heapEndMB: number;
  rssMB: number[];
  liveHeapMB: number[];
}> {
  const file = (rel: string): string => pathToFileURL(join(root, 'dist', rel)).href;
  if (!existsSync(join(root, 'dist', 'fuzz', 'campaign.js')))
    throw new Error('dist/ is missing: run `npm run build` first (npm run bench does)');
  const campaign = (await import(file('fuzz/campaign.js'))) as typeof Campaign;
  const fixes = (await import(file('fixes.js'))) as typeof FixesModule;
  const setup = { seed: SEED, fixes: [...fixes.FIX_IDS], oracle: false };
  campaign.runCaseChunk(
    setup,
    Array.from({ length: CHUNK }, (_, i) => i),
  ); // warm-up
  // A full GC on demand without starting node with --expose-gc: the flag exposes gc() to contexts made
  // after it is set. Called only between chunks, at every tenth, so it costs the campaign 11 full GCs.
  setFlagsFromString('--expose-gc');
  const fullGc = runInNewContext('gc') as () => void;
  const liveMB = (): number => {
    fullGc();
    return Math.round(process.memoryUsage().heapUsed / 1024 / 102.4) / 10;
  };
  const liveHeapMB: number[] = [liveMB()];
  const start = process.memoryUsage();
  const rssMB: number[] = [mb(start.rss)];
  const every = Math.max(CHUNK, Math.floor(CAMPAIGN_CASES / 10 / CHUNK) * CHUNK);
  for (let first = 0; first < CAMPAIGN_CASES; first += CHUNK) {
    const n = Math.min(CHUNK, CAMPAIGN_CASES - first);
    campaign.runCaseChunk(
      setup,
      Array.from({ length: n }, (_, i) => first + i),
    );
    if ((first + n) % every === 0) {
      rssMB.push(mb(process.memoryUsage().rss));
      liveHeapMB.push(liveMB());
    }
  }
  const end = process.memoryUsage();
  return {
    cases: CAMPAIGN_CASES,
    rssStartMB: mb(start.rss),
    rssEndMB: mb(end.rss),
    heapStartMB: mb(start.heapUsed),
    heapEndMB: mb(end.heapUsed),
    rssMB,
    liveHeapMB,
  };
}

function podRun(pods: number): PodRow {
  const out = execFileSync(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, 'podScaleChild.ts'), String(pods)],
    { cwd: root, encoding: 'utf8', maxBuffer: 1 << 20 },
  );
  return JSON.parse(out.trim().split('\n').pop() ?? '{}') as PodRow;
}

export async function benchMemory(): Promise<BenchSection> {
  const start = nowMs();
  const c = await campaignMemory();
  const campaignSec = (nowMs() - start) / 1000;
  const rows = POD_SIZES.map(podRun);
  const lines = [
    `campaign of ${c.cases} default cases (seed ${SEED}, results dropped, ${campaignSec.toFixed(0)} s, ${Math.round(c.cases / campaignSec)} cases/s): RSS ${c.rssStartMB} MB at the start, ${c.rssEndMB} MB at the end (every tenth: ${c.rssMB.join(' ')}); heap used ${c.heapStartMB} -> ${c.heapEndMB} MB; live heap after a full GC, every tenth: ${c.liveHeapMB.join(' ')} MB`,
    `pods on one node over 10 virtual minutes (built code, a child process per size):`,
    `${'pods'.padStart(8)}${'events'.padStart(12)}${'wall'.padStart(10)}${'cpu'.padStart(10)}${'ms/pod'.padStart(9)}${'peak RSS'.padStart(11)}`,
    ...rows.map(
      (r) =>
        `${String(r.pods).padStart(8)}${String(r.events).padStart(12)}${`${(r.wallMs / 1000).toFixed(1)} s`.padStart(10)}${`${(r.cpuMs / 1000).toFixed(1)} s`.padStart(10)}${(r.cpuMs / r.pods).toFixed(2).padStart(9)}${`${r.peakRssMB} MB`.padStart(11)}`,
    ),
  ];
  return {
    title: 'memory: a long campaign, and pods on one node',
    lines,
    json: {
      // Its speed too: a long campaign is where reaching case i must not cost i (src/fuzz/caseStream.ts).
      campaign: { ...c, wallS: Math.round(campaignSec), casesPerSec: Math.round(c.cases / campaignSec) },
      pods: rows,
    },
  };
}
