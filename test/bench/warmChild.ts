// Measures one bundled scenario warm (test/bench/warm.ts) on the built simulator, alone in its process,
// and prints one JSON line. The scenarios section of `npm run bench` spawns it for pod-churn:
// `node --import tsx test/bench/warmChild.ts FILE`.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as FixesModule from '../../src/fixes.js';
import type * as RunModule from '../../src/run/run.js';
import type * as LoadModule from '../../src/scenario/load.js';
import { measureWarm } from './warm.js';

const dist = (rel: string): string => pathToFileURL(join(import.meta.dirname, '..', '..', 'dist', rel)).href;
const { Fixes } = (await import(dist('fixes.js'))) as typeof FixesModule;
const { loadScenarioFile } = (await import(dist('scenario/load.js'))) as typeof LoadModule;
const { runScenario } = (await import(dist('run/run.js'))) as typeof RunModule;

const file = process.argv[2];
if (file === undefined) throw new Error('usage: warmChild.ts SCENARIO_FILE');
process.stdout.write(`${JSON.stringify(measureWarm(runScenario, loadScenarioFile(file), Fixes.all()))}\n`);
