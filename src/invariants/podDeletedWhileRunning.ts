// pod-deleted-while-running: the kubelet's status manager finalises a pod's deletion in the API server
// (apiPodDeleted by='kubelet') while the runtime still runs a container of that UID on any node, or a
// container of the UID starts after that. A user's force delete (by='user-force') is never a violation.
// Catches the title race of #102344 (dispatchWork's shortcut before it: TerminatePod while containers
// are Waiting, then canBeDeleted sends DELETE with grace 0 while the worker starts the container).
import type { Fact, FactKind } from '../facts.js';
import { secs } from './format.js';
import type { Checker, Violation } from './types.js';

type Started = Extract<Fact, { kind: 'containerStarted' }>;
type DeletionRequested = Extract<Fact, { kind: 'apiPodDeletionRequested' }>;
type Deleted = Extract<Fact, { kind: 'apiPodDeleted' }>;

interface PodState {
  /** node -> container -> containerStarted, for containers not yet exited / removed. */
  readonly running: Map<string, Map<string, Started>>;
  requested: DeletionRequested | undefined;
  /** The first apiPodDeleted by the kubelet. */
  deleted: Deleted | undefined;
}

const byTime = (a: Fact, b: Fact): number => a.atMs - b.atMs;

export class PodDeletedWhileRunning implements Checker {
  readonly id = 'pod-deleted-while-running';
  readonly kinds: readonly FactKind[] = [
    'apiPodDeleted',
    'apiPodDeletionRequested',
    'containerExited',
    'containerRemoved',
    'containerStarted',
  ];
  /** uid -> state (any node). */
  readonly #pods = new Map<string, PodState>();

  onFact(f: Fact, report: (v: Violation) => void): void {
    switch (f.kind) {
      case 'apiPodDeletionRequested': {
        this.#state(f.uid).requested ??= f;
        return;
      }
      case 'apiPodDeleted': {
        if (f.by !== 'kubelet') return;
        const s = this.#state(f.uid);
        if (s.deleted !== undefined) return;
        s.deleted = f;
        const started = firstRunning(s);
        if (started === undefined) return;
        const causes: Fact[] = s.requested === undefined ? [started, f] : [s.requested, started, f];
        report({
          invariant: this.id,
          atMs: f.atMs,
          node: started.node,
          pod: f.pod,
          uid: f.uid,
          volume: null,
          message:
            `the kubelet finalised the API deletion of pod ${f.pod} (uid ${f.uid}) at ${secs(f.atMs)} ` +
            `while container ${started.pod}/${started.container} (started at ${secs(started.atMs)} ` +
            `on ${started.node}) is still running`,
          causes: causes.sort(byTime),
        });
        return;
      }
      case 'containerStarted': {
        const s = this.#state(f.uid);
        let containers = s.running.get(f.node);
        if (containers === undefined) {
          containers = new Map();
          s.running.set(f.node, containers);
        }
        containers.set(f.container, f);
        const d = s.deleted;
        if (d === undefined) return;
        const causes: Fact[] = s.requested === undefined ? [d, f] : [s.requested, d, f];
        report({
          invariant: this.id,
          atMs: f.atMs,
          node: f.node,
          pod: f.pod,
          uid: f.uid,
          volume: null,
          message:
            `container ${f.pod}/${f.container} started at ${secs(f.atMs)} on ${f.node} after the kubelet ` +
            `finalised the API deletion of pod ${d.pod} (uid ${f.uid}) at ${secs(d.atMs)}`,
          causes: causes.sort(byTime),
        });
        return;
      }
      case 'containerExited':
      case 'containerRemoved': {
        this.#pods.get(f.uid)?.running.get(f.node)?.delete(f.container);
        return;
      }
      default:
        return;
    }
  }

  onEnd(): void {}

  #state(uid: string): PodState {
    let s = this.#pods.get(uid);
    if (s === undefined) {
      s = { running: new Map(), requested: undefined, deleted: undefined };
      this.#pods.set(uid, s);
    }
    return s;
  }
}

function firstRunning(s: PodState): Started | undefined {
  for (const containers of s.running.values()) for (const started of containers.values()) return started;
  return undefined;
}
