// Ported from kubernetes pkg/kubelet/kubelet_node_status.go (syncNodeStatus, tryUpdateNodeStatus) and
// component-helpers/apimachinery/lease/controller.go (the node lease controller), release-1.23: what a
// kubelet tells the API server about its node. Node status carries volumesInUse and is patched only when
// it changed or nodeStatusReportFrequency passed; liveness is the Lease, renewed every 10 s, which only
// the node lifecycle controller reads (src/cluster/nodeLifecycle.ts).
import type { UniqueVolumeName } from '../api/v1.js';
import { WRITES_NONE, WRITES_VOLUMES } from '../elisionMasks.js';
import { type Co, IdleLoop, type Sim } from '../sim/index.js';
import type { KubeClient } from './kubeClient.js';

/** --node-status-update-frequency default: how often the kubelet computes its node's status. */
export const nodeStatusUpdateFrequencyMs = 10_000;
/** --node-status-report-frequency default: an unchanged status is still patched this often. */
export const nodeStatusReportFrequencyMs = 5 * 60_000;
/** The Lease's duration (40 s) times nodeLeaseRenewIntervalFraction (0.25). */
export const nodeLeaseRenewIntervalMs = 10_000;

/** The parts of the volume manager node status reads and writes. */
export interface NodeStatusVolumes {
  reconcilerStatesHasBeenSynced(): boolean;
  getVolumesInUse(): UniqueVolumeName[];
  markVolumesAsReportedInUse(volumesReportedAsInUse: readonly UniqueVolumeName[]): boolean;
}

/**
 * The kubelet's node status and node lease loops (one per kubelet instance: a restarted kubelet starts
 * with lastStatusReportTime zero, so its first status is always patched). Both run with
 * wait.JitterUntil(f, 10s, 0.04, sliding); the 4% jitter is not modelled.
 */
export class NodeStatusReporter {
  /** kl.lastStatusReportTime (-Infinity: Go's zero time, before any report). */
  private lastStatusReportMs = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly sim: Sim,
    private readonly nodeName: string,
    private readonly kubeClient: KubeClient,
    private readonly volumeManager: NodeStatusVolumes,
  ) {}

  /**
   * syncNodeStatus every 10 s. A round that patched nothing and marked nothing was idle: elision skips
   * the rounds after it until the volume manager changes (what the VolumesInUse setter reads) or the
   * report frequency forces a patch.
   */
  *syncNodeStatusLoop(): Co<void> {
    const loop = new IdleLoop(this.sim, nodeStatusUpdateFrequencyMs, { readMask: WRITES_VOLUMES });
    for (;;) {
      loop.begin();
      yield* this.tryUpdateNodeStatus();
      yield* loop.end();
    }
  }

  /**
   * tryUpdateNodeStatus: GET the node, apply the VolumesInUse setter (it writes the field only once the
   * reconciler has synced its states, so a restarted kubelet does not report an empty list before
   * reconstruction), and patch only if the status changed or nodeStatusReportFrequency passed since the
   * last report. Either way the node's volumesInUse are then marked reported in use.
   */
  private *tryUpdateNodeStatus(): Co<void> {
    const node = this.kubeClient.getNode(this.nodeName);
    // "error getting node": the try fails and the next round (10 s) tries again.
    if (node === undefined) return;
    const original = node.status.volumesInUse;
    const volumesInUse = this.volumeManager.reconcilerStatesHasBeenSynced()
      ? this.volumeManager.getVolumesInUse()
      : original;
    const nowMs = this.sim.nowMs;
    const reportDueMs = this.lastStatusReportMs + nodeStatusReportFrequencyMs;
    if (nowMs < reportDueMs) {
      // An unchanged status is patched anyway at reportDueMs: a deadline of this round.
      this.sim.noteDeadline(reportDueMs);
      if (sameVolumes(original, volumesInUse)) {
        // "We must mark the volumes as ReportedInUse in volume manager's dsw even if no changes were made
        // to the node status": a restarted kubelet's dsw learns the previous instance's list this way.
        this.markVolumesAsReportedInUse(original);
        return;
      }
    }
    const updated = yield* this.kubeClient.patchNodeStatus(this.nodeName, volumesInUse);
    // "failed to patch status": nothing is marked reported in use; the next round tries again.
    if (updated === undefined) return;
    this.lastStatusReportMs = nowMs;
    this.markVolumesAsReportedInUse(updated.status.volumesInUse);
  }

  private markVolumesAsReportedInUse(volumes: readonly UniqueVolumeName[]): void {
    // A reportedInUse flag gates MountDevice: its change is an effect the volume reconciler must see.
    if (this.volumeManager.markVolumesAsReportedInUse(volumes)) {
      this.sim.noteEffect();
      this.sim.touch(WRITES_VOLUMES);
    }
  }

  /**
   * The node lease controller's sync every 10 s: renew the Lease. Nothing of the node reads it, so every
   * round after the first is idle and elision skips them all, renewing the Lease at each skipped round.
   */
  *leaseControllerLoop(): Co<void> {
    const renew = (renewTimeMs: number): void => this.kubeClient.renewLease(this.nodeName, renewTimeMs);
    // The hook renews the Lease, an API server resource its footprint touches; it moves nothing of the node.
    const loop = new IdleLoop(this.sim, nodeLeaseRenewIntervalMs, {
      hook: renew,
      readMask: 0,
      hookWrites: WRITES_NONE,
    });
    for (;;) {
      loop.begin();
      renew(this.sim.nowMs);
      yield* loop.end();
    }
  }
}

/** The VolumesInUse lists are equal (both sorted: the volume manager sorts, the API server stores sorted). */
function sameVolumes(a: readonly UniqueVolumeName[], b: readonly UniqueVolumeName[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
