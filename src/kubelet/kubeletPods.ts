// Ported from kubernetes pkg/kubelet/kubelet_pods.go, release-1.23 (HandlePodCleanups,
// PodResourcesAreReclaimed) and pkg/kubelet/kuberuntime/kuberuntime_gc.go (container GC), with the
// release-1.20 bodies where PR #102344 changed them (fix `pod-worker-lifecycle` off).
import type { Pod, PodStatus, UID } from '../api/v1.js';
import type { Co } from '../sim/index.js';
import { killTerminalPodsToDelete } from './admission.js';
import type { Kubelet } from './kubelet.js';
import { deleteOrphanedMirrorPods } from './kubeletMirrorPods.js';
import { handlePodCleanupsReworked } from './kubeletPodsCleanup.js';
import { notRunning } from './status/generate.js';

/**
 * HandlePodCleanups (housekeeping, every 2 s once all sources are ready). Release-1.23: the pod worker
 * decides; runtime pods the worker does not know as running or terminating are killed through
 * UpdatePod(SyncPodKill, RunningPod) with a 1 s grace override.
 */
export function* handlePodCleanups(kl: Kubelet): Co<void> {
  if (kl.podWorkers === undefined) {
    yield* kl.legacy?.handlePodCleanups() ?? noop();
    return;
  }
  // v1.27 (#113145): kubeletPodsCleanup.ts.
  if (kl.fixes.on('pod-worker-pending-update')) {
    yield* handlePodCleanupsReworked(kl, kl.podWorkers);
    return;
  }
  const { pods: allPods, mirrorPods } = kl.podManager.getPodsAndMirrorPods();
  const workingPods = kl.podWorkers.syncKnownPods(allPods);
  // Loops rather than map/spread chains: housekeeping runs every 2 s on every node (allocation: GC).
  const allPodsByUID = new Map<UID, Pod>();
  for (const p of allPods) allPodsByUID.set(p.metadata.uid, p);
  const runningRuntimePods = kl.runtimeCacheGetPods();
  killTerminalPodsToDelete(kl, allPods, runningRuntimePods, workingPods);
  for (const runningPod of runningRuntimePods) {
    const state = workingPods.get(runningPod.id);
    if (state === 'SyncPod' || state === 'TerminatingPod') continue;
    if (allPodsByUID.has(runningPod.id)) continue; // known config pod: the pod worker handles it
    kl.podWorkers.updatePod({
      updateType: 'SyncPodKill',
      runningPod,
      killPodOptions: { evict: false, podTerminationGracePeriodSecondsOverride: 1 },
    });
  }
  // removeOrphanedPodStatuses: config pods and mirror pods.
  const podUIDs = new Set<UID>();
  for (const p of allPods) podUIDs.add(p.metadata.uid);
  for (const p of mirrorPods) podUIDs.add(p.metadata.uid);
  kl.statusManager.removeOrphanedStatuses(podUIDs);
  // Remove any orphaned mirror pods (mirror pods are tracked by name via the pod worker).
  const podWorkers = kl.podWorkers;
  yield* deleteOrphanedMirrorPods(kl, (fullname) =>
    podWorkers.isPodForMirrorPodTerminatingByFullName(fullname),
  );
  // cleanupOrphanedPodCgroups: destroy cgroups of pods that are neither running nor terminating and whose
  // volumes are gone.
  for (const uid of [...kl.host.podCgroups].sort()) {
    const state = workingPods.get(uid);
    if (state === 'SyncPod' || state === 'TerminatingPod') continue;
    if (kl.volumeManager.podVolumesExist(uid)) continue;
    kl.host.podCgroups.delete(uid);
  }
  kl.runtimeManager.backOffGC();
  // Restart pods whose UID was reused while they terminated (#104847; before it, no such state existed
  // and nothing restarted them).
  for (const [uid, state] of workingPods) {
    // Only the fix reports this state; the switch is read where it decides (src/fuzz/oracle.ts).
    if (state !== 'TerminatedAndRecreatedPod' || !kl.fixes.on('pod-uid-reuse-restart')) continue;
    const pod = allPodsByUID.get(uid);
    if (pod === undefined) continue;
    // isAdmittedPodTerminal: a pod already in a terminal phase is not restarted.
    const phase = (kl.statusManager.getPodStatus(uid) ?? pod.status).phase;
    if (phase === 'Failed' || phase === 'Succeeded') continue;
    kl.dispatchWork(pod, 'SyncPodCreate', kl.podManager.getMirrorPodByPod(pod));
  }
}

function* noop(): Co<void> {}

/**
 * PodResourcesAreReclaimed gates the status manager's final API delete. Release-1.23 asks the pod worker
 * (CouldHaveRunningContainers) and leaves dead containers to background GC; release-1.20 read the status
 * and required the runtime cache to hold no containers at all (#50350).
 */
export function podResourcesAreReclaimed(kl: Kubelet, pod: Pod, status: PodStatus): boolean {
  const uid = pod.metadata.uid;
  if (kl.podWorkers !== undefined) {
    if (kl.podWorkers.couldHaveRunningContainers(uid)) return false;
    if (status.containerStatuses.some((c) => c.state === 'running')) return false; // countRunningContainerStatus
  } else {
    if (!notRunning(status.containerStatuses)) return false;
    if (kl.podCache.get(uid).containerStatuses.length > 0) return false;
  }
  if (kl.volumeManager.podVolumesExist(uid)) return false;
  if (kl.host.podCgroups.has(uid)) return false;
  return true;
}

/**
 * Container GC (kuberuntime_gc.go evictContainers): with all sources ready, remove every dead container
 * of pods whose content may go. Release-1.23 asks ShouldPodContentBeRemoved; 1.20 asked IsPodDeleted.
 */
export function* runContainerGC(kl: Kubelet): Co<void> {
  if (!kl.sourcesReadyAllReady()) return;
  const podWorkers = kl.podWorkers;
  const shouldRemove =
    podWorkers !== undefined
      ? (uid: UID) => podWorkers.shouldPodContentBeRemoved(uid)
      : (uid: UID) => kl.legacy?.isPodDeleted(uid) ?? false;
  yield* kl.runtimeManager.removeDeadContainers(shouldRemove);
}
