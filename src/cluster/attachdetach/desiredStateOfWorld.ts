// Ported from kubernetes pkg/controller/volume/attachdetach/cache/desired_state_of_world.go, release-1.23.
// nodes -> volumes that should be attached there -> the pods scheduled there that use them. Go maps
// iterate in random order; these iterate in insertion order, which the simulation makes deterministic.
import { GoError } from '../../api/errors.js';
import type { Pod, UniqueVolumeName } from '../../api/v1.js';
import type { Spec } from '../../volume/volume.js';
import {
  type AttachDetachVolumePluginMgr,
  getUniqueVolumeNameFromSpec,
  type VolumeToAttach,
} from './operations.js';

/** volumetypes.UniquePodName: the pod UID. */
export type UniquePodName = string;

/** util.GetUniquePodName. */
export function getUniquePodName(pod: Pod): UniquePodName {
  return pod.metadata.uid;
}

/** PodToAdd: a pod that references a volume and is scheduled to a node. */
export interface PodToAdd {
  readonly pod: Pod;
  readonly volumeName: UniqueVolumeName;
  readonly nodeName: string;
}

interface VolumeToAttachObj {
  /** The multi-attach error was reported (reported once per volume and node, not on every loop). */
  multiAttachErrorReported: boolean;
  readonly volumeName: UniqueVolumeName;
  readonly spec: Spec;
  readonly scheduledPods: Map<UniquePodName, Pod>;
}

interface NodeManaged {
  readonly nodeName: string;
  readonly volumesToAttach: Map<UniqueVolumeName, VolumeToAttachObj>;
  /** The node's volumes.kubernetes.io/keep-terminated-pod-volumes annotation. */
  readonly keepTerminatedPodVolumes: boolean;
}

export class DesiredStateOfWorld {
  private readonly nodesManaged = new Map<string, NodeManaged>();
  /** Counts every change (src/sim/elision.ts: a pod delivery that leaves it alone wakes no reconciler). */
  version = 0;

  constructor(private readonly volumePluginMgr: AttachDetachVolumePluginMgr) {}

  addNode(nodeName: string, keepTerminatedPodVolumes: boolean): void {
    if (!this.nodesManaged.has(nodeName)) {
      this.nodesManaged.set(nodeName, { nodeName, volumesToAttach: new Map(), keepTerminatedPodVolumes });
      this.version++;
    }
  }

  addPod(
    podName: UniquePodName,
    podToAdd: Pod,
    volumeSpec: Spec,
    nodeName: string,
  ): { value: UniqueVolumeName; err: GoError | undefined } {
    const nodeObj = this.nodesManaged.get(nodeName);
    if (nodeObj === undefined) {
      return {
        value: '',
        err: new GoError(`no node with the name "${nodeName}" exists in the list of managed nodes`),
      };
    }
    const attachableVolumePlugin = this.volumePluginMgr.findAttachablePluginBySpec(volumeSpec);
    if (attachableVolumePlugin === undefined) {
      return {
        value: '',
        err: new GoError(
          `failed to get AttachablePlugin from volumeSpec for volume "${volumeSpec.name}" err=plugin do not support attachment`,
        ),
      };
    }
    const volumeName = getUniqueVolumeNameFromSpec(attachableVolumePlugin, volumeSpec);
    let volumeObj = nodeObj.volumesToAttach.get(volumeName);
    if (volumeObj === undefined) {
      volumeObj = { multiAttachErrorReported: false, volumeName, spec: volumeSpec, scheduledPods: new Map() };
      nodeObj.volumesToAttach.set(volumeName, volumeObj);
      this.version++;
    }
    if (!volumeObj.scheduledPods.has(podName)) {
      volumeObj.scheduledPods.set(podName, podToAdd);
      this.version++;
    }
    return { value: volumeName, err: undefined };
  }

  deleteNode(nodeName: string): GoError | undefined {
    const nodeObj = this.nodesManaged.get(nodeName);
    if (nodeObj === undefined) return undefined;
    if (nodeObj.volumesToAttach.size > 0) {
      return new GoError(
        `failed to delete node "${nodeName}" from list of nodes managed by attach/detach controller--the node ` +
          `still contains ${nodeObj.volumesToAttach.size} volumes in its list of volumes to attach`,
      );
    }
    this.nodesManaged.delete(nodeName);
    this.version++;
    return undefined;
  }

  deletePod(podName: UniquePodName, volumeName: UniqueVolumeName, nodeName: string): void {
    const volumeObj = this.nodesManaged.get(nodeName)?.volumesToAttach.get(volumeName);
    if (volumeObj === undefined || !volumeObj.scheduledPods.has(podName)) return;
    volumeObj.scheduledPods.delete(podName);
    this.version++;
    if (volumeObj.scheduledPods.size === 0)
      this.nodesManaged.get(nodeName)?.volumesToAttach.delete(volumeName);
  }

  nodeExists(nodeName: string): boolean {
    return this.nodesManaged.has(nodeName);
  }

  volumeExists(volumeName: UniqueVolumeName, nodeName: string): boolean {
    return this.nodesManaged.get(nodeName)?.volumesToAttach.has(volumeName) === true;
  }

  /** Mark multi-attach error as reported to prevent spamming multiple events for same error. */
  setMultiAttachError(volumeName: UniqueVolumeName, nodeName: string): void {
    const volumeObj = this.nodesManaged.get(nodeName)?.volumesToAttach.get(volumeName);
    if (volumeObj !== undefined && !volumeObj.multiAttachErrorReported) {
      volumeObj.multiAttachErrorReported = true;
      this.version++;
    }
  }

  getKeepTerminatedPodVolumesForNode(nodeName: string): boolean {
    if (nodeName === '') return false;
    return this.nodesManaged.get(nodeName)?.keepTerminatedPodVolumes ?? false;
  }

  getVolumesToAttach(): VolumeToAttach[] {
    const out: VolumeToAttach[] = [];
    for (const [nodeName, nodeObj] of this.nodesManaged) {
      for (const [volumeName, volumeObj] of nodeObj.volumesToAttach) {
        out.push({
          multiAttachErrorReported: volumeObj.multiAttachErrorReported,
          volumeName,
          volumeSpec: volumeObj.spec,
          nodeName,
          scheduledPods: [...volumeObj.scheduledPods.values()],
        });
      }
    }
    return out;
  }

  /**
   * GetPodToAdd: keyed by pod, so a pod with several volumes appears once, with its last volume (as
   * upstream: the populator then removes one volume of a vanished pod per loop).
   */
  getPodToAdd(): Map<UniquePodName, PodToAdd> {
    const pods = new Map<UniquePodName, PodToAdd>();
    for (const [nodeName, nodeObj] of this.nodesManaged)
      for (const [volumeName, volumeObj] of nodeObj.volumesToAttach)
        for (const [podUID, pod] of volumeObj.scheduledPods) pods.set(podUID, { pod, volumeName, nodeName });
    return pods;
  }

  /** GetVolumePodsOnNodes: the pods that want the volume on the given nodes. */
  getVolumePodsOnNodes(nodes: readonly string[], volumeName: UniqueVolumeName): Pod[] {
    const pods: Pod[] = [];
    for (const nodeName of nodes) {
      const volume = this.nodesManaged.get(nodeName)?.volumesToAttach.get(volumeName);
      if (volume !== undefined) pods.push(...volume.scheduledPods.values());
    }
    return pods;
  }
}
