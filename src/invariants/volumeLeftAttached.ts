// volume-left-attached (liveness, judged when the run ends): a volume is still attached to a node although
// for DETACH_BOUND_MS no API pod on that node has wanted it and the node's status has not listed it in
// volumesInUse. Upstream's attach/detach controller detaches it then: its reconciler (reconciler.go
// reconcile) runs every 100 ms and detaches every attached volume that is not in the desired state of
// world, and the desired state drops a pod's volumes when the pod informer delivers its deletion or a
// terminal phase (attach_detach_controller.go podDelete / podUpdate, util.DetermineVolumeAction);
// verifyVolumeIsSafeToDetach (operation_generator.go) only waits while the node object lists the volume in
// volumesInUse. Judged from ground truth: the API pods, the node object as the API server stored it, and
// the controller's attach and detach results; never from the controller's caches. Not judged: a volume a
// static pod of the node used (the controller sees only its mirror pod), or an injected fault still active
// at the end.
import type { Fact, FactKind } from '../facts.js';
import { secs } from './format.js';
import type { Checker, Violation } from './types.js';
import { VOLUME_USERS_KINDS, VolumeUsers } from './volumeHolds.js';

/**
 * How long the controller may take to detach a volume once it is free: a detach that failed waits out
 * nestedpendingoperations' exponential back-off (maxDurationBeforeRetry 2 min 2 s) before the next try,
 * then ControllerUnpublish or the plugin's Detach (up to 1.5 s), the pod and node informers' deliveries
 * (60 ms) and the reconciler's 100 ms passes; 3 min, rounded up.
 */
export const DETACH_BOUND_MS = 3 * 60_000;

type Attached = Extract<Fact, { kind: 'volumeAttached' }>;

export interface VolumeLeftAttachedConfig {
  /** Whether an injected fault is still active when the run ends. */
  readonly faultsActiveAtEnd: () => boolean;
}

export class VolumeLeftAttached implements Checker {
  readonly id = 'volume-left-attached';
  readonly kinds: readonly FactKind[] = [...VOLUME_USERS_KINDS, 'volumeAttached', 'volumeDetached'];
  readonly #config: VolumeLeftAttachedConfig;
  readonly #users = new VolumeUsers();
  /** `volume\0node` -> the attach still in place. */
  readonly #attached = new Map<string, Attached>();

  constructor(config: VolumeLeftAttachedConfig) {
    this.#config = config;
  }

  onFact(f: Fact): void {
    switch (f.kind) {
      case 'volumeAttached':
        this.#attached.set(`${f.volume}\u0000${f.node}`, f);
        return;
      case 'volumeDetached':
        this.#attached.delete(`${f.volume}\u0000${f.node}`);
        return;
      default:
        this.#users.onFact(f);
        return;
    }
  }

  onEnd(endMs: number, report: (v: Violation) => void): void {
    if (this.#config.faultsActiveAtEnd()) return;
    for (const [, attached] of [...this.#attached].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const { volume, node } = attached;
      if (this.#users.usedByStaticPod(volume, node)) continue;
      if (this.#users.wants.lateWanters(volume, node).length > 0) continue;
      if (this.#users.inUse.listedSince(node, volume) !== undefined) continue;
      const lastPod = this.#users.wants.lateEnd(volume, node);
      const dropped = this.#users.inUse.droppedBy(node, volume);
      const freeSinceMs = Math.max(attached.atMs, lastPod?.atMs ?? 0, dropped?.atMs ?? 0);
      if (endMs - freeSinceMs < DETACH_BOUND_MS) continue;
      const causes: Fact[] = [attached];
      if (lastPod !== undefined) causes.push(lastPod);
      if (dropped !== undefined) causes.push(dropped);
      causes.sort((a, b) => a.atMs - b.atMs);
      const why =
        lastPod === undefined
          ? 'no pod of the node wanted it'
          : `its last pod there, ${lastPod.pod} (uid ${lastPod.uid}), left at ${secs(lastPod.atMs)}`;
      report({
        invariant: this.id,
        atMs: endMs,
        node,
        pod: lastPod?.pod ?? null,
        uid: null,
        volume,
        message:
          `volume ${volume} is still attached to ${node} at the end (${secs(endMs)}), attached at ` +
          `${secs(attached.atMs)}; ${why}, and the node's status has not listed it in volumesInUse ` +
          `${dropped === undefined ? 'at all' : `since ${secs(dropped.atMs)}`}: the attach/detach controller ` +
          `detaches such a volume within ${secs(DETACH_BOUND_MS)}`,
        causes,
      });
    }
  }
}
