// mirror-pod-deleted-while-running: the kubelet deleted a static pod's mirror pod (its only face in the
// API server) after the static pod's manifest was removed, while a container of that static pod still
// ran on the node. Upstream, release-1.23: kubelet_pods.go deleteOrphanedMirrorPods deletes an orphaned
// mirror pod only `if !kl.podWorkers.IsPodForMirrorPodTerminatingByFullName(podFullname)` (pod_workers.go:
// the started static pod of that full name is terminating and not yet terminated); release-1.20.3+ has
// IsMirrorPodPendingTerminationByPodName for the same purpose (#98103: the mirror pod vanished while the
// static pod's containers were still being killed, so nothing in the API showed a pod still running).
// Ground truth only: the manifest on the node's disk (apiPodDeletionRequested / apiPodCreated of the static
// UID, published where the scenario edits host.staticManifests), the runtime's containers, the API
// server's mirror pod deletions and the kubelet process's lifecycle.
//
// Whichever path deletes the mirror pod is judged: the orphan cleanup, or syncPod of a new static pod of
// the same full name replacing it (only possible while the old one still runs if the new one started
// beside it, #104743, which static-pod-overlap reports too).
//
// Not judged, because upstream does the same and says so:
// - a mirror pod deleted while its static pod's own manifest (same UID) is still on disk: syncPod replaces a mirror pod that is being
//   deleted or no longer matches the static pod (kubelet.go: "The mirror pod is semantically different
//   from the static pod. Remove it."), then recreates it;
// - a manifest removed while the kubelet was down: the kubelet that starts next never saw the static pod
//   (no worker, so IsPodForMirrorPodTerminatingByFullName is false) and HandlePodCleanups kills its
//   containers as an orphaned runtime pod; only a kubelet process that saw the manifest go is judged.
import type { Fact, FactKind } from '../facts.js';
import { secs } from './format.js';
import type { Checker, Violation } from './types.js';

type Started = Extract<Fact, { kind: 'containerStarted' }>;
type Removed = Extract<Fact, { kind: 'apiPodDeletionRequested' }>;

interface StaticState {
  /** The node its containers run on (a static pod lives on one node). */
  readonly node: string;
  /** container -> containerStarted, for containers not yet exited or removed. */
  readonly running: Map<string, Started>;
  /** The manifest's removal, while a kubelet process ran on its node; undefined while it is on disk. */
  removed: Removed | undefined;
}

const byTime = (a: Fact, b: Fact): number => a.atMs - b.atMs;

export class MirrorPodDeletedWhileRunning implements Checker {
  readonly id = 'mirror-pod-deleted-while-running';
  readonly kinds: readonly FactKind[] = [
    'apiPodCreated',
    'apiPodDeletionRequested',
    'containerExited',
    'containerRemoved',
    'containerStarted',
    'kubeletStarted',
    'kubeletStopped',
    'mirrorPod',
  ];
  /** Static pod UID -> what is known of it; only UIDs whose containers started are kept. */
  readonly #statics = new Map<string, StaticState>();
  /** Nodes whose kubelet process is running. */
  readonly #kubeletUp = new Set<string>();

  onFact(f: Fact, report: (v: Violation) => void): void {
    switch (f.kind) {
      case 'kubeletStarted':
        this.#kubeletUp.add(f.node);
        return;
      case 'kubeletStopped':
        this.#kubeletUp.delete(f.node);
        // The next process never saw a removal that came before it (see the header).
        for (const s of this.#statics.values()) if (s.node === f.node) s.removed = undefined;
        return;
      case 'containerStarted': {
        if (f.staticFullname === undefined) return;
        this.#state(f.uid, f.node).running.set(f.container, f);
        return;
      }
      case 'containerExited':
      case 'containerRemoved':
        this.#statics.get(f.uid)?.running.delete(f.container);
        return;
      case 'apiPodCreated': {
        // The same manifest written again is the same UID: it is on disk once more.
        const s = this.#statics.get(f.uid);
        if (s !== undefined) s.removed = undefined;
        return;
      }
      case 'apiPodDeletionRequested': {
        const s = this.#statics.get(f.uid);
        if (s !== undefined && this.#kubeletUp.has(f.node)) s.removed = f;
        return;
      }
      case 'mirrorPod': {
        if (f.op !== 'deleted') return;
        const s = this.#statics.get(f.staticUid);
        if (s === undefined || s.removed === undefined) return;
        const started = first(s.running);
        if (started === undefined) return;
        report({
          invariant: this.id,
          atMs: f.atMs,
          node: f.node,
          pod: f.pod,
          uid: f.staticUid,
          volume: null,
          message:
            `the kubelet deleted mirror pod ${f.pod} (uid ${f.uid}) at ${secs(f.atMs)} while its static pod ` +
            `(uid ${f.staticUid}, manifest removed at ${secs(s.removed.atMs)}) still runs container ` +
            `${started.container} (started at ${secs(started.atMs)}): the mirror pod stays until the static pod ` +
            'has terminated (deleteOrphanedMirrorPods: IsPodForMirrorPodTerminatingByFullName; a new static ' +
            'pod of the name, which would replace it, waits for the old one: allowStaticPodStart)',
          causes: [s.removed, started, f].sort(byTime),
        });
        return;
      }
      default:
        return;
    }
  }

  onEnd(): void {}

  #state(uid: string, node: string): StaticState {
    let s = this.#statics.get(uid);
    if (s === undefined) {
      s = { node, running: new Map(), removed: undefined };
      this.#statics.set(uid, s);
    }
    return s;
  }
}

function first(running: Map<string, Started>): Started | undefined {
  for (const started of running.values()) return started;
  return undefined;
}
