// Fuzz throughput as users get it: the built campaign (dist/, what `podrace fuzz` runs) on default-size
// cases against the fixed kubelet, in this thread and with 2 worker threads, and the time compression
// of those cases. A section of `npm run bench`; it never asserts.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as FixesModule from '../../src/fixes.js';
import type * as Campaign from '../../src/fuzz/campaign.js';
import { type BenchSection, nowMs } from './measure.js';

const CASES = 400;
const SEED = 1;
const root = join(import.meta.dirname, '..', '..');

/** The built modules: `npm run bench` builds first; worker threads need the compiled worker.js. */
async function built(): Promise<{ campaign: typeof Campaign; fixes: typeof FixesModule }> {
  const file = (rel: string): string => pathToFileURL(join(root, 'dist', rel)).href;
  if (!existsSync(join(root, 'dist', 'fuzz', 'worker.js'))) {
    throw new Error('dist/ is missing: run `npm run build` first (npm run bench does)');
  }
  return {
    campaign: (await import(file('fuzz/campaign.js'))) as typeof Campaign,
    fixes: (await import(file('fixes.js'))) as typeof FixesModule,
  };
}

export async function benchFuzz(): Promise<BenchSection> {
  const { campaign, fixes } = await built();
  const run = async (workers: number) => {
    const start = nowMs();
    const report = await campaign.runCampaign({
      seed: SEED,
      runs: CASES,
      fixes: fixes.Fixes.all(),
      workers,
      shrink: 0,
    });
    const wallMs = nowMs() - start;
    const virtualMs = report.results.reduce((t, r) => t + r.virtualTimeMs, 0);
    const events = report.results.reduce((t, r) => t + r.events, 0);
    return {
      threads: report.threads,
      casesPerSec: (report.results.length * 1000) / wallMs,
      compression: virtualMs / wallMs,
      eventsPerCase: events / Math.max(1, report.results.length),
      virtualSPerCase: virtualMs / 1000 / Math.max(1, report.results.length),
    };
  };
  await run(1); // warm-up
  const one = await run(1);
  const two = await run(2);
  const r1 = (n: number): number => Math.round(n * 10) / 10;
  return {
    title: `fuzz: ${CASES} default cases, seed ${SEED}, fixed kubelet (built code)`,
    lines: [
      `1 worker (in-process):   ${r1(one.casesPerSec)} cases/s, compression ${Math.round(one.compression)}x`,
      `2 worker threads:        ${r1(two.casesPerSec)} cases/s (${r1(two.casesPerSec / one.casesPerSec)}x one worker, ${two.threads} threads)`,
      `a case: ${Math.round(one.eventsPerCase)} events, ${r1(one.virtualSPerCase)} s of virtual time on average`,
    ],
    json: {
      cases: CASES,
      casesPerSec1: r1(one.casesPerSec),
      casesPerSec2: r1(two.casesPerSec),
      compression: Math.round(one.compression),
      eventsPerCase: Math.round(one.eventsPerCase),
      virtualSPerCase: r1(one.virtualSPerCase),
    },
  };
}
