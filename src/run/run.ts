// Runs one scenario once (a world, a seed, a fix set) and checks every invariant after every fact; and
// checks a scenario's claims (`podrace verify`). Pure with respect to the outside world: no wall clock,
// no I/O. The CLI measures wall time around it.
import { World } from '../cluster/world.js';
import type { Fact } from '../facts.js';
import { FIX_IDS, Fixes, type FixId } from '../fixes.js';
import { HazardTracker } from '../invariants/hazards.js';
import { createCheckers, InvariantMonitor } from '../invariants/index.js';
import type { InvariantId, Violation } from '../invariants/types.js';
import { INVARIANT_IDS, isFinding } from '../invariants/types.js';
import { elisionDefault } from '../scenario/elisionDefault.js';
import { type Claim, claimFixesLabel, fixesOfClaim, type Scenario } from '../scenario/types.js';
import {
  type ChoiceLog,
  ChoiceRun,
  LatencyLog,
  type Misfit,
  type Schedule,
  type StopReason,
} from '../sim/index.js';

/** The event budget of one run: a run that hits it reports `max-events` instead of hanging. */
export const DEFAULT_MAX_EVENTS = 2_000_000;
/**
 * What a scenario's default budget adds per node per virtual second and per pod. The kubelet's periodic
 * loops publish some 30 to 40 events per node-second when nothing happens, and a pod's lifecycle a few
 * hundred: the margins keep every scenario within the format's bounds well inside its budget.
 */
const EVENTS_PER_NODE_SECOND = 100;
const EVENTS_PER_POD = 2_000;

/**
 * The default event budget of a scenario: enough for its horizon on its nodes and its pods, so that only a
 * livelock runs out of it. `--max-events` overrides it.
 */
export function defaultMaxEvents(scenario: Scenario): number {
  const pods = scenario.timeline.reduce((n, e) => n + (e.action.kind === 'createPod' ? 1 : 0), 0);
  const nodeSeconds = Math.max(1, scenario.nodes.length) * Math.ceil(scenario.horizonMs / 1000);
  return DEFAULT_MAX_EVENTS + EVENTS_PER_NODE_SECOND * nodeSeconds + EVENTS_PER_POD * pods;
}

/**
 * Whether a run checked what it was asked to: it reached its horizon, or nothing was left to happen. A run
 * stopped by the event budget (or a stop request) before that never passes.
 */
export function runComplete(outcome: StopReason): boolean {
  return outcome === 'horizon' || outcome === 'idle';
}

/** The line that says a run was cut short by its event budget, and how to give it more. */
export function incompleteLine(result: RunResult): string {
  return `INCOMPLETE: the event budget (${result.maxEvents} events) ran out at ${(result.virtualTimeMs / 1000).toFixed(3)}s of the ${(result.horizonMs / 1000).toFixed(0)}s horizon; nothing after that was checked (raise it with --max-events N)`;
}

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
  /**
   * Follow this schedule of same-instant choices (src/sim/choices.ts; `run --schedule`, explore). The run
   * goes the plain way (elision off) and records its choice points; undefined: the kernel's own loops.
   */
  readonly schedule?: Schedule | undefined;
  /** With a schedule: record each latency draw's candidate values (explore --latencies). */
  readonly collectLatencies?: boolean | undefined;
  /**
   * With a schedule: record its choice log (default true). Off, the result's log is empty: for a caller
   * that only wants the run's outcome (explore's runs of schedules it expands later by running them again).
   */
  readonly recordChoices?: boolean | undefined;
}

export interface RunResult {
  readonly scenario: string;
  readonly seed: number;
  readonly fixes: Fixes;
  readonly events: number;
  readonly virtualTimeMs: number;
  readonly outcome: StopReason;
  /** It reached its horizon (or went idle): false when the event budget cut it short (runComplete). */
  readonly complete: boolean;
  /** The event budget it ran with. */
  readonly maxEvents: number;
  /** The scenario's horizon (virtual ms). */
  readonly horizonMs: number;
  /** Violations of safety and liveness invariants, in the order they were found. */
  readonly violations: readonly Violation[];
  /** What the informational invariants (FINDING_IDS) recorded; never a failure. */
  readonly findings: readonly Violation[];
  /** Every fact in order, when `recordFacts` was set. */
  readonly facts: readonly Fact[] | undefined;
  /**
   * The fix switches the run read (FIX_IDS order). Flipping any other gives the very same run, since a
   * run is a function of its scenario, seed and the switches it read.
   */
  readonly fixesRead: readonly FixId[];
  /** The virtual time of the run's first read of each switch it read: the run is the same up to it. */
  readonly fixesFirstReadMs: Readonly<Partial<Record<FixId, number>>>;
  /**
   * The virtual time at which each invariant first fired while the run went on (not in the end-of-run
   * checks): a flip first read after it gives that violation again.
   */
  readonly firedDuringRunAtMs: Readonly<Partial<Record<InvariantId, number>>>;
  /**
   * Not run again: this is the run under these fixes (sameRunUnder), which differ from `fixes` only in
   * switches the run never read.
   */
  readonly sharedWith?: Fixes;
  /** With a schedule: what the run followed, its choice points and footprints, and a misfit if any. */
  readonly choices?: ScheduleOutcome;
}

export interface ScheduleOutcome {
  readonly schedule: Schedule;
  /** Choice points the run met. */
  readonly points: number;
  readonly log: ChoiceLog;
  /** The latency draws it made, each a latency choice point (src/sim/latencyChoices.ts). */
  readonly latency: LatencyLog;
  /** The first deviation that does not fit the run (the run stopped there, or never reached it). */
  readonly misfit: Misfit | undefined;
}

export function runScenario(scenario: Scenario, o: RunOptions): RunResult {
  const seed = o.seed ?? scenario.seed;
  const reads = new Map<FixId, number>();
  // The world reads switches while it is built (at time 0), before `world` exists.
  let clock: { readonly nowMs: number } = { nowMs: 0 };
  const fixes = o.fixes.recording(reads, () => clock.nowMs);
  const world = new World({
    scenario,
    seed,
    fixes,
    // A schedule's choice points are those of the elided run (src/sim/choices.ts), whatever the default.
    elide: o.schedule === undefined ? (o.elide ?? elisionDefault()) : true,
  });
  clock = world.sim;
  const choices =
    o.schedule === undefined
      ? undefined
      : new ChoiceRun(o.schedule, o.collectLatencies === true, o.recordChoices !== false);
  if (choices !== undefined) world.sim.setChoices(choices);
  const monitor = new InvariantMonitor(
    createCheckers({
      volumes: scenario.volumes.map((v) => ({ name: v.name, accessMode: v.accessMode })),
      faultsActiveAtEnd: () => world.faultsActive(),
      podVolumeMounts: (node, uid) => world.podVolumeMounts(node, uid),
      nodeAllocatable: scenario.nodeAllocatable,
      disableForceDetachOnTimeout: scenario.controllerManager?.disableForceDetachOnTimeout === true,
    }),
  );
  const facts: Fact[] | undefined = o.recordFacts === true ? [] : undefined;
  const hazards = new HazardTracker(fixes);
  const firedDuringRunAtMs: Partial<Record<InvariantId, number>> = {};
  let reported = 0;
  world.bus.subscribe((f) => {
    hazards.onFact(f);
    monitor.onFact(f);
    if (monitor.count === reported) return;
    for (const v of monitor.violations().slice(reported)) firedDuringRunAtMs[v.invariant] ??= world.sim.nowMs;
    reported = monitor.count;
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
  const maxEvents = o.maxEvents ?? defaultMaxEvents(scenario);
  const outcome = world.sim.run({ horizonMs: scenario.horizonMs, maxEvents });
  // Entries that never took effect (faults still armed, creates still waiting) are facts of the end.
  world.finish();
  monitor.onEnd(outcome.nowMs);
  const all = monitor.violations().map((v) => {
    const hazard = hazards.explain(v);
    return hazard === null ? v : { ...v, knownOpen: hazard };
  });
  const result: RunResult = {
    scenario: scenario.name,
    seed,
    fixes: o.fixes,
    events: outcome.events,
    virtualTimeMs: outcome.nowMs,
    outcome: outcome.reason,
    complete: runComplete(outcome.reason),
    maxEvents,
    horizonMs: scenario.horizonMs,
    violations: all.filter((v) => !isFinding(v.invariant)),
    findings: all.filter((v) => isFinding(v.invariant)),
    facts,
    fixesRead: FIX_IDS.filter((id) => reads.has(id)),
    fixesFirstReadMs: firstReadsInFixOrder(reads),
    firedDuringRunAtMs,
  };
  if (choices === undefined) return result;
  return Object.assign(result, {
    choices: {
      schedule: choices.schedule,
      points: choices.points,
      log: choices.log,
      latency: choices.latency?.log ?? new LatencyLog(),
      misfit: choices.misfit,
    },
  });
}

/**
 * The switches' first reads keyed in FIX_IDS order (a loop: Object.fromEntries of a flatMap was 0.6% of a
 * campaign's profile, paid by every run).
 */
function firstReadsInFixOrder(reads: ReadonlyMap<FixId, number>): Partial<Record<FixId, number>> {
  const out: Partial<Record<FixId, number>> = {};
  for (const id of FIX_IDS) {
    const ms = reads.get(id);
    if (ms !== undefined) out[id] = ms;
  }
  return out;
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
 * Runs a claim: its fix set, the scenario's seed; passes if the run completed, exactly the claimed
 * invariants fire and, when the claim lists findings, exactly those are recorded. A run cut short by its
 * event budget checked nothing after that point: its claim fails.
 */
export function checkClaim(
  scenario: Scenario,
  claim: Claim,
  maxEvents?: number,
  earlier: readonly RunResult[] = [],
): ClaimResult {
  const fixes = fixesOfClaim(claim.fixes);
  const shared = earlier.find((r) => sameRunUnder(r, fixes));
  const result =
    shared === undefined
      ? runScenario(scenario, { fixes, maxEvents })
      : { ...shared, fixes, sharedWith: shared.fixes };
  const actual = firedInvariants(result);
  const expected = INVARIANT_IDS.filter((id) => claim.violations.includes(id));
  const actualFindings = recordedFindings(result);
  const expectedFindings =
    claim.findings === null ? null : INVARIANT_IDS.filter((id) => claim.findings?.includes(id) === true);
  const pass =
    result.complete &&
    sameIds(actual, expected) &&
    (expectedFindings === null || sameIds(actualFindings, expectedFindings));
  return { claim, fixes, expected, actual, expectedFindings, actualFindings, pass, result };
}

/**
 * Whether `run` is also the run of its scenario and seed under `fixes`: a run is a function of them and of
 * the switches it read, so switches it never read may differ. Claims of one scenario share runs this way
 * (verify of a scenario with many claims runs it once per distinct outcome of what the kubelet reads).
 */
export function sameRunUnder(run: RunResult, fixes: Fixes): boolean {
  for (const id of FIX_IDS)
    if (run.fixes.on(id) !== fixes.on(id) && run.fixesFirstReadMs[id] !== undefined) return false;
  return true;
}

export function claimLabel(claim: Claim): string {
  return claimFixesLabel(claim.fixes);
}

export { Fixes };
