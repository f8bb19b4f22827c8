// A fuzz campaign: case i of campaign seed S is fast-check's run i of seed S over the scenario generator
// (src/fuzz/arbitraries.ts), so it depends on (S, i) only: not on --workers, --shard or which cases ran
// before it. Cases run with one fix set; every invariant is checked; the best-ranked kinds of failure
// (src/fuzz/rank.ts: what the user's switches close first) are shrunk with fast-check, each from the case
// of its best find, written back as YAML, loaded again and re-run to prove the file reproduces it. Pure with respect to the outside world (no clock, no files): the CLI
// injects the clock (time limit, progress) and writes the files.
import { FIX_IDS, Fixes, type FixId } from '../fixes.js';
import { INVARIANT_IDS, type InvariantId } from '../invariants/types.js';
import { type ViolationJson, violationToJson } from '../report/json.js';
import type { RunResult } from '../run/run.js';
import { elisionDefault } from '../scenario/elisionDefault.js';
import { claimFixesOf, fixFlags, replayCommand } from '../scenario/fixFlags.js';
import { parseScenarioText, scenarioToYaml } from '../scenario/load.js';
import type { Scenario } from '../scenario/types.js';
import type { StopReason } from '../sim/index.js';
import { type DeterminismCheck, determinismCheck, nondeterminismError, runDigest } from './determinism.js';
import { type ClosedBy, closingSwitches } from './oracle.js';
import { runPool, type WorkerSetup } from './pool.js';
import { failureKindsOf, type RankedFind, rankFinds } from './rank.js';
import {
  DEFAULT_SHRINK_RUNS,
  type FailureKind,
  type GuardedRun,
  MAX_RUNS,
  runGuarded,
  type ShrinkOutcome,
  scenariosOfCases,
  showsFailure,
  shrinkCase,
} from './shrink.js';

export interface CaseOutcome {
  /** The case index i (its fast-check path is `i`). */
  readonly index: number;
  readonly scenarioSeed: number;
  /** Distinct invariants that fired, in INVARIANT_IDS order. */
  readonly fired: readonly InvariantId[];
  /** The fired invariants explained by a known-open upstream hazard the case sets up (knownOpenHazard). */
  readonly knownOpen: readonly InvariantId[];
  readonly violations: readonly ViolationJson[];
  readonly events: number;
  readonly virtualTimeMs: number;
  /**
   * How the run stopped; 'error': the simulator threw, 'nondeterministic': two runs of the case differed
   * (--check-determinism); both are podrace bugs, described in `error`.
   */
  readonly outcome: StopReason | 'error' | 'nondeterministic';
  readonly error: string | null;
  /**
   * The differential oracle (with the campaign's `oracle`): per invariant that fired, the switches whose
   * flip closes it; null when the oracle did not run.
   */
  readonly closedBy: ClosedBy | null;
  /**
   * Wall time of the case itself in ms (its run, its oracle runs, its second run with
   * --check-determinism), measured by the host's clock in the thread that ran it; 0 without a clock.
   * The only field that differs between two identical campaigns.
   */
  readonly wallMs: number;
  /** With --check-determinism: the first run's digest (runDigest), which the second run matched or not. */
  readonly digest?: string;
}

// ---- cases ------------------------------------------------------------------------------------------------

/** Shard I/N (1-based) holds the cases i with i % N == I - 1. */
export interface Shard {
  readonly index: number;
  readonly count: number;
}

/**
 * The cases of a campaign of `runs` cases that belong to `shard` (all of them without one), without
 * listing them: memory must not depend on --runs. Position p of the shard is case first + p * count.
 */
export interface CaseRange {
  /** How many cases the shard has. */
  readonly size: number;
  /** The case index at position `p` (0 <= p < size). */
  caseAt(p: number): number;
}

export function shardRange(runs: number, shard?: Shard): CaseRange {
  const count = shard?.count ?? 1;
  const first = (shard?.index ?? 1) - 1;
  const size = first >= runs ? 0 : Math.floor((runs - 1 - first) / count) + 1;
  return { size, caseAt: (p) => first + p * count };
}

function outcomeOf(
  index: number,
  scenario: Scenario,
  run: GuardedRun,
  fixes: Fixes,
  oracle: boolean,
): CaseOutcome {
  if (!run.ok) {
    return {
      index,
      scenarioSeed: scenario.seed,
      fired: [],
      knownOpen: [],
      violations: [],
      events: 0,
      virtualTimeMs: 0,
      outcome: 'error',
      error: run.error,
      closedBy: null,
      wallMs: 0,
    };
  }
  const r = run.result;
  const fired = INVARIANT_IDS.filter((id) => r.violations.some((v) => v.invariant === id));
  // An invariant counts as known-open in this case only if every violation of it is tied to a known-open
  // upstream hazard's mechanism (src/invariants/hazards.ts).
  const knownOpen = fired.filter((id) =>
    r.violations.filter((v) => v.invariant === id).every((v) => v.knownOpen !== undefined),
  );
  return {
    index,
    scenarioSeed: scenario.seed,
    fired,
    knownOpen,
    violations: r.violations.map(violationToJson),
    events: r.events,
    virtualTimeMs: r.virtualTimeMs,
    outcome: r.outcome,
    error: null,
    closedBy:
      oracle && fired.length > 0
        ? closingSwitches(
            scenario,
            fixes,
            fired,
            (sc, f, stop) => {
              const g = runGuarded(sc, f, false, stop);
              return g.ok ? g.result : undefined;
            },
            scenario.seed,
            r,
          ).closedBy
        : null,
    wallMs: 0,
  };
}

/**
 * Runs cases `cases` (ascending) of the campaign: what a worker does with a chunk. With
 * checkDeterminism every case runs again after the whole chunk, in reverse order, and a case whose two
 * runs differ becomes a simulator error (src/fuzz/determinism.ts). `now`, a wall clock the host passes
 * (the CLI's thread, or a worker thread's entry), times each case on its own: its run, its oracle runs
 * and its second run; it is read around the runs, never inside them, and only wallMs holds what it says.
 */
export function runCaseChunk(
  setup: WorkerSetup,
  cases: readonly number[],
  now?: () => number,
): CaseOutcome[] {
  const fixes = new Fixes(setup.fixes, undefined, undefined, setup.base);
  const scenarios = scenariosOfCases(setup.seed, cases);
  const check = setup.checkDeterminism === true;
  const spent: number[] = scenarios.map(() => 0);
  const timed = <T>(k: number, work: () => T): T => {
    const start = now?.();
    const out = work();
    if (start !== undefined && now !== undefined) spent[k] = (spent[k] ?? 0) + (now() - start);
    return out;
  };
  const runs: GuardedRun[] = [];
  const outcomes = scenarios.map((s, k) =>
    timed(k, () => {
      const run = runGuarded(s, fixes, check);
      runs.push(run);
      return outcomeOf(cases[k] ?? -1, s, run, fixes, setup.oracle);
    }),
  );
  const withTime = (o: CaseOutcome, k: number): CaseOutcome =>
    now === undefined ? o : { ...o, wallMs: Math.round((spent[k] ?? 0) * 10) / 10 };
  if (!check) return outcomes.map(withTime);
  const digestOf = (g: GuardedRun): string =>
    g.ok ? runDigest(g.result) : `threw: ${g.error.split('\n')[0]}`;
  const first = runs.map(digestOf);
  const second: string[] = new Array<string>(scenarios.length);
  for (let k = scenarios.length - 1; k >= 0; k--) {
    second[k] = timed(k, () => digestOf(runGuarded(scenarios[k] as Scenario, fixes, true)));
  }
  return outcomes.map((o, k) => {
    const digest = first[k] ?? '';
    return withTime(
      first[k] === second[k]
        ? { ...o, digest }
        : {
            ...o,
            outcome: 'nondeterministic',
            error: nondeterminismError(first[k] ?? '', second[k] ?? ''),
            digest,
          },
      k,
    );
  });
}

// ---- replay flags and claims ------------------------------------------------------------------------------

export { claimFixesOf, fixFlags, PODRACE_COMMAND, replayCommand } from '../scenario/fixFlags.js';

// ---- the campaign -----------------------------------------------------------------------------------------

export interface CampaignOptions {
  readonly seed: number;
  /** The campaign's size: cases 0 ... runs-1 (a shard runs its share of them). */
  readonly runs: number;
  readonly fixes: Fixes;
  readonly shard?: Shard | undefined;
  readonly workers?: number;
  readonly chunkSize?: number;
  /**
   * The switches the user changed from the --kubelet preset (changedSwitches in src/fuzz/rank.ts): the
   * finds that flipping one of them back closes are ranked, shrunk and written first.
   */
  readonly changed?: readonly FixId[];
  /** How many kinds of failure to shrink and write (the best-ranked ones, src/fuzz/rank.ts). */
  readonly shrink?: number;
  /** Simulator runs per shrink. */
  readonly shrinkRuns?: number;
  /** The clock-dependent hooks, all injected by the CLI. */
  readonly shouldStop?: () => boolean;
  readonly onChunk?: (done: number, results: readonly CaseOutcome[]) => void;
  readonly onShrink?: (kind: FailureKind, index: number) => void;
  readonly now?: () => number;
  /** Run the differential oracle on every failing case (default true). */
  readonly oracle?: boolean;
  /** Lets the host's event loop run between chunks and shrink steps (signals); see PoolOptions. */
  readonly yieldToHost?: () => Promise<void>;
  /**
   * Calls `check` every `ms` of the host's wall clock until the returned function is called (the CLI passes
   * setInterval): with worker threads, lets shouldStop end the campaign while workers are still starting.
   */
  readonly every?: (ms: number, check: () => void) => () => void;
  /** Run every case twice and compare digests (--check-determinism). */
  readonly checkDeterminism?: boolean;
  /** Where the worker script is (null: run in this thread); default: beside pool.js when built. */
  readonly workerUrl?: URL | null;
}

export interface KindStats {
  readonly kind: FailureKind;
  /** Cases in which it fired. */
  readonly cases: number;
  /** ... of which it was explained by a known-open upstream hazard. */
  readonly knownOpen: number;
  readonly firstCase: number;
  /** ... in which some switch's flip closed it (the differential oracle; 0 without it). */
  readonly fixSensitive: number;
  /** The switches that closed it in some case, with how many cases each (FIX_IDS order). */
  readonly closedBy: Readonly<Partial<Record<FixId, number>>>;
  /** The first case in which a switch closed it, or null. */
  readonly firstFixSensitiveCase: number | null;
}

export interface CampaignFailure {
  readonly kind: FailureKind;
  /** The case shrunk: the case of the kind's best find (src/fuzz/rank.ts; its unshrunk path is its index). */
  readonly caseIndex: number;
  /** The switch whose flip closes the minimal case (kept through shrinking), or null. */
  readonly closedBy: FixId | null;
  readonly shrink: ShrinkOutcome;
  /** `<kind>-<seed>-<case>.yaml` */
  readonly fileName: string;
  /** The minimal scenario as written, named like the file, with a claim recording what fired. */
  readonly scenario: Scenario;
  readonly yaml: string;
  /** The run of the YAML loaded back (what `podrace run FILE` with the same fixes shows), with facts. */
  readonly run: GuardedRun;
  /** That run shows the failure: the file reproduces it. */
  readonly reproduces: boolean;
}

export interface CampaignReport {
  readonly seed: number;
  readonly runs: number;
  readonly shard: Shard | undefined;
  readonly fixes: Fixes;
  /** The switches the user changed from the --kubelet preset (changedSwitches): their finds rank first. */
  readonly changed: readonly FixId[];
  /** How many cases this shard holds. */
  readonly planned: number;
  /** Results of the cases that ran, in case order (a prefix of the shard's cases). */
  readonly results: readonly CaseOutcome[];
  /** The time limit stopped it before every case ran. */
  readonly stopped: boolean;
  /** Worker threads used (0: in this thread). */
  readonly threads: number;
  /** Per kind of failure, in order of first appearance (case order). */
  readonly kinds: readonly KindStats[];
  /** Every kind of failure, best first (src/fuzz/rank.ts): the first --shrink of them are shrunk. */
  readonly ranked: readonly RankedFind[];
  readonly failures: readonly CampaignFailure[];
  /** What --check-determinism compared and found, or null without it. */
  readonly determinism: DeterminismCheck | null;
}

export { failureKindsOf } from './rank.js';

export function kindStats(results: readonly CaseOutcome[]): KindStats[] {
  interface Acc {
    cases: number;
    knownOpen: number;
    firstCase: number;
    fixSensitive: number;
    closedBy: Partial<Record<FixId, number>>;
    firstFixSensitiveCase: number | null;
  }
  const stats = new Map<FailureKind, Acc>();
  for (const r of results) {
    for (const kind of failureKindsOf(r)) {
      const s: Acc = stats.get(kind) ?? {
        cases: 0,
        knownOpen: 0,
        firstCase: r.index,
        fixSensitive: 0,
        closedBy: {},
        firstFixSensitiveCase: null,
      };
      s.cases++;
      if (kind !== 'simulator-error' && kind !== 'nondeterminism' && r.knownOpen.includes(kind))
        s.knownOpen++;
      const closing =
        kind === 'simulator-error' || kind === 'nondeterminism' ? undefined : r.closedBy?.[kind];
      if (closing !== undefined && closing.length > 0) {
        s.fixSensitive++;
        s.firstFixSensitiveCase ??= r.index;
        for (const id of closing) s.closedBy[id] = (s.closedBy[id] ?? 0) + 1;
      }
      stats.set(kind, s);
    }
  }
  return [...stats.entries()].map(([kind, s]) => ({
    kind,
    ...s,
    closedBy: Object.fromEntries(
      FIX_IDS.flatMap((id) => (s.closedBy[id] === undefined ? [] : [[id, s.closedBy[id]]])),
    ),
  }));
}

/** A failure the campaign shrinks: its kind, the case it starts from, and the switch it must keep closing. */
export interface FailurePick {
  readonly kind: FailureKind;
  readonly caseIndex: number;
  readonly closedBy: FixId | null;
}

/**
 * Which failures a campaign shrinks (--shrink N of them), and from which case: the first N kinds in
 * rankFinds' order (src/fuzz/rank.ts), each from the case of its best find. Nondeterminism shows only
 * across two runs: it is reported with both digests, never shrunk.
 */
export function failurePicks(ranked: readonly RankedFind[], shrink: number): FailurePick[] {
  return ranked
    .filter((k) => k.kind !== 'nondeterminism')
    .slice(0, Math.max(0, shrink))
    .map((k) => ({ kind: k.kind, caseIndex: k.caseIndex, closedBy: k.closedBy }));
}

/**
 * `<kind>-<seed>-<case>.yaml`; `hazard-<kind>-<seed>-<case>.yaml` when every violation of the kind in the
 * minimal run is a known-open upstream hazard: a campaign that passes writes no file called a failure.
 */
export function failureFileName(kind: FailureKind, seed: number, caseIndex: number, hazard = false): string {
  return `${hazard ? 'hazard-' : ''}${kind}-${seed}-${caseIndex}.yaml`;
}

/** The known-open hazard of the first violation of `kind` in a run, when a hazard explains each of them. */
function hazardOf(run: GuardedRun, kind: FailureKind): string | undefined {
  if (!run.ok) return undefined;
  const of = run.result.violations.filter((v) => v.invariant === kind);
  return of.every((v) => v.knownOpen !== undefined) ? of[0]?.knownOpen : undefined;
}

/**
 * Shrinks case `caseIndex` for `kind`, writes the result as YAML, loads it back and re-runs it. With
 * `closedBy` (a switch whose flip closed `kind` in that case) every shrink step must keep it closed, and
 * the file gets a second claim: the same run with that switch flipped, without `kind`.
 */
export async function minimalFailure(
  seed: number,
  caseIndex: number,
  fixes: Fixes,
  kind: FailureKind,
  o: {
    shrinkRuns?: number | undefined;
    shouldStop?: (() => boolean) | undefined;
    closedBy?: FixId | undefined;
    yieldToHost?: (() => Promise<void>) | undefined;
  } = {},
): Promise<CampaignFailure> {
  const flipped = o.closedBy === undefined ? undefined : fixes.with(o.closedBy, !fixes.on(o.closedBy));
  const shrink = await shrinkCase({
    seed,
    path: String(caseIndex),
    fixes,
    kind,
    maxRuns: o.shrinkRuns ?? DEFAULT_SHRINK_RUNS,
    ...(o.shouldStop === undefined ? {} : { shouldStop: o.shouldStop }),
    ...(flipped === undefined ? {} : { closedWith: flipped }),
    ...(o.yieldToHost === undefined ? {} : { yieldToHost: o.yieldToHost }),
  });
  const firedIn = (r: GuardedRun): InvariantId[] | undefined =>
    r.ok ? INVARIANT_IDS.filter((id) => r.result.violations.some((v) => v.invariant === id)) : undefined;
  const minimal = runGuarded(shrink.scenario, fixes);
  const fired = firedIn(minimal);
  const contrast = flipped === undefined ? undefined : firedIn(runGuarded(shrink.scenario, flipped));
  const hazard = hazardOf(minimal, kind);
  const fileName = failureFileName(kind, seed, caseIndex, hazard !== undefined);
  const what =
    kind === 'simulator-error'
      ? 'the simulator throws (a podrace bug)'
      : `${kind} fires${hazard === undefined ? '' : `, the known-open upstream hazard ${hazard}`}`;
  const closing =
    o.closedBy === undefined || contrast === undefined
      ? ''
      : ` Turning ${o.closedBy} ${fixes.on(o.closedBy) ? 'off' : 'on'} closes it.`;
  const scenario: Scenario = {
    ...shrink.scenario,
    name: fileName.replace(/\.yaml$/, ''),
    description: [
      `Found by podrace fuzz --seed ${seed} ${fixFlags(fixes).join(' ')} (case ${caseIndex}), shrunk by fast-check`,
      `to path ${shrink.path}: with fixes ${fixes.label()}, ${what}.${closing}`,
      `Replay: ${replayCommand(seed, shrink.path, fixes)}`,
    ]
      .join(' ')
      .replace(/ {2,}/g, ' ')
      .trim(),
    claims: [
      ...(fired === undefined
        ? []
        : [{ line: 0, fixes: claimFixesOf(fixes), violations: fired, findings: null }]),
      ...(flipped === undefined || contrast === undefined
        ? []
        : [{ line: 0, fixes: claimFixesOf(flipped), violations: contrast, findings: null }]),
    ],
  };
  const yaml = scenarioToYaml(scenario);
  let run: GuardedRun;
  try {
    run = runGuarded(parseScenarioText(yaml, fileName), fixes, true);
  } catch (err) {
    run = { ok: false, error: `the written scenario does not load: ${String(err)}` };
  }
  return {
    kind,
    caseIndex,
    closedBy: contrast === undefined ? null : (o.closedBy ?? null),
    shrink,
    fileName,
    scenario,
    yaml,
    run,
    reproduces: showsFailure(run, kind),
  };
}

export async function runCampaign(o: CampaignOptions): Promise<CampaignReport> {
  if (!Number.isSafeInteger(o.runs) || o.runs < 1 || o.runs > MAX_RUNS) {
    throw new Error(`runCampaign: runs must be 1 ... ${MAX_RUNS}, got ${o.runs}`);
  }
  const cases = shardRange(o.runs, o.shard);
  const setup: WorkerSetup = {
    seed: o.seed,
    fixes: FIX_IDS.filter((id) => o.fixes.on(id)),
    base: o.fixes.base,
    oracle: o.oracle ?? true,
    checkDeterminism: o.checkDeterminism ?? false,
    elide: elisionDefault(),
  };
  const pool = await runPool({
    setup,
    cases,
    workers: o.workers ?? 1,
    runInProcess: runCaseChunk,
    ...(o.chunkSize === undefined ? {} : { chunkSize: o.chunkSize }),
    ...(o.shouldStop === undefined ? {} : { shouldStop: o.shouldStop }),
    ...(o.onChunk === undefined ? {} : { onChunk: o.onChunk }),
    ...(o.now === undefined ? {} : { now: o.now }),
    ...(o.workerUrl === undefined ? {} : { workerUrl: o.workerUrl }),
    ...(o.yieldToHost === undefined ? {} : { yieldToHost: o.yieldToHost }),
    ...(o.every === undefined ? {} : { every: o.every }),
  });
  const kinds = kindStats(pool.results);
  const changed = o.changed ?? [];
  const ranked = rankFinds(pool.results, changed);
  const failures: CampaignFailure[] = [];
  for (const pick of failurePicks(ranked, o.shrink ?? 1)) {
    o.onShrink?.(pick.kind, pick.caseIndex);
    failures.push(
      await minimalFailure(o.seed, pick.caseIndex, o.fixes, pick.kind, {
        shrinkRuns: o.shrinkRuns,
        shouldStop: o.shouldStop,
        closedBy: pick.closedBy ?? undefined,
        yieldToHost: o.yieldToHost,
      }),
    );
  }
  return {
    seed: o.seed,
    runs: o.runs,
    shard: o.shard,
    fixes: o.fixes,
    changed,
    planned: cases.size,
    results: pool.results,
    stopped: pool.stopped,
    threads: pool.threads,
    kinds,
    ranked,
    failures,
    determinism: setup.checkDeterminism === true ? determinismCheck(pool.results) : null,
  };
}

/** The minimal failure's run result, when the simulator did not throw. */
export function failureResult(f: CampaignFailure): RunResult | undefined {
  return f.run.ok ? f.run.result : undefined;
}
