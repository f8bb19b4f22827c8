// Invariant identifiers (docs/invariants.md) and the violation record every checker reports.
import type { Fact, FactKind } from '../facts.js';

export const INVARIANT_IDS = [
  'container-started-after-terminated',
  'volume-torn-down-while-running',
  'pod-deleted-while-running',
  'static-pod-overlap',
  'multi-node-mount',
  'device-reported-unused-while-mounted',
  'mount-device-skipped-after-failure',
  'device-leaked-after-unmount',
  'kubelet-panic',
  'node-shutdown-marked-failed',
  'concurrent-kill',
  'grace-period-increased',
  'termination-stuck',
  'pod-never-started',
  'grace-period-not-honoured',
  'pod-deleted-before-volumes-reclaimed',
  'device-released-while-open',
  'volume-detached-while-in-use',
  'pod-status-regressed',
  'mirror-pod-deleted-while-running',
  'pod-cgroup-destroyed-with-volumes',
  'grace-period-exceeded',
  'mount-stacked',
  'pod-deleted-without-request',
  'container-restarted-against-policy',
  'container-started-without-volume',
  'volume-left-attached',
  'volume-in-use-after-unmount',
  'mirror-pod-missing',
  'pod-phase-not-terminal',
  'container-restarted-during-back-off',
  'sandbox-outlived-pod',
  'device-unmounted-while-open',
  'device-left-mounted',
  'pod-rejected-with-room',
] as const;

export type InvariantId = (typeof INVARIANT_IDS)[number];

/**
 * Invariants that record a behaviour rather than forbid one: they are reported as findings (the JSON
 * result's `findings`, a claim's `findings:`), never as violations, and no exit code depends on them.
 * node-shutdown-marked-failed: upstream's graceful node shutdown marks pods Failed on purpose (issue
 * #104531; PRs #106899 / #106900 / #106901 restored it after #102344 dropped it), so it is a release's
 * behaviour to compare, not a safety property.
 */
export const FINDING_IDS = ['node-shutdown-marked-failed'] as const satisfies readonly InvariantId[];

export function isFinding(id: InvariantId): boolean {
  return (FINDING_IDS as readonly InvariantId[]).includes(id);
}

export function isInvariantId(id: string): id is InvariantId {
  return (INVARIANT_IDS as readonly string[]).includes(id);
}

export interface Violation {
  readonly invariant: InvariantId;
  readonly atMs: number;
  readonly node: string | null;
  readonly pod: string | null;
  readonly uid: string | null;
  readonly volume: string | null;
  /** One line: what happened, in kubelet terms. */
  readonly message: string;
  /** The facts that led to it, oldest first (a handful, not the whole run). */
  readonly causes: readonly Fact[];
  /**
   * The known-open upstream hazard (src/invariants/hazards.ts) whose mechanism this violation is tied to;
   * set by the runner, absent when none is.
   */
  readonly knownOpen?: string | undefined;
}

/** A checker sees every fact in order and reports violations; it never steers the simulation. */
export interface Checker {
  readonly id: InvariantId;
  /**
   * The fact kinds `onFact` acts on: the monitor hands it no other (a fact goes to the few checkers that
   * read it, not to all of them). A test checks it against every fact kind the checker's file names.
   */
  readonly kinds: readonly FactKind[];
  onFact(fact: Fact, report: (v: Violation) => void): void;
  /** Called once when the run ends (liveness checks such as termination-stuck). */
  onEnd(endMs: number, report: (v: Violation) => void): void;
}
