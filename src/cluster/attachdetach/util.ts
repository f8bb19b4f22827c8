// Ported from kubernetes pkg/controller/volume/attachdetach/util/util.go, release-1.23: how a pod's
// volumes enter or leave the desired state of world. A simulated pod names its PersistentVolumes
// directly, so CreateVolumeSpec is a lookup of the cluster volume (no PVC, no CSI migration).
import type { Pod } from '../../api/v1.js';
import type { Spec } from '../../volume/volume.js';
import { isPodTerminated } from '../../volume/volumeUtil.js';
import { type DesiredStateOfWorld, getUniquePodName } from './desiredStateOfWorld.js';
import { type AttachDetachVolumePluginMgr, getUniqueVolumeNameFromSpec } from './operations.js';

/** The PV lister: the spec of a cluster volume, or undefined if there is none. */
export type VolumeSpecLister = (volumeName: string) => Spec | undefined;

/**
 * DetermineVolumeAction: whether the pod's volumes should be attached. A terminated pod's volumes stay
 * only if its node asks to keep terminated pods' volumes.
 */
export function determineVolumeAction(
  pod: Pod | undefined,
  desiredStateOfWorld: DesiredStateOfWorld,
  defaultAction: boolean,
): boolean {
  if (pod === undefined || pod.spec.volumes.length <= 0) return defaultAction;
  const keepTerminatedPodVolume = desiredStateOfWorld.getKeepTerminatedPodVolumesForNode(pod.spec.nodeName);
  // if pod is terminate we let kubelet policy dictate if volume should be detached or not
  if (isPodTerminated(pod, pod.status)) return keepTerminatedPodVolume;
  return defaultAction;
}

/** ProcessPodVolumes: add (or remove) the pod's attachable volumes to (from) the desired state. */
export function processPodVolumes(
  pod: Pod | undefined,
  addVolumes: boolean,
  desiredStateOfWorld: DesiredStateOfWorld,
  volumePluginMgr: AttachDetachVolumePluginMgr,
  volumeSpecLister: VolumeSpecLister,
): void {
  if (pod === undefined) return;
  if (pod.spec.volumes.length <= 0) return;
  const nodeName = pod.spec.nodeName;
  // If the node the pod is scheduled to does not exist in the desired state of the world data structure,
  // that indicates the node is not yet managed by the controller. Therefore, ignore the pod.
  if (nodeName === '' || !desiredStateOfWorld.nodeExists(nodeName)) return;
  // Process volume spec for each volume defined in pod
  for (const podVolume of pod.spec.volumes) {
    const volumeSpec = volumeSpecLister(podVolume);
    if (volumeSpec === undefined) continue;
    const attachableVolumePlugin = volumePluginMgr.findAttachablePluginBySpec(volumeSpec);
    if (attachableVolumePlugin === undefined) continue;
    const uniquePodName = getUniquePodName(pod);
    if (addVolumes) {
      // Add volume to desired state of world
      desiredStateOfWorld.addPod(uniquePodName, pod, volumeSpec, nodeName);
    } else {
      // Remove volume from desired state of world
      const uniqueVolumeName = getUniqueVolumeNameFromSpec(attachableVolumePlugin, volumeSpec);
      desiredStateOfWorld.deletePod(uniquePodName, uniqueVolumeName, nodeName);
    }
  }
}
