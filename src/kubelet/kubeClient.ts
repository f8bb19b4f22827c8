// What the kubelet asks of the API server (a narrow clientset). Every call takes virtual time.
import type { GoError } from '../api/errors.js';
import type { AttachedVolume, Pod, PodStatus, UID, UniqueVolumeName } from '../api/v1.js';
import type { Co } from '../sim/index.js';

export type { AttachedVolume };

export interface KubeClient {
  getPod(namespace: string, name: string): Co<Pod | undefined>;
  /** statusutil.PatchPodStatus; fails if the object is gone or its UID differs. */
  patchPodStatus(uid: UID, status: PodStatus): Co<GoError | undefined>;
  /** Pods(ns).Delete with GracePeriodSeconds 0 and a UID precondition: the final delete of the kubelet. */
  deletePod(namespace: string, name: string, uidPrecondition: UID): Co<GoError | undefined>;
  /**
   * The kubelet's node status update: a heartbeat (the Ready condition), with volumesInUse unless the
   * VolumesInUse setter leaves the field alone (undefined: the volume manager has not synced yet).
   */
  updateNodeStatus(
    nodeName: string,
    volumesInUse: readonly UniqueVolumeName[] | undefined,
  ): Co<GoError | undefined>;
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
