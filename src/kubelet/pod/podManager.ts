// Ported from kubernetes pkg/kubelet/pod/pod_manager.go, release-1.23, reduced to what the races need:
// the kubelet's view of the pods it should run (from its config sources), by UID and by full name, and
// the mirror pods of its static pods, kept apart by full name (a mirror pod is never a pod to run).
// UID translation between a static pod and its mirror is left out: nothing modelled reads it.
import { getPodFullName, isMirrorPod, type Pod, type UID } from '../../api/v1.js';
import { getHashFromMirrorPod, getPodHash } from './mirrorClient.js';

const byUID = (a: Pod, b: Pod): number =>
  a.metadata.uid < b.metadata.uid ? -1 : a.metadata.uid > b.metadata.uid ? 1 : 0;

export class BasicPodManager {
  private readonly podByUID = new Map<UID, Pod>();
  private readonly mirrorPodByUID = new Map<UID, Pod>();
  private readonly podByFullName = new Map<string, Pod>();
  private readonly mirrorPodByFullName = new Map<string, Pod>();
  /** GetPods is read every 100 ms by the volume populator: keep the sorted list until a change. */
  private sorted: Pod[] | undefined = undefined;

  addPod(pod: Pod): void {
    this.updatePod(pod);
  }

  updatePod(pod: Pod): void {
    const fullname = getPodFullName(pod);
    if (isMirrorPod(pod)) {
      this.mirrorPodByUID.set(pod.metadata.uid, pod);
      this.mirrorPodByFullName.set(fullname, pod);
      return;
    }
    this.sorted = undefined;
    this.podByUID.set(pod.metadata.uid, pod);
    this.podByFullName.set(fullname, pod);
  }

  /** DeletePod forgets the pod (or mirror pod) by UID and its full name entry. */
  deletePod(pod: Pod): void {
    const fullname = getPodFullName(pod);
    if (isMirrorPod(pod)) {
      this.mirrorPodByUID.delete(pod.metadata.uid);
      this.mirrorPodByFullName.delete(fullname);
      return;
    }
    this.sorted = undefined;
    this.podByUID.delete(pod.metadata.uid);
    // Upstream deletes the fullname entry whatever UID holds it; here a REMOVE of an old UID that comes
    // after the ADD of its successor leaves the successor's entry alone.
    if (this.podByFullName.get(fullname)?.metadata.uid === pod.metadata.uid)
      this.podByFullName.delete(fullname);
  }

  /** GetPods (no mirror pods), in UID order so that every loop over it is deterministic. Do not change it. */
  getPods(): readonly Pod[] {
    if (this.sorted === undefined) this.sorted = [...this.podByUID.values()].sort(byUID);
    return this.sorted;
  }

  /** GetPodsAndMirrorPods, both in UID order. */
  getPodsAndMirrorPods(): { pods: readonly Pod[]; mirrorPods: Pod[] } {
    return { pods: this.getPods(), mirrorPods: [...this.mirrorPodByUID.values()].sort(byUID) };
  }

  getPodByUID(uid: UID): Pod | undefined {
    return this.podByUID.get(uid);
  }

  getPodByFullName(fullname: string): Pod | undefined {
    return this.podByFullName.get(fullname);
  }

  /** GetOrphanedMirrorPodNames: mirror pods whose static pod is gone, sorted (upstream: map order). */
  getOrphanedMirrorPodNames(): string[] {
    return [...this.mirrorPodByFullName.keys()].filter((n) => !this.podByFullName.has(n)).sort();
  }

  /** IsMirrorPodOf: same name and namespace, and the mirror carries the pod's hash. */
  isMirrorPodOf(mirrorPod: Pod, pod: Pod): boolean {
    if (
      pod.metadata.name !== mirrorPod.metadata.name ||
      pod.metadata.namespace !== mirrorPod.metadata.namespace
    )
      return false;
    const hash = getHashFromMirrorPod(mirrorPod);
    if (hash === undefined) return false;
    return hash === getPodHash(pod);
  }

  getMirrorPodByPod(pod: Pod): Pod | undefined {
    return this.mirrorPodByFullName.get(getPodFullName(pod));
  }

  getPodByMirrorPod(mirrorPod: Pod): Pod | undefined {
    return this.podByFullName.get(getPodFullName(mirrorPod));
  }
}
