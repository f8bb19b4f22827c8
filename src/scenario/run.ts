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
  /**
   * Skip the rounds of idle polling loops (default true; src/sim/elision.ts). False runs every round, the
   * plain way (`--no-elide`): the same violations and facts, more events.
   */
  readonly elide?: boolean | undefined;
  /**
   * Stop the run (outcome `stopped`) once every one of these invariants has fired: a caller that only
   * asks whether they fire again (the differential oracle) need not run to the horizon.
   */
  readonly stopOnceFired?: readonly InvariantId[] | undefined;
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

/**
 * Whether runs that do not say (`RunOptions.elide` undefined) skip idle loop rounds. The CLI's
 * `--no-elide` turns it off for the whole process (and a fuzz campaign passes it on to its workers), so
 * every run of a command, shrinking and the oracle included, goes the plain way.
 */
let elideByDefault = true;

export function setElisionDefault(on: boolean): void {
  elideByDefault = on;
}

export function elisionDefault(): boolean {
  return elideByDefault;
}

export function runScenario(scenario: Scenario, o: RunOptions): RunResult {
  const seed = o.seed ?? scenario.seed;
  const world = new World({ scenario, seed, fixes: o.fixes, elide: o.elide ?? elideByDefault });
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
  const stopSet = o.stopOnceFired;
  if (stopSet !== undefined && stopSet.length > 0) {
    let checked = 0;
    world.bus.subscribe(() => {
      if (monitor.count === checked) return;
      checked = monitor.count;
      const fired = new Set(monitor.violations().map((v) => v.invariant));
      if (stopSet.every((id) => fired.has(id))) world.sim.stop();
    });
  }
  world.start();
  const outcome = world.sim.run({
    horizonMs: scenario.horizonMs,
    maxEvents: o.maxEvents ?? DEFAULT_MAX_EVENTS,
  });
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
