// The JSON result (docs/cli.md, "The JSON result"): `run --json` prints one, `fuzz --json` one per line. Key order is
// part of the contract's look and stays as written here; fields may be added at the end, never renamed.
import type { FixId } from '../fixes.js';
import type { InvariantId, Violation } from '../invariants/types.js';
import type { RunResult } from '../run/run.js';
import { isLatencyDeviation, type Schedule, type StopReason } from '../sim/index.js';

export interface ViolationJson {
  readonly invariant: InvariantId;
  readonly atMs: number;
  readonly node: string | null;
  readonly pod: string | null;
  readonly uid: string | null;
  readonly volume: string | null;
  readonly message: string;
  /** The known-open upstream hazard it is tied to (docs/fuzzing.md), or null. */
  readonly knownOpen: string | null;
}

export interface RunResultJson {
  readonly scenario: string;
  readonly seed: number;
  readonly fixes: Record<FixId, boolean>;
  readonly events: number;
  readonly virtualTimeMs: number;
  readonly wallMs: number;
  readonly violations: readonly ViolationJson[];
  /** Claims are checked by `verify`, not by `run` / `fuzz`: always null here. */
  readonly claims: null;
  readonly outcome: StopReason;
  /** Informational invariants that recorded something (not violations; see docs/invariants.md). */
  readonly findings: readonly ViolationJson[];
  /** False when the event budget stopped the run before its horizon: it did not check the rest. */
  readonly complete: boolean;
  /** The event budget it ran with (`--max-events`, else sized from the scenario). */
  readonly maxEvents: number;
  /** Only for a run given `--schedule`: the schedule it followed (`default`: none), in its text form. */
  readonly schedule?: string;
  /** Only with `schedule`: the choice points the run met (src/sim/choices.ts). */
  readonly choicePoints?: number;
  /** Only with `schedule`: the latency draws the run made, each a latency choice point. */
  readonly latencyPoints?: number;
}

/**
 * A schedule's text (src/explore/scheduleText.ts has the parser): `point:pick` and `Lpoint=ms` (or
 * `Lpoint=never`) items, or `default`.
 */
export function scheduleText(s: Schedule): string {
  return s.length === 0
    ? 'default'
    : s
        .map((d) =>
          isLatencyDeviation(d)
            ? `L${d.latencyPoint}=${d.latencyMs === Number.POSITIVE_INFINITY ? 'never' : d.latencyMs}`
            : `${d.point}:${d.pick}`,
        )
        .join(',');
}

export function violationToJson(v: Violation): ViolationJson {
  return {
    invariant: v.invariant,
    atMs: v.atMs,
    node: v.node,
    pod: v.pod,
    uid: v.uid,
    volume: v.volume,
    message: v.message,
    knownOpen: v.knownOpen ?? null,
  };
}

/** The JSON result of one run; `wallMs` is measured by the caller (the CLI). */
export function resultToJson(result: RunResult, wallMs: number): RunResultJson {
  const json: RunResultJson = {
    scenario: result.scenario,
    seed: result.seed,
    fixes: result.fixes.toRecord(),
    events: result.events,
    virtualTimeMs: result.virtualTimeMs,
    wallMs,
    violations: result.violations.map(violationToJson),
    claims: null,
    outcome: result.outcome,
    findings: result.findings.map(violationToJson),
    complete: result.complete,
    maxEvents: result.maxEvents,
  };
  const c = result.choices;
  if (c === undefined) return json;
  return Object.assign(json, {
    schedule: scheduleText(c.schedule),
    choicePoints: c.points,
    latencyPoints: c.latency.points,
  });
}
