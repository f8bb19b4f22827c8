// Known-open upstream hazards: behaviours of the modelled release (1.23) that fire an invariant with every
// fix on and that upstream has not fixed there. Each is recognised by its mechanism, never by a
// scenario's shape: the code at the hazard's upstream site publishes a fact when the hazardous path is
// taken, and a violation is explained only when such a fact is tied to it (same node, and the same pod
// or volume, at or before the violation). Anything else that fires with every fix on is reported as
// unexplained: a simulator bug or an upstream bug nobody has filed, worth a look either way.
import type { Fact } from '../facts.js';
import {
  FIX_TABLE,
  Fixes,
  type FixId,
  fixApplies,
  type KubeletName,
  RELEASE_PRESETS,
  type ReleasePreset,
} from '../fixes.js';
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
  /**
   * The kubelet under which that scenario shows it, when not `fixed`: a switch that ports a later fix
   * (the hazard's own, or one that closes the path the scenario takes) hides it there.
   */
  readonly shownUnder?: KubeletName;
  /** The invariants it explains. */
  readonly explains: readonly InvariantId[];
  /**
   * The switch that ports upstream's fix: with it on, the hazard is closed and excuses nothing (the run
   * with the fix is upstream's fixed release, and a violation there is a bug of the port).
   */
  readonly fixedBy?: FixId;
  /**
   * The first release preset whose last patch has upstream's fix when podrace does not model it as a
   * switch: under `--kubelet` that release or a later one the hazard excuses nothing (the simulator runs
   * a path that release no longer has, so what it finds there is not upstream's).
   */
  readonly fixedIn?: ReleasePreset;
  /**
   * The first release preset whose code has the path at all, when that is not every one (a hazard of the
   * #102344 pod worker does not exist in the release-1.20 kubelet): earlier presets never mark it.
   */
  readonly since?: ReleasePreset;
}

/** The release presets in which a hazard is open: its fix switch off there, and before its fixedIn. */
export function hazardOpenIn(id: HazardId): ReleasePreset[] {
  const def: HazardDef = HAZARDS[id];
  return RELEASE_PRESETS.filter((p, i) => {
    if (def.fixedIn !== undefined && i >= RELEASE_PRESETS.indexOf(def.fixedIn)) return false;
    if (def.since !== undefined && i < RELEASE_PRESETS.indexOf(def.since)) return false;
    if (def.fixedBy === undefined) return true;
    return fixApplies(def.fixedBy, p) && !FIX_TABLE[def.fixedBy].presets[p];
  });
}

/** Whether the run's fix set is named after a release at or after the one that fixed the hazard upstream. */
function fixedInRelease(def: HazardDef, fixes: Fixes): boolean {
  if (def.fixedIn === undefined) return false;
  const i = (RELEASE_PRESETS as readonly string[]).indexOf(fixes.base ?? '');
  return i >= 0 && i >= RELEASE_PRESETS.indexOf(def.fixedIn);
}

export const HAZARDS = {
  'reconstruction-fails-other-error': {
    upstream: ['kubernetes/kubernetes#101791'],
    summary:
      "reconstruction of an FC / iSCSI volume fails with a non-retryable error after a kubelet restart: cleanupMounts unmounts only the pod bind mount, the global mount stays while the volume drops out of volumesInUse, and another node can mount the LUN; for a Block volume cleanupMounts' UnmountVolume has no volume spec, so it takes the Filesystem path (CheckVolumeModeFilesystem of a nil spec) and leaves the pod's device link and map reference, which podVolumesExist (the pod's volumes dir only) does not see: the pod leaves the API server with its Block volume still mapped",
    open: 'issue #101791 is open; PR #102059 retries only inconsistent /proc/mounts reads',
    scenario: 'reconstruct-fails-other-error',
    // With a plugin whose detach fences (CSI), the detach then takes the device from under the global mount.
    explains: [
      'device-reported-unused-while-mounted',
      'multi-node-mount',
      'device-released-while-open',
      'pod-deleted-before-volumes-reclaimed',
      'pod-cgroup-destroyed-with-volumes',
      'device-left-mounted',
      'mount-device-skipped-after-failure',
    ],
  },
  'terminating-pod-volume-torn-down-on-restart': {
    upstream: ['kubernetes/kubernetes#113979', 'kubernetes/kubernetes#114326'],
    summary:
      "after a kubelet restart, the populator skips a pod that is terminating in the API, so syncStates puts its volume into the actual state (or cleanupMounts unmounts it) and the reconciler tears it down while the pod's containers still run; an UnmountDevice that then succeeds (iSCSI Block with a busy session) drops the volume from volumesInUse while the container still has the device open",
    open: 'fixed by #114326 in 1.27 and backported to 1.24-1.26 (fix dsw-terminating-pod-on-restart), never to 1.23',
    scenario: 'terminating-pod-volume-torn-down-on-restart',
    shownUnder: '1.23',
    fixedBy: 'dsw-terminating-pod-on-restart',
    // The UnmountDevice that follows the teardown deletes the LUN's paths (iSCSI falls through the busy
    // flush; a Block volume logs out) while the pod's container still holds the device.
    explains: [
      'volume-torn-down-while-running',
      'device-reported-unused-while-mounted',
      'device-released-while-open',
    ],
  },
  'failed-reconstruction-left-to-terminating-pod': {
    upstream: [
      'kubernetes/kubernetes#52683',
      'kubernetes/kubernetes#75345',
      'kubernetes/kubernetes#114326',
      'kubernetes/kubernetes#85476',
    ],
    summary:
      'after a kubelet restart, a volume whose reconstruction fails is left alone when a pod still wants it ("Volume exists in desired state, skip cleaning up mounts", hoping the reconciler\'s SetUp puts it into the actual state); with #114326 a pod the API has terminating is such a pod: its containers stop, WaitForUnmount (actual state only) returns at once, syncTerminatedPod destroys the cgroup with the mount still on the node, and once the pod leaves the desired state before any SetUp the volume is in neither state of the world: never unmounted, dropped from volumesInUse and detached under its global mount',
    open: 'syncStates in reconstruct.go (1.24-1.26 with #114326) and cleanOrphanVolumes in reconstruct_new.go (1.27 and later) skip a failed volume the desired state holds; nothing cleans it up once that pod is gone (#110670 tracks the volumes skipped because they were desired only when their reconstruction succeeded). The race is the one #52683 (item 2: "if at a point neither desired state and actual state has the volume information") and #75345 (a pod deleted during a kubelet restart leaves the desired state before the actual state records the mount) report; both were closed by the bot, unfixed. Found by podrace fuzz (seed 1, case 1402 with #114326 on). From 1.27 on, the SyncTerminatedPod of #115331 waits for podVolumesExist (the volume dir of the pod on disk) before it destroys the cgroup, so the bundled scenario shows it under 1.26',
    scenario: 'failed-reconstruction-terminating-pod',
    shownUnder: '1.26',
    explains: [
      'pod-cgroup-destroyed-with-volumes',
      'pod-deleted-before-volumes-reclaimed',
      'termination-stuck',
      'device-reported-unused-while-mounted',
      'device-released-while-open',
      'multi-node-mount',
      'device-left-mounted',
      'mount-device-skipped-after-failure',
    ],
  },
  'orphan-pod-volume-torn-down-on-restart': {
    upstream: ['kubernetes/kubernetes#110682'],
    summary:
      'after a kubelet restart, the volume of a pod that left the API while the kubelet was down is reconstructed (or cleaned up) and torn down by the reconciler (every 100 ms) before housekeeping (every 2 s, then a 1 s grace) has killed the orphaned containers; an UnmountDevice that then succeeds drops the volume from volumesInUse while they still have the device open',
    open: 'nothing orders the two loops in 1.23 or later; PR #110682 proposed gating unmountVolumes on ShouldPodRuntimeBeRemoved and was closed unmerged; no bug report was found',
    scenario: 'fc-kubelet-restart-reconstruct-procmounts',
    explains: [
      'volume-torn-down-while-running',
      'device-reported-unused-while-mounted',
      'device-released-while-open',
    ],
  },
  'cleanup-mounts-not-retried': {
    upstream: ['kubernetes/kubernetes#85834', 'kubernetes/kubernetes#101791'],
    summary:
      "after a kubelet restart, a volume whose reconstruction failed gets cleanupMounts' single UnmountVolume; when that TearDown fails nothing retries it (syncStates runs once, the volume is in neither state of the world, and cleanupOrphanedPodDirs skips pods the pod manager knows), so podVolumesExist sees the pod's mount on disk for ever and the terminating pod never leaves the API server",
    open: "release-1.23 cleanupMounts logs the UnmountVolume error and returns; #85834 was closed as stale without a fix. KEP-3756's reconstruction (fix new-volume-reconstruction, on by default in the last patches of 1.28 and later: 1.27.2 turned it off again) no longer runs syncStates: what it reconstructs goes into the actual state as uncertain and the reconciler retries its unmount; a volume whose reconstruction fails still gets one cleanupMounts, from cleanOrphanVolumes (hazard clean-orphan-volumes-not-retried)",
    fixedBy: 'new-volume-reconstruction',
    scenario: 'reconstruct-fails-cleanup-not-retried',
    // Its pod is terminating in the API: #114326's populator keeps such a pod's volume desired, so the
    // failed reconstruction is skipped and the reconciler retries the TearDown.
    shownUnder: '1.23',
    // WaitForUnmount asks the actual state only, where the cleaned-up volume is not: syncTerminatedPod
    // destroys the cgroup while the mount stays on disk.
    explains: ['termination-stuck', 'pod-cgroup-destroyed-with-volumes'],
  },
  'clean-orphan-volumes-not-retried': {
    upstream: ['kubernetes/kubernetes#101791', 'kubernetes/kubernetes#113262'],
    summary:
      "after a kubelet restart, the new reconstruction (KEP-3756) leaves a volume whose reconstruction failed (ConstructVolumeSpec could not read the volume's data) in volumesFailedReconstruction; once the desired state is populated, cleanOrphanVolumes gives one that no pod wants cleanupMounts' single UnmountVolume and forgets it; when that TearDown fails nothing retries it (the volume is in neither state of the world, and cleanupOrphanedPodDirs skips a pod whose volumes are still mounted): the pod's mount stays on disk for ever and the pod never finishes terminating",
    open: 'reconstruct_new.go cleanOrphanVolumes (1.28; reconstruct.go from 1.30): "Clean the cache, cleanup is one shot operation"; cleanupMounts in reconciler_common.go still logs the UnmountVolume error and returns (its TODO: "Currently cleanupMounts only includes UnmountVolume operation"); issue #101791 (failed reconstruction) is open. Found by podrace fuzz --kubelet 1.31 (seed 1, case 1145)',
    scenario: 'clean-orphan-volumes-not-retried',
    explains: ['termination-stuck', 'pod-cgroup-destroyed-with-volumes'],
  },
  'fc-detach-retry-window': {
    upstream: ['kubernetes/kubernetes#101862', 'kubernetes/kubernetes#94780'],
    summary:
      'FC UnmountDevice unmounts the global path, then retries DetachDisk every 10 s for 2 minutes; if the multipath map stays in use that long it returns the error, and the reconciler\'s next UnmountDevice finds nothing mounted (GetDeviceNameFromMount: "") and returns success without DetachDisk: the SCSI paths and the map stay on the node, unknown to the kubelet',
    open: 'PR #101862 bounds the retry on purpose: its description accepts that after it "leaving the devices around should not harm Kubernetes that much"; the skip on an empty device name is #94780\'s fix (PR #94781); later releases keep the same 2-minute bound in attacher.go',
    scenario: 'fc-unmount-retry-window',
    explains: ['device-leaked-after-unmount'],
  },
  'one-shot-reconstruction-gap': {
    upstream: ['kubernetes/kubernetes#85476'],
    summary:
      "after a kubelet restart between a pod's TearDown and its UnmountDevice (or after MountDevice, before SetUp), no pod volume dir names the volume: syncStates never reconstructs it, its global mount is never unmounted and it drops out of volumesInUse; likewise a restart inside a Block volume's UnmapBlockVolume (pod link removed, the pod's reference on the global map not yet) leaves that reference for ever, so the pod's volume is never torn down",
    open: 'issue #85476 is open ("kubelet looses any track of the volume"); reconstruction, in 1.23 and with KEP-3756, starts from pod volume dirs only',
    scenario: 'restart-between-teardown-and-unmount-device',
    // v1.27's pendingUpdate (pod-worker-pending-update) starts that pod's kill ~290 ms earlier, so the
    // scenario's restart misses the window from 1.27 on; restart-before-unmount-device-coalesced-syncs
    // restarts inside the moved window and shows the hazard under every preset that has the switch.
    shownUnder: '1.26',
    // With a plugin whose detach fences (CSI), the attach/detach controller's detach of the volume that
    // dropped out of volumesInUse then takes the device from under the global mount that nothing unmounts.
    // With one that does not (FC, iSCSI), another node then attaches and mounts it beside that mount.
    explains: [
      'device-reported-unused-while-mounted',
      'termination-stuck',
      'device-released-while-open',
      'multi-node-mount',
      'device-left-mounted',
      'mount-device-skipped-after-failure',
    ],
  },
  'iscsi-block-session-busy': {
    upstream: ['kubernetes/kubernetes#137913', 'kubernetes/kubernetes#137914'],
    summary:
      "iSCSI DetachBlockISCSIDisk deletes no device itself and skips the logout while another volume keeps the target's session busy: the Block LUN's SCSI paths and map stay on the node after TearDownDevice succeeded",
    open: 'release-1.23 iscsi_util.go DetachBlockISCSIDisk returns nil when isSessionBusy; the fix (#137914, like the earlier #74627) is not merged',
    scenario: 'iscsi-block-session-busy-leak',
    explains: ['device-leaked-after-unmount'],
  },
  'iscsi-detach-ignores-open-device': {
    upstream: ['kubernetes/kubernetes#97014', 'kubernetes/kubernetes#97013', 'kubernetes/kubernetes#63176'],
    summary:
      'iSCSI detach does not stop for a device a host process holds open (a udev / blkid probe, a backup agent that opened it as UnmountDevice began): DetachDisk\'s deleteDevices deletes the LUN\'s disks although `multipath -f` failed ("map in use"; "Fall through -- keep deleting the block devices") and logs out, and DetachBlockISCSIDisk logs out without flushing the map at all; the holder loses the device under it',
    open: "release-1.23 iscsi_util.go deleteDevices (the fall-through since PR #63176) and DetachBlockISCSIDisk; the corruption of removing the paths of a map that `multipath -f` did not flush (#97014) was fixed for FC only (PR #97013: fc_util.go DetachDisk returns the flush error); the kubelet's isDeviceOpened check runs after UnmountDevice and only keeps the device from being marked unmounted (#107789); no iSCSI issue was found",
    scenario: 'iscsi-device-open-after-unmount',
    explains: ['device-released-while-open'],
  },
  'wait-for-unmount-ignores-uncertain': {
    upstream: ['kubernetes/kubernetes#113563', 'kubernetes/kubernetes#138721'],
    summary:
      "a pod volume whose TearDown failed is marked VolumeMountUncertain (#100183), and WaitForUnmount counts only VolumeMounted (GetMountedVolumesForPod): syncTerminatedPod goes on as if every volume were unmounted and destroys the pod's cgroup while the mount is still on the node (podVolumesExist, which also counts uncertain mounts and the disk, still holds the API deletion back)",
    open: 'release-1.23 volume_manager.go WaitForUnmount (and master still): issue #113563 is open; PR #138721 (WaitForUnmount on GetPossiblyMountedVolumesForPod) is not merged; but since #115331 (1.27) SyncTerminatedPod also polls podVolumesExist, which counts uncertain mounts, before it destroys the cgroup (fix terminated-pod-waits-for-volume-cleanup)',
    fixedBy: 'terminated-pod-waits-for-volume-cleanup',
    scenario: 'teardown-fails-cgroup-destroyed',
    shownUnder: '1.26',
    explains: ['pod-cgroup-destroyed-with-volumes'],
  },
  'pod-volumes-exist-ignores-block-maps': {
    upstream: ['kubernetes/kubernetes#61229', 'kubernetes/kubernetes#72346'],
    summary:
      "podVolumesExist (PodResourcesAreReclaimed, cleanupOrphanedPodCgroups) asks the actual state, then the disk: but the disk half reads only the pod's volumes/ dir for mount points, never volumeDevices/. While the actual state does not hold a Block volume (a kubelet just restarted and has not reconstructed yet, or lost it), a pod whose Block volume is still mapped counts as reclaimed: the API deletion is finalised and the cgroup destroyed with the device link and map reference still on the node",
    open: 'release-1.23 kubelet_getters.go getPodVolumePathListFromDisk (and master still) reads getPodVolumesDir only; #61229 (the disk check misses volumes that are not mounts) closed as rotten, #72346 (rethink the check) is open',
    scenario: 'block-volume-deleted-before-reconstruction',
    // From 1.27 the SyncTerminatedPod of #115331 polls podVolumesExist, which gives reconstruction the time
    // to put the Block volume back: the scenario shows it under the release before.
    shownUnder: '1.26',
    explains: ['pod-deleted-before-volumes-reclaimed', 'pod-cgroup-destroyed-with-volumes'],
  },
  'terminal-on-first-sight-not-synced': {
    upstream: ['kubernetes/kubernetes#116954', 'kubernetes/kubernetes#117019'],
    summary:
      'a pod first seen terminal after a kubelet restart is recorded finished at once (#105527): SyncTerminatedPod never runs, so its status is not synced and a deleted pod is never removed from the API server',
    open: 'fixed by #117019 in 1.28 and picked to 1.27.2 as #117433 (fix terminal-pod-first-sight-synced), never to 1.26 or earlier',
    fixedBy: 'terminal-pod-first-sight-synced',
    scenario: 'terminal-pod-first-sight-not-synced',
    shownUnder: '1.26',
    explains: ['termination-stuck'],
  },
  'rejected-pod-counted-as-terminating': {
    upstream: ['kubernetes/kubernetes#135296', 'kubernetes/kubernetes#136508'],
    summary:
      "admission counts a pod the kubelet rejected as actively terminating: after the rejection a pod worker takes the pod (an UPDATE or a sync of it, which the pod manager still holds; from 1.27 the PLEG event of its orphaned containers' kill is enough) and is asked to terminate it, so filterOutInactivePods keeps it (#104817: terminal pods are inactive unless actively terminating) until the worker has terminated it, and its requests count against every pod admitted meanwhile although it runs nothing",
    open: 'issue #135296 is open (seen on 1.34.1); PR #136508, which would leave rejected pods out, is open, and PR #135298 (drop rejected pods from the pod manager) was closed unmerged',
    scenario: 'rejected-pod-counted-while-terminating',
    // #104817's clause: before it (and in release-1.20) the rule counts no pod with a terminal status.
    since: '1.22',
    explains: ['pod-rejected-with-room'],
  },
  'rejected-running-pod-killed-as-orphan': {
    upstream: [
      'kubernetes/kubernetes#124586',
      'kubernetes/kubernetes#123980',
      'kubernetes/kubernetes#133803',
    ],
    summary:
      'a restarted kubelet runs admission again on a pod that was running (HandlePodAdditions: after a restart no pod worker knows it) and rejects it when the node no longer matches its nodeSelector; no pod worker takes the rejected pod, so from 1.27 HandlePodCleanups kills its running containers as an orphaned runtime pod ("Clean up containers for orphaned pod we had not seen before", a 1 s grace override, 2 s in killContainer), whatever grace a pending deletion of the pod asked',
    open: 'issue #124586 (triage/accepted: a restarted kubelet should not evict a running pod for its node affinity) and #123980 are open; PR #133803, which skips the node affinity check for a pod already running on the node after a kubelet restart, is open',
    scenario: 'rejected-running-pod-killed-after-restart',
    // Release-1.23's housekeeping leaves a running pod the config still has to the pod worker
    // (kubelet_pods.go: `if _, found := allPodsByUID[...]`), which never takes a rejected one: the pod runs on.
    since: '1.27',
    explains: ['grace-period-not-honoured'],
  },
  'remove-before-sources-ready': {
    upstream: ['kubernetes/kubernetes#116880', 'kubernetes/kubernetes#113145'],
    summary:
      'a REMOVE that arrives before all pod sources are ready is dropped ("skipping delete because sources aren\'t ready yet") and housekeeping leaves a worker in SyncPod state alone, so the pod is never stopped',
    open: 'the REMOVE is still dropped in 1.27 and later, but the pod worker rework #113145 (1.27, no cherry-picks) makes SyncKnownPods terminate a started worker whose pod left the config (fix orphan-pod-worker-terminates)',
    fixedBy: 'orphan-pod-worker-terminates',
    scenario: 'static-pod-removed-before-sources-ready',
    shownUnder: '1.26',
    // A static pod's worker never learns of the removal, so it is not terminating when housekeeping
    // finds its mirror pod orphaned (IsPodForMirrorPodTerminatingByFullName is false): the mirror goes
    // while the containers run. The pod is never killed, so its sandbox stays ready too.
    explains: ['termination-stuck', 'mirror-pod-deleted-while-running', 'sandbox-outlived-pod'],
  },
  'static-pod-orphan-after-restart': {
    upstream: ['kubernetes/kubernetes#112814'],
    summary:
      "a static pod whose manifest changed while the kubelet was down starts at once: allowStaticPodStart knows only the new pod worker's UIDs, so the old UID's containers (an orphan until housekeeping kills it) run beside it. The orphan's UID is unknown to the restarted pod workers even when its manifest comes back (the same content, the same UID): that worker waits behind the other UID, a removal then finishes it as never started, and housekeeping kills the running containers as an orphaned runtime pod (a 1 s grace override, not the deletion's) and deletes its mirror pod while they run",
    open: 'release-1.23 allowStaticPodStart does not consult the runtime; issue #112814 was closed without a fix found for 1.23. HandlePodCleanups kills runtime pods no config has with PodTerminationGracePeriodSecondsOverride 1 ("pods that were orphaned due to kubelet restart or bugs"), and deleteOrphanedMirrorPods asks only the pod workers (IsPodForMirrorPodTerminatingByFullName); both unchanged in later releases',
    scenario: 'static-pod-orphan-after-restart',
    explains: ['static-pod-overlap', 'mirror-pod-deleted-while-running'],
  },
  'device-open-check-skips-reconstructed-path': {
    upstream: ['kubernetes/kubernetes#36092'],
    summary:
      "after a kubelet restart, a reconstructed FC / iSCSI volume's device path is the one node.status.volumesAttached gives, and their Attach (a no-op) left it empty: isDeviceOpened after UnmountDevice / UnmapDevice finds no device there and skips the check, so the device is marked unmounted (and leaves volumesInUse) while a host process or a mount still holds it open",
    open: 'release-1.23 operation_generator.go isDeviceOpened skips a path that is no device or does not exist ("TODO: refer to #36092"), reconciler.go updateDevicePath takes the device path from node status, and fc / iscsi attacher.go Attach returns ""; later releases keep all three',
    scenario: 'iscsi-device-open-after-restart',
    explains: ['device-unmounted-while-open'],
  },
  'hard-eviction-full-grace': {
    upstream: ['kubernetes/kubernetes#115819', 'kubernetes/kubernetes#124063'],
    summary:
      'a hard eviction\'s override of 0, meant as "at once", becomes the spec\'s terminationGracePeriodSeconds: calculateEffectiveGracePeriod takes the resulting 0 for "none settled" and falls back to the spec, so the evicted pod keeps running for its full grace',
    open: 'pod_workers.go (1.22-1.30) falls back to pod.Spec.TerminationGracePeriodSeconds whenever the grace it settles on is 0, and eviction_manager.go passes 0 for a hard eviction; #124063 (1.31, no cherry-picks) passes immediateEvictionGracePeriodSeconds = 1 instead and lets a 0 the deletion or an override set become 1 s (switch immediate-eviction-grace)',
    fixedBy: 'immediate-eviction-grace',
    scenario: 'hard-eviction-full-grace',
    shownUnder: '1.30',
    explains: ['grace-period-exceeded'],
  },
  'force-delete-full-grace': {
    upstream: ['kubernetes/kubernetes#115819', 'kubernetes/kubernetes#124063'],
    summary:
      'a force deletion (deletionGracePeriodSeconds 0) of a pod whose worker had already settled on a shorter grace makes calculateEffectiveGracePeriod settle on 0, which it takes for "none settled" and replaces with the spec\'s terminationGracePeriodSeconds: a kill that runs after it (the first kill failed, or the worker had not started one) gets the longer grace',
    open: 'pod_workers.go calculateEffectiveGracePeriod (1.22 to 1.30) falls back to pod.Spec.TerminationGracePeriodSeconds whenever the grace it settles on is 0; #124063 (1.31, no cherry-picks; its release note: "This bug also affected force deleted pods") adds the `overridden` flag, so a 0 the deletion set becomes 1 s (switch immediate-eviction-grace, read at v1.31.12). #120451, an earlier attempt, was closed unmerged',
    fixedBy: 'immediate-eviction-grace',
    scenario: 'force-deleted-pod-kill-error-grace',
    shownUnder: '1.30',
    since: '1.22',
    explains: ['grace-period-increased'],
  },
  'terminal-pod-volume-kept-desired': {
    upstream: ['kubernetes/kubernetes#75345', 'kubernetes/kubernetes#75458', 'kubernetes/kubernetes#52683'],
    summary:
      "a kubelet restarts after a pod's containers exited and its volume was unmounted, before the pod was finished: the populator's first pass adds the still-terminating pod's volume to the desired state (#114326), while the new reconstruction (KEP-3756) has already marked the states synced, so the first node status lists no volume in use and the attach/detach controller detaches it once the pod is terminal. The volume never reaches the actual state again, and findAndRemoveDeletedPods keeps it desired while the pod manager has the pod (\"Actual state does not yet have volume mount information\"): a completed pod the API keeps holds the volume in volumesInUse for as long as it exists",
    open: 'desired_state_of_world_populator.go findAndRemoveDeletedPods (1.28, and master) skips removal while PodRemovedFromVolume is true and the pod exists: PR #75458 (issue #75345) relies on the pod leaving the pod manager ("In case of mount fails, pod should be able to removed from pod manager"), which a terminal pod the API keeps never does. reconciler_new.go (and reconciler.go from 1.30) calls updateLastSyncTime on its first pass, before the populator has added pods, reopening the volumesInUse window of issue #52683 that PR #33616 had closed for syncStates. No upstream issue reports the leak; found by podrace fuzz',
    scenario: 'terminal-pod-volume-kept-desired',
    explains: ['volume-in-use-after-unmount'],
  },
  'pvc-lookup-error-unmounts-running': {
    upstream: ['kubernetes/kubernetes#120150', 'kubernetes/kubernetes#115006'],
    summary:
      "a kubelet restarts while it cannot read a running pod's PVC from the API server: the populator's getPVCExtractPV fails and leaves the pod's volume out of the desired state, reconstruction puts the volume it finds on disk in the actual state all the same, and the reconciler unmounts what no pod wants: the running pod's volume is torn down under its containers",
    open: 'issue #120150 is open; desired_state_of_world_populator.go (1.23 to master) records the error (AddErrorToPod) and reprocesses the pod later, and neither syncStates nor KEP-3756 reconstruction waits for a pod whose volumes failed: hasAddedPods is set after the first pass whatever it failed to add',
    scenario: 'pvc-lookup-error-after-restart',
    explains: ['volume-torn-down-while-running'],
  },
  'force-detach-unhealthy-node': {
    upstream: [
      'kubernetes/kubernetes#119273',
      'kubernetes/kubernetes#110721',
      'kubernetes/kubernetes#120344',
    ],
    summary:
      'maxWaitForUnmountDuration (6 min) after its last pod was deleted, the attach/detach controller force-detaches a volume the node still reports mounted because the node is not Ready; a node that lost only its API server (a network partition) still runs its pods and keeps the global mount, so a CSI detach (ControllerUnpublish) takes the device from under them; its kubelet never learns of the detach, and when the volume is attached to the same node again (a new pod of the name once the partition heals) its actual state still has the device GloballyMounted: MountDevice is skipped and the new pod\'s SetUp bind-mounts the dead global mount ("globalmount io error")',
    open: "issue #119273 (reported on 1.22) was closed unfixed (labels needs-triage, triage/needs-information); reconciler.go force-detaches from an unhealthy node by design (#110721 kept exactly that: forceDetach := !isHealthy && timeout), and the kubelet's reconciler never compares its actual state with node.status.volumesAttached for a volume it already has mounted. PR #120344 (1.30) adds kube-controller-manager --disable-force-detach-on-timeout, default false: with it (cluster.controllerManager.disableForceDetachOnTimeout, scenario csi-partition-disable-force-detach) the volume stays attached and nothing fires",
    scenario: 'csi-partition-force-detach-reattach',
    explains: ['device-released-while-open', 'mount-device-skipped-after-failure'],
  },
  'deleting-pvc-unmounts-running': {
    upstream: ['kubernetes/kubernetes#130335'],
    summary:
      "a user deletes the PVC of a running pod (kubernetes.io/pvc-protection keeps it, Terminating) and the pod's kubelet restarts: the populator's getPVCExtractPV refuses the claim (\"PVC is being deleted\") and leaves the volume out of the desired state, reconstruction puts the volume it finds on disk in the actual state, and the reconciler unmounts it under the pod's containers",
    open: 'desired_state_of_world_populator.go refuses every claim with a deletionTimestamp up to 1.32.3, 1.31.7 and 1.30.11; #130335 (1.33.0, picked to 1.32.4, 1.31.8 and 1.30.12: fix dsw-terminating-pvc-protected) lets one the finalizer holds through. No pick reached 1.29 or earlier',
    scenario: 'terminating-pvc-kubelet-restart',
    shownUnder: '1.29',
    fixedBy: 'dsw-terminating-pvc-protected',
    explains: ['volume-torn-down-while-running'],
  },
} as const satisfies Record<string, HazardDef>;

export type HazardId = keyof typeof HAZARDS;
export const HAZARD_IDS = Object.keys(HAZARDS) as readonly HazardId[];

const cleanupKey = (node: string, uid: string, volume: string): string => `${node}\0${uid}\0${volume}`;

/** The hazards whose volume ends in neither state of the world, so the kubelet never tears it down again. */
const FORGOTTEN_VOLUME_HAZARDS: ReadonlySet<HazardId> = new Set<HazardId>([
  'reconstruction-fails-other-error',
  'failed-reconstruction-left-to-terminating-pod',
  'one-shot-reconstruction-gap',
]);

/** The violation's release (its last cause) is a fence: the attach/detach controller's detach, not the kubelet. */
function releasedByFence(v: Violation): boolean {
  const f = v.causes[v.causes.length - 1];
  return f?.kind === 'deviceReleased' && f.action === 'fence';
}

/** The violation's release (its last cause) happened while a host process, and nothing else, held the device. */
function releasedUnderHostProcessOnly(v: Violation): boolean {
  const f = v.causes[v.causes.length - 1];
  return f?.kind === 'deviceReleased' && f.hostProcess && f.mounts === 0 && f.pods.length === 0;
}

/** A detach operation fences within this long of its start (ControllerUnpublish takes up to 1.5 s). */
const FORCED_DETACH_FENCE_MS = 5_000;

/**
 * When the fence a violation rests on happened: the release (device-released-while-open's last cause, a
 * fence) or the fence that killed the global mount a SetUp bind-mounted (mount-device-skipped-after-failure).
 */
function forcedFenceAtMs(v: Violation): number | undefined {
  const f = v.causes[v.causes.length - 1];
  if (f?.kind === 'deviceReleased' && f.action === 'fence') return f.atMs;
  if (f?.kind === 'bindMountOfFencedGlobalPath') return f.fencedAtMs;
  return undefined;
}

interface Marker {
  readonly atMs: number;
  readonly node: string;
  readonly uid: string | null;
  readonly volume: string | null;
  /** The invariants of the hazard's `explains` this marker may explain; null: all of them. */
  readonly only: readonly InvariantId[] | null;
}

/**
 * Records the facts that mark a hazard's path as taken, and ties violations to them. Cheap enough to run
 * on every fact while fuzzing: it keeps only markers, a handful per run.
 */
export class HazardTracker {
  /** The run's switches (a recording copy notes each hazard's fix switch where a marker asks it). */
  readonly #fixes: Fixes;
  readonly #markers = new Map<HazardId, Marker[]>();
  /** node, pod UID and volume of each cleanupMounts whose UnmountVolume has not reported yet. */
  readonly #cleanupsPending = new Set<string>();
  /**
   * `node\0volume` whose ConstructVolumeSpec an injected fault failed, and nodes where a procMounts fault
   * made /proc/mounts inconsistent: the causes a reconstruction may legitimately fail for. A failure with
   * neither behind it is the port's (a plugin that cannot read what it wrote), excused by no hazard.
   */
  readonly #reconstructFaults = new Set<string>();
  readonly #procMountsFaultNodes = new Set<string>();
  /**
   * `node\0volume` that a reconstruction after a kubelet restart touched: only such a volume can hold the
   * empty device path of node status in the actual state (a mounted one gets WaitForAttach's path).
   */
  readonly #reconstructedVolumes = new Set<string>();

  constructor(fixes: Fixes = Fixes.all()) {
    this.#fixes = fixes;
  }

  onFact(f: Fact): void {
    switch (f.kind) {
      case 'faultInjected':
        if (f.fault === 'constructVolumeSpec')
          this.#reconstructFaults.add(`${f.node}\u0000${f.volume ?? ''}`);
        if (f.fault === 'procMounts') this.#procMountsFaultNodes.add(f.node);
        return;
      case 'procMountsRead':
        if (!f.consistent) this.#procMountsFaultNodes.add(f.node);
        return;
      case 'volumeReconstruction':
        this.#reconstructedVolumes.add(`${f.node}\u0000${f.volume}`);
        // A failure needs a cause upstream has too: an injected fault, an inconsistent /proc/mounts, or a
        // pod volume dir that was never mounted (a kubelet killed inside SetUp, between its MkdirAll and
        // its mount: fc.go / iscsi.go ConstructVolumeSpec find no global mount in the dir's mount refs and
        // fail, "an error returned from here would leave the global mount still mounted, while marking
        // the volume as unused", as fc.go itself warns).
        if (
          !f.ok &&
          !this.#reconstructFaults.has(`${f.node}\u0000${f.volume}`) &&
          !this.#procMountsFaultNodes.has(f.node) &&
          f.podPathMounted !== false
        ) {
          return;
        }
        if (!f.ok && !f.inconsistentRead && f.outcome === 'cleanupMounts') {
          // A Filesystem volume's cleanupMounts unmounts the pod's own mount (or fails, and podVolumesExist
          // sees it on disk): only a Block volume's pod map outlives it unseen (reconciler.go cleanupMounts
          // builds a MountedVolume without VolumeSpec, so UnmountVolume takes the Filesystem path).
          const only =
            f.mode === 'Block'
              ? null
              : ([
                  'device-reported-unused-while-mounted',
                  'multi-node-mount',
                  'device-released-while-open',
                  'device-left-mounted',
                  'mount-device-skipped-after-failure',
                ] as const);
          this.#mark('reconstruction-fails-other-error', f.atMs, f.node, f.uid, f.volume, only);
          this.#cleanupsPending.add(cleanupKey(f.node, f.uid, f.volume));
        }
        if (!f.ok && !f.inconsistentRead && f.outcome === 'failedReconstruction') {
          // The new reconstruction (1.28 reconcileNew) marks the states synced on its first pass, before
          // the populator has added any pod: node.status.volumesInUse (desired + actual state) then leaves
          // out a volume whose reconstruction failed, even one a pod still wants, until the desired state
          // has it; the attach/detach controller may detach it meanwhile (#101791's path, earlier).
          this.#mark('reconstruction-fails-other-error', f.atMs, f.node, f.uid, f.volume, [
            'device-reported-unused-while-mounted',
            'multi-node-mount',
            'device-released-while-open',
            'mount-device-skipped-after-failure',
          ]);
        }
        if (!f.ok && f.outcome === 'skippedDesired' && f.podKnown) {
          this.#mark('failed-reconstruction-left-to-terminating-pod', f.atMs, f.node, f.uid, f.volume);
        }
        if (f.outcome === 'addedToActualState' || f.outcome === 'cleanupMounts') {
          // A known pod is out of the desired state for #113979's reason only when its containers were
          // terminating (the populator's ShouldPodContainersBeTerminating skip); a running pod left out is
          // some other bug, excused by nothing.
          if (f.podKnown && !f.podTerminating) return;
          const id = f.podKnown
            ? 'terminating-pod-volume-torn-down-on-restart'
            : 'orphan-pod-volume-torn-down-on-restart';
          // Reported unused follows only through the reconciler: syncStates put the volume into the actual
          // state, it was torn down and UnmountDevice succeeded. After cleanupMounts the global mount stays
          // and nothing unmounts it: that is #101791's path (or #102059's, a fixed bug), not this one.
          const only = f.outcome === 'cleanupMounts' ? (['volume-torn-down-while-running'] as const) : null;
          this.#mark(id, f.atMs, f.node, f.uid, f.volume, only);
        }
        return;
      case 'volumeTearDown':
        // The first TearDown of a cleaned-up pod volume is cleanupMounts' own (the volume is in no state of
        // the world, so the reconciler never tears it down); a failed one is never tried again.
        if (this.#cleanupsPending.delete(cleanupKey(f.node, f.uid, f.volume)) && !f.ok) {
          // syncStates' cleanupMounts, or (KEP-3756) cleanOrphanVolumes': the same one-shot UnmountVolume.
          const id = this.#fixes.on('new-volume-reconstruction')
            ? 'clean-orphan-volumes-not-retried'
            : 'cleanup-mounts-not-retried';
          this.#mark(id, f.atMs, f.node, f.uid, f.volume);
        }
        return;
      case 'reconstructionFinished':
        // #85476's gap is a volume no pod dir names: syncStates starts from pod dirs only. A volume a pod
        // dir did name and syncStates still left out is a bug of the reconstruction, excused by nothing.
        for (const volume of f.unreconstructedDevices) {
          if (f.podDirVolumes.some((d) => d.volume === volume)) continue;
          this.#mark('one-shot-reconstruction-gap', f.atMs, f.node, null, volume);
        }
        // A pod's reference left on a Block volume's global map only holds that map up: the kubelet's own
        // UnmapDevice then refuses (GetDeviceBindMountRefs), so the pod never finishes terminating. The
        // device's release, a second node's mount or a wrong volumesInUse follow only from a device that
        // itself dropped out (the marker above); one torn down under the reference is the kubelet's bug.
        for (const m of f.unreconstructedPodMaps) {
          if (f.podDirVolumes.some((d) => d.uid === m.uid && d.volume === m.volume)) continue;
          this.#mark('one-shot-reconstruction-gap', f.atMs, f.node, m.uid, m.volume, ['termination-stuck']);
        }
        return;
      case 'fcDetachRetryExhausted':
        this.#mark('fc-detach-retry-window', f.atMs, f.node, null, f.volume);
        return;
      case 'deviceResidue':
        // The device path the kubelet checked names no device: isDeviceOpened skipped the check. That is
        // #36092's TODO only for a reconstructed volume; an empty path elsewhere is the kubelet's own bug.
        if (!f.devicePathIsDevice && this.#reconstructedVolumes.has(`${f.node}\u0000${f.volume}`)) {
          this.#mark('device-open-check-skips-reconstructed-path', f.atMs, f.node, null, f.volume);
        }
        return;
      case 'iscsiLogoutSkipped':
        if (f.block) this.#mark('iscsi-block-session-busy', f.atMs, f.node, null, f.volume);
        return;
      case 'multipathFlushFailed':
        // deleteDevices goes on deleting the disks of the map it could not flush.
        if (f.fellThrough) this.#mark('iscsi-detach-ignores-open-device', f.atMs, f.node, null, f.volume);
        return;
      case 'iscsiLogout':
        // DetachBlockISCSIDisk logs out with no flush that would find the map in use.
        if (f.block) this.#mark('iscsi-detach-ignores-open-device', f.atMs, f.node, null, f.volume);
        return;
      case 'unmountWaitIgnoredUncertain':
        this.#mark('wait-for-unmount-ignores-uncertain', f.atMs, f.node, f.uid, null);
        return;
      case 'podVolumeLookupFailed':
        // Explains a teardown of that pod's volume until the volume is set up for it again. A claim being
        // deleted is #130335's path (closed by its switch); a failed read, #120150's (open everywhere).
        this.#mark(
          f.cause === 'deleting' ? 'deleting-pvc-unmounts-running' : 'pvc-lookup-error-unmounts-running',
          f.atMs,
          f.node,
          f.uid,
          f.volume,
        );
        return;
      case 'volumeSetUp':
        this.#unmark('pvc-lookup-error-unmounts-running', f.node, f.uid, f.volume);
        this.#unmark('deleting-pvc-unmounts-running', f.node, f.uid, f.volume);
        return;
      case 'podVolumesExistMissedBlockMap':
        this.#mark('pod-volumes-exist-ignores-block-maps', f.atMs, f.node, f.uid, f.volume);
        return;
      case 'terminatedPodVolumeKeptDesired':
        // Only while the desired state keeps it: once the populator drops the volume, the kubelet stops
        // listing it within a node status update, and a listing after that is someone else's.
        if (f.kept) this.#mark('terminal-pod-volume-kept-desired', f.atMs, f.node, f.uid, f.volume);
        else this.#unmark('terminal-pod-volume-kept-desired', f.node, f.uid, f.volume);
        return;
      case 'podEvictionRequested':
        // Only the pod worker of #102344 has the fallback; release-1.20's killPodNow kills with the 0.
        if (f.gracePeriodSeconds === 0 && this.#fixes.on('pod-worker-lifecycle'))
          this.#mark('hard-eviction-full-grace', f.atMs, f.node, f.uid, null);
        return;
      case 'gracePeriodFellBack':
        // The eviction manager's 0 has its own hazard (hard-eviction-full-grace); a force delete's 0 is
        // #115819's other half, open with the #102344 pod worker until #124063 (1.31).
        if (f.cause === 'deletion') this.#mark('force-delete-full-grace', f.atMs, f.node, f.uid, null);
        return;
      case 'podFinishedOnFirstSight':
        this.#mark('terminal-on-first-sight-not-synced', f.atMs, f.node, f.uid, null);
        return;
      case 'rejectedPodCountedActive':
        this.#mark('rejected-pod-counted-as-terminating', f.atMs, f.node, f.uid, null);
        return;
      case 'rejectedPodKilledAsOrphan':
        this.#mark('rejected-running-pod-killed-as-orphan', f.atMs, f.node, f.uid, null);
        return;
      case 'podRemoveDropped':
        this.#mark('remove-before-sources-ready', f.atMs, f.node, f.uid, null);
        return;
      case 'forceDetachUnhealthyNode':
        this.#mark('force-detach-unhealthy-node', f.atMs, f.node, null, f.volume);
        return;
      case 'staticPodStartedBesideOrphan':
        this.#mark('static-pod-orphan-after-restart', f.atMs, f.node, f.uid, null, ['static-pod-overlap']);
        // The orphan itself: its containers run unknown to the pod workers until housekeeping kills them
        // (1 s override) and deletes its mirror pod, whatever worker its UID gets later.
        this.#mark('static-pod-orphan-after-restart', f.atMs, f.node, f.orphanUid, null, [
          'mirror-pod-deleted-while-running',
        ]);
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
      if (markers.some((m) => this.#ties(id, m, v))) return id;
    }
    return null;
  }

  #mark(
    id: HazardId,
    atMs: number,
    node: string,
    uid: string | null,
    volume: string | null,
    only: readonly InvariantId[] | null = null,
  ): void {
    // A hazard whose fix is on is closed: its path taken is the port's bug, not upstream's (the switch is
    // read here, at the marker's time, so a run that never took the path never depends on it).
    const def: HazardDef = HAZARDS[id];
    if (fixedInRelease(def, this.#fixes)) return;
    if (def.fixedBy !== undefined && this.#fixes.on(def.fixedBy)) return;
    let list = this.#markers.get(id);
    if (list === undefined) {
      list = [];
      this.#markers.set(id, list);
    }
    list.push({ atMs, node, uid, volume, only });
  }

  /** Drops a hazard's markers for a path that closed again (the same node, pod and volume). */
  #unmark(id: HazardId, node: string, uid: string, volume: string): void {
    const list = this.#markers.get(id);
    if (list === undefined) return;
    const left = list.filter((m) => !(m.node === node && m.uid === uid && m.volume === volume));
    this.#markers.set(id, left);
  }

  /**
   * Whether a marker explains a violation: it came first and names the violation's pod or volume on the
   * violation's node. multi-node-mount is reported on the node that opened the LUN second; #101791's
   * marker is on the node that kept it, so only the volume has to match there.
   */
  #ties(id: HazardId, m: Marker, v: Violation): boolean {
    if (m.atMs > v.atMs) return false;
    // multi-node-mount is reported on the node that mounted second; the marker is on the node that kept
    // the forgotten mount, so only the volume has to match.
    if (
      (id === 'reconstruction-fails-other-error' ||
        id === 'one-shot-reconstruction-gap' ||
        id === 'failed-reconstruction-left-to-terminating-pod') &&
      v.invariant === 'multi-node-mount'
    ) {
      return m.volume === v.volume;
    }
    // The kubelet lets iSCSI detach only what no mount and no pod holds (GetDeviceMountRefs, the actual
    // state's mounted pods): the hazard explains a release under a host process alone, nothing else.
    if (id === 'iscsi-detach-ignores-open-device' && !releasedUnderHostProcessOnly(v)) return false;
    // A volume in neither state of the world is one the kubelet never tears down: what takes its device is
    // the attach/detach controller's detach (a CSI ControllerUnpublish fences the LUN). A logout or a SCSI
    // delete is the kubelet's own teardown, which its checks should have held back, excused by nothing.
    if (
      FORGOTTEN_VOLUME_HAZARDS.has(id) &&
      v.invariant === 'device-released-while-open' &&
      !releasedByFence(v)
    ) {
      return false;
    }
    // A forgotten volume's global mount outlives the detach that fenced its device: when the volume is
    // attached to the node again, a SetUp bind-mounts that dead mount (CSI NodeStage is idempotent over a
    // staged path; a volume in the actual state skips MountDevice). Only a fenced mount, fenced after the
    // volume was forgotten, is theirs: a SetUp over an unmounted path (#100183) is excused by nothing.
    // The SetUp is a later pod's, so the marker's pod does not have to match: its node and volume do.
    if (FORGOTTEN_VOLUME_HAZARDS.has(id) && v.invariant === 'mount-device-skipped-after-failure') {
      const f = v.causes[v.causes.length - 1];
      if (f?.kind !== 'bindMountOfFencedGlobalPath' || f.fencedAtMs < m.atMs) return false;
      if (m.only !== null && !m.only.includes(v.invariant)) return false;
      return m.node === v.node && m.volume !== null && m.volume === v.volume;
    }
    // Only what that forced detach did: its own fence (ControllerUnpublish, within the operation's few
    // seconds), and a SetUp on the mount that fence killed. Any other release, or a skipped MountDevice
    // over an unmounted path, is excused by nothing.
    if (id === 'force-detach-unhealthy-node') {
      const fencedAtMs = forcedFenceAtMs(v);
      if (fencedAtMs === undefined || fencedAtMs < m.atMs || fencedAtMs > m.atMs + FORCED_DETACH_FENCE_MS)
        return false;
    }
    // The skipped check excuses only the marking it skipped for, not a later one with a real path.
    if (id === 'device-open-check-skips-reconstructed-path' && m.atMs !== v.atMs) return false;
    if (m.only !== null && !m.only.includes(v.invariant)) return false;
    if (v.node !== null && m.node !== v.node) return false;
    // What the violation names must match what the marker names (a violation about a volume has no pod).
    if (m.volume !== null && v.volume !== null && m.volume !== v.volume) return false;
    if (m.uid !== null && v.uid !== null && m.uid !== v.uid) return false;
    return (m.volume !== null && m.volume === v.volume) || (m.uid !== null && m.uid === v.uid);
  }
}
