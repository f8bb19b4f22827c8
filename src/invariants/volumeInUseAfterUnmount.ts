// volume-in-use-after-unmount (liveness, judged when the run ends): a node's status still lists a volume
// in volumesInUse although, for IN_USE_RELEASE_BOUND_MS while its kubelet ran, nothing of the volume was
// mounted on the node (no global mount or staging path, no pod's bind mount, no Block map reference: the
// host's mount table) and no API pod of the node wanted it. Upstream's kubelet lists in volumesInUse what
// its volume manager may still use (volume_manager.go GetVolumesInUse: the desired state's volumes and the
// actual state's attached ones); once UnmountDevice succeeded, the reconciler marks the volume detached in
// the actual state (reconciler.go unmountDetachDevices, controller attach mode: MarkVolumeAsDetached) and
// the next node status update (nodeStatusUpdateFrequency, 10 s) drops it. A volume left listed can never be
// detached from a healthy node (verifyVolumeIsSafeToDetach; #110721 no longer force-detaches there), so a
// pod that needs it elsewhere waits for ever, which pod-never-started does not judge behind a Ready node.
// Not judged: a node whose kubelet is down at the end or whose shutdown started, a volume a static pod of
// the node used, or an injected fault still active at the end.
import type { Fact, FactKind } from '../facts.js';
import { secs } from './format.js';
import { KUBELET_UPTIME_KINDS, KubeletUptime } from './kubeletUptime.js';
import type { Checker, Violation } from './types.js';
import { VOLUME_USERS_KINDS, VolumeUsers } from './volumeHolds.js';

/**
 * How long the kubelet may keep listing a volume it no longer has: a failed UnmountDevice's back-off
 * (maxDurationBeforeRetry 2 min 2 s) before the retry that marks the volume detached, the reconciler's
 * 100 ms passes, then one node status update (10 s) and the patch; 3 min, rounded up.
 */
export const IN_USE_RELEASE_BOUND_MS = 3 * 60_000;

type HostMount = Extract<Fact, { kind: 'hostMount' }>;

interface Held {
  /** Paths of the volume mounted on the node now. */
  readonly paths: Set<string>;
  /** The hostMount that unmounted the last of them, if they are all gone. */
  lastGone: HostMount | undefined;
}

export interface VolumeInUseAfterUnmountConfig {
  /** Whether an injected fault is still active when the run ends. */
  readonly faultsActiveAtEnd: () => boolean;
}

export class VolumeInUseAfterUnmount implements Checker {
  readonly id = 'volume-in-use-after-unmount';
  readonly kinds: readonly FactKind[] = [...VOLUME_USERS_KINDS, ...KUBELET_UPTIME_KINDS, 'hostMount'];
  readonly #config: VolumeInUseAfterUnmountConfig;
  readonly #users = new VolumeUsers();
  readonly #uptime = new KubeletUptime();
  /** `volume\0node` -> what of it the node has mounted. */
  readonly #held = new Map<string, Held>();

  constructor(config: VolumeInUseAfterUnmountConfig) {
    this.#config = config;
  }

  onFact(f: Fact): void {
    switch (f.kind) {
      case 'hostMount': {
        const key = `${f.volume}\u0000${f.node}`;
        let held = this.#held.get(key);
        if (held === undefined) {
          held = { paths: new Set(), lastGone: undefined };
          this.#held.set(key, held);
        }
        if (f.mounted) {
          held.paths.add(f.path);
          held.lastGone = undefined;
        } else if (held.paths.delete(f.path) && held.paths.size === 0) {
          held.lastGone = f;
        }
        return;
      }
      default:
        this.#users.onFact(f);
        this.#uptime.onFact(f);
        return;
    }
  }

  onEnd(endMs: number, report: (v: Violation) => void): void {
    if (this.#config.faultsActiveAtEnd()) return;
    for (const [, held] of [...this.#held].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const gone = held.lastGone;
      if (gone === undefined) continue; // still mounted (or never was)
      const { volume, node } = gone;
      if (this.#users.usedByStaticPod(volume, node)) continue;
      const startedAtMs = this.#uptime.upSinceMs(node);
      if (startedAtMs === undefined) continue;
      const listed = this.#users.inUse.listedSince(node, volume);
      if (listed === undefined) continue;
      if (this.#users.wants.lateWanters(volume, node).length > 0) continue;
      const lastPod = this.#users.wants.lateEnd(volume, node);
      const freeSinceMs = Math.max(gone.atMs, lastPod?.atMs ?? 0, startedAtMs);
      if (endMs - freeSinceMs < IN_USE_RELEASE_BOUND_MS) continue;
      const causes: Fact[] = [listed, gone];
      if (lastPod !== undefined) causes.push(lastPod);
      causes.sort((a, b) => a.atMs - b.atMs);
      report({
        invariant: this.id,
        atMs: endMs,
        node,
        pod: lastPod?.pod ?? null,
        uid: null,
        volume,
        message:
          `${node}'s status still lists volume ${volume} in volumesInUse at the end (${secs(endMs)}), ` +
          `listed since ${secs(listed.atMs)}, although the node unmounted the last of it (${gone.path}) at ` +
          `${secs(gone.atMs)}${lastPod === undefined ? '' : `, its last pod there, ${lastPod.pod} (uid ${lastPod.uid}), left at ${secs(lastPod.atMs)}`} ` +
          `and its kubelet has run since ${secs(startedAtMs)}: the kubelet drops a volume it no longer ` +
          `has within ${secs(IN_USE_RELEASE_BOUND_MS)}, and the attach/detach controller cannot detach it before`,
        causes,
      });
    }
  }
}
