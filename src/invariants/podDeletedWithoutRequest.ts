// pod-deleted-without-request: the kubelet removed a pod object from the API server although nobody asked
// for that pod's deletion (ground truth: the API server's apiPodDeleted{by: kubelet} for a UID that never
// had an apiPodDeletionRequested). The kubelet never deletes a regular pod on its own: the status
// manager's final DELETE (status_manager.go syncPod) is only sent when canBeDeleted holds, and canBeDeleted
// requires the pod's DeletionTimestamp (the API's record of a deletion someone requested) and refuses
// mirror pods; an evicted, shut-down, failed or completed pod keeps its object until a user or a
// controller deletes it (the pod garbage collector is not the kubelet). Mirror pods are deleted by the
// mirror client (the mirrorPod fact, not judged here). Keyed by UID: a pod created again under the same
// name is a new object with its own request.
import type { Fact, FactKind } from '../facts.js';
import { secs } from './format.js';
import type { Checker, Violation } from './types.js';

type Created = Extract<Fact, { kind: 'apiPodCreated' }>;

export class PodDeletedWithoutRequest implements Checker {
  readonly id = 'pod-deleted-without-request';
  readonly kinds: readonly FactKind[] = ['apiPodCreated', 'apiPodDeletionRequested', 'apiPodDeleted'];
  /** uid -> its creation, while no deletion was requested (deleted once requested). */
  readonly #unrequested = new Map<string, Created>();

  onFact(f: Fact, report: (v: Violation) => void): void {
    switch (f.kind) {
      case 'apiPodCreated':
        if (!f.static) this.#unrequested.set(f.uid, f);
        return;
      case 'apiPodDeletionRequested':
        this.#unrequested.delete(f.uid);
        return;
      case 'apiPodDeleted': {
        const created = this.#unrequested.get(f.uid);
        this.#unrequested.delete(f.uid);
        if (created === undefined || f.by !== 'kubelet') return;
        report({
          invariant: this.id,
          atMs: f.atMs,
          node: f.node,
          pod: f.pod,
          uid: f.uid,
          volume: null,
          message:
            `the kubelet deleted pod ${f.pod} (uid ${f.uid}, created at ${secs(created.atMs)}) from the API ` +
            `server at ${secs(f.atMs)} although nobody requested its deletion (canBeDeleted requires a ` +
            'deletionTimestamp)',
          causes: [created, f],
        });
        return;
      }
      default:
        return;
    }
  }

  onEnd(): void {}
}
