// Ported from kubernetes pkg/kubelet/kubelet_pods.go, v1.28.0: HandlePodCleanups after #113145
// (`pod-worker-pending-update` on) and #116690 (`housekeeping-restart-same-round`). What it changes against release-1.23's (kubeletPods.ts): the runtime
// cache is refreshed before housekeeping reads it (ForceUpdateIfOlder), every admitted pod the pod worker
// does not know is restarted (1.23 restarted only a UID that SyncKnownPods reported recreated), and a
// runtime pod is killed when the pod worker does not know its UID (1.23: when it was not running or
// terminating in the worker and not in the config).
import { isPodPhaseTerminal, type Pod, type RuntimePod, type UID } from '../api/v1.js';
import type { Co } from '../sim/index.js';
import { isRejectedByAdmission, killTerminalPodsToDelete } from './admission.js';
import type { Kubelet } from './kubelet.js';
import { deleteOrphanedMirrorPods } from './kubeletMirrorPods.js';
import type { PodWorkers } from './podWorkers.js';

/** isAdmittedPodTerminal: the config source or the status manager saw a terminal phase. */
function isAdmittedPodTerminal(kl: Kubelet, pod: Pod): boolean {
  if (isPodPhaseTerminal(pod.status.phase)) return true;
  const status = kl.statusManager.getPodStatus(pod.metadata.uid);
  return status !== undefined && isPodPhaseTerminal(status.phase);
}

/** filterOutInactivePods: not known terminated, and not terminal unless still terminating. */
function isActivePod(kl: Kubelet, podWorkers: PodWorkers, pod: Pod): boolean {
  const uid = pod.metadata.uid;
  if (podWorkers.isPodKnownTerminated(uid)) return false;
  return !(isAdmittedPodTerminal(kl, pod) && !podWorkers.isPodTerminationRequested(uid));
}

/**
 * Simulator observation, the known-open hazard `rejected-running-pod-killed-as-orphan` (#124586, #123980):
 * the runtime pod killed as an orphan is one the config still has and this kubelet rejected (the status
 * manager holds rejectPod's Failed), a pod that was running when a restarted kubelet admitted it again.
 * Its kill takes the orphan's 1 s override, whatever grace its deletion or its spec asked.
 */
function noteRejectedPodKilled(kl: Kubelet, runningPod: RuntimePod): void {
  // The status manager keeps statuses of config pods only (removeOrphanedStatuses ran above).
  if (!isRejectedByAdmission(kl.statusManager.getPodStatus(runningPod.id)?.message)) return;
  kl.publish({
    kind: 'rejectedPodKilledAsOrphan',
    atMs: kl.sim.nowMs,
    node: kl.nodeName,
    uid: runningPod.id,
    pod: runningPod.name,
  });
}

export function* handlePodCleanupsReworked(kl: Kubelet, podWorkers: PodWorkers): Co<void> {
  const { pods: allPods, mirrorPods } = kl.podManager.getPodsAndMirrorPods();
  // Before #116690 (1.27) the admitted pods were picked before SyncKnownPods: a reused UID, terminated
  // and still known then, was left out, and restarted only by the next round (2 s later).
  const activeBeforeSync = kl.fixes.on('housekeeping-restart-same-round')
    ? undefined
    : new Set(allPods.filter((p) => isActivePod(kl, podWorkers, p)).map((p) => p.metadata.uid));
  // SyncKnownPods leaves out the workers it removed: a pod the worker does not know is to be restarted.
  const workingPods = podWorkers.syncKnownPods(allPods);
  // possiblyRunningPods, before this round adds any: the cgroup cleanup below reads it.
  const possiblyRunningPods = new Set<UID>();
  for (const [uid, state] of workingPods) {
    if (state === 'SyncPod' || state === 'TerminatingPod') possiblyRunningPods.add(uid);
  }
  // "We need the latest state to avoid delaying restarts of static pods that reuse a UID."
  kl.forceUpdateRuntimeCacheIfOlder(kl.sim.nowMs);
  const runningRuntimePods = kl.runtimeCacheGetPods();
  // removeOrphanedPodStatuses: config pods and mirror pods.
  const podUIDs = new Set<UID>();
  for (const p of allPods) podUIDs.add(p.metadata.uid);
  for (const p of mirrorPods) podUIDs.add(p.metadata.uid);
  kl.statusManager.removeOrphanedStatuses(podUIDs);
  yield* deleteOrphanedMirrorPods(kl, (fullname) =>
    podWorkers.isPodForMirrorPodTerminatingByFullName(fullname),
  );
  // Every admitted (active) pod the pod worker does not know is delivered again as a create: a UID
  // reused while it terminated, or one whose worker was forgotten (a runtime pod's, see
  // completeTerminatingRuntimePod). Containers left from a previous execution are the sync's to reconcile.
  for (const pod of allPods) {
    const uid = pod.metadata.uid;
    if (workingPods.has(uid)) continue;
    if (!(activeBeforeSync?.has(uid) ?? isActivePod(kl, podWorkers, pod))) continue;
    podWorkers.updatePod({
      updateType: 'SyncPodCreate',
      pod,
      mirrorPod: kl.podManager.getMirrorPodByPod(pod),
    });
    workingPods.set(uid, 'SyncPod');
  }
  // #118497: deleted terminal pods no worker knows and the runtime does not run (a rejected pod).
  killTerminalPodsToDelete(kl, allPods, runningRuntimePods, workingPods);
  // A runtime pod the pod worker does not know is killed through it (SyncTerminatingRuntimePod, 1 s).
  for (const runningPod of runningRuntimePods) {
    if (workingPods.has(runningPod.id)) continue;
    noteRejectedPodKilled(kl, runningPod);
    podWorkers.updatePod({
      updateType: 'SyncPodKill',
      runningPod,
      killPodOptions: { evict: false, podTerminationGracePeriodSecondsOverride: 1 },
    });
    workingPods.set(runningPod.id, 'TerminatingPod');
  }
  // cleanupOrphanedPodCgroups: pods neither running nor terminating whose volumes are gone.
  for (const uid of [...kl.host.podCgroups].sort()) {
    if (possiblyRunningPods.has(uid)) continue;
    if (kl.volumeManager.podVolumesExist(uid)) continue;
    kl.host.podCgroups.delete(uid);
  }
  kl.runtimeManager.backOffGC();
}
