// container-started-after-terminated: the runtime starts a container for a pod UID on a node after
// the kubelet on that node treated the pod as terminated (podTerminated: no running containers, none
// coming). Catches two races of the pre-#102344 pod worker (dispatchWork's terminal shortcut,
// ForgetWorker racing an in-flight syncPod).
import type { Fact, FactKind } from '../facts.js';
import { secs } from './format.js';
import type { Checker, Violation } from './types.js';

type Requested = Extract<Fact, { kind: 'podTerminationRequested' }>;
type Terminated = Extract<Fact, { kind: 'podTerminated' }>;

interface PodState {
  /** The pod worker finished this UID (release-1.23): a later `sync` phase is a new lifecycle. */
  finished: boolean;
  /** The first termination request seen before the pod was treated as terminated. */
  requested: Requested | undefined;
  /** The first podTerminated for the UID on the node. */
  terminated: Terminated | undefined;
}

export class ContainerStartedAfterTerminated implements Checker {
  readonly id = 'container-started-after-terminated';
  readonly kinds: readonly FactKind[] = [
    'containerStarted',
    'kubeletStopped',
    'podTerminated',
    'podTerminationRequested',
    'podWorkerPhase',
  ];
  /** node -> uid -> state. */
  readonly #byNode = new Map<string, Map<string, PodState>>();

  onFact(f: Fact, report: (v: Violation) => void): void {
    switch (f.kind) {
      case 'podTerminationRequested': {
        const s = this.#state(f.node, f.uid);
        if (s.terminated === undefined) s.requested ??= f;
        return;
      }
      case 'podTerminated': {
        this.#state(f.node, f.uid).terminated ??= f;
        return;
      }
      case 'kubeletStopped': {
        // The decision died with the kubelet process; the next process relearns the pod from the API (an
        // evicted pod whose Failed status never reached the API is started again, as upstream does).
        this.#byNode.delete(f.node);
        return;
      }
      case 'podWorkerPhase': {
        // A static pod re-created from the same manifest reuses its UID (#104847); release-1.23 finishes
        // the old lifecycle, purges the worker and starts a new one: its terminated decision is history.
        const s = this.#byNode.get(f.node)?.get(f.uid);
        if (s === undefined) return;
        if (f.phase === 'finished') s.finished = true;
        else if (f.phase === 'sync' && s.finished) this.#byNode.get(f.node)?.delete(f.uid);
        return;
      }
      case 'containerStarted': {
        const s = this.#byNode.get(f.node)?.get(f.uid);
        const t = s?.terminated;
        if (t === undefined) return;
        const causes: Fact[] = s?.requested === undefined ? [t, f] : [s.requested, t, f];
        report({
          invariant: this.id,
          atMs: f.atMs,
          node: f.node,
          pod: f.pod,
          uid: f.uid,
          volume: null,
          message:
            `container ${f.pod}/${f.container} started at ${secs(f.atMs)} after the kubelet treated pod ` +
            `${t.pod} (uid ${f.uid}) as terminated at ${secs(t.atMs)} (podTerminated: ${t.reason})`,
          causes,
        });
        return;
      }
      default:
        return;
    }
  }

  onEnd(): void {}

  #state(node: string, uid: string): PodState {
    let pods = this.#byNode.get(node);
    if (pods === undefined) {
      pods = new Map();
      this.#byNode.set(node, pods);
    }
    let s = pods.get(uid);
    if (s === undefined) {
      s = { finished: false, requested: undefined, terminated: undefined };
      pods.set(uid, s);
    }
    return s;
  }
}
