// Simulator speed on the bundled scenarios: events per second and runs per second, per kubelet mode.
// Run with `npm run bench`; it measures, it never asserts a time.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Fixes } from '../../src/fixes.js';
import { loadScenarioFile } from '../../src/scenario/load.js';
import { runScenario } from '../../src/scenario/run.js';

const ROUNDS = 5;
const dir = join(import.meta.dirname, '..', '..', 'scenarios');
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.yaml'))
  .sort();

interface Row {
  name: string;
  mode: string;
  events: number;
  eventsPerSec: number;
  runsPerSec: number;
}

function measureScenario(file: string, fixes: Fixes, mode: string): Row {
  const scenario = loadScenarioFile(join(dir, file));
  runScenario(scenario, { fixes }); // warm-up
  let bestNs = Number.POSITIVE_INFINITY;
  let events = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const start = process.hrtime.bigint();
    events = runScenario(scenario, { fixes }).events;
    bestNs = Math.min(bestNs, Number(process.hrtime.bigint() - start));
  }
  return {
    name: scenario.name,
    mode,
    events,
    eventsPerSec: (events * 1e9) / bestNs,
    runsPerSec: 1e9 / bestNs,
  };
}

const rows: Row[] = [];
for (const file of files) {
  rows.push(measureScenario(file, Fixes.all(), 'fixed'));
  rows.push(measureScenario(file, Fixes.none(), 'legacy'));
}
const width = Math.max(...rows.map((r) => r.name.length)) + 2;
console.log(
  `${'scenario'.padEnd(width)}${'mode'.padEnd(8)}${'events'.padStart(8)}${'events/s'.padStart(14)}${'runs/s'.padStart(10)}`,
);
for (const r of rows) {
  console.log(
    `${r.name.padEnd(width)}${r.mode.padEnd(8)}${String(r.events).padStart(8)}${`${(r.eventsPerSec / 1e6).toFixed(2)} M/s`.padStart(14)}${r.runsPerSec.toFixed(1).padStart(10)}`,
  );
}
