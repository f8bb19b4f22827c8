// Runs one scenario once (a world, a seed, a fix set) and checks every invariant after every fact; and
// checks a scenario's claims (`podrace verify`). Pure with respect to the outside world: no wall clock,
// no I/O. The CLI measures wall time around it.
import { World } from '../cluster/world.js';
import type { Fact } from '../facts.js';
import { Fixes } from '../fixes.js';
import { HazardTracker } from '../invariants/hazards.js';
import { createCheckers, InvariantMonitor } from '../invariants/index.js';
import type { InvariantId, Violation } from '../invariants/types.js';
import { INVARIANT_IDS, isFinding } from '../invariants/types.js';
import type { StopReason } from '../sim/index.js';
import { type Claim, claimFixesLabel, fixesOfClaim, type Scenario } from './types.js';

/** The event budget of one run: a run that hits it reports `max-events` instead of hanging. */
export const DEFAULT_MAX_EVENTS = 2_000_000;

export interface RunOptions {
  readonly fixes: Fixes;
  /** Overrides the scenario's seed. */
  readonly seed?: number | undefined;
  readonly maxEvents?: number | undefined;
  /** Keep every fact (for timelines and traces); off while fuzzing. */
  readonly recordFacts?: boolean | undefined;
}

export interface RunResult {
  readonly scenario: string;
  readonly seed: number;
  readonly fixes: Fixes;
  readonly events: number;
  readonly virtualTimeMs: number;
  readonly outcome: StopReason;
  /** Violations of safety and liveness invariants, in the order they were found. */
  readonly violations: readonly Violation[];
  /** What the informational invariants (FINDING_IDS) recorded; never a failure. */
  readonly findings: readonly Violation[];
  /** Every fact in order, when `recordFacts` was set. */
  readonly facts: readonly Fact[] | undefined;
}

export function runScenario(scenario: Scenario, o: RunOptions): RunResult {
  const seed = o.seed ?? scenario.seed;
  const world = new World({ scenario, seed, fixes: o.fixes });
  const monitor = new InvariantMonitor(
    createCheckers({
      volumes: scenario.volumes.map((v) => ({ name: v.name, accessMode: v.accessMode })),
      faultsActiveAtEnd: () => world.faultsActive(),
      terminationBudgetMs: 0,
    }),
  );
  const facts: Fact[] | undefined = o.recordFacts === true ? [] : undefined;
  const hazards = new HazardTracker();
  world.bus.subscribe((f) => {
    hazards.onFact(f);
    monitor.onFact(f);
  });
  if (facts !== undefined) world.bus.subscribe((f) => facts.push(f));
  world.start();
  const outcome = world.sim.run({
    horizonMs: scenario.horizonMs,
    maxEvents: o.maxEvents ?? DEFAULT_MAX_EVENTS,
  });
  // Entries that never took effect (faults still armed, creates still waiting) are facts of the end.
  world.finish();
  monitor.onEnd(outcome.nowMs);
  const all = monitor.violations().map((v) => {
    const hazard = hazards.explain(v);
    return hazard === null ? v : { ...v, knownOpen: hazard };
  });
  return {
    scenario: scenario.name,
    seed,
    fixes: o.fixes,
    events: outcome.events,
    virtualTimeMs: outcome.nowMs,
    outcome: outcome.reason,
    violations: all.filter((v) => !isFinding(v.invariant)),
    findings: all.filter((v) => isFinding(v.invariant)),
    facts,
  };
}

/** The distinct invariant IDs that fired, in the table's order (findings are not violations). */
export function firedInvariants(result: RunResult): InvariantId[] {
  const fired = new Set(result.violations.map((v) => v.invariant));
  return INVARIANT_IDS.filter((id) => fired.has(id));
}

/** The distinct informational invariants that recorded something, in the table's order. */
export function recordedFindings(result: RunResult): InvariantId[] {
  const fired = new Set(result.findings.map((v) => v.invariant));
  return INVARIANT_IDS.filter((id) => fired.has(id));
}

export interface ClaimResult {
  readonly claim: Claim;
  readonly fixes: Fixes;
  readonly expected: readonly InvariantId[];
  readonly actual: readonly InvariantId[];
  /** The claim's findings (null: the claim does not check them) and what was recorded. */
  readonly expectedFindings: readonly InvariantId[] | null;
  readonly actualFindings: readonly InvariantId[];
  readonly pass: boolean;
  readonly result: RunResult;
}

const sameIds = (a: readonly InvariantId[], b: readonly InvariantId[]): boolean =>
  a.length === b.length && a.every((id, i) => id === b[i]);

/**
 * Runs a claim: its fix set, the scenario's seed; passes if exactly the claimed invariants fire and, when
 * the claim lists findings, exactly those are recorded.
 */
export function checkClaim(scenario: Scenario, claim: Claim, maxEvents?: number): ClaimResult {
  const fixes = fixesOfClaim(claim.fixes);
  const result = runScenario(scenario, { fixes, maxEvents });
  const actual = firedInvariants(result);
  const expected = INVARIANT_IDS.filter((id) => claim.violations.includes(id));
  const actualFindings = recordedFindings(result);
  const expectedFindings =
    claim.findings === null ? null : INVARIANT_IDS.filter((id) => claim.findings?.includes(id) === true);
  const pass =
    sameIds(actual, expected) && (expectedFindings === null || sameIds(actualFindings, expectedFindings));
  return { claim, fixes, expected, actual, expectedFindings, actualFindings, pass, result };
}

export function claimLabel(claim: Claim): string {
  return claimFixesLabel(claim.fixes);
}

export { Fixes };
