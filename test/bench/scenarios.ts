// Simulator speed on the bundled scenarios: events per second, runs per second and time compression
// (virtual seconds per wall second), per kubelet mode. A section of `npm run bench`; it never asserts.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Fixes } from '../../src/fixes.js';
import { loadScenarioFile } from '../../src/scenario/load.js';
import { runScenario } from '../../src/scenario/run.js';
import type { BenchSection } from './measure.js';

const ROUNDS = 5;
const dir = join(import.meta.dirname, '..', '..', 'scenarios');

interface Row {
  readonly name: string;
  readonly mode: string;
  readonly events: number;
  readonly eventsPerSec: number;
  readonly runsPerSec: number;
  readonly compression: number;
}

function measureScenario(file: string, fixes: Fixes, mode: string): Row {
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

export function benchScenarios(): BenchSection {
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
  return {
    title: 'bundled scenarios',
    lines,
    json: {
      podChurnCompression: churn === undefined ? null : Math.round(churn.compression),
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
