// Time to bug: per re-findable fix switch, with only it off, the cases and wall time until a case that
// the switch closes (src/fuzz/refind.ts), over 20 campaign seeds; and how small that bug's case shrinks
// (keeping the switch closing it) beside the smallest bundled hand-written scenario that shows the
// switch. Sections of `npm run bench`; they never assert.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { controllerManagerStarts } from '../../src/controllerManagerFlags.js';
import { outOfServiceGateAllows } from '../../src/controllerManagerGates.js';
import type { FixId } from '../../src/fixes.js';
import { minimalFailure } from '../../src/fuzz/campaign.js';
import { REFINDABLE_FIXES, type RefindResult, refind, refindBase } from '../../src/fuzz/refind.js';
import { scenarioAt } from '../../src/fuzz/shrink.js';
import { runScenario } from '../../src/run/run.js';
import { loadScenarioFile } from '../../src/scenario/load.js';
import type { Scenario } from '../../src/scenario/types.js';
import { type BenchSection, nowMs, percentiles } from './measure.js';

const SEEDS = 20;
/** Per seed; a seed that finds nothing in this many cases counts as not found (and as this many cases). */
const CASES_MAX = 2_000;
const SHRINK_RUNS = 400;

export interface TimeToBug {
  readonly fix: FixId;
  readonly found: number;
  readonly medianMs: number;
  readonly p90Ms: number;
  readonly medianCases: number;
  readonly p90Cases: number;
  /** Seed 1's find: what the shrink section starts from. */
  readonly first: RefindResult;
}

export function measureTimeToBug(): TimeToBug[] {
  return REFINDABLE_FIXES.map((fix) => {
    const runs: RefindResult[] = [];
    for (let seed = 1; seed <= SEEDS; seed++)
      runs.push(refind({ fix, seed, casesMax: CASES_MAX, now: nowMs }));
    const ms = percentiles(runs.map((r) => r.wallMs));
    const cases = percentiles(runs.map((r) => r.cases));
    return {
      fix,
      found: runs.filter((r) => r.caseIndex !== null).length,
      medianMs: Math.round(ms.median),
      p90Ms: Math.round(ms.p90),
      medianCases: cases.median,
      p90Cases: cases.p90,
      first: runs[0] as RefindResult,
    };
  });
}

export function timeToBugSection(rows: readonly TimeToBug[]): BenchSection {
  const width = Math.max(...rows.map((r) => r.fix.length)) + 2;
  const lines = [
    `${'switch off'.padEnd(width)}${'found'.padStart(7)}${'median cases'.padStart(14)}${'p90 cases'.padStart(11)}${'median'.padStart(10)}${'p90'.padStart(10)}   closes (seed 1)`,
  ];
  for (const r of rows) {
    lines.push(
      `${r.fix.padEnd(width)}${`${r.found}/${SEEDS}`.padStart(7)}${String(r.medianCases).padStart(14)}${String(r.p90Cases).padStart(11)}${`${(r.medianMs / 1000).toFixed(2)}s`.padStart(10)}${`${(r.p90Ms / 1000).toFixed(2)}s`.padStart(10)}   ${r.first.closed.join(', ')}`,
    );
  }
  return {
    title: `time to bug: one switch off, ${SEEDS} seeds, cases until one the switch closes (one thread)`,
    lines,
    json: Object.fromEntries(
      rows.map((r) => [
        r.fix,
        {
          found: r.found,
          seeds: SEEDS,
          medianMs: r.medianMs,
          p90Ms: r.p90Ms,
          medianCases: r.medianCases,
          p90Cases: r.p90Cases,
        },
      ]),
    ),
  };
}

/**
 * The bundled scenarios that show `fix`'s bug: with it off from its base, an invariant fires that does not
 * with it on (as refind's "closes"; a scenario where turning it off only removes a violation shows
 * something else, e.g. a hazard the fix's path leads to).
 */
function handScenarioOf(fix: FixId, scenarios: readonly Scenario[]): Scenario | undefined {
  const on = refindBase(fix);
  const off = on.with(fix, false);
  const kinds = (s: Scenario, f: typeof on): Set<string> =>
    new Set(runScenario(s, { fixes: f }).violations.map((v) => v.invariant));
  const showing = scenarios.filter((s) => {
    // A scenario that gives the controller manager a flag its release lacks cannot run there (exit 2).
    if (!controllerManagerStarts(s.controllerManager, on.base)) return false;
    // Nor one that sets the out-of-service taint under a release whose gate is off (src/controllerManagerGates.ts).
    if (!outOfServiceGateAllows(s.timeline, on.base)) return false;
    const fixed = kinds(s, on);
    return [...kinds(s, off)].some((k) => !fixed.has(k));
  });
  return showing.sort((a, b) => a.timeline.length - b.timeline.length)[0];
}

export async function shrinkSection(rows: readonly TimeToBug[]): Promise<BenchSection> {
  const dir = join(import.meta.dirname, '..', '..', 'scenarios');
  const scenarios = readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => loadScenarioFile(join(dir, f)));
  const out: Record<string, unknown> = {};
  const width = Math.max(...rows.map((r) => r.fix.length)) + 2;
  const lines = [
    `${'switch off'.padEnd(width)}${'case'.padStart(6)}${'actions'.padStart(9)}${'shrunk'.padStart(8)}${'hand'.padStart(6)}   hand-written scenario`,
  ];
  for (const r of rows) {
    const hand = handScenarioOf(r.fix, scenarios);
    const caseIndex = r.first.caseIndex;
    const kind = r.first.closed[0];
    if (caseIndex === null || kind === undefined) {
      out[r.fix] = { shrunkActions: null, handActions: hand?.timeline.length ?? null };
      continue;
    }
    const off = refindBase(r.fix).with(r.fix, false);
    const f = await minimalFailure(1, caseIndex, off, kind, { shrinkRuns: SHRINK_RUNS, closedBy: r.fix });
    const unshrunk = scenarioAt(1, String(caseIndex)).timeline.length;
    out[r.fix] = {
      case: caseIndex,
      actions: unshrunk,
      shrunkActions: f.scenario.timeline.length,
      handActions: hand?.timeline.length ?? null,
      hand: hand?.name ?? null,
      keepsClosing: f.closedBy === r.fix,
    };
    lines.push(
      `${r.fix.padEnd(width)}${String(caseIndex).padStart(6)}${String(unshrunk).padStart(9)}${String(f.scenario.timeline.length).padStart(8)}${String(hand?.timeline.length ?? '-').padStart(6)}   ${hand?.name ?? '-'}`,
    );
  }
  return {
    title: `shrink: seed 1's find shrunk (${SHRINK_RUNS} runs, keeping the switch closing it), timeline entries`,
    lines,
    json: out,
  };
}
