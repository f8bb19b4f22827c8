// container-restarted-against-policy: the runtime started a new attempt of a container after an attempt
// of it exited on its own, although the pod's restart policy forbids restarting that exit (ground truth:
// the runtime's containerExited / containerStarted / containerRemoved and the spec's restartPolicy from
// apiPodCreated, static manifests included). Upstream, release-1.23 kuberuntime_manager.go
// ShouldContainerBeRestarted (called by computePodActions for every container of a running sandbox):
// "Already ran container, do nothing" for restartPolicy Never, and no restart for OnFailure when the
// container exited 0; computePodActions also refuses a new sandbox to such a pod ("should not restart
// the pod"), and a pod in a terminal phase is never restarted (kubelet_pods.go HandlePodCleanups,
// isAdmittedPodTerminal). Not judged: an exit the kubelet caused (containerStopping before it: a kill
// ends a lifecycle, which container-started-after-terminated judges), and a container whose every exited
// attempt the runtime removed (ShouldContainerBeRestarted then sees no status and starts it: "If all
// historical containers were GC'd, we'll also return true here"). Keyed by node, UID and container name.
import type { Fact, FactKind } from '../facts.js';
import { secs } from './format.js';
import type { Checker, Violation } from './types.js';

type Exited = Extract<Fact, { kind: 'containerExited' }>;

interface ContainerState {
  /** Attempts the runtime holds (created, not yet removed). */
  attempts: number;
  /** The current attempt started (an attempt stopped before it started did not run). */
  running: boolean;
  /** The kubelet is stopping the current attempt. */
  stopping: boolean;
  /** The newest attempt's own exit, while it is the newest and the runtime holds an attempt. */
  exited: Exited | undefined;
}

export class ContainerRestartedAgainstPolicy implements Checker {
  readonly id = 'container-restarted-against-policy';
  readonly kinds: readonly FactKind[] = [
    'apiPodCreated',
    'containerCreated',
    'containerStopping',
    'containerExited',
    'containerRemoved',
    'containerStarted',
  ];
  /** uid -> restartPolicy. */
  readonly #policy = new Map<string, string>();
  /** node/uid/container -> state. */
  readonly #containers = new Map<string, ContainerState>();

  onFact(f: Fact, report: (v: Violation) => void): void {
    switch (f.kind) {
      case 'apiPodCreated':
        this.#policy.set(f.uid, f.restartPolicy);
        return;
      case 'containerCreated':
        this.#state(f.node, f.uid, f.container).attempts++;
        return;
      case 'containerStopping': {
        const s = this.#containers.get(key(f.node, f.uid, f.container));
        if (s !== undefined) s.stopping = true;
        return;
      }
      case 'containerExited': {
        const s = this.#state(f.node, f.uid, f.container);
        s.exited = s.running && !s.stopping ? f : undefined;
        s.running = false;
        s.stopping = false;
        return;
      }
      case 'containerRemoved': {
        const k = key(f.node, f.uid, f.container);
        const s = this.#containers.get(k);
        if (s === undefined) return;
        s.attempts--;
        if (s.attempts <= 0) this.#containers.delete(k);
        return;
      }
      case 'containerStarted': {
        const s = this.#state(f.node, f.uid, f.container);
        const exited = s.exited;
        s.exited = undefined;
        s.running = true;
        s.stopping = false;
        if (exited === undefined) return;
        const policy = this.#policy.get(f.uid);
        if (policy !== 'Never' && !(policy === 'OnFailure' && exited.exitCode === 0)) return;
        report({
          invariant: this.id,
          atMs: f.atMs,
          node: f.node,
          pod: f.pod,
          uid: f.uid,
          volume: null,
          message:
            `container ${f.pod}/${f.container} (uid ${f.uid}, restartPolicy ${policy}) started again at ` +
            `${secs(f.atMs)} after it exited on its own with code ${exited.exitCode} at ` +
            `${secs(exited.atMs)}: ShouldContainerBeRestarted forbids it`,
          causes: [exited, f],
        });
        return;
      }
      default:
        return;
    }
  }

  onEnd(): void {}

  #state(node: string, uid: string, container: string): ContainerState {
    const k = key(node, uid, container);
    let s = this.#containers.get(k);
    if (s === undefined) {
      s = { attempts: 0, running: false, stopping: false, exited: undefined };
      this.#containers.set(k, s);
    }
    return s;
  }
}

function key(node: string, uid: string, container: string): string {
  return `${node}/${uid}/${container}`;
}
