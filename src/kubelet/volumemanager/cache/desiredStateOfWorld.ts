// Ported from kubernetes pkg/kubelet/volumemanager/cache/desired_state_of_world.go, release-1.23.
// The volumes that should be attached to this node and the pods that reference them.
import type { GoError } from '../../../api/errors.js';
import type { Pod } from '../../../api/v1.js';
import type { Spec } from '../../../volume/volume.js';
import type { VolumePluginMgr } from '../host.js';
import {
  getUniqueVolumeNameFromSpec,
  type UniquePodName,
  type UniqueVolumeName,
  type VolumeToMount,
} from '../operationexecutor/operationExecutor.js';

/** maxPodErrors: how many distinct errors are kept per pod. */
const maxPodErrors = 10;

interface PodToMount {
  podName: UniquePodName;
  pod: Pod;
  volumeSpec: Spec;
  outerVolumeSpecName: string;
}

interface VolumeToMountObj {
  volumeName: UniqueVolumeName;
  podsToMount: Map<UniquePodName, PodToMount>;
  pluginIsAttachable: boolean;
  pluginIsDeviceMountable: boolean;
  volumeGidValue: string;
  reportedInUse: boolean;
}

export class DesiredStateOfWorld {
  private readonly volumesToMount = new Map<UniqueVolumeName, VolumeToMountObj>();
  private readonly podErrors = new Map<UniquePodName, Set<string>>();

  constructor(private readonly volumePluginMgr: VolumePluginMgr) {}

  /**
   * AddPodToVolume. Every simulated plugin (fc, iscsi, csi) is device-mountable, so the unique volume
   * name never includes the pod.
   */
  addPodToVolume(
    podName: UniquePodName,
    pod: Pod,
    volumeSpec: Spec,
    outerVolumeSpecName: string,
    volumeGidValue: string,
  ): { volumeName: UniqueVolumeName; err: GoError | undefined } {
    const volumePlugin = this.volumePluginMgr.findPluginBySpec(volumeSpec);
    const attachable = volumePlugin.isAttachable();
    const deviceMountable = true;
    const volumeName = getUniqueVolumeNameFromSpec(volumePlugin, volumeSpec);
    let volumeObj = this.volumesToMount.get(volumeName);
    if (volumeObj === undefined) {
      volumeObj = {
        volumeName,
        podsToMount: new Map(),
        pluginIsAttachable: attachable,
        pluginIsDeviceMountable: deviceMountable,
        volumeGidValue,
        reportedInUse: false,
      };
      this.volumesToMount.set(volumeName, volumeObj);
    }
    // Create new podToMount object. If it already exists, it is refreshed with updated values (this is
    // required for volumes that require remounting on pod update, like Downward API volumes).
    volumeObj.podsToMount.set(podName, { podName, pod, volumeSpec, outerVolumeSpecName });
    return { volumeName, err: undefined };
  }

  /**
   * MarkVolumesReportedInUse: sets reportedInUse to true exactly for the reported volumes. Returns
   * whether any flag changed (simulator addition, for elision: src/elisionMasks.ts).
   */
  markVolumesReportedInUse(reportedVolumes: readonly UniqueVolumeName[]): boolean {
    const reported = new Set(reportedVolumes);
    let changed = false;
    for (const [volumeName, volumeObj] of this.volumesToMount) {
      const inUse = reported.has(volumeName);
      if (volumeObj.reportedInUse !== inUse) changed = true;
      volumeObj.reportedInUse = inUse;
    }
    return changed;
  }

  deletePodFromVolume(podName: UniquePodName, volumeName: UniqueVolumeName): void {
    this.podErrors.delete(podName);
    const volumeObj = this.volumesToMount.get(volumeName);
    if (volumeObj === undefined || !volumeObj.podsToMount.has(podName)) return;
    volumeObj.podsToMount.delete(podName);
    if (volumeObj.podsToMount.size === 0) this.volumesToMount.delete(volumeName);
  }

  volumeExists(volumeName: UniqueVolumeName): boolean {
    return this.volumesToMount.has(volumeName);
  }

  podExistsInVolume(podName: UniquePodName, volumeName: UniqueVolumeName): boolean {
    return this.volumesToMount.get(volumeName)?.podsToMount.has(podName) ?? false;
  }

  volumeExistsWithSpecName(podName: UniquePodName, volumeSpecName: string): boolean {
    for (const volumeObj of this.volumesToMount.values()) {
      const podObj = volumeObj.podsToMount.get(podName);
      if (podObj !== undefined && podObj.volumeSpec.name === volumeSpecName) return true;
    }
    return false;
  }

  getPods(): Set<UniquePodName> {
    const pods = new Set<UniquePodName>();
    for (const volumeObj of this.volumesToMount.values()) {
      for (const podName of volumeObj.podsToMount.keys()) pods.add(podName);
    }
    return pods;
  }

  getVolumesToMount(): VolumeToMount[] {
    const out: VolumeToMount[] = [];
    for (const [volumeName, volumeObj] of this.volumesToMount) {
      for (const [podName, podObj] of volumeObj.podsToMount) {
        out.push({
          volumeName,
          podName,
          pod: podObj.pod,
          volumeSpec: podObj.volumeSpec,
          pluginIsAttachable: volumeObj.pluginIsAttachable,
          pluginIsDeviceMountable: volumeObj.pluginIsDeviceMountable,
          outerVolumeSpecName: podObj.outerVolumeSpecName,
          volumeGidValue: volumeObj.volumeGidValue,
          reportedInUse: volumeObj.reportedInUse,
          devicePath: '',
        });
      }
    }
    return out;
  }

  addErrorToPod(podName: UniquePodName, err: string): void {
    const errs = this.podErrors.get(podName);
    if (errs !== undefined) {
      if (errs.size <= maxPodErrors) errs.add(err);
      return;
    }
    this.podErrors.set(podName, new Set([err]));
  }

  /** PopPodErrors: the pod's errors, sorted (sets.String.List()), and forgets them. */
  popPodErrors(podName: UniquePodName): string[] {
    const errs = this.podErrors.get(podName);
    if (errs === undefined) return [];
    this.podErrors.delete(podName);
    return [...errs].sort();
  }

  getPodsWithErrors(): UniquePodName[] {
    return [...this.podErrors.keys()];
  }

  markVolumeAttachability(volumeName: UniqueVolumeName, attachable: boolean): void {
    const volumeObj = this.volumesToMount.get(volumeName);
    if (volumeObj !== undefined) volumeObj.pluginIsAttachable = attachable;
  }
}
