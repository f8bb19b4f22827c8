// Where a run's action is: the HTML page opens on it rather than on the whole horizon, which is mostly
// the idle tail of periodic reports after the last thing happened. From the first to the last fact that
// is not idle (a status report, a consistent /proc/mounts read, a repeated pod worker phase, an entry
// that "did nothing" noted at the run's end), and the violations found during the run, with a margin.
import type { Fact } from '../facts.js';
import type { Violation } from '../invariants/types.js';

/** The page's default view, and the run's whole range. */
export interface ActionWindow {
  readonly startMs: number;
  readonly endMs: number;
}

/** Facts that come round on their own while nothing happens. */
function idle(f: Fact, lastPhase: Map<string, string>, runEndMs: number): boolean {
  switch (f.kind) {
    case 'nodeVolumesInUse':
    case 'nodeVolumesAttached':
    case 'nodeStatusRead':
      return true;
    case 'procMountsRead':
      return f.consistent && f.attempts === 1;
    case 'reconstructionStarted':
      return f.volumeDirs === 0;
    case 'reconstructionFinished':
      return f.unreconstructedDevices.length === 0 && f.unreconstructedPodMaps.length === 0;
    case 'actionNoop':
    case 'podCreateWaiting':
      // Published at the run's end for what never took effect: about the run, not at that moment.
      return f.atMs >= runEndMs;
    case 'podWorkerPhase': {
      const key = `${f.node}\u0000${f.uid}`;
      const same = lastPhase.get(key) === f.phase;
      lastPhase.set(key, f.phase);
      return same;
    }
    default:
      return false;
  }
}

/**
 * The action of a run: first to last non-idle fact and violation before the run's end (a liveness check
 * reports at the end by construction), widened by a twentieth of its length (at least 250 ms) on each
 * side, within [0, endMs]. The whole run when nothing happened.
 */
export function actionWindow(
  facts: readonly Fact[],
  violations: readonly Violation[],
  endMs: number,
): ActionWindow {
  const lastPhase = new Map<string, string>();
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  for (const f of facts) {
    if (idle(f, lastPhase, endMs)) continue;
    first = Math.min(first, f.atMs);
    last = Math.max(last, f.atMs);
  }
  for (const v of violations) {
    if (v.atMs >= endMs) continue;
    first = Math.min(first, v.atMs);
    last = Math.max(last, v.atMs);
  }
  if (!Number.isFinite(first)) return { startMs: 0, endMs };
  const margin = Math.max(250, (last - first) / 20);
  return { startMs: Math.max(0, first - margin), endMs: Math.min(endMs, last + margin) };
}
