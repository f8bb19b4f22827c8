// podrace explore measured (docs/explore.md, "Measured"): on every bundled scenario with every fix on, the
// one-deviation search (k = 1) run to the end or to its time limit, the exact size of the k = 2 search
// (each one-deviation schedule run once, its children counted) and, on one node, the k = 2 search run
// within 10 s by the built CLI on one core (issue 24's goal); and per fix switch, with it off, how many
// schedules explore needs from a seed whose default run is clean beside how many seeds random sampling
// needs. Sections of `npm run bench` (keys `explore.scenarios`, `explore.switches`); they never assert.

import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { controllerManagerStarts } from '../../src/controllerManagerFlags.js';
import { outOfServiceGateAllows } from '../../src/controllerManagerGates.js';
import { childrenOf } from '../../src/explore/children.js';
import { explore } from '../../src/explore/explore.js';
import type { Fixes, FixId } from '../../src/fixes.js';
import { Fixes as AllFixes } from '../../src/fixes.js';
import { REFINDABLE_FIXES, refindBase } from '../../src/fuzz/refind.js';
import { runScenario } from '../../src/run/run.js';
import { loadScenarioFile } from '../../src/scenario/load.js';
import type { Scenario } from '../../src/scenario/types.js';
import type { Schedule } from '../../src/sim/index.js';
import { type BenchSection, nowMs, percentiles } from './measure.js';

/** Per scenario, for the k = 1 search; a 2-node scenario is not expected to finish within it. */
const K1_TIME_LIMIT_MS = 20_000;
/** Per 1-node scenario, for the k = 2 search: issue 24's goal is every one complete within it. */
const K2_TIME_LIMIT_MS = 10_000;
/** Seeds sampled per switch for the random side, and clean seeds explored from. */
const SEEDS = 40;
const TASKSET = '/usr/bin/taskset';
const root = join(import.meta.dirname, '..', '..');
const CLEAN_SEEDS = 3;
const SWITCH_BOUND = 2;
const SWITCH_MAX_SCHEDULES = 400;
const SWITCH_TIME_LIMIT_MS = 20_000;
/** Random sampling from a clean seed tries at most this many seeds. */
const SEEDS_FROM_MAX = 200;

function bundled(): Scenario[] {
  const dir = join(import.meta.dirname, '..', '..', 'scenarios');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => loadScenarioFile(join(dir, f)));
}

interface ScenarioRow {
  readonly name: string;
  readonly nodes: number;
  readonly events: number;
  readonly choicePoints: number;
  readonly reorderings: number;
  readonly k1: {
    readonly schedules: number;
    readonly distinct: number;
    readonly wallMs: number;
    readonly complete: boolean;
    readonly violation: string | null;
  };
  /** The k = 2 search's size: every schedule with at most 2 deviations the reduction keeps. */
  readonly k2Schedules: number | null;
  readonly k2CountMs: number | null;
  /** The k = 2 search run, within K2_TIME_LIMIT_MS (1-node scenarios whose k = 1 search finished). */
  readonly k2: {
    readonly schedules: number;
    readonly wallMs: number;
    readonly complete: boolean;
    /** Run under `taskset -c 0`. */
    readonly pinned: boolean;
  } | null;
}

/**
 * The k = 2 search as a user runs it: the built CLI, `explore FILE --bound 2 --time-limit 10s`, in a
 * process of its own pinned to one core where taskset is there (issue 24's goal is "on one core"; Node's
 * GC threads would otherwise use the second). The wall time is the process's, start-up included.
 */
function k2Search(name: string): NonNullable<ScenarioRow['k2']> {
  const cli = [
    join(root, 'dist', 'cli.js'),
    'explore',
    join(root, 'scenarios', `${name}.yaml`),
    '--bound',
    '2',
    '--time-limit',
    `${K2_TIME_LIMIT_MS / 1000}s`,
    '--max-schedules',
    '100000000',
    '--json',
  ];
  const pinned = existsSync(TASKSET);
  const t0 = nowMs();
  const r = spawnSync(
    pinned ? TASKSET : process.execPath,
    pinned ? ['-c', '0', process.execPath, ...cli] : cli,
    {
      cwd: root,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  const wallMs = Math.round(nowMs() - t0);
  const out = JSON.parse(r.stdout) as { explored: number; complete: boolean };
  return { schedules: out.explored, wallMs, complete: out.complete && wallMs <= K2_TIME_LIMIT_MS, pinned };
}

/** How many schedules a complete search within 2 deviations runs: 1 + |depth 1| + Σ children of each. */
function sizeAtTwo(scenario: Scenario, fixes: Fixes, depthOne: readonly Schedule[]): number {
  let total = 1 + depthOne.length;
  for (const s of depthOne) {
    const r = runScenario(scenario, { fixes, schedule: s });
    const c = r.choices;
    if (c === undefined) continue;
    total += childrenOf(s, c.log, c.latency, false, true, true).steps.length;
  }
  return total;
}

export function benchExploreScenarios(): BenchSection {
  const fixes = AllFixes.all();
  const rows: ScenarioRow[] = [];
  for (const scenario of bundled()) {
    const parent = runScenario(scenario, { fixes, schedule: [] });
    const c = parent.choices;
    if (c === undefined) continue;
    const all = childrenOf([], c.log, c.latency, false, false).steps.length;
    const kept = childrenOf([], c.log, c.latency, false, true).steps;
    const t0 = nowMs();
    const k1 = explore(scenario, {
      fixes,
      bound: 1,
      maxSchedules: 100_000,
      deadlineMs: t0 + K1_TIME_LIMIT_MS,
      clock: nowMs,
    });
    const wallMs = Math.round(nowMs() - t0);
    let k2Schedules: number | null = null;
    let k2CountMs: number | null = null;
    let k2: ScenarioRow['k2'] = null;
    if (k1.complete && scenario.nodes.length === 1) {
      const t1 = nowMs();
      k2Schedules = sizeAtTwo(
        scenario,
        fixes,
        kept.map((d) => [d]),
      );
      k2CountMs = Math.round(nowMs() - t1);
      k2 = k2Search(scenario.name);
    }
    rows.push({
      name: scenario.name,
      nodes: scenario.nodes.length,
      events: parent.events,
      choicePoints: c.points,
      reorderings: all,
      k1: {
        schedules: k1.explored,
        distinct: k1.distinctOutcomes,
        wallMs,
        complete: k1.complete,
        violation: k1.violation?.result.violations[0]?.invariant ?? null,
      },
      k2Schedules,
      k2CountMs,
      k2,
    });
  }
  const width = Math.max(...rows.map((r) => r.name.length)) + 2;
  const lines = [
    `${'scenario'.padEnd(width)}${'nodes'.padStart(6)}${'events'.padStart(8)}${'points'.padStart(8)}${'reord.'.padStart(8)}${'k=1 runs'.padStart(10)}${'distinct'.padStart(10)}${'wall'.padStart(8)}${'  complete'}${'k=2 size'.padStart(11)}${'k=2 wall'.padStart(10)}   violation`,
  ];
  for (const r of rows)
    lines.push(
      `${r.name.padEnd(width)}${String(r.nodes).padStart(6)}${String(r.events).padStart(8)}${String(r.choicePoints).padStart(8)}${String(r.reorderings).padStart(8)}${String(r.k1.schedules).padStart(10)}${String(r.k1.distinct).padStart(10)}${`${(r.k1.wallMs / 1000).toFixed(1)}s`.padStart(8)}${(r.k1.complete ? 'yes' : 'no').padStart(10)}${String(r.k2Schedules ?? '-').padStart(11)}${(r.k2 === null ? '-' : `${(r.k2.wallMs / 1000).toFixed(1)}s${r.k2.complete ? '' : '+'}`).padStart(10)}   ${r.k1.violation ?? '-'}`,
    );
  const oneNode = rows.filter((r) => r.nodes === 1);
  const k1Ms = percentiles(oneNode.map((r) => r.k1.wallMs));
  const perRunMs = percentiles(oneNode.map((r) => r.k1.wallMs / r.k1.schedules));
  lines.push(
    `1-node: k=1 complete in ${oneNode.filter((r) => r.k1.complete).length}/${oneNode.length}, median ${(k1Ms.median / 1000).toFixed(1)}s, p90 ${(k1Ms.p90 / 1000).toFixed(1)}s; a run ${perRunMs.median.toFixed(1)} ms median`,
  );
  // A scenario whose default run shows a hazard stops at its first schedule: only the clean ones count.
  const k2Rows = oneNode.filter((r) => r.k2 !== null && r.k1.violation === null);
  const pinned = k2Rows.some((r) => r.k2?.pinned === true) ? ', pinned to one core' : '';
  lines.push(
    `1-node, default run clean: k=2 complete within ${K2_TIME_LIMIT_MS / 1000}s in ${k2Rows.filter((r) => r.k2?.complete === true).length}/${k2Rows.length} (the built CLI${pinned}, start-up included; k=2 wall "+": stopped there)`,
  );
  const multi = rows.filter((r) => r.nodes > 1);
  lines.push(
    `2-node and more: k=1 complete in ${multi.filter((r) => r.k1.complete).length}/${multi.length} within ${K1_TIME_LIMIT_MS / 1000}s`,
  );
  return {
    title: `explore: every bundled scenario, every fix on, orderings only; k=1 within ${K1_TIME_LIMIT_MS / 1000}s, k=2's size counted`,
    lines,
    json: Object.fromEntries(rows.map((r) => [r.name, r])),
  };
}

/**
 * The bundled scenario that shows `fix`'s bug (as the shrink section's: with it off, an invariant fires
 * that does not with it on), the fewest timeline entries first, with those invariants.
 */
function scenarioShowing(
  fix: FixId,
  scenarios: readonly Scenario[],
): { scenario: Scenario; closes: ReadonlySet<string> } | undefined {
  const on = refindBase(fix);
  const off = on.with(fix, false);
  const kinds = (s: Scenario, f: Fixes): Set<string> =>
    new Set(runScenario(s, { fixes: f }).violations.map((v) => v.invariant));
  const showing: { scenario: Scenario; closes: Set<string> }[] = [];
  for (const s of scenarios) {
    // A scenario that gives the controller manager a flag its release lacks cannot run there (exit 2).
    if (!controllerManagerStarts(s.controllerManager, on.base)) continue;
    // Nor one that sets the out-of-service taint under a release whose gate is off (src/controllerManagerGates.ts).
    if (!outOfServiceGateAllows(s.timeline, on.base)) continue;
    const fixed = kinds(s, on);
    const closes = new Set([...kinds(s, off)].filter((k) => !fixed.has(k)));
    if (closes.size > 0) showing.push({ scenario: s, closes });
  }
  return showing.sort((a, b) => a.scenario.timeline.length - b.scenario.timeline.length)[0];
}

export function benchExploreSwitches(): BenchSection {
  const scenarios = bundled();
  const out: Record<string, unknown> = {};
  const ratios: number[] = [];
  const width = Math.max(...REFINDABLE_FIXES.map((f) => f.length)) + 2;
  const lines = [
    `${'switch off'.padEnd(width)}${'fire'.padStart(7)}${'seeds/find'.padStart(12)}${'random'.padStart(8)}${'explore'.padStart(16)}${'ratio'.padStart(8)}   scenario`,
  ];
  for (const fix of REFINDABLE_FIXES) {
    const shown = scenarioShowing(fix, scenarios);
    if (shown === undefined) {
      out[fix] = { scenario: null };
      continue;
    }
    const off = refindBase(fix).with(fix, false);
    const fires = (seed: number): boolean =>
      runScenario(shown.scenario, { fixes: off, seed }).violations.some((v) => shown.closes.has(v.invariant));
    const clean: number[] = [];
    let firing = 0;
    for (let seed = 1; seed <= SEEDS; seed++) {
      if (fires(seed)) firing++;
      else if (clean.length < CLEAN_SEEDS) clean.push(seed);
    }
    // Random sampling's expected seeds per find; and from each clean seed, the seeds random sampling runs
    // from it (it, then the next ones) until one fires, beside explore's schedules of it (not found: the budget).
    const seedsPerFind = firing === 0 ? null : SEEDS / firing;
    const seedsFrom = (seed: number): number => {
      for (let k = 1; k <= SEEDS_FROM_MAX; k++) if (fires(seed + k - 1)) return k;
      return SEEDS_FROM_MAX;
    };
    const schedules = clean.map((seed) => {
      const randomSeeds = seedsFrom(seed);
      const t0 = nowMs();
      const r = explore(shown.scenario, {
        fixes: off,
        seed,
        bound: SWITCH_BOUND,
        latencies: true,
        maxSchedules: SWITCH_MAX_SCHEDULES,
        deadlineMs: t0 + SWITCH_TIME_LIMIT_MS,
        clock: nowMs,
      });
      // explore stops at the first violation of any kind: it counts only if it is one the switch closes.
      const found = r.violation?.result.violations.some((v) => shown.closes.has(v.invariant)) === true;
      return {
        seed,
        found,
        randomSeeds,
        schedules: r.explored,
        foundInvariants: r.violation?.result.violations.map((v) => v.invariant) ?? [],
        wallMs: Math.round(nowMs() - t0),
      };
    });
    const median = schedules.length === 0 ? null : percentiles(schedules.map((s) => s.schedules)).median;
    const randomMedian =
      schedules.length === 0 ? null : percentiles(schedules.map((s) => s.randomSeeds)).median;
    const foundAll = schedules.every((s) => s.found);
    const ratio = randomMedian === null || median === null || !foundAll ? null : randomMedian / median;
    if (ratio !== null) ratios.push(ratio);
    out[fix] = {
      scenario: shown.scenario.name,
      firingSeeds: firing,
      seeds: SEEDS,
      seedsPerFind,
      fromCleanSeeds: schedules,
      medianRandomSeeds: randomMedian,
      medianSchedules: median,
      ratio,
    };
    const exploreText =
      median === null
        ? 'no clean seed'
        : `${median}${foundAll ? '' : ` (${schedules.filter((s) => s.found).length}/${schedules.length})`}`;
    lines.push(
      `${fix.padEnd(width)}${`${firing}/${SEEDS}`.padStart(7)}${(seedsPerFind === null ? '-' : seedsPerFind.toFixed(1)).padStart(12)}${String(randomMedian ?? '-').padStart(8)}${exploreText.padStart(16)}${(ratio === null ? '-' : ratio.toFixed(2)).padStart(8)}   ${shown.scenario.name}`,
    );
  }
  const r = ratios.length === 0 ? null : percentiles(ratios).median;
  lines.push(
    `median ratio (random's seeds from a clean seed / explore's schedules of it), over ${ratios.length} switches found from every clean seed: ${r === null ? '-' : r.toFixed(2)}`,
  );
  return {
    title: `explore with a switch off: --latencies --bound ${SWITCH_BOUND}, ${SWITCH_MAX_SCHEDULES} schedules, from the first ${CLEAN_SEEDS} seeds of 1..${SEEDS} whose default run is clean; random: the seeds tried from that seed on until one fires`,
    lines,
    json: { switches: out, medianRatio: r },
  };
}
