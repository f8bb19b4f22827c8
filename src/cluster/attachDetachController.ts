// Ported from kubernetes pkg/controller/volume/attachdetach/reconciler/reconciler.go (and the desired
// state populator of attach_detach_controller.go), release-1.23, reduced: per (volume, node) desired and
// actual state, detach only when the node no longer reports the volume in use (or after 6 min on an
// unhealthy node), the multi-attach check for volumes that do not allow it, a 100 ms loop.
// FC and iSCSI Attach/Detach are no-ops (the node does the work), so the only protection of an RWO LUN is
// this bookkeeping: the root of the #101791 corruption story.
import type { Pod } from '../api/v1.js';
import { isPodPhaseTerminal } from '../api/v1.js';
import type { Fact } from '../facts.js';
import { notRunning } from '../kubelet/status/generate.js';
import { type Co, sleep } from '../sim/index.js';
import { VolumePluginMgr } from '../volume/plugins.js';
import { isMultiAttachAllowed } from '../volume/volume.js';
import { volumeSpecOf } from './volumeWiring.js';
import type { World } from './world.js';

/** reconcilerLoopPeriod and maxWaitForUnmountDuration (attach_detach_controller.go). */
export const adcReconcilerLoopPeriodMs = 100;
export const maxWaitForUnmountDurationMs = 6 * 60_000;
/** node-monitor-grace-period: a node whose kubelet is silent this long is NotReady (unhealthy). */
export const nodeMonitorGracePeriodMs = 40_000;

interface AttachedVolume {
  readonly volume: string;
  readonly node: string;
  readonly devicePath: string;
  /** When the controller first wanted to detach it (DetachRequestedTime), or undefined. */
  detachRequestedAtMs: number | undefined;
}

export class AttachDetachController {
  private readonly attached: AttachedVolume[] = [];
  private readonly plugins = new Map<string, VolumePluginMgr>();
  /** When each node's kubelet was last seen alive (for node health). */
  private readonly lastHeartbeatMs = new Map<string, number>();

  constructor(
    private readonly world: World,
    private readonly publish: (fact: Fact) => void,
  ) {}

  start(): void {
    this.world.sim.spawn('attachDetachController', this.run());
  }

  private pluginsOf(node: string): VolumePluginMgr {
    let mgr = this.plugins.get(node);
    if (mgr === undefined) {
      mgr = new VolumePluginMgr(this.world.nodeOf(node).storage, this.world.fixes);
      this.plugins.set(node, mgr);
    }
    return mgr;
  }

  private *run(): Co<void> {
    for (;;) {
      this.observeNodeHealth();
      yield* this.reconcile();
      yield* sleep(adcReconcilerLoopPeriodMs);
    }
  }

  private observeNodeHealth(): void {
    for (const node of this.world.nodes.values()) {
      if (node.kubelet?.alive === true || !this.lastHeartbeatMs.has(node.name))
        this.lastHeartbeatMs.set(node.name, this.world.sim.nowMs);
    }
  }

  private nodeHealthy(node: string): boolean {
    return this.world.sim.nowMs - (this.lastHeartbeatMs.get(node) ?? 0) < nodeMonitorGracePeriodMs;
  }

  private desiredCache: { version: number; keys: Set<string> } | undefined = undefined;

  /** The desired state: every (volume, node) of a pod in the API that is not terminated. */
  private desired(): Set<string> {
    const version = this.world.api.podsVersion;
    if (this.desiredCache?.version === version) return this.desiredCache.keys;
    const out = new Set<string>();
    for (const pod of this.world.api.allPods()) {
      if (isPodTerminated(pod)) continue;
      for (const v of pod.spec.volumes) out.add(key(v, pod.spec.nodeName));
    }
    this.desiredCache = { version, keys: out };
    return out;
  }

  private *reconcile(): Co<void> {
    const desired = this.desired();
    if (desired.size === 0 && this.attached.length === 0) return;
    // Detach first, so a volume moving between nodes is detached from the old one first.
    for (const a of [...this.attached]) {
      if (desired.has(key(a.volume, a.node))) {
        a.detachRequestedAtMs = undefined;
        continue;
      }
      a.detachRequestedAtMs ??= this.world.sim.nowMs;
      const timeout = this.world.sim.nowMs - a.detachRequestedAtMs > maxWaitForUnmountDurationMs;
      const forceDetach = !this.nodeHealthy(a.node) && timeout;
      const mountedByNode = this.world.api
        .nodeStatus(a.node)
        .volumesInUse.some((v) => volumeNameOf(v) === a.volume);
      if (mountedByNode && !forceDetach) continue;
      // RemoveVolumeFromReportAsAttached + UpdateNodeStatusForNode, then DetachVolume.
      this.removeAttached(a);
      const spec = volumeSpecOf(this.world, a.volume);
      if (spec !== undefined) {
        const err = yield* this.pluginsOf(a.node)
          .findPluginBySpec(spec)
          .newDetacher()
          .detach(a.volume, a.node);
        if (err !== undefined) {
          // A failed detach keeps the volume attached (the cloud refused); retried next loop.
          this.addAttached({ ...a, detachRequestedAtMs: a.detachRequestedAtMs });
          continue;
        }
      }
      this.publish({
        kind: 'volumeDetached',
        atMs: this.world.sim.nowMs,
        node: a.node,
        volume: a.volume,
        forced: forceDetach && mountedByNode,
      });
    }
    for (const k of [...desired].sort()) {
      const [volume, node] = splitKey(k);
      if (this.attached.some((a) => a.volume === volume && a.node === node)) continue;
      const spec = volumeSpecOf(this.world, volume);
      if (spec === undefined) continue;
      if (!isMultiAttachAllowed(spec) && this.attached.some((a) => a.volume === volume)) {
        // reportMultiAttachError: the pod on `node` waits ("Multi-Attach error").
        continue;
      }
      const r = yield* this.pluginsOf(node).findPluginBySpec(spec).newAttacher().attach(spec, node);
      if (r.err !== undefined) continue;
      if (this.attached.some((a) => a.volume === volume && a.node === node)) continue;
      this.addAttached({ volume, node, devicePath: r.value, detachRequestedAtMs: undefined });
      this.publish({ kind: 'volumeAttached', atMs: this.world.sim.nowMs, node, volume });
    }
  }

  private addAttached(a: AttachedVolume): void {
    this.attached.push(a);
    this.syncNodeStatus(a.node);
  }

  private removeAttached(a: AttachedVolume): void {
    const i = this.attached.indexOf(a);
    if (i >= 0) this.attached.splice(i, 1);
    this.syncNodeStatus(a.node);
  }

  private syncNodeStatus(node: string): void {
    this.world.api.setVolumesAttached(
      node,
      this.attached.filter((a) => a.node === node).map((a) => ({ name: a.volume, devicePath: a.devicePath })),
    );
  }
}

/** util.IsPodTerminated as the controller's populator uses it. */
function isPodTerminated(pod: Pod): boolean {
  return (
    isPodPhaseTerminal(pod.status.phase) ||
    (pod.metadata.deletionTimestamp !== undefined && notRunning(pod.status.containerStatuses))
  );
}

/** node.status.volumesInUse holds unique volume names (`kubernetes.io/fc/lun-1`) or plain names. */
function volumeNameOf(unique: string): string {
  const i = unique.lastIndexOf('/');
  return i < 0 ? unique : unique.slice(i + 1);
}

function key(volume: string, node: string): string {
  return `${volume}\u0000${node}`;
}

function splitKey(k: string): [string, string] {
  const i = k.indexOf('\u0000');
  return [k.slice(0, i), k.slice(i + 1)];
}
