// What the kubelet asks of the API server (a narrow clientset). Every call takes virtual time.
import type { GoError } from '../api/errors.js';
import type { AttachedVolume, Node, Pod, PodStatus, UID, UniqueVolumeName } from '../api/v1.js';
import type { Co } from '../sim/index.js';

export type { AttachedVolume };

export interface KubeClient {
  getPod(namespace: string, name: string): Co<Pod | undefined>;
  /** statusutil.PatchPodStatus; fails if the object is gone or its UID differs. */
  patchPodStatus(uid: UID, status: PodStatus): Co<GoError | undefined>;
  /** Pods(ns).Delete with GracePeriodSeconds 0 and a UID precondition: the final delete of the kubelet. */
  deletePod(namespace: string, name: string, uidPrecondition: UID): Co<GoError | undefined>;
  /**
   * Nodes().Get of the kubelet's own node, served from the API server's cache (tryUpdateNodeStatus asks
   * for that on its first try); its round trip is not modelled. Undefined: the request failed (the node
   * is cut off from the API server).
   */
  getNode(nodeName: string): Node | undefined;
  /** nodeutil.PatchNodeStatus with the node's volumesInUse; the updated node, undefined if it failed. */
  patchNodeStatus(nodeName: string, volumesInUse: readonly UniqueVolumeName[]): Co<Node | undefined>;
  /**
   * The node lease controller's renewal of the node's Lease (its round trip is not modelled: the Lease is
   * read only by the node lifecycle controller, against a 40 s grace period).
   */
  renewLease(nodeName: string, renewTimeMs: number): void;
  /**
   * node.status.volumesAttached, as the attach/detach controller wrote it; undefined when the GET of the
   * node fails (the node is cut off from the API server).
   */
  getVolumesAttached(nodeName: string): readonly AttachedVolume[] | undefined;
  /** Pods(ns).Create of a mirror pod; a StatusError AlreadyExists if the name is taken. */
  createMirrorPod(pod: Pod): Co<GoError | undefined>;
  /**
   * Pods(ns).Delete of a mirror pod with GracePeriodSeconds 0 and, if given, a UID precondition; a
   * StatusError NotFound or Conflict when there is nothing (or another UID) to delete.
   */
  deleteMirrorPod(namespace: string, name: string, uidPrecondition: UID | undefined): Co<GoError | undefined>;
}
