// What the kubelet asks of the API server (a narrow clientset). Every call takes virtual time.
import type { GoError } from '../api/errors.js';
import type { Pod, PodStatus, UID } from '../api/v1.js';
import type { Co } from '../sim/index.js';

export interface AttachedVolume {
  readonly name: string;
  readonly devicePath: string;
}

export interface KubeClient {
  getPod(namespace: string, name: string): Co<Pod | undefined>;
  /** statusutil.PatchPodStatus; fails if the object is gone or its UID differs. */
  patchPodStatus(uid: UID, status: PodStatus): Co<GoError | undefined>;
  /** Pods(ns).Delete with GracePeriodSeconds 0 and a UID precondition: the final delete of the kubelet. */
  deletePod(namespace: string, name: string, uidPrecondition: UID): Co<GoError | undefined>;
  /** Node status: volumesInUse (the kubelet's node status updater). */
  updateNodeVolumesInUse(nodeName: string, volumesInUse: readonly string[]): Co<GoError | undefined>;
  /** node.status.volumesAttached, as the attach/detach controller wrote it (read from the informer cache). */
  getVolumesAttached(nodeName: string): readonly AttachedVolume[];
  /** Pods(ns).Create of a mirror pod; a StatusError AlreadyExists if the name is taken. */
  createMirrorPod(pod: Pod): Co<GoError | undefined>;
  /**
   * Pods(ns).Delete of a mirror pod with GracePeriodSeconds 0 and, if given, a UID precondition; a
   * StatusError NotFound or Conflict when there is nothing (or another UID) to delete.
   */
  deleteMirrorPod(namespace: string, name: string, uidPrecondition: UID | undefined): Co<GoError | undefined>;
}
