// Simulator speed on the bundled scenarios: events per second, runs per second and time compression
// (virtual seconds per wall second), per kubelet mode, on the built code (dist/, what users run). Each
// row is a few runs after one warm-up, so it reads close to a single `podrace run`; pod-churn is also
// measured warm (test/bench/warm.ts), here after every other scenario and alone in a child process. A
// section of `npm run bench`; it never asserts.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as FixesModule from '../../src/fixes.js';
import type * as RunModule from '../../src/run/run.js';
import type * as LoadModule from '../../src/scenario/load.js';
import type { BenchSection } from './measure.js';
import { measureWarm, type Warm } from './warm.js';

const ROUNDS = 5;
const root = join(import.meta.dirname, '..', '..');
const dir = join(root, 'scenarios');

let Fixes: typeof FixesModule.Fixes;
let loadScenarioFile: typeof LoadModule.loadScenarioFile;
let runScenario: typeof RunModule.runScenario;

async function loadBuilt(): Promise<void> {
  const file = (rel: string): string => pathToFileURL(join(root, 'dist', rel)).href;
  if (!existsSync(join(root, 'dist', 'run', 'run.js')))
    throw new Error('dist/ is missing: run `npm run build` first (npm run bench does)');
  Fixes = ((await import(file('fixes.js'))) as typeof FixesModule).Fixes;
  loadScenarioFile = ((await import(file('scenario/load.js'))) as typeof LoadModule).loadScenarioFile;
  runScenario = ((await import(file('run/run.js'))) as typeof RunModule).runScenario;
}

interface Row {
  readonly name: string;
  readonly mode: string;
  readonly events: number;
  readonly eventsPerSec: number;
  readonly runsPerSec: number;
  readonly compression: number;
}

function measureScenario(file: string, fixes: FixesModule.Fixes, mode: string): Row {
  const scenario = loadScenarioFile(join(dir, file));
  runScenario(scenario, { fixes }); // warm-up
  let bestNs = Number.POSITIVE_INFINITY;
  let events = 0;
  let virtualMs = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const start = process.hrtime.bigint();
    const result = runScenario(scenario, { fixes });
    bestNs = Math.min(bestNs, Number(process.hrtime.bigint() - start));
    events = result.events;
    virtualMs = result.virtualTimeMs;
  }
  return {
    name: scenario.name,
    mode,
    events,
    eventsPerSec: (events * 1e9) / bestNs,
    runsPerSec: 1e9 / bestNs,
    compression: (virtualMs * 1e6) / bestNs,
  };
}

/** `file` measured warm alone in a child process (test/bench/warmChild.ts). */
function measureWarmAlone(file: string): Warm {
  const out = execFileSync(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, 'warmChild.ts'), file],
    {
      cwd: root,
      encoding: 'utf8',
      maxBuffer: 1 << 20,
    },
  );
  return JSON.parse(out.trim().split('\n').pop() ?? '{}') as Warm;
}

export async function benchScenarios(): Promise<BenchSection> {
  await loadBuilt();
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort();
  const rows: Row[] = [];
  for (const file of files) {
    rows.push(measureScenario(file, Fixes.all(), 'fixed'));
    rows.push(measureScenario(file, Fixes.none(), 'legacy'));
  }
  const width = Math.max(...rows.map((r) => r.name.length)) + 2;
  const lines = [
    `${'scenario'.padEnd(width)}${'mode'.padEnd(8)}${'events'.padStart(8)}${'events/s'.padStart(14)}${'runs/s'.padStart(10)}${'compression'.padStart(14)}`,
  ];
  for (const r of rows) {
    lines.push(
      `${r.name.padEnd(width)}${r.mode.padEnd(8)}${String(r.events).padStart(8)}${`${(r.eventsPerSec / 1e6).toFixed(2)} M/s`.padStart(14)}${r.runsPerSec.toFixed(1).padStart(10)}${`${Math.round(r.compression)}x`.padStart(14)}`,
    );
  }
  const churn = rows.find((r) => r.name === 'pod-churn' && r.mode === 'fixed');
  const churnFile = join(dir, 'pod-churn.yaml');
  const warm = measureWarm(runScenario, loadScenarioFile(churnFile), Fixes.all());
  const alone = measureWarmAlone(churnFile);
  lines.push(
    `pod-churn warm, fixed, after the rows above: ${warm.msPerRun.toFixed(2)} ms/run, compression ${Math.round(warm.compression)}x`,
    `pod-churn warm, fixed, alone in a process:   ${alone.msPerRun.toFixed(2)} ms/run, compression ${Math.round(alone.compression)}x`,
  );
  return {
    title: 'bundled scenarios (built code)',
    lines,
    json: {
      podChurnCompression: Math.round(alone.compression),
      podChurnCompressionAfterOthers: Math.round(warm.compression),
      podChurnCompressionCold: churn === undefined ? null : Math.round(churn.compression),
      rows: rows.map((r) => ({
        scenario: r.name,
        mode: r.mode,
        events: r.events,
        eventsPerSec: Math.round(r.eventsPerSec),
        runsPerSec: Math.round(r.runsPerSec * 10) / 10,
        compression: Math.round(r.compression),
      })),
    },
  };
}
