// container-started-without-volume: a container of a pod starts on a node where one of the volumes of the
// pod's spec was never set up for that pod (no successful SetUp / MapVolume for its UID there). syncPod
// (pkg/kubelet/kubelet.go, release-1.23 and release-1.20) starts containers only after
// `kl.volumeManager.WaitForAttachAndMount(pod)` returned: every volume of the spec mounted (or mapped) for
// the pod, an uncertain mount not counting. Upstream skips the wait on purpose for a pod whose termination
// was requested ("Volume manager will not mount volumes for terminating pods", release-1.23; release-1.20:
// `!kl.podIsTerminated(pod)`), so a start after a deletion request, an eviction, a terminal phase or the
// node's shutdown is not judged. A volume that was set up and later torn down is
// volume-torn-down-while-running's (it fires on the start too); this one is the volume never there.
import type { Fact, FactKind } from '../facts.js';
import { secs } from './format.js';
import type { Checker, Violation } from './types.js';

type Created = Extract<Fact, { kind: 'apiPodCreated' }>;

export class ContainerStartedWithoutVolume implements Checker {
  readonly id = 'container-started-without-volume';
  readonly kinds: readonly FactKind[] = [
    'apiPodCreated',
    'apiPodDeletionRequested',
    'apiPodPhase',
    'containerStarted',
    'kubeletStarted',
    'nodeShutdownStarted',
    'podDeletionDelivered',
    'podEvictionRequested',
    'podTerminationRequested',
    'volumeSetUp',
  ];
  /** uid -> its creation (the spec's volumes). */
  readonly #created = new Map<string, Created>();
  /** `node uid volume` set up at least once. */
  readonly #setUp = new Set<string>();
  /** UIDs whose termination was requested in their current lifecycle. */
  readonly #terminating = new Set<string>();
  /** Nodes shutting down (until their kubelet starts again). */
  readonly #shuttingDown = new Set<string>();

  onFact(f: Fact, report: (v: Violation) => void): void {
    switch (f.kind) {
      case 'apiPodCreated':
        this.#created.set(f.uid, f);
        this.#terminating.delete(f.uid); // a static pod's UID put back: a new lifecycle
        return;
      case 'volumeSetUp':
        this.#setUp.add(`${f.node}\u0000${f.uid}\u0000${f.volume}`);
        return;
      case 'apiPodPhase':
        if (f.phase === 'Failed' || f.phase === 'Succeeded') this.#terminating.add(f.uid);
        return;
      case 'apiPodDeletionRequested':
      case 'podDeletionDelivered':
      case 'podEvictionRequested':
      case 'podTerminationRequested':
        this.#terminating.add(f.uid);
        return;
      case 'nodeShutdownStarted':
        this.#shuttingDown.add(f.node);
        return;
      case 'kubeletStarted':
        this.#shuttingDown.delete(f.node);
        return;
      case 'containerStarted': {
        if (this.#terminating.has(f.uid) || this.#shuttingDown.has(f.node)) return;
        const created = this.#created.get(f.uid);
        if (created === undefined) return;
        for (const volume of created.volumes) {
          if (this.#setUp.has(`${f.node}\u0000${f.uid}\u0000${volume}`)) continue;
          report({
            invariant: this.id,
            atMs: f.atMs,
            node: f.node,
            pod: f.pod,
            uid: f.uid,
            volume,
            message:
              `container ${f.pod}/${f.container} started at ${secs(f.atMs)} on ${f.node} although its volume ` +
              `${volume} was never set up there for pod ${f.pod} (uid ${f.uid}): syncPod starts containers ` +
              'only after WaitForAttachAndMount',
            causes: [created, f],
          });
          return;
        }
        return;
      }
      default:
        return;
    }
  }

  onEnd(): void {}
}
