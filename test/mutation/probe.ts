// The reach probe: an entry point bundled like the CLI (with the mutant's substitution) that runs the
// first N fuzz cases of a campaign seed and every claim of the bundled scenarios, and prints one digest
// per run (the facts it published, its violations, events and virtual time). The runner compares a
// surviving mutant's digests with the baseline's: a run whose digest differs is one in which the planted
// bug changed what happened, so an invariant could have caught it there; a survivor that changes no run
// is not reached by the generator or the scenarios at all (docs/mutation.md, "Reach").
//
//   node probe.js --seed S --cases N      prints {"cases": [...], "scenarios": {...}} on one line
import { createHash } from 'node:crypto';
import { CASE_MAX_EVENTS, scenariosOfCases } from '../../src/fuzz/shrink.js';
import { claimLabel, Fixes, runScenario } from '../../src/run/run.js';
import { bundledScenarioFiles } from '../../src/scenario/bundled.js';
import { loadScenarioFile } from '../../src/scenario/load.js';
import { fixesOfClaim, type Scenario } from '../../src/scenario/types.js';

function digest(scenario: Scenario, fixes: Fixes, maxEvents?: number): string {
  try {
    const r = runScenario(scenario, {
      fixes,
      recordFacts: true,
      ...(maxEvents === undefined ? {} : { maxEvents }),
    });
    const h = createHash('sha256');
    h.update(`${r.events} ${r.virtualTimeMs} ${r.outcome}\n`);
    for (const v of r.violations) h.update(`${v.invariant} ${v.atMs} ${v.message}\n`);
    for (const f of r.facts ?? []) h.update(`${JSON.stringify(f)}\n`);
    return h.digest('hex').slice(0, 16);
  } catch (err) {
    return `error: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`;
  }
}

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  const v = i < 0 ? undefined : Number(process.argv[i + 1]);
  return v === undefined || !Number.isInteger(v) || v < 0 ? fallback : v;
}

const seed = arg('--seed', 1);
const count = arg('--cases', 1000);
const cases = scenariosOfCases(
  seed,
  Array.from({ length: count }, (_, i) => i),
).map((s) => digest(s, Fixes.all(), CASE_MAX_EVENTS));
const scenarios: Record<string, string> = {};
for (const file of bundledScenarioFiles()) {
  const s = loadScenarioFile(file);
  for (const claim of s.claims)
    scenarios[`${s.name}: ${claimLabel(claim)}`] = digest(s, fixesOfClaim(claim.fixes));
}
process.stdout.write(`${JSON.stringify({ seed, cases, scenarios })}\n`);
