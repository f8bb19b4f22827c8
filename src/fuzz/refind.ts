// Re-finding a fix's bug from scratch: with one switch off (every other switch as its base kubelet has
// it), run the campaign's cases in order until one fires an invariant that turning the switch back on
// closes. That case is what the differential oracle would report as "closed by: <switch>". The test suite
// asserts it for every switch a scenario can show; `npm run bench` measures cases and wall time to it.
// Pure but for the injected clock.
import { FIX_IDS, FIX_TABLE, type FixDef, Fixes, type FixId } from '../fixes.js';
import { INVARIANT_IDS, type InvariantId } from '../invariants/types.js';
import { runGuarded, scenariosOfCases } from './shrink.js';

/**
 * The switches no case can show by turning them off alone, and why. Every other switch is re-findable.
 */
export const NOT_REFINDABLE: Readonly<Partial<Record<FixId, string>>> = {
  'block-volume-stats':
    'turning it off removes calls (the stats collector skips Block volumes): it is the change that exposed the nil MetricsProvider, whose fix is block-metrics',
  'graceful-node-shutdown-beta':
    'turning it off removes the shutdown manager (the 1.20 default): a node shutdown then kills nothing, so its absence closes violations rather than firing them',
  'node-shutdown-failed-phase':
    'its absence shows as a finding (node-shutdown-marked-failed), not a violation: upstream chose that behaviour for 1.22.0-1.22.4',
  'stop-container-not-found':
    "with it off a StopContainer answering NotFound fails the kill, and the pod's next sync reads a status without the removed container and kills it: no invariant states that a kill must not fail, so its absence fires none (scenarios/stop-container-not-found.yaml); the generator draws no notFound fault either",
  'new-volume-reconstruction':
    "a feature gate's default (KEP-3756), not a fix: with every other switch on, turning it on closes only a failed TearDown of a pod volume dir whose mount was already gone at the restart (release-1.23's mount point check fails it into cleanupMounts; test/kubelet/volumemanager/reconstructNew.test.ts), while its first pass marks the states synced before the populator has added pods, so a failed reconstruction leaves volumesInUse early (#101791's path): in campaigns it fires more than it closes",
  'status-deletes-finished-pods':
    "not a fix: #115331's status-manager half, the change #118497 repaired. Turning it off brings back PodResourcesAreReclaimed, which deletes a pod no worker drives as well; its absence fires no invariant",
  'pod-worker-pending-update':
    'it changes when the pod worker runs an update (a create and a kill queued together run as the kill; the update a held-back static pod got stays pending), not whether a bug happens: with every other switch on, turning it off closed nothing in the first 400 cases of seeds 1 and 2. What it changes that an invariant sees is where a timing window falls, in both directions: restart-between-teardown-and-unmount-device fires with it off and not on, restart-before-unmount-device-coalesced-syncs with it on and not off; their claims guard it',
  'housekeeping-restart-same-round':
    "a latency change (#116690's own words: 'a latency issue only not a correctness issue'): with it off, a UID reused while it terminated restarts one housekeeping round (2 s) later; no invariant bounds how soon a recreated pod restarts, so its absence fires none: the bundled scenario static-pod-uid-reuse-restart-round shows the extra round, and test/e2e/latencySwitches.test.ts fails if the switch stops moving it (test/kubelet/housekeepingV128.test.ts shows it on the pod workers alone)",
  'reconstructed-device-stays-uncertain':
    'markDeviceErrorState reads it only when a MountDevice of a device reconstruction found fails for good, and the generator draws no mountDevice fault (seed 1 reaches no such case in 300): the bundled scenario reconstructed-device-mount-fails guards it',
  'no-reconstructed-reported-in-use':
    "a latency change (#125014): with it off a volume the node status had reported waits up to one more node status round before VerifyControllerAttachedVolume; no invariant bounds how soon a volume mounts, so its absence fires none. The window is one reconciler period per kubelet start (a node status round between the populator's first pass and the reconciler's mark, while the attach is still in flight), which the generator's restarts do not aim at: the bundled scenario reconstructed-reported-in-use-clears-new-volume stages it, test/e2e/latencySwitches.test.ts fails if the switch stops moving MountDevice by a round, and test/kubelet/volumemanager/reconstructNew.test.ts shows the flag cleared",
};

export const REFINDABLE_FIXES: readonly FixId[] = FIX_IDS.filter((id) => NOT_REFINDABLE[id] === undefined);

/**
 * Switches whose bug another switch hides in most cases, with why: the fix is re-found with those off
 * too, as its bug first showed (the bench measures the same).
 */
export const REFIND_WITHOUT: Readonly<
  Partial<Record<FixId, { readonly off: readonly FixId[]; readonly why: string }>>
> = {
  'reconstruct-reliable-mount-refs': {
    off: ['dsw-terminating-pod-on-restart'],
    why: "#114326 keeps a pod deleted during the restart desired, so the restart plot's volume is skipped as desired instead of reconstructed from inconsistent /proc/mounts reads (#102059): of seeds 1 and 2's first 1,500 cases, 5 of 172 such cases showed the bug with it on, 27 with it off",
  },
  'reconstruct-every-pod-of-volume': {
    off: ['dsw-terminating-pod-on-restart', 'new-volume-reconstruction'],
    why: '#114326 keeps a terminating pod desired across a restart, so the shared-volume reconstructions where #110547 lost a pod are mostly skipped as desired; KEP-3756 (1.28) replaces syncStates, where #110670 sits',
  },
  'zero-request-fits': {
    off: ['admission-rejected-pod-inactive'],
    why: "#116408's bug needs a node whose counted pods ask for more than it has; #104817 (1.23, 1.22.5) leaves a pod the kubelet rejected out of that count, after which admitted pods overcommit a node only in #135296's window (a rejected pod a worker is terminating, the open hazard rejected-pod-counted-as-terminating). Re-found as the bundled scenario zero-cpu-request-overcommitted shows it, where 1.22.0-1.22.4 had both",
  },
  'unstarted-static-pod-terminated': {
    off: ['orphan-pod-worker-terminates'],
    why: "#113145's SyncKnownPods forgets an orphaned static pod worker that never started, so allowStaticPodStart skips its UID as #107900 would: the successor starts either way",
  },
};

/**
 * The fix set a switch is re-found from: every fix on, or for a release-1.20 path (a switch that acts
 * only while pod-worker-lifecycle is off) the 1.20 kubelet with that switch on.
 */
export function refindBase(fix: FixId): Fixes {
  const d: FixDef = FIX_TABLE[fix];
  if (d.needsPodWorkerLifecycle === false) return Fixes.of('1.20').with(fix, true);
  let base = Fixes.all();
  for (const id of REFIND_WITHOUT[fix]?.off ?? []) base = base.with(id, false);
  return base;
}

export interface RefindOptions {
  readonly fix: FixId;
  readonly seed: number;
  /** A bound: give up after this many cases. */
  readonly casesMax: number;
  /** The wall clock, for `wallMs` (the CLI's or the bench's); without it wallMs is 0. */
  readonly now?: () => number;
}

export interface RefindResult {
  readonly fix: FixId;
  readonly seed: number;
  /** The first case the switch closes, or null when none in casesMax. */
  readonly caseIndex: number | null;
  /** Cases run (caseIndex + 1 when found). */
  readonly cases: number;
  /** The invariants that fired with the switch off and not with it on, in that case. */
  readonly closed: readonly InvariantId[];
  readonly wallMs: number;
}

/** Cases generated per fast-check sample: generation is lazy, a bounded chunk at a time. */
const CHUNK_CASES = 25;

export function refind(o: RefindOptions): RefindResult {
  if (!Number.isInteger(o.casesMax) || o.casesMax < 1) throw new Error('refind: casesMax must be >= 1');
  const startMs = o.now?.() ?? 0;
  const on = refindBase(o.fix);
  const off = on.with(o.fix, false);
  let cases = 0;
  for (let first = 0; first < o.casesMax; first += CHUNK_CASES) {
    const indices: number[] = [];
    for (let i = first; i < Math.min(o.casesMax, first + CHUNK_CASES); i++) indices.push(i);
    const scenarios = scenariosOfCases(o.seed, indices);
    for (let k = 0; k < scenarios.length; k++) {
      const scenario = scenarios[k];
      if (scenario === undefined) continue;
      cases++;
      const broken = runGuarded(scenario, off);
      if (!broken.ok || broken.result.violations.length === 0) continue;
      const fixed = runGuarded(scenario, on);
      if (!fixed.ok) continue;
      const firedOff = new Set(broken.result.violations.map((v) => v.invariant));
      const firedOn = new Set(fixed.result.violations.map((v) => v.invariant));
      const closed = INVARIANT_IDS.filter((id) => firedOff.has(id) && !firedOn.has(id));
      if (closed.length === 0) continue;
      return {
        fix: o.fix,
        seed: o.seed,
        caseIndex: indices[k] ?? -1,
        cases,
        closed,
        wallMs: (o.now?.() ?? 0) - startMs,
      };
    }
  }
  return { fix: o.fix, seed: o.seed, caseIndex: null, cases, closed: [], wallMs: (o.now?.() ?? 0) - startMs };
}
