// `podrace/testing`: podrace inside a user's own test suite (vitest, jest, node:test). One obvious way to
// do each thing: run a scenario file or a generated scenario with a kubelet, run a fuzz budget that fails
// the test with replayable seeds, or write a fast-check property over the fuzzer's own scenarios (the
// seed and path fast-check reports then replay with `podrace replay --seed S --path P`).
import type fc from 'fast-check';
import { Fixes, type FixId, isFixId, KUBELET_NAMES, type KubeletName } from './fixes.js';
import { scenarioArbitrary } from './fuzz/arbitraries.js';
import { fixFlags, runCampaign } from './fuzz/campaign.js';
import { campaignLines, replayCommand } from './fuzz/campaignJson.js';
import type { InvariantId } from './invariants/types.js';
import { type RunResult, runScenario } from './run/run.js';
import { loadScenarioFile, parseScenarioText } from './scenario/load.js';
import type { Scenario } from './scenario/types.js';

export type { FixId, InvariantId, KubeletName, RunResult, Scenario };

/** Which kubelet: a name (`fixed`, `legacy`, `1.23`, ...) and switches toggled from it. */
export interface KubeletOptions {
  readonly kubelet?: KubeletName;
  readonly fix?: Readonly<Partial<Record<FixId, boolean>>>;
}

/** The fix set of `o`: every fix on by default. Unknown names throw, as the CLI refuses them. */
export function fixesOf(o: KubeletOptions = {}): Fixes {
  const kubelet = o.kubelet ?? 'fixed';
  if (!(KUBELET_NAMES as readonly string[]).includes(kubelet)) {
    throw new Error(`podrace/testing: unknown kubelet "${kubelet}"; one of ${KUBELET_NAMES.join(', ')}`);
  }
  let fixes = Fixes.of(kubelet);
  for (const [id, on] of Object.entries(o.fix ?? {})) {
    if (!isFixId(id)) throw new Error(`podrace/testing: unknown fix "${id}"`);
    if (on !== undefined) fixes = fixes.with(id, on);
  }
  return fixes;
}

/** A scenario file, loaded and checked as `podrace run` does (a bad file throws with file:line:col). */
export function loadScenario(path: string): Scenario {
  return loadScenarioFile(path);
}

/** A scenario from YAML text; `fileName` names it in errors. */
export function parseScenario(text: string, fileName = 'scenario.yaml'): Scenario {
  return parseScenarioText(text, fileName);
}

/** Runs a scenario once (its own seed unless `seed`), with every fact recorded. */
export function run(scenario: Scenario, o: KubeletOptions & { readonly seed?: number } = {}): RunResult {
  return runScenario(scenario, {
    fixes: fixesOf(o),
    recordFacts: true,
    ...(o.seed === undefined ? {} : { seed: o.seed }),
  });
}

/** The invariants that fired in a run, each once, in the order they first fired. */
export function firedInvariants(r: RunResult): InvariantId[] {
  const out: InvariantId[] = [];
  for (const v of r.violations) if (!out.includes(v.invariant)) out.push(v.invariant);
  return out;
}

/**
 * The fuzzer's scenarios, as a fast-check arbitrary. Use it as the only argument of a property:
 * `fc.assert(fc.property(scenarios(), (s) => ...), { seed })`; the seed and path fast-check prints on a
 * failure are then exactly `podrace replay --seed S --path P`'s.
 */
export function scenarios(): fc.Arbitrary<Scenario> {
  return scenarioArbitrary;
}

export interface FuzzBudget extends KubeletOptions {
  /** Cases to run (a bound: 1 to 100,000). */
  readonly runs: number;
  /** Campaign seed; default 1. Pass your CI's seed to vary it and still replay. */
  readonly seed?: number;
  /** Known-open upstream hazards fail too. */
  readonly strict?: boolean;
  /** Shrink budget per failure, in simulator runs (default 200). */
  readonly shrinkRuns?: number;
}

export interface FuzzOutcome {
  readonly ran: number;
  /** 0: nothing unexplained, 1: a violation, 3: a podrace bug (as `podrace fuzz`). */
  readonly exitCode: number;
  /** The first failing case of each kind, shrunk: what to replay. */
  readonly failures: readonly {
    readonly invariant: string;
    readonly case: number;
    readonly path: string;
    readonly replay: string;
    readonly yaml: string;
  }[];
}

/** Runs a fuzz campaign in this thread and returns what `podrace fuzz --json` would summarise. */
export async function fuzz(o: FuzzBudget): Promise<FuzzOutcome> {
  if (!Number.isInteger(o.runs) || o.runs < 1 || o.runs > 100_000) {
    throw new Error(`podrace/testing: runs must be a whole number from 1 to 100000, got ${o.runs}`);
  }
  const fixes = fixesOf(o);
  const seed = o.seed ?? 1;
  const shrinkRuns = o.shrinkRuns ?? 200;
  const report = await runCampaign({ seed, runs: o.runs, fixes, shrink: 3, shrinkRuns, workerUrl: null });
  const lines = campaignLines(report, {
    files: report.failures.map((f) => f.fileName),
    wallMs: 0,
    version: 'testing',
    shrink: 3,
    shrinkRuns,
    strict: o.strict ?? false,
  });
  return {
    ran: lines.summary.ran,
    exitCode: lines.summary.exitCode,
    failures: report.failures.map((f) => ({
      invariant: f.kind,
      case: f.caseIndex,
      path: f.shrink.path,
      replay: replayCommand(seed, f.shrink.path, fixes),
      yaml: f.yaml,
    })),
  };
}

/**
 * Runs a fuzz budget and throws, as a failed assertion, when the campaign would exit non-zero: the
 * message names each failure's invariant and the command that replays it.
 */
export async function expectNoViolations(o: FuzzBudget): Promise<void> {
  const out = await fuzz(o);
  if (out.exitCode === 0) return;
  const lines = out.failures.map((f) => `  ${f.invariant} (case ${f.case}): ${f.replay}`);
  throw new Error(
    [
      `podrace: ${out.exitCode === 3 ? 'a podrace bug' : 'violations'} in ${out.ran} case(s) with ${fixFlags(fixesOf(o)).join(' ') || 'every fix on'}:`,
      ...lines,
    ].join('\n'),
  );
}
