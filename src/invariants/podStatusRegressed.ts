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
//   status is the default when `oldStatus.State.Terminated != nil`).
// Everything is keyed by UID: a pod created again with the same name is a new UID and starts afresh.
import type { ContainerStatus } from '../api/v1.js';
import type { Fact, FactKind } from '../facts.js';
import { secs } from './format.js';
import type { Checker, Violation } from './types.js';

type PhaseFact = Extract<Fact, { kind: 'apiPodPhase' }>;
type ContainersFact = Extract<Fact, { kind: 'apiContainerStates' }>;

export class PodStatusRegressed implements Checker {
  readonly id = 'pod-status-regressed';
  readonly kinds: readonly FactKind[] = ['apiPodPhase', 'apiContainerStates', 'apiPodDeleted'];
  /** uid -> the write that first published a terminal phase (Failed / Succeeded). */
  readonly #terminal = new Map<string, PhaseFact>();
  /**
   * uid -> container name -> the last write that listed that container (a write without it, such as
   * release-1.20's eviction status with no container statuses, does not make it forget the state).
   */
  readonly #containers = new Map<string, Map<string, ContainersFact>>();

  onFact(f: Fact, report: (v: Violation) => void): void {
    if (f.kind === 'apiPodDeleted') {
      this.#terminal.delete(f.uid);
      this.#containers.delete(f.uid);
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
    let reported = false;
    for (let i = 0; i < f.containers.length; i++) {
      const now = f.containers[i] as ContainerStatus;
      const previous = last.get(now.name);
      last.set(now.name, f);
      if (reported || previous === undefined || now.state === 'terminated') continue;
      // A pod in a terminal phase never runs a container again, whatever its restart policy.
      const terminal = this.#terminal.has(f.uid);
      // Always restarts every container.
      if (f.restartPolicy === 'Always' && !terminal) continue;
      const before = stateOf(previous.containers, now.name);
      if (before === undefined || before.state !== 'terminated') continue;
      // OnFailure restarts a container that failed.
      if (f.restartPolicy === 'OnFailure' && !terminal && (before.exitCode ?? 0) !== 0) continue;
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
          `${secs(previous.atMs)}${terminal ? ' in a pod of a terminal phase' : ''}: a terminated container ` +
          'may not be reported non-terminated',
        causes: [previous, f],
      });
      reported = true;
    }
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
