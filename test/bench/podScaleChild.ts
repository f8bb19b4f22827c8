// Runs one pod-scale scenario (test/bench/podScale.ts) on the built simulator and prints one JSON line:
// events, wall and CPU time, peak RSS. The memory section of `npm run bench` spawns it once per size so
// that each size's peak RSS is its own: `node --import tsx test/bench/podScaleChild.ts PODS`.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as FixesModule from '../../src/fixes.js';
import type * as RunModule from '../../src/run/run.js';
import { podScaleScenario } from './podScale.js';

const dist = (rel: string): string => pathToFileURL(join(import.meta.dirname, '..', '..', 'dist', rel)).href;
const { Fixes } = (await import(dist('fixes.js'))) as typeof FixesModule;
const { runScenario } = (await import(dist('run/run.js'))) as typeof RunModule;

const pods = Number(process.argv[2]);
const scenario = podScaleScenario(pods);
const cpu0 = process.cpuUsage();
const start = performance.now();
const result = runScenario(scenario, { fixes: Fixes.all(), maxEvents: Number.MAX_SAFE_INTEGER });
const wallMs = performance.now() - start;
const cpu = process.cpuUsage(cpu0);
process.stdout.write(
  `${JSON.stringify({
    pods,
    events: result.events,
    outcome: result.outcome,
    violations: result.violations.length,
    wallMs: Math.round(wallMs),
    cpuMs: Math.round((cpu.user + cpu.system) / 1000),
    peakRssMB: Math.round(process.resourceUsage().maxRSS / 1024),
  })}\n`,
);
