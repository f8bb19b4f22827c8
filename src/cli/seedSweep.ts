// `podrace run FILE --seeds 1..200`: the scenario once per seed, in this process (the `go test -count`
// of a hand-written scenario), then how many seeds fire each invariant and the first seed of each, so a
// race that needs a lucky interleaving shows how often it happens and how to replay it. The runs keep
// no facts (as fuzzing does), so a sweep costs what the runs cost.
import { Chalk } from 'chalk';
import type { Fixes } from '../fixes.js';
import { INVARIANT_IDS, type InvariantId, isFinding } from '../invariants/types.js';
import { type RunResult, runScenario } from '../run/run.js';
import { fixFlags, shellQuote } from '../scenario/fixFlags.js';
import type { Scenario } from '../scenario/types.js';
import { parseSeed } from '../sim/index.js';
import { InputError } from './errors.js';

/** More seeds than this in one sweep is most likely a typo (1..1000000 for 1..1000). */
export const MAX_SWEEP_SEEDS = 100_000;

/** `1..200`, `7`, `0x10..0x1f`, or a comma list of those; in the order given, each seed once. */
export function parseSeedList(text: string): number[] {
  const seeds: number[] = [];
  const seen = new Set<number>();
  const seed = (t: string): number => {
    const r = parseSeed(t);
    if (!r.ok) throw new InputError(`--seeds: ${r.error}`);
    return r.value;
  };
  for (const part of text.split(',').map((p) => p.trim())) {
    if (part === '') throw new InputError(`--seeds: expected A..B or a comma list of seeds, got "${text}"`);
    misspeltRange(part);
    const range = /^(.+?)\.\.(.+)$/.exec(part);
    const from = seed(range === null ? part : (range[1] ?? ''));
    const to = range === null ? from : seed(range[2] ?? '');
    if (to < from) throw new InputError(`--seeds: ${part} is an empty range (write the smaller seed first)`);
    if (seeds.length + (to - from + 1) > MAX_SWEEP_SEEDS)
      throw new InputError(`--seeds: at most ${MAX_SWEEP_SEEDS} seeds in one sweep, got more in "${text}"`);
    for (let s = from; s <= to; s++) {
      if (seen.has(s)) continue;
      seen.add(s);
      seeds.push(s);
    }
  }
  return seeds;
}

/** A seed as --seeds reads it: decimal or 0x-hex (parseSeed checks its range). */
const SEED = String.raw`(?:0[xX][0-9a-fA-F]+|\d+)`;
/** `1-200`, `1:200`, `1...200`, `1 to 200`: a range as other tools write it. */
const OTHER_RANGE = new RegExp(String.raw`^(${SEED})\s*(?:-|:|–|\.{3,}|\s+to\s+)\s*(${SEED})$`);

/**
 * A range written as other tools write it, or without one of its ends: said as such, with the A..B it
 * means, rather than "expected a seed, got "1-200"".
 */
function misspeltRange(part: string): void {
  const m = OTHER_RANGE.exec(part);
  if (m !== null)
    throw new InputError(
      `--seeds: ranges are A..B (both included): ${m[1] ?? ''}..${m[2] ?? ''}, not "${part}"`,
    );
  if (/^\.\.|\.\.$/.test(part))
    throw new InputError(`--seeds: ${part} lacks an end; ranges are A..B (both included), as 1..200`);
}

export interface SweepTally {
  /** Seeds in which it fired. */
  readonly seeds: number;
  /** ... of which every firing was explained by a known-open upstream hazard. */
  readonly knownOpen: number;
  readonly firstSeed: number;
}

export interface SeedSweep {
  readonly scenario: string;
  readonly fixes: Fixes;
  readonly seeds: readonly number[];
  /** Violations and findings, in the invariant table's order. */
  readonly invariants: ReadonlyMap<InvariantId, SweepTally>;
  /** Seeds run to their horizon with no violation (findings do not count; a seed cut short is not clean). */
  readonly clean: number;
  /** Seeds whose run hit the event budget before the horizon. */
  readonly maxEvents: number;
}

/** Runs every seed; `onSeed` sees each result (progress). Pure but for the callback. */
export function sweepSeeds(
  scenario: Scenario,
  fixes: Fixes,
  seeds: readonly number[],
  onSeed?: (done: number, result: RunResult) => void,
  maxEventsBudget?: number,
): SeedSweep {
  const acc = new Map<InvariantId, { seeds: number; knownOpen: number; firstSeed: number }>();
  let clean = 0;
  let maxEvents = 0;
  seeds.forEach((seed, i) => {
    const result = runScenario(scenario, { fixes, seed, maxEvents: maxEventsBudget });
    // A run cut short by its event budget checked nothing after that point: never clean.
    if (result.violations.length === 0 && result.complete) clean++;
    if (result.outcome === 'max-events') maxEvents++;
    for (const id of INVARIANT_IDS) {
      const fired = [...result.violations, ...result.findings].filter((v) => v.invariant === id);
      if (fired.length === 0) continue;
      const t = acc.get(id) ?? { seeds: 0, knownOpen: 0, firstSeed: seed };
      t.seeds++;
      if (fired.every((v) => v.knownOpen !== undefined)) t.knownOpen++;
      acc.set(id, t);
    }
    onSeed?.(i + 1, result);
  });
  const invariants = new Map<InvariantId, SweepTally>();
  for (const id of INVARIANT_IDS) {
    const t = acc.get(id);
    if (t !== undefined) invariants.set(id, t);
  }
  return { scenario: scenario.name, fixes, seeds, invariants, clean, maxEvents };
}

function seedsLabel(seeds: readonly number[]): string {
  const first = seeds[0];
  const last = seeds[seeds.length - 1];
  const contiguous = first !== undefined && last !== undefined && last - first + 1 === seeds.length;
  return contiguous && seeds.length > 1 ? `${first}..${last}` : seeds.join(',');
}

export function formatSweep(s: SeedSweep, file: string, color: boolean): string[] {
  const c = new Chalk({ level: color ? 1 : 0 });
  const n = s.seeds.length;
  const lines = [`${c.bold(s.scenario)}  seeds ${seedsLabel(s.seeds)} (${n})  fixes ${s.fixes.label()}`];
  if (s.invariants.size > 0) {
    const width = Math.max(9, ...[...s.invariants.keys()].map((id) => id.length));
    lines.push(`  ${'invariant'.padEnd(width)}  ${'seeds'.padStart(11)}  first seed`);
    for (const [id, t] of s.invariants) {
      const share = `${t.seeds}/${n}`.padStart(11);
      const known = t.knownOpen > 0 ? `  (${t.knownOpen} explained by a known-open upstream hazard)` : '';
      lines.push(`  ${id.padEnd(width)}  ${share}  ${String(t.firstSeed).padEnd(10)}${known}`.trimEnd());
    }
    const violated = [...s.invariants].filter(([id]) => !isFinding(id));
    const first = (violated.length > 0 ? violated : [...s.invariants]).reduce(
      (a, [, t]) => Math.min(a, t.firstSeed),
      Number.POSITIVE_INFINITY,
    );
    lines.push(
      `  replay a seed: ${['npx podrace run', shellQuote(file), `--seed ${first}`, ...fixFlags(s.fixes)].join(' ')}`,
    );
  }
  if (s.maxEvents > 0)
    lines.push(
      c.red(
        `INCOMPLETE: ${s.maxEvents} seed(s) cut short by the event budget before the horizon (not checked after that point)`,
      ),
    );
  const verdict =
    s.clean === n
      ? c.green(`all ${n} seeds: no violations`)
      : c.red(`${n - s.clean} of ${n} seeds with violations or cut short`);
  lines.push(verdict);
  return lines;
}

export function sweepToJson(s: SeedSweep, wallMs: number): Record<string, unknown> {
  return {
    scenario: s.scenario,
    fixes: s.fixes.toRecord(),
    seeds: s.seeds.length,
    firstSeed: s.seeds[0] ?? null,
    lastSeed: s.seeds[s.seeds.length - 1] ?? null,
    clean: s.clean,
    maxEvents: s.maxEvents,
    invariants: Object.fromEntries([...s.invariants].map(([id, t]) => [id, { ...t }])),
    wallMs,
  };
}

export interface SweepArgs {
  /** How the replay hint names the scenario: the name or path the user gave (scenarioArgs.ts). */
  readonly shown: string;
  readonly seeds: string;
  readonly json: boolean;
  readonly color: boolean;
  /** Flags given with --seeds that a sweep cannot honour (each names one seed's run). */
  readonly conflicts: readonly string[];
  /** --max-events: each seed's event budget (default: sized from the scenario). */
  readonly maxEvents?: number | undefined;
}

/** `run --seeds`: the sweep, printed; returns the exit code (1 if some seed violated an invariant). */
export function runSweep(
  scenario: Scenario,
  fixes: Fixes,
  a: SweepArgs,
  clock: () => number,
  out: (line: string) => void,
): number {
  if (a.conflicts.length > 0)
    throw new InputError(
      `--seeds: cannot be combined with ${a.conflicts.join(', ')} (they describe one run)`,
    );
  const seeds = parseSeedList(a.seeds);
  const start = clock();
  const progress = process.stderr.isTTY === true && !a.json;
  const sweep = sweepSeeds(
    scenario,
    fixes,
    seeds,
    (done) => {
      if (progress && (done % 10 === 0 || done === seeds.length))
        process.stderr.write(`\r\x1b[2Kseeds: ${done}/${seeds.length}`);
    },
    a.maxEvents,
  );
  if (progress) process.stderr.write('\r\x1b[2K');
  const wallMs = Math.round((clock() - start) * 10) / 10;
  if (a.json) out(JSON.stringify(sweepToJson(sweep, wallMs)));
  else {
    for (const line of formatSweep(sweep, a.shown, a.color)) out(line);
    process.stderr.write(`seeds: ${seeds.length} runs in ${(wallMs / 1000).toFixed(1)}s wall\n`);
  }
  return sweep.clean === seeds.length ? 0 : 1;
}
