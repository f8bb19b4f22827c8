// pod-cgroup-destroyed-with-volumes: a pod's cgroup was destroyed while the pod still had a volume set up
// on its node. Upstream, release-1.23: pkg/kubelet/kubelet_pods.go cleanupOrphanedPodCgroups skips a pod
// whose volumes exist ("Orphaned pod found, but volumes are not cleaned up": "If volumes have not been
// unmounted/detached, do not delete the cgroup, so any memory backed volumes don't have their charges
// propagated to the parent cgroup"; it only lowers the cgroup's CPU shares meanwhile), and
// pkg/kubelet/kubelet.go syncTerminatedPod destroys the cgroup (pcm.Destroy) only after
// volumeManager.WaitForUnmount returned without error. The cgroup is also the last thing
// PodResourcesAreReclaimed waits for, so destroying it early lets the status manager finalise a deletion
// that the volumes alone would still hold back.
//
// Ground truth: the host's cgroup destruction (podCgroupDestroyed, published by src/runtime/podCgroups.ts)
// and the node's mount table at that moment (CheckerConfig.podVolumeMounts: a mount under pods/{uid}/, or
// the pod's reference on a block volume's global map).
import type { Fact, FactKind } from '../facts.js';
import { secs } from './format.js';
import type { PodVolumeMounts } from './podDeletedBeforeVolumesReclaimed.js';
import type { Checker, Violation } from './types.js';

export class PodCgroupDestroyedWithVolumes implements Checker {
  readonly id = 'pod-cgroup-destroyed-with-volumes';
  readonly kinds: readonly FactKind[] = ['podCgroupDestroyed', 'volumeSetUp'];
  readonly #podVolumeMounts: PodVolumeMounts | undefined;
  /** uid -> volume -> the last volumeSetUp (a cause). */
  readonly #setUp = new Map<string, Map<string, Fact>>();

  constructor(podVolumeMounts: PodVolumeMounts | undefined) {
    this.#podVolumeMounts = podVolumeMounts;
  }

  onFact(f: Fact, report: (v: Violation) => void): void {
    if (f.kind === 'volumeSetUp') {
      let byVolume = this.#setUp.get(f.uid);
      if (byVolume === undefined) {
        byVolume = new Map();
        this.#setUp.set(f.uid, byVolume);
      }
      byVolume.set(f.volume, f);
      return;
    }
    if (f.kind !== 'podCgroupDestroyed' || this.#podVolumeMounts === undefined) return;
    const left = this.#podVolumeMounts(f.node, f.uid);
    if (left.length === 0) return;
    const causes: Fact[] = [];
    for (const v of left) {
      const s = this.#setUp.get(f.uid)?.get(v);
      if (s !== undefined) causes.push(s);
    }
    causes.sort((a, b) => a.atMs - b.atMs);
    causes.push(f);
    report({
      invariant: this.id,
      atMs: f.atMs,
      node: f.node,
      pod: f.pod,
      uid: f.uid,
      volume: left[0] ?? null,
      message:
        `the cgroup of pod ${f.pod} (uid ${f.uid}) was destroyed at ${secs(f.atMs)} while ${f.node} still ` +
        `has its volume${left.length > 1 ? 's' : ''} ${left.join(', ')} set up (cleanupOrphanedPodCgroups: ` +
        '"Orphaned pod found, but volumes are not cleaned up"; syncTerminatedPod: WaitForUnmount first)',
      causes,
    });
  }

  onEnd(): void {}
}
