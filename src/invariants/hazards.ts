// Known-open upstream hazards: behaviours of the modelled release (1.23) that fire an invariant with every
// fix on and that upstream has not fixed there. Each is recognised by its mechanism, never by a
// scenario's shape: the code at the hazard's upstream site publishes a fact when the hazardous path is
// taken, and a violation is explained only when such a fact is tied to it (same node, and the same pod
// or volume, at or before the violation). Anything else that fires with every fix on is reported as
// unexplained: a simulator bug or an upstream bug nobody has filed, worth a look either way.
import type { Fact } from '../facts.js';
import type { InvariantId, Violation } from './types.js';

export interface HazardDef {
  /** The upstream issue (and PR) that reports or fixes it. */
  readonly upstream: readonly string[];
  /** What happens, in one line. */
  readonly summary: string;
  /** Why it is still open in the modelled release. */
  readonly open: string;
  /** The bundled scenario that shows it. */
  readonly scenario: string;
  /** The invariants it explains. */
  readonly explains: readonly InvariantId[];
}

export const HAZARDS = {
  'reconstruction-fails-other-error': {
    upstream: ['kubernetes/kubernetes#101791'],
    summary:
      'reconstruction of an FC / iSCSI volume fails with a non-retryable error after a kubelet restart: cleanupMounts unmounts only the pod bind mount, the global mount stays while the volume drops out of volumesInUse, and another node can mount the LUN',
    open: 'issue #101791 is open; PR #102059 retries only inconsistent /proc/mounts reads',
    scenario: 'reconstruct-fails-other-error',
    explains: ['device-reported-unused-while-mounted', 'multi-node-mount'],
  },
  'reconstructed-volume-torn-down-before-kill': {
    upstream: ['kubernetes/kubernetes#120150'],
    summary:
      "after a kubelet restart, syncStates puts the volume of a pod deleted while the kubelet was down into the actual state (or cleanupMounts unmounts it); no pod wants it, so the reconciler tears it down before housekeeping has killed the pod's still-running container",
    open: "release-1.23's one-shot reconstruction runs as soon as the populator has added pods, without asking the pod worker whether the pod's containers are stopped",
    scenario: 'fc-kubelet-restart-reconstruct-procmounts',
    explains: ['volume-torn-down-while-running'],
  },
  'one-shot-reconstruction-gap': {
    upstream: ['kubernetes/enhancements#3756'],
    summary:
      "after a kubelet restart between a pod's TearDown and its UnmountDevice (or after MountDevice, before SetUp), no pod volume dir names the volume: syncStates never reconstructs it, its global mount is never unmounted and it drops out of volumesInUse",
    open: 'release-1.23 reconstructs only from pod volume dirs, once; KEP-3756 (NewVolumeManagerReconstruction) came later',
    scenario: 'restart-between-teardown-and-unmount-device',
    explains: ['device-reported-unused-while-mounted'],
  },
  'iscsi-block-session-busy': {
    upstream: [],
    summary:
      "iSCSI DetachBlockISCSIDisk deletes no device itself and skips the logout while another volume keeps the target's session busy: the Block LUN's SCSI paths and map stay on the node after TearDownDevice succeeded",
    open: 'release-1.23 iscsi_util.go DetachBlockISCSIDisk returns nil when isSessionBusy',
    scenario: 'iscsi-block-session-busy-leak',
    explains: ['device-leaked-after-unmount'],
  },
  'iscsi-flush-falls-through': {
    upstream: [],
    summary:
      'iSCSI deleteDevices "assumes they are not in use": when `multipath -f` fails (a container\'s mount namespace still holds the filesystem), it falls through, deletes the disks and UnmountDevice succeeds with the map left behind',
    open: 'release-1.23 iscsi_util.go deleteDevices logs the flush failure and carries on',
    scenario: 'iscsi-kubelet-restart-reconstruct-procmounts',
    explains: ['device-leaked-after-unmount'],
  },
  'terminal-on-first-sight-not-synced': {
    upstream: ['kubernetes/kubernetes#113145', 'kubernetes/kubernetes#117019'],
    summary:
      'a pod first seen terminal after a kubelet restart is recorded finished at once (#105527): SyncTerminatedPod never runs, so its volumes are not waited for and a deleted pod is never removed from the API server',
    open: 'release-1.23 UpdatePod creates such pods finished; #117019 (1.28) lets SyncTerminatedPod run',
    scenario: '',
    explains: ['termination-stuck'],
  },
  'remove-before-sources-ready': {
    upstream: ['kubernetes/kubernetes#113145'],
    summary:
      'a REMOVE that arrives before all pod sources are ready is dropped ("skipping delete because sources aren\'t ready yet") and housekeeping leaves a worker in SyncPod state alone, so the pod is never stopped',
    open: 'release-1.23 deletePod returns early; the v1.27 pod worker rewrite (#113145) terminates orphaned workers',
    scenario: 'static-pod-removed-before-sources-ready',
    explains: ['termination-stuck'],
  },
} as const satisfies Record<string, HazardDef>;

export type HazardId = keyof typeof HAZARDS;
export const HAZARD_IDS = Object.keys(HAZARDS) as readonly HazardId[];

interface Marker {
  readonly atMs: number;
  readonly node: string;
  readonly uid: string | null;
  readonly volume: string | null;
}

/**
 * Records the facts that mark a hazard's path as taken, and ties violations to them. Cheap enough to run
 * on every fact while fuzzing: it keeps only markers, a handful per run.
 */
export class HazardTracker {
  readonly #markers = new Map<HazardId, Marker[]>();

  onFact(f: Fact): void {
    switch (f.kind) {
      case 'volumeReconstruction':
        if (!f.ok && !f.inconsistentRead && f.outcome === 'cleanupMounts') {
          this.#mark('reconstruction-fails-other-error', f.atMs, f.node, f.uid, f.volume);
        }
        if (f.outcome === 'addedToActualState' || f.outcome === 'cleanupMounts') {
          this.#mark('reconstructed-volume-torn-down-before-kill', f.atMs, f.node, f.uid, f.volume);
        }
        return;
      case 'reconstructionFinished':
        for (const volume of f.unreconstructedDevices) {
          this.#mark('one-shot-reconstruction-gap', f.atMs, f.node, null, volume);
        }
        return;
      case 'iscsiLogoutSkipped':
        if (f.block) this.#mark('iscsi-block-session-busy', f.atMs, f.node, null, f.volume);
        return;
      case 'multipathFlushFailed':
        if (f.fellThrough) this.#mark('iscsi-flush-falls-through', f.atMs, f.node, null, f.volume);
        return;
      case 'podFinishedOnFirstSight':
        this.#mark('terminal-on-first-sight-not-synced', f.atMs, f.node, f.uid, null);
        return;
      case 'podRemoveDropped':
        this.#mark('remove-before-sources-ready', f.atMs, f.node, f.uid, null);
        return;
      default:
        return;
    }
  }

  /** The hazard a violation is tied to, or null: the first one in HAZARD_IDS order that matches. */
  explain(v: Violation): HazardId | null {
    for (const id of HAZARD_IDS) {
      const def: HazardDef = HAZARDS[id];
      if (!def.explains.includes(v.invariant)) continue;
      const markers = this.#markers.get(id);
      if (markers === undefined) continue;
      if (markers.some((m) => ties(id, m, v))) return id;
    }
    return null;
  }

  #mark(id: HazardId, atMs: number, node: string, uid: string | null, volume: string | null): void {
    let list = this.#markers.get(id);
    if (list === undefined) {
      list = [];
      this.#markers.set(id, list);
    }
    list.push({ atMs, node, uid, volume });
  }
}

/**
 * Whether a marker explains a violation: it came first, and it names the violation's pod or volume on
 * the violation's node. multi-node-mount is reported on the node that opened the LUN second; the hazard
 * is on the node that kept it, so only the volume has to match there.
 */
function ties(id: HazardId, m: Marker, v: Violation): boolean {
  if (m.atMs > v.atMs) return false;
  if (m.volume !== null && m.volume !== v.volume) return false;
  if (m.uid !== null && m.uid !== v.uid) return false;
  if (id === 'reconstruction-fails-other-error' && v.invariant === 'multi-node-mount') return true;
  return v.node === null || m.node === v.node;
}
