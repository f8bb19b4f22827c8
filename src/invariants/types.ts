// Invariant identifiers (SPEC section 5) and the violation record every checker reports.
import type { Fact } from '../facts.js';

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
] as const;

export type InvariantId = (typeof INVARIANT_IDS)[number];

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
}

/** A checker sees every fact in order and reports violations; it never steers the simulation. */
export interface Checker {
  readonly id: InvariantId;
  onFact(fact: Fact, report: (v: Violation) => void): void;
  /** Called once when the run ends (liveness checks such as termination-stuck). */
  onEnd(endMs: number, report: (v: Violation) => void): void;
}
