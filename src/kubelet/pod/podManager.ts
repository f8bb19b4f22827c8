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
  /**
   * The pods in UID order, kept in order as pods come and go (GetPods is read every 100 ms by the volume
   * populator; sorting thousands of pods after each status update would cost more than the rest).
   */
  private readonly sorted: Pod[] = [];
  /**
   * @param onMembershipChange called when a pod (not a mirror pod) comes or goes: elision
   *   (src/elisionMasks.ts). Given to the constructor, not assigned later: V8 keeps a closure
   *   stored into a finished object alive past young-generation GCs, and with it the whole world.
   */
  constructor(private readonly onMembershipChange?: () => void) {}

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
    const uid = pod.metadata.uid;
    const i = this.sortedIndex(uid);
    if (this.podByUID.has(uid)) this.sorted[i] = pod;
    else {
      this.sorted.splice(i, 0, pod);
      this.onMembershipChange?.();
    }
    this.podByUID.set(uid, pod);
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
    if (this.podByUID.delete(pod.metadata.uid)) {
      this.sorted.splice(this.sortedIndex(pod.metadata.uid), 1);
      this.onMembershipChange?.();
    }
    // Upstream deletes the fullname entry whatever UID holds it; here a REMOVE of an old UID that comes
    // after the ADD of its successor leaves the successor's entry alone.
    if (this.podByFullName.get(fullname)?.metadata.uid === pod.metadata.uid)
      this.podByFullName.delete(fullname);
  }

  /** GetPods (no mirror pods), in UID order so that every loop over it is deterministic. Do not change it. */
  getPods(): readonly Pod[] {
    // The live list: a caller reads it at once, it never holds it across a yield.
    return this.sorted;
  }

  /** GetPodsAndMirrorPods, both in UID order: copies (housekeeping holds them across its API calls). */
  getPodsAndMirrorPods(): { pods: readonly Pod[]; mirrorPods: Pod[] } {
    return { pods: [...this.sorted], mirrorPods: [...this.mirrorPodByUID.values()].sort(byUID) };
  }

  /** Where a pod of `uid` is, or would go, in the UID-ordered list. */
  private sortedIndex(uid: UID): number {
    let lo = 0;
    let hi = this.sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.sorted[mid] as Pod).metadata.uid < uid) lo = mid + 1;
      else hi = mid;
    }
    return lo;
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
