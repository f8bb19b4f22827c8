// One line per invariant for `podrace list invariants` (docs/invariants.md has a page each).
import type { InvariantId } from './types.js';

export const INVARIANT_DESCRIPTIONS: Readonly<Record<InvariantId, string>> = {
  'container-started-after-terminated':
    'the runtime starts a container for a pod UID after the kubelet treated that pod as terminated',
  'volume-torn-down-while-running':
    "a pod's volume is torn down while a container of the pod runs, or a container starts without its torn-down volume",
  'pod-deleted-while-running':
    "the kubelet finalises a pod's API deletion while a container of it still runs (a user's force delete is not a violation)",
  'static-pod-overlap': 'two static pods with the same fullname have running containers at once on a node',
  'multi-node-mount':
    'a ReadWriteOnce LUN is open read-write on two unfenced nodes at once (data corruption)',
  'device-reported-unused-while-mounted':
    'a node reports a volume not in use (volumesInUse) while its device is still mounted or mapped there',
  'mount-device-skipped-after-failure':
    "a pod's SetUp bind-mounts a global path that is not mounted (MountDevice skipped after a failed UnmountDevice)",
  'device-leaked-after-unmount':
    'the kubelet marks a device unmounted while SCSI paths of the LUN remain on the node',
  'kubelet-panic':
    'a kubelet component fails in a way Go would panic (nil dereference, GetMetrics on an unset provider)',
  'node-shutdown-marked-failed':
    'finding (not a violation): a graceful node shutdown marks a restartable pod Failed, as upstream intends (#104531)',
  'concurrent-kill': 'a second kill of a pod UID starts in the runtime before an earlier kill returned',
  'grace-period-increased':
    'a kill of a pod starts with a longer grace period than an earlier kill of the same UID already used',
  'termination-stuck':
    'a deleted pod has not stopped its containers, torn down its volumes and left the API server by the end (no fault active)',
  'pod-never-started':
    'an admitted pod, not terminating, has not started all its containers 2 min after it could start (judged at the end, no fault active)',
  'grace-period-not-honoured':
    'a container is SIGKILLed sooner after its SIGTERM than the shortest grace period asked for its pod (deletion, eviction, shutdown, spec)',
  'pod-deleted-before-volumes-reclaimed':
    "the kubelet finalises a pod's API deletion while the pod still has a volume set up on its node (PodResourcesAreReclaimed)",
  'device-released-while-open':
    "a node deletes a LUN's SCSI path, logs out of its iSCSI session or is fenced from it while a mount, container or process holds it",
  'volume-detached-while-in-use':
    'the attach/detach controller detaches a volume its node lists in volumesInUse (Ready node, or before 6 min), or before 6 min unverified',
  'pod-status-regressed':
    "a pod's API status goes backwards: its phase leaves Failed / Succeeded, or a terminated container that may not restart leaves terminated",
  'mirror-pod-deleted-while-running':
    "the kubelet deletes a static pod's mirror pod after its manifest went while the static pod's containers still run",
  'pod-cgroup-destroyed-with-volumes':
    "a pod's cgroup is destroyed while the pod still has a volume set up on its node (cleanupOrphanedPodCgroups, syncTerminatedPod)",
  'grace-period-exceeded':
    'a container is told to stop with a longer grace than the kubelet was asked for its pod (deletion, eviction, shutdown, orphan kill)',
  'mount-stacked':
    'a node mounts something on a path that is already a mount point (a plugin or CSI call that is not idempotent)',
  'pod-deleted-without-request':
    'the kubelet deletes a pod object from the API server although nobody requested its deletion (canBeDeleted needs a deletionTimestamp)',
  'container-restarted-against-policy':
    'the runtime starts a container again after it exited on its own although the restart policy forbids it (Never; OnFailure after exit 0)',
  'container-started-without-volume':
    'a container starts on a node where a volume of its pod was never set up for it (syncPod starts containers only after WaitForAttachAndMount)',
  'volume-left-attached':
    'a volume stays attached to a node long after no pod there wants it and the node stopped listing it in volumesInUse',
  'volume-in-use-after-unmount':
    "a node's status keeps listing a volume in volumesInUse long after the node unmounted all of it and no pod there wants it",
  'mirror-pod-missing':
    'a static pod runs on a node for minutes while the API server holds no mirror pod of it (syncPod creates it)',
  'container-restarted-during-back-off':
    "a container is started again sooner after its last attempt ended than the kubelet's crash-loop back-off allows (10 s doubling to 5 min)",
  'pod-phase-not-terminal':
    'a Never or OnFailure pod whose containers all ended for good never shows Failed or Succeeded in the API server',
  'sandbox-outlived-pod':
    "a pod's sandbox is still ready on its node minutes after the pod left the API server (KillPod stops every sandbox)",
  'device-unmounted-while-open':
    "the kubelet marks a device unmounted while a host process or a mount on the node still holds the LUN's device open",
  'device-left-mounted':
    "a LUN's global mount stays on a node long after no pod there mounted or wanted the volume (the reconciler's UnmountDevice)",
  'pod-rejected-with-room':
    'the kubelet rejects a pod OutOfcpu / OutOfmemory although the pods that hold the node (running, or admitted and not over) leave room for it',
};

export function describeInvariant(id: InvariantId): string {
  return INVARIANT_DESCRIPTIONS[id];
}
