// Ported from kubernetes pkg/kubelet/kubelet.go (HandlePodAdditions' admission: canAdmitPod, rejectPod)
// and pkg/kubelet/kubelet_pods.go (filterOutInactivePods, isAdmittedPodTerminal,
// filterTerminalPodsToDelete), read at v1.23.13 and v1.28.0; release-1.20's podIsTerminated gate where
// fix `pod-worker-lifecycle` is off.
import { isPodPhaseTerminal, newPodStatus, type Pod, type RuntimePod, type UID } from '../api/v1.js';
import type { Kubelet } from './kubelet.js';
import type { PodAdmitResult } from './lifecycle/predicate.js';
import type { PodWorkerState } from './types.js';

/**
 * HandlePodAdditions' admission of one pod new to this kubelet process: true if it goes on to the pod
 * workers, false if it was rejected (failed through the status manager, never handed to a worker).
 */
export function admitPod(kl: Kubelet, pod: Pod): boolean {
  const legacy = kl.legacy;
  // existingPods: the pod manager's pods before this one was added (the live list less this pod, as
  // later releases filter it: "Filter out the pod being evaluated").
  const uid = pod.metadata.uid;
  const existingPods = kl.podManager.getPods().filter((p) => p.metadata.uid !== uid);
  if (kl.podWorkers === undefined) {
    // Release-1.20: "Only go through the admission process if the pod is not terminated" (podIsTerminated:
    // a terminal phase, the status manager's or the API's, or deleted with nothing running).
    if (legacy === undefined || legacy.podIsTerminated(pod)) return true;
    // filterOutTerminatedPods: we failed pods that we rejected, so these are the admitted pods alive.
    const activePods = existingPods.filter((p) => !legacy.podIsTerminated(p));
    return admitOrReject(kl, activePods, pod);
  }
  // Only go through the admission process if the pod is not requested for termination by another part
  // of the kubelet (#102344; before it, release-1.20's podIsTerminated above). A pod first seen after a
  // restart is not known to the pod worker, so a terminal one is admitted again: a completed pod kept by
  // a finalizer may be rejected and turned Failed (#126341).
  if (kl.podWorkers.isPodTerminationRequested(uid)) return true;
  const activePods = filterOutInactivePods(kl, existingPods, pod);
  const result = canAdmitPod(kl, activePods, pod);
  if (result.admit) return true;
  // #126343 (1.32; 1.31.1, 1.30.5, 1.29.9, 1.28.14) also skips admission for a pod whose API phase is
  // terminal. Asked only where admission would reject it (an admitted pod goes on either way), so a run
  // that never reads the switch is the same run with it flipped (src/fuzz/oracle.ts).
  if (isPodPhaseTerminal(pod.status.phase) && kl.fixes.on('terminal-pod-not-readmitted')) return true;
  rejectPod(kl, pod, result.reason, result.message);
  return false;
}

function admitOrReject(kl: Kubelet, activePods: readonly Pod[], pod: Pod): boolean {
  const result = canAdmitPod(kl, activePods, pod);
  if (result.admit) return true;
  rejectPod(kl, pod, result.reason, result.message);
  return false;
}

/**
 * canAdmitPod: each pod admit handler in turn; the first that rejects decides. `pods` are the admitted
 * pods that are alive (the handlers' OtherPods).
 */
export function canAdmitPod(kl: Kubelet, pods: readonly Pod[], pod: Pod): PodAdmitResult {
  for (const handler of kl.admitHandlers) {
    const result = handler.admit({ pod, otherPods: pods });
    if (!result.admit) return result;
  }
  return { admit: true, reason: '', message: '' };
}

/**
 * rejectPod: an event, and phase Failed in the status manager, which patches it into the API object
 * (v1.28.0's message; v1.23.13 wrote "Pod " + message). The pod is never handed to a pod worker.
 */
export function rejectPod(kl: Kubelet, pod: Pod, reason: string, message: string): void {
  kl.publish({
    kind: 'podRejected',
    atMs: kl.sim.nowMs,
    node: kl.nodeName,
    uid: pod.metadata.uid,
    pod: pod.metadata.name,
    reason,
    message,
  });
  kl.statusManager.setPodStatus(
    pod,
    newPodStatus({
      phase: 'Failed',
      reason,
      message: `${REJECTED_MESSAGE_PREFIX}${message}`,
      containerStatuses: [],
    }),
  );
}

/**
 * filterOutInactivePods: the pods that are not fully terminated by UID and not terminal, unless they are
 * actively terminating (a terminal pod still terminating holds its resources). Built eagerly, one array
 * per admission, as upstream's: it is the predicate handler's OtherPods.
 *
 * Fix `admission-rejected-pod-inactive` (#104817) sits here. Before it (1.22.0-1.22.4, #104577's
 * filterOutTerminatedPods) a pod was inactive when known terminated or when its API phase was terminal:
 * a pod this kubelet had just rejected, whose Failed the status manager had not yet written and the
 * watch not yet brought back, still counted, so the next pods could be rejected for its requests; and a
 * pod whose API phase was terminal counted for nothing even while its containers were still being
 * killed. The two rules disagree only on such pods, and the switch is asked only for them.
 */
export function filterOutInactivePods(kl: Kubelet, pods: readonly Pod[], admitting: Pod): Pod[] {
  const podWorkers = kl.podWorkers;
  if (podWorkers === undefined) return [...pods];
  const out: Pod[] = [];
  for (const p of pods) {
    const uid = p.metadata.uid;
    // if a pod is fully terminated by UID, it should be excluded from the list of pods
    if (podWorkers.isPodKnownTerminated(uid)) continue;
    // terminal pods are considered inactive UNLESS they are actively terminating (#104817)
    const admittedTerminal = isAdmittedPodTerminal(kl, p);
    const terminating = podWorkers.isPodTerminationRequested(uid);
    const inactive = admittedTerminal && !terminating;
    const apiTerminal = isPodPhaseTerminal(p.status.phase);
    if (inactive !== apiTerminal && !kl.fixes.on('admission-rejected-pod-inactive')) {
      if (apiTerminal) continue;
    } else if (inactive) continue;
    if (admittedTerminal && terminating) noteRejectedPodCounted(kl, p, admitting);
    out.push(p);
  }
  return out;
}

/** The message prefix rejectPod gives the status it sets (v1.28.0; v1.23.13 wrote "Pod " + message). */
const REJECTED_MESSAGE_PREFIX = 'Pod was rejected: ';

/**
 * Simulator observation, the known-open hazard `rejected-pod-counted-as-terminating` (#135296): the pod
 * counted as actively terminating is one this kubelet rejected (the status manager holds rejectPod's
 * Failed), which runs nothing. A pod worker took it after the rejection (an UPDATE or a sync of the pod,
 * which the pod manager still has) and was asked to terminate it; until the worker has terminated it,
 * #104817's "actively terminating" clause counts its requests against the pod being admitted.
 */
function noteRejectedPodCounted(kl: Kubelet, counted: Pod, admitting: Pod): void {
  if (!isRejectedByAdmission(kl.statusManager.getPodStatus(counted.metadata.uid)?.message)) return;
  kl.publish({
    kind: 'rejectedPodCountedActive',
    atMs: kl.sim.nowMs,
    node: kl.nodeName,
    uid: admitting.metadata.uid,
    pod: admitting.metadata.name,
    countedUid: counted.metadata.uid,
    countedPod: counted.metadata.name,
  });
}

/** Whether a status message is the one rejectPod sets (the pod was rejected at admission). */
export function isRejectedByAdmission(message: string | undefined): boolean {
  return message?.startsWith(REJECTED_MESSAGE_PREFIX) === true;
}

/**
 * isAdmittedPodTerminal: the config source's phase is terminal, or the kubelet already set a terminal
 * phase the config source has not seen yet (a pod rejected by admission).
 */
export function isAdmittedPodTerminal(kl: Kubelet, pod: Pod): boolean {
  if (isPodPhaseTerminal(pod.status.phase)) return true;
  const status = kl.statusManager.getPodStatus(pod.metadata.uid);
  return status !== undefined && isPodPhaseTerminal(status.phase);
}

/**
 * filterTerminalPodsToDelete (#118497): pods with a deletionTimestamp whose API phase is terminal that
 * the pod workers do not know, less those the runtime still runs (the orphan loop kills those). In UID
 * order: upstream returns a Go map, ranged in no fixed order.
 */
export function filterTerminalPodsToDelete(
  allPods: readonly Pod[],
  runningRuntimePods: readonly RuntimePod[],
  workingPods: ReadonlyMap<UID, PodWorkerState>,
): Pod[] {
  const toDelete = new Map<UID, Pod>();
  for (const pod of allPods) {
    // skip pods which don't have a deletion timestamp
    if (pod.metadata.deletionTimestamp === undefined) continue;
    // skip the non-terminal pods: they may be Pending pods not yet added to the pod workers
    if (!isPodPhaseTerminal(pod.status.phase)) continue;
    // skip pods known to pod workers: their lifecycle is the workers'
    if (workingPods.has(pod.metadata.uid)) continue;
    toDelete.set(pod.metadata.uid, pod);
  }
  for (const runningPod of runningRuntimePods) toDelete.delete(runningPod.id);
  return [...toDelete.values()].sort((a, b) =>
    a.metadata.uid < b.metadata.uid ? -1 : a.metadata.uid > b.metadata.uid ? 1 : 0,
  );
}

/**
 * #118497 (1.28; 1.27.4): "Complete termination of deleted pods that are not runtime pods (don't have
 * running containers), are terminal, and are not known to pod workers", such as a pod rejected at
 * admission that never started: a SyncPodKill gives it a worker, whose SyncTerminatedPod lets the status
 * manager delete it (since #115331 nothing else does, `status-deletes-finished-pods`), and the worker it
 * now has keeps the next housekeeping from sending it again. Before it, a rejected pod deleted while its
 * kubelet was down got no UPDATE that would reach a worker: Terminating for good (#118472).
 */
export function killTerminalPodsToDelete(
  kl: Kubelet,
  allPods: readonly Pod[],
  runningRuntimePods: readonly RuntimePod[],
  workingPods: ReadonlyMap<UID, PodWorkerState>,
): void {
  const podWorkers = kl.podWorkers;
  if (podWorkers === undefined) return;
  const pods = filterTerminalPodsToDelete(allPods, runningRuntimePods, workingPods);
  // Asked only when there is such a pod (src/fuzz/oracle.ts: a switch never read cannot matter).
  if (pods.length === 0 || !kl.fixes.on('rejected-pod-deletion-after-restart')) return;
  for (const pod of pods) podWorkers.updatePod({ updateType: 'SyncPodKill', pod });
}
