// Cause to effect, for each violation: the facts its checker names as its causes (src/invariants, oldest
// first), each failed operation preceded by the injected fault that made it fail (the latest fault on the
// same node, of the same volume or pod, at most FAULT_REACH_MS before it), ending at the violation. The
// page draws the chain as arrows, the Chrome trace as flow events.
import type { Fact } from '../facts.js';
import type { Violation } from '../invariants/types.js';
import type { Anchor } from './timelineTracks.js';

/** How far before a failed operation the fault that made it fail may be. */
const FAULT_REACH_MS = 5_000;

export interface FlowPoint {
  readonly anchor: Anchor;
  /** What happened there, for the arrow's tooltip and the trace's flow slice. */
  readonly name: string;
}

export interface RawFlow {
  /** The violation's index in the run's violations. */
  readonly violation: number;
  /** The causes in time order; the violation itself is the flow's end. */
  readonly causes: readonly FlowPoint[];
}

/** Whether a fact is an operation (or read) that failed: a fault may stand before it. */
function failed(f: Fact): boolean {
  switch (f.kind) {
    case 'mountDevice':
    case 'unmountDevice':
    case 'volumeTearDown':
    case 'volumeReconstruction':
      return !f.ok;
    case 'procMountsRead':
      return !f.consistent || f.attempts > 1;
    case 'containerStartFailed':
    case 'deviceInUseAfterUnmount':
    case 'multipathFlushFailed':
    case 'volumeDetachFailed':
    case 'volumeAttachUncertain':
    case 'kubeletPanic':
      return true;
    default:
      return false;
  }
}

function field(f: Fact, key: 'volume' | 'pod' | 'uid'): string | undefined {
  const v = (f as unknown as Record<string, unknown>)[key];
  return typeof v === 'string' ? v : undefined;
}

/** The fault that made `f` fail: the latest one before it on its node, of its volume or pod. */
function faultOf(f: Fact, order: number, facts: readonly Fact[]): Fact | undefined {
  const volume = field(f, 'volume');
  const pods = [field(f, 'pod'), field(f, 'uid')].filter((x) => x !== undefined);
  for (let i = order; i >= 0; i--) {
    const g = facts[i];
    if (g === undefined || g.atMs < f.atMs - FAULT_REACH_MS) break;
    if (g.kind !== 'faultInjected' || g.node !== f.node) continue;
    if (g.volume !== undefined && volume !== undefined && g.volume !== volume) continue;
    if (g.pod !== undefined && pods.length > 0 && !pods.includes(g.pod)) continue;
    return g;
  }
  return undefined;
}

/** One flow per violation with at least one drawn cause. */
export function causeFlows(
  violations: readonly Violation[],
  facts: readonly Fact[],
  anchors: ReadonlyMap<Fact, Anchor>,
  describe: (f: Fact) => string,
): RawFlow[] {
  const order = new Map<Fact, number>();
  for (const [i, f] of facts.entries()) order.set(f, i);
  const out: RawFlow[] = [];
  violations.forEach((v, k) => {
    const chain: Fact[] = [];
    const seen = new Set<Fact>();
    const add = (f: Fact): void => {
      if (seen.has(f)) return;
      seen.add(f);
      chain.push(f);
    };
    for (const c of v.causes) {
      const i = order.get(c);
      if (i === undefined) continue;
      if (failed(c)) {
        const fault = faultOf(c, i, facts);
        if (fault !== undefined) add(fault);
      }
      add(c);
    }
    chain.sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
    const causes = chain.flatMap((f): FlowPoint[] => {
      const anchor = anchors.get(f);
      return anchor === undefined ? [] : [{ anchor, name: describe(f) }];
    });
    if (causes.length > 0) out.push({ violation: k, causes });
  });
  return out;
}
