// Ported from kubernetes pkg/kubelet/pod/pod_manager.go, release-1.23, reduced to what the races need:
// the kubelet's view of the pods it should run (from its config sources), by UID and by full name.
// Mirror pods are not modelled (docs/architecture.md).
import { getPodFullName, type Pod, type UID } from '../../api/v1.js';

export class BasicPodManager {
  private readonly podByUID = new Map<UID, Pod>();
  private readonly podByFullName = new Map<string, Pod>();
  /** GetPods is read every 100 ms by the volume populator: keep the sorted list until a change. */
  private sorted: Pod[] | undefined = undefined;

  addPod(pod: Pod): void {
    this.updatePod(pod);
  }

  updatePod(pod: Pod): void {
    this.sorted = undefined;
    this.podByUID.set(pod.metadata.uid, pod);
    this.podByFullName.set(getPodFullName(pod), pod);
  }

  deletePod(pod: Pod): void {
    this.sorted = undefined;
    this.podByUID.delete(pod.metadata.uid);
    const fullname = getPodFullName(pod);
    if (this.podByFullName.get(fullname)?.metadata.uid === pod.metadata.uid)
      this.podByFullName.delete(fullname);
  }

  /** GetPods, in UID order so that every loop over it is deterministic. Callers must not change it. */
  getPods(): readonly Pod[] {
    if (this.sorted === undefined) {
      this.sorted = [...this.podByUID.values()].sort((a, b) =>
        a.metadata.uid < b.metadata.uid ? -1 : a.metadata.uid > b.metadata.uid ? 1 : 0,
      );
    }
    return this.sorted;
  }

  getPodByUID(uid: UID): Pod | undefined {
    return this.podByUID.get(uid);
  }

  getPodByFullName(fullname: string): Pod | undefined {
    return this.podByFullName.get(fullname);
  }
}
