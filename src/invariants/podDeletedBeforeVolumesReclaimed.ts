// pod-deleted-before-volumes-reclaimed: the kubelet finalised a pod's API deletion while the pod still had
// a volume set up on its node. The rule is upstream's: the status manager deletes a pod only when
// canBeDeleted (pkg/kubelet/status/status_manager.go) holds, that is PodResourcesAreReclaimed
// (pkg/kubelet/kubelet_pods.go, release-1.23: "We shouldn't delete pods whose volumes have not been cleaned
// up"), whose podVolumesExist (kubelet_volumes.go) asks the volume manager for the pod's (possibly) mounted
// volumes and then the disk for any volume path of the pod that is still a mount point. Once the object is
// gone, a StatefulSet controller re-creates the name, maybe on another node, while the old node still has
// the volume mounted: the step before a second writer.
//
// Ground truth: the node's mount table at the moment of the deletion (CheckerConfig.podVolumeMounts: a
// mount under pods/{uid}/, or the pod's reference on a block volume's global map). A user's force delete is
// not the kubelet's decision and is not judged.
import type { Fact, FactKind } from '../facts.js';
import { secs } from './format.js';
import type { Checker, Violation } from './types.js';

/** The volumes pod `uid` still has set up on `node` (its mounts and block map references), now. */
export type PodVolumeMounts = (node: string, uid: string) => readonly string[];

export class PodDeletedBeforeVolumesReclaimed implements Checker {
  readonly id = 'pod-deleted-before-volumes-reclaimed';
  readonly kinds: readonly FactKind[] = ['apiPodDeleted', 'apiPodDeletionRequested', 'volumeSetUp'];
  readonly #podVolumeMounts: PodVolumeMounts | undefined;
  /** uid -> its deletion request (a cause). */
  readonly #requested = new Map<string, Fact>();
  /** uid -> volume -> the last volumeSetUp (a cause). */
  readonly #setUp = new Map<string, Map<string, Fact>>();

  constructor(podVolumeMounts: PodVolumeMounts | undefined) {
    this.#podVolumeMounts = podVolumeMounts;
  }

  onFact(f: Fact, report: (v: Violation) => void): void {
    if (f.kind === 'apiPodDeletionRequested') {
      if (!this.#requested.has(f.uid)) this.#requested.set(f.uid, f);
      return;
    }
    if (f.kind === 'volumeSetUp') {
      let byVolume = this.#setUp.get(f.uid);
      if (byVolume === undefined) {
        byVolume = new Map();
        this.#setUp.set(f.uid, byVolume);
      }
      byVolume.set(f.volume, f);
      return;
    }
    if (f.kind !== 'apiPodDeleted' || f.by !== 'kubelet' || this.#podVolumeMounts === undefined) return;
    const left = this.#podVolumeMounts(f.node, f.uid);
    if (left.length === 0) return;
    const causes: Fact[] = [];
    const requested = this.#requested.get(f.uid);
    if (requested !== undefined) causes.push(requested);
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
        `the kubelet finalised the API deletion of pod ${f.pod} (uid ${f.uid}) at ${secs(f.atMs)} while ` +
        `${f.node} still has its volume${left.length > 1 ? 's' : ''} ${left.join(', ')} set up ` +
        '(PodResourcesAreReclaimed: podVolumesExist)',
      causes,
    });
  }

  onEnd(): void {}
}
