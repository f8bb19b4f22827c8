// Ported from kubernetes pkg/kubelet/kubelet_pods.go, release-1.23: generateAPIPodStatus and getPhase,
// reduced to phase and container states (no conditions, IPs or init containers).
import {
  type ContainerStatus,
  findContainerStatusByName,
  isPodPhaseTerminal,
  newContainerStatus,
  newPodStatus,
  type Pod,
  type PodPhase,
  type PodSpec,
  type PodStatus,
  type RuntimePodStatus,
} from '../../api/v1.js';

/** getPhase: the pod phase from its containers' states and the restart policy. */
export function getPhase(spec: PodSpec, statuses: readonly ContainerStatus[]): PodPhase {
  let running = 0;
  let waiting = 0;
  let stopped = 0;
  let succeeded = 0;
  for (const c of spec.containers) {
    const s = statuses.find((x) => x.name === c.name);
    if (s === undefined || s.state === 'waiting') waiting++;
    else if (s.state === 'running') running++;
    else {
      stopped++;
      if (s.exitCode === 0) succeeded++;
    }
  }
  if (waiting > 0) return 'Pending';
  if (running > 0) return 'Running';
  if (stopped > 0) {
    if (spec.restartPolicy === 'Always') return 'Running';
    if (stopped === succeeded) return 'Succeeded';
    if (spec.restartPolicy === 'OnFailure') return 'Running';
    return 'Failed';
  }
  return 'Pending';
}

/**
 * convertToAPIContainerStatuses: the newest attempt of each container name. A container the runtime no
 * longer lists keeps its previous terminated status (the default is `oldStatus` when
 * `oldStatus.State.Terminated != nil`), so a removed container never goes back to waiting. Not ported:
 * LastTerminationState and RestartCount.
 */
export function apiContainerStatuses(
  pod: Pod,
  podStatus: RuntimePodStatus | undefined,
  previousStatuses: readonly ContainerStatus[] = [],
): ContainerStatus[] {
  return pod.spec.containers.map((c) => {
    const newest = findContainerStatusByName(podStatus, c.name);
    const old = previousStatuses.find((s) => s.name === c.name);
    if (newest === undefined && old?.state === 'terminated') return old;
    if (newest === undefined || newest.state === 'created' || newest.state === 'unknown') {
      return newContainerStatus({
        name: c.name,
        state: 'waiting',
        reason: newest === undefined ? 'ContainerCreating' : 'Created',
      });
    }
    if (newest.state === 'running') return newContainerStatus({ name: c.name, state: 'running' });
    return newContainerStatus({
      name: c.name,
      state: 'terminated',
      reason: 'Completed',
      exitCode: newest.exitCode ?? 0,
    });
  });
}

/**
 * generateAPIPodStatus: runtime truth merged with the status manager's and the API's terminal phases (the
 * three-way merge of #102344), then release-1.20's guard that survives in 1.23: a pod whose API phase is
 * terminal keeps it ("Pod attempted illegal phase transition").
 */
export function generateAPIPodStatus(
  pod: Pod,
  podStatus: RuntimePodStatus | undefined,
  oldPodStatus: PodStatus,
): PodStatus {
  const containerStatuses = apiContainerStatuses(pod, podStatus, oldPodStatus.containerStatuses);
  let phase = getPhase(pod.spec, containerStatuses);
  if (!isPodPhaseTerminal(phase)) {
    if (isPodPhaseTerminal(oldPodStatus.phase)) phase = oldPodStatus.phase;
    else if (isPodPhaseTerminal(pod.status.phase)) phase = pod.status.phase;
  }
  let reason: string | undefined;
  let message: string | undefined;
  if (phase === oldPodStatus.phase) {
    // preserve the reason and message which is associated with the phase
    reason = oldPodStatus.reason;
    message = oldPodStatus.message;
    if (reason === undefined || reason === '') reason = pod.status.reason;
    if (message === undefined || message === '') message = pod.status.message;
  }
  // (No PodSyncHandlers are modelled: nothing evicts here.) Pods are not allowed to transition out of
  // terminal phases: the API server's terminal phase wins over a different one computed here (a
  // terminal phase of its own, or the status manager's).
  if (isPodPhaseTerminal(pod.status.phase) && phase !== pod.status.phase) phase = pod.status.phase;
  return newPodStatus({ phase, reason, message, containerStatuses });
}

/** notRunning (kubelet_pods.go): true if no container status is running. Waiting counts as not running. */
export function notRunning(statuses: readonly ContainerStatus[]): boolean {
  return statuses.every((s) => s.state !== 'running');
}
