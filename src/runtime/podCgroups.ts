// The node's pod cgroups (kubepods/pod<uid>): ground truth the kubelet's pod container manager creates
// (pcm.EnsureExists) and destroys (pcm.Destroy, cleanupOrphanedPodCgroups). Upstream, release-1.23:
// pkg/kubelet/cm/pod_container_manager_linux.go; the kubelet code under test calls add and delete, the
// host tells the checkers each destruction.
import type { UID } from '../api/v1.js';
import type { Fact } from '../facts.js';
import { VersionedSet } from '../sim/versioned.js';

export class PodCgroups extends VersionedSet<UID> {
  readonly #node: string;
  readonly #nowMs: () => number;
  readonly #publish: (f: Fact) => void;
  readonly #podNameOf: (uid: UID) => string;

  constructor(
    node: string,
    nowMs: () => number,
    publish: (f: Fact) => void,
    podNameOf: (uid: UID) => string,
  ) {
    super();
    this.#node = node;
    this.#nowMs = nowMs;
    this.#publish = publish;
    this.#podNameOf = podNameOf;
  }

  override delete(uid: UID): boolean {
    const removed = super.delete(uid);
    if (removed) {
      this.#publish({
        kind: 'podCgroupDestroyed',
        atMs: this.#nowMs(),
        node: this.#node,
        uid,
        pod: this.#podNameOf(uid),
      });
    }
    return removed;
  }
}
