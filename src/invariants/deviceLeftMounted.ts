// device-left-mounted (liveness, judged when the run ends): a LUN's global mount (the attacher's
// deviceMountPath, a CSI staging path) is still on a node although for UNMOUNT_BOUND_MS no pod mount of
// the volume has been there, no API pod of the node has wanted it, and the node's kubelet has run.
// Upstream's volume manager unmounts it then: the reconciler (reconciler.go unmountDetachDevices, every
// 100 ms) runs UnmountDevice for every attached volume whose device is mounted or uncertain and that no
// pod has mounted, and retries a failed one under nestedpendingoperations' exponential back-off (at most
// 2 min 2 s apart). What may keep it there is stated elsewhere: an injected fault still active at the
// end (not judged), a pod bind mount GetDeviceMountRefs finds (a pod mount is there: not judged), a
// volume the kubelet lost track of (known-open hazards tie to it). Judged from ground truth: the host's
// mount table (hostMount) and the API pods, never the kubelet's actual state of world.
import type { Fact, FactKind } from '../facts.js';
import { secs } from './format.js';
import type { Checker, Violation } from './types.js';
import { VOLUME_USERS_KINDS, VolumeUsers } from './volumeHolds.js';

/**
 * How long a free global mount may stay: the reconciler's next pass (100 ms), a failed UnmountDevice's
 * back-off (maxDurationBeforeRetry 2 min 2 s) and the unmount itself (an FC detach retries for up to 2
 * min after it unmounted: no mount then); 3 min, rounded up.
 */
export const UNMOUNT_BOUND_MS = 3 * 60_000;

type HostMount = Extract<Fact, { kind: 'hostMount' }>;

interface OnNode {
  /** The global mounts of the volume on the node now, by path. */
  readonly global: Map<string, HostMount>;
  /** The pod mounts and Block map references of the volume on the node now, by path. */
  readonly pod: Map<string, HostMount>;
  /** When the last pod mount of the volume went from the node (0: none ever went). */
  podFreeSinceMs: number;
}

export interface DeviceLeftMountedConfig {
  /** Whether an injected fault is still active when the run ends. */
  readonly faultsActiveAtEnd: () => boolean;
}

export class DeviceLeftMounted implements Checker {
  readonly id = 'device-left-mounted';
  readonly kinds: readonly FactKind[] = [
    ...VOLUME_USERS_KINDS,
    'hostMount',
    'kubeletStarted',
    'kubeletStopped',
  ];
  readonly #config: DeviceLeftMountedConfig;
  readonly #users = new VolumeUsers();
  /** `volume\0node` -> what is mounted there. */
  readonly #mounts = new Map<string, OnNode>();
  /** node -> when its kubelet last started, null while it is down; absent: up from 0. */
  readonly #kubeletUpSinceMs = new Map<string, number | null>();

  constructor(config: DeviceLeftMountedConfig) {
    this.#config = config;
  }

  onFact(f: Fact): void {
    switch (f.kind) {
      case 'hostMount': {
        const key = `${f.volume}\u0000${f.node}`;
        let m = this.#mounts.get(key);
        if (m === undefined) {
          m = { global: new Map(), pod: new Map(), podFreeSinceMs: 0 };
          this.#mounts.set(key, m);
        }
        const paths = f.scope === 'global' ? m.global : m.pod;
        if (f.mounted) paths.set(f.path, f);
        else paths.delete(f.path);
        if (f.scope !== 'global' && !f.mounted && m.pod.size === 0) m.podFreeSinceMs = f.atMs;
        return;
      }
      case 'kubeletStarted':
        this.#kubeletUpSinceMs.set(f.node, f.atMs);
        return;
      case 'kubeletStopped':
        this.#kubeletUpSinceMs.set(f.node, null);
        return;
      default:
        this.#users.onFact(f);
        return;
    }
  }

  onEnd(endMs: number, report: (v: Violation) => void): void {
    if (this.#config.faultsActiveAtEnd()) return;
    const keys = [...this.#mounts.keys()].sort();
    for (const key of keys) {
      const m = this.#mounts.get(key) as OnNode;
      if (m.global.size === 0 || m.pod.size > 0) continue;
      const [volume = '', node = ''] = key.split('\u0000');
      const upSinceMs = this.#kubeletUpSinceMs.get(node);
      if (upSinceMs === null) continue;
      if (this.#users.usedByStaticPod(volume, node)) continue;
      if (this.#users.wants.lateWanters(volume, node).length > 0) continue;
      const lastPod = this.#users.wants.lateEnd(volume, node);
      const mount = [...m.global.values()].sort((a, b) => a.atMs - b.atMs)[0] as HostMount;
      const freeSinceMs = Math.max(mount.atMs, m.podFreeSinceMs, lastPod?.atMs ?? 0, upSinceMs ?? 0);
      if (endMs - freeSinceMs < UNMOUNT_BOUND_MS) continue;
      const causes: Fact[] = [mount];
      if (lastPod !== undefined) causes.push(lastPod);
      causes.sort((a, b) => a.atMs - b.atMs);
      report({
        invariant: this.id,
        atMs: endMs,
        node,
        pod: null,
        uid: null,
        volume,
        message:
          `the global mount ${mount.path} of ${volume} (since ${secs(mount.atMs)}) is still on ${node} at the ` +
          `end (${secs(endMs)}) although no pod has mounted the volume there since ${secs(m.podFreeSinceMs)}, ` +
          `no pod of the node wants it and no fault is active: the kubelet's reconciler unmounts such a ` +
          `device within ${secs(UNMOUNT_BOUND_MS)}`,
        causes,
      });
    }
  }
}
