// pod-status-regressed: the status written into a pod object (ground truth: the API server's
// apiPodPhase and apiContainerStates, one pod UID) goes backwards. Two upstream rules, release-1.23:
// - a pod never leaves a terminal phase (kubelet_pods.go generateAPIPodStatus: "pods are not allowed to
//   transition out of terminal phases", the phase is forced back to the API's Failed / Succeeded; and
//   the three-way merge before it keeps the status manager's or the API's terminal phase);
// - a container reported terminated is never reported running or waiting again, unless the restart
//   policy is Always, or OnFailure and it failed (status_manager.go checkContainerStateTransition, which
//   updateStatusInternal runs on every update: "Status update on pod aborted"), nor, in a pod of a terminal
//   phase, whatever the restart policy: such a pod never runs again, and a container the runtime no
//   longer lists keeps its terminated status (kubelet_pods.go convertToAPIContainerStatuses: the old
//   status is the default when `oldStatus.State.Terminated != nil`);
// - nor, whatever the restart policy, once the kubelet has seen the pod marked for deletion
//   (podDeletionDelivered) and written the container terminated after that: ShouldContainerBeRestarted
//   answers false for a pod with a deletionTimestamp, so no reasonCache Waiting (CrashLoopBackOff) is shown,
//   and a container the garbage collector already removed keeps its terminated status. Judged only when the
//   terminated write was true (the runtime's container had exited: release-1.20's TerminatePod writes
//   terminated over a container still running, and the next status shows it running, which is
//   container-started-after-terminated's class), and running again only when no start of that container came
//   after the delivery (a syncPod in flight when the deletion arrived may still start one).
// Everything is keyed by UID: a pod created again with the same name is a new UID and starts afresh.
import type { ContainerStatus } from '../api/v1.js';
import type { Fact, FactKind } from '../facts.js';
import { secs } from './format.js';
import type { Checker, Violation } from './types.js';

type PhaseFact = Extract<Fact, { kind: 'apiPodPhase' }>;
type ContainersFact = Extract<Fact, { kind: 'apiContainerStates' }>;

export class PodStatusRegressed implements Checker {
  readonly id = 'pod-status-regressed';
  readonly kinds: readonly FactKind[] = [
    'apiPodPhase',
    'apiContainerStates',
    'apiPodDeleted',
    'containerExited',
    'containerStartFailed',
    'containerStarted',
    'podDeletionDelivered',
  ];
  /** uid -> the write that first published a terminal phase (Failed / Succeeded). */
  readonly #terminal = new Map<string, PhaseFact>();
  /**
   * uid -> container name -> the last write that listed that container (a write without it, such as
   * release-1.20's eviction status with no container statuses, does not make it forget the state).
   */
  readonly #containers = new Map<string, Map<string, ContainersFact>>();
  /** UIDs whose deletion the kubelet has seen. */
  readonly #deletionSeen = new Set<string>();
  /** `uid container` written terminated after the deletion was seen. */
  readonly #terminatedAfterDeletion = new Set<string>();
  /** `uid container` running on the runtime (ground truth: started and not exited since). */
  readonly #running = new Set<string>();
  /** `uid container` started after the deletion was seen. */
  readonly #startedAfterDeletion = new Set<string>();

  onFact(f: Fact, report: (v: Violation) => void): void {
    if (f.kind === 'apiPodDeleted') {
      this.#terminal.delete(f.uid);
      this.#containers.delete(f.uid);
      this.#deletionSeen.delete(f.uid);
      return;
    }
    if (f.kind === 'podDeletionDelivered') {
      this.#deletionSeen.add(f.uid);
      return;
    }
    if (f.kind === 'containerStarted') {
      const key = `${f.uid}\u0000${f.container}`;
      this.#running.add(key);
      if (this.#deletionSeen.has(f.uid)) this.#startedAfterDeletion.add(key);
      return;
    }
    if (f.kind === 'containerExited' || f.kind === 'containerStartFailed') {
      this.#running.delete(`${f.uid}\u0000${f.container}`);
      return;
    }
    if (f.kind === 'apiPodPhase') {
      const terminal = this.#terminal.get(f.uid);
      if (terminal === undefined) {
        if (f.phase === 'Failed' || f.phase === 'Succeeded') this.#terminal.set(f.uid, f);
        return;
      }
      // Only the reason changed (apiPodPhase is published for either).
      if (f.phase === terminal.phase) return;
      report({
        invariant: this.id,
        atMs: f.atMs,
        node: f.node,
        pod: f.pod,
        uid: f.uid,
        volume: null,
        message:
          `pod ${f.pod} (uid ${f.uid}) was written with phase ${f.phase} at ${secs(f.atMs)} after phase ` +
          `${terminal.phase}${terminal.reason === undefined ? '' : ` (${terminal.reason})`} at ` +
          `${secs(terminal.atMs)}: a pod never leaves a terminal phase`,
        causes: [terminal, f],
      });
      return;
    }
    if (f.kind !== 'apiContainerStates') return;
    let last = this.#containers.get(f.uid);
    if (last === undefined) {
      last = new Map();
      this.#containers.set(f.uid, last);
    }
    const deletionSeen = this.#deletionSeen.has(f.uid);
    let reported = false;
    for (let i = 0; i < f.containers.length; i++) {
      const now = f.containers[i] as ContainerStatus;
      const previous = last.get(now.name);
      last.set(now.name, f);
      if (now.state === 'terminated') {
        const key = `${f.uid}\u0000${now.name}`;
        if (deletionSeen && !this.#running.has(key)) this.#terminatedAfterDeletion.add(key);
        continue;
      }
      if (reported || previous === undefined) continue;
      const before = stateOf(previous.containers, now.name);
      if (before === undefined || before.state !== 'terminated') continue;
      const why = this.#regression(f, now, before);
      if (why === null) continue;
      report({
        invariant: this.id,
        atMs: f.atMs,
        node: f.node,
        pod: f.pod,
        uid: f.uid,
        volume: null,
        message:
          `container ${now.name} of pod ${f.pod} (uid ${f.uid}, restartPolicy ${f.restartPolicy}) was ` +
          `written ${now.state} at ${secs(f.atMs)} after terminated (exit ${before.exitCode ?? 0}) at ` +
          `${secs(previous.atMs)}${why}: a terminated container may not be reported non-terminated`,
        causes: [previous, f],
      });
      reported = true;
    }
  }

  /**
   * Why writing `now` after `before` (terminated) breaks a rule: the message's qualifier ('' for the
   * restart policy's own rule), or null when the container may legitimately leave terminated.
   */
  #regression(f: ContainersFact, now: ContainerStatus, before: ContainerStatus): string | null {
    // A pod in a terminal phase never runs a container again, whatever its restart policy.
    if (this.#terminal.has(f.uid)) return ' in a pod of a terminal phase';
    const key = `${f.uid}\u0000${now.name}`;
    if (
      this.#terminatedAfterDeletion.has(key) &&
      (now.state === 'waiting' || !this.#startedAfterDeletion.has(key))
    ) {
      return ' in a pod the kubelet had seen marked for deletion';
    }
    // Always restarts every container; OnFailure one that failed.
    if (f.restartPolicy === 'Always') return null;
    if (f.restartPolicy === 'OnFailure' && (before.exitCode ?? 0) !== 0) return null;
    return '';
  }

  onEnd(): void {}
}

function stateOf(containers: readonly ContainerStatus[], name: string): ContainerStatus | undefined {
  for (let i = 0; i < containers.length; i++) {
    const c = containers[i] as ContainerStatus;
    if (c.name === name) return c;
  }
  return undefined;
}
