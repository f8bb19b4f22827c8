// Ported from kubernetes pkg/kubelet/volumemanager/cache/actual_state_of_world.go, release-1.23.
// What is attached to this node and mounted where: per volume the device (global) mount state, per
// (volume, pod) the pod mount state. Go maps become insertion-ordered Maps (deterministic iteration).
import { GoError } from '../../../api/errors.js';
import type { UID } from '../../../api/v1.js';
import type { BlockVolumeMapper, Mounter, PluginKind, Spec } from '../../../volume/volume.js';
import type { VolumePluginMgr } from '../host.js';
import {
  type ActualStateOfWorldAttacherUpdater,
  type ActualStateOfWorldMounterUpdater,
  type AttachedVolume,
  DeviceGloballyMounted,
  type DeviceMountState,
  DeviceMountUncertain,
  DeviceNotMounted,
  getUniqueVolumeNameFromSpec,
  type MarkVolumeOpts,
  type MountedVolume,
  type UniquePodName,
  type UniqueVolumeName,
  VolumeMounted,
  type VolumeMountState,
  VolumeMountUncertain,
  VolumeNotMounted,
} from '../operationexecutor/operationExecutor.js';

/** AttachedVolume.DeviceMayBeMounted: the device is globally mounted or may be. */
export function deviceMayBeMounted(av: AttachedVolume): boolean {
  return av.deviceMountState === DeviceGloballyMounted || av.deviceMountState === DeviceMountUncertain;
}

/** volumeNotAttachedError. */
export class VolumeNotAttachedError extends GoError {
  constructor(volumeName: UniqueVolumeName) {
    super(`volumeName "${volumeName}" does not exist in the list of attached volumes`);
  }
}
export function isVolumeNotAttachedError(err: GoError | undefined): boolean {
  return err instanceof VolumeNotAttachedError;
}

/** remountRequiredError (none of the simulated plugins requires a remount; kept for the reconciler's branch). */
export class RemountRequiredError extends GoError {}
export function isRemountRequiredError(err: GoError | undefined): boolean {
  return err instanceof RemountRequiredError;
}

interface MountedPod {
  podName: UniquePodName;
  podUID: UID;
  mounter: Mounter | undefined;
  blockVolumeMapper: BlockVolumeMapper | undefined;
  volumeSpec: Spec | undefined;
  outerVolumeSpecName: string;
  remountRequired: boolean;
  volumeGidValue: string;
  volumeMountStateForPod: VolumeMountState;
  podDisplayName: string | undefined;
}

/**
 * volumeAttachability (#117804, 1.28): a volume the new reconstruction found on disk is `uncertain` until
 * node.status.volumesAttached says whether it is attached (a CSIDriver may not be readable at start-up).
 */
type VolumeAttachability = boolean | 'uncertain';

interface AttachedVolumeObj {
  volumeName: UniqueVolumeName;
  mountedPods: Map<UniquePodName, MountedPod>;
  spec: Spec;
  pluginName: PluginKind;
  pluginIsAttachable: VolumeAttachability;
  deviceMountState: DeviceMountState;
  devicePath: string;
  deviceMountPath: string;
}

export class ActualStateOfWorld
  implements ActualStateOfWorldMounterUpdater, ActualStateOfWorldAttacherUpdater
{
  private readonly attachedVolumes = new Map<UniqueVolumeName, AttachedVolumeObj>();
  /**
   * foundDuringReconstruction (#110670): the pods whose mount of a volume reconstruction added as
   * uncertain and no mount has confirmed since; markVolumeErrorState leaves them uncertain.
   */
  private readonly foundDuringReconstruction = new Map<UniqueVolumeName, Set<UniquePodName>>();

  constructor(
    readonly nodeName: string,
    private readonly volumePluginMgr: VolumePluginMgr,
  ) {}

  markVolumeAsAttached(
    volumeName: UniqueVolumeName,
    volumeSpec: Spec,
    _nodeName: string,
    devicePath: string,
  ): GoError | undefined {
    return this.addVolume(volumeName, volumeSpec, devicePath, undefined);
  }

  /** AddAttachUncertainReconstructedVolume (reconstruct_new.go): attached, attach-ability uncertain. */
  addAttachUncertainReconstructedVolume(
    volumeName: UniqueVolumeName,
    volumeSpec: Spec,
    _nodeName: string,
    devicePath: string,
  ): GoError | undefined {
    return this.addVolume(volumeName, volumeSpec, devicePath, 'uncertain');
  }

  /**
   * UpdateReconstructedDevicePath: node.status's device path for a reconstructed volume, unless the
   * reconciler already settled its device (a mount fixed the path then).
   */
  updateReconstructedDevicePath(volumeName: UniqueVolumeName, devicePath: string): void {
    const volumeObj = this.attachedVolumes.get(volumeName);
    if (volumeObj === undefined || volumeObj.deviceMountState !== DeviceMountUncertain) return;
    volumeObj.devicePath = devicePath;
  }

  /** UpdateReconstructedVolumeAttachability: settles an uncertain attach-ability from node.status. */
  updateReconstructedVolumeAttachability(volumeName: UniqueVolumeName, attachable: boolean): void {
    const volumeObj = this.attachedVolumes.get(volumeName);
    if (volumeObj === undefined || volumeObj.pluginIsAttachable !== 'uncertain') return;
    volumeObj.pluginIsAttachable = attachable;
  }

  /** Counts the volumes removed (the reconciler's only synchronous change removes one): it only grows. */
  removedVolumes = 0;

  markVolumeAsDetached(volumeName: UniqueVolumeName, _nodeName: string): void {
    this.deleteVolume(volumeName);
  }

  markVolumeAsMounted(opts: MarkVolumeOpts): GoError | undefined {
    return this.addPodToVolume(opts);
  }

  markVolumeAsUnmounted(podName: UniquePodName, volumeName: UniqueVolumeName): GoError | undefined {
    return this.deletePodFromVolume(podName, volumeName);
  }

  markDeviceAsMounted(
    volumeName: UniqueVolumeName,
    devicePath: string,
    deviceMountPath: string,
  ): GoError | undefined {
    return this.setDeviceMountState(volumeName, DeviceGloballyMounted, devicePath, deviceMountPath);
  }

  markDeviceAsUncertain(
    volumeName: UniqueVolumeName,
    devicePath: string,
    deviceMountPath: string,
  ): GoError | undefined {
    return this.setDeviceMountState(volumeName, DeviceMountUncertain, devicePath, deviceMountPath);
  }

  markVolumeMountAsUncertain(opts: MarkVolumeOpts): GoError | undefined {
    return this.addPodToVolume(Object.assign({}, opts, { volumeMountState: VolumeMountUncertain }));
  }

  markDeviceAsUnmounted(volumeName: UniqueVolumeName): GoError | undefined {
    return this.setDeviceMountState(volumeName, DeviceNotMounted, '', '');
  }

  getDeviceMountState(volumeName: UniqueVolumeName): DeviceMountState {
    return this.attachedVolumes.get(volumeName)?.deviceMountState ?? DeviceNotMounted;
  }

  getVolumeMountState(volumeName: UniqueVolumeName, podName: UniquePodName): VolumeMountState {
    return (
      this.attachedVolumes.get(volumeName)?.mountedPods.get(podName)?.volumeMountStateForPod ??
      VolumeNotMounted
    );
  }

  /**
   * addVolume: adds the volume (or updates its device path) in the list of attached volumes. Release-1.23
   * takes the attach-ability from the plugin; `attachability` is 1.28's explicit one (`undefined`: the
   * plugin's, as MarkVolumeAsAttached passes it).
   */
  private addVolume(
    volumeName: UniqueVolumeName,
    volumeSpec: Spec,
    devicePath: string,
    attachability: VolumeAttachability | undefined,
  ): GoError | undefined {
    const volumePlugin = this.volumePluginMgr.findPluginBySpec(volumeSpec);
    const name = volumeName.length === 0 ? getUniqueVolumeNameFromSpec(volumePlugin, volumeSpec) : volumeName;
    const volumeObj = this.attachedVolumes.get(name);
    if (volumeObj === undefined) {
      this.attachedVolumes.set(name, {
        volumeName: name,
        spec: volumeSpec,
        mountedPods: new Map(),
        pluginName: volumePlugin.kind,
        pluginIsAttachable: attachability ?? volumePlugin.isAttachable(),
        deviceMountState: DeviceNotMounted,
        devicePath,
        deviceMountPath: '',
      });
    } else {
      // If volume object already exists, update the fields such as device path
      volumeObj.devicePath = devicePath;
    }
    return undefined;
  }

  addPodToVolume(opts: MarkVolumeOpts): GoError | undefined {
    const volumeObj = this.attachedVolumes.get(opts.volumeName);
    if (volumeObj === undefined) {
      return new GoError(
        `no volume with the name "${opts.volumeName}" exists in the list of attached volumes`,
      );
    }
    let podObj = volumeObj.mountedPods.get(opts.podName);
    if (podObj === undefined) {
      podObj = {
        podName: opts.podName,
        podUID: opts.podUID,
        mounter: opts.mounter,
        blockVolumeMapper: opts.blockVolumeMapper,
        outerVolumeSpecName: opts.outerVolumeSpecName,
        volumeGidValue: opts.volumeGidVolume,
        volumeSpec: opts.volumeSpec,
        volumeMountStateForPod: opts.volumeMountState,
        remountRequired: false,
        podDisplayName: opts.podDisplayName,
      };
      volumeObj.mountedPods.set(opts.podName, podObj);
    }
    // If pod exists, reset remountRequired value
    podObj.remountRequired = false;
    podObj.volumeMountStateForPod = opts.volumeMountState;
    // A volume mounted successfully is no longer one that reconstruction found.
    if (opts.volumeMountState === VolumeMounted)
      this.foundDuringReconstruction.get(opts.volumeName)?.delete(opts.podName);
    if (opts.mounter !== undefined) {
      // The mounter stored in the object may have old information, use the newest one.
      podObj.mounter = opts.mounter;
    }
    return undefined;
  }

  setDeviceMountState(
    volumeName: UniqueVolumeName,
    deviceMountState: DeviceMountState,
    devicePath: string,
    deviceMountPath: string,
  ): GoError | undefined {
    const volumeObj = this.attachedVolumes.get(volumeName);
    if (volumeObj === undefined) {
      return new GoError(`no volume with the name "${volumeName}" exists in the list of attached volumes`);
    }
    volumeObj.deviceMountState = deviceMountState;
    volumeObj.deviceMountPath = deviceMountPath;
    if (devicePath !== '') volumeObj.devicePath = devicePath;
    return undefined;
  }

  deletePodFromVolume(podName: UniquePodName, volumeName: UniqueVolumeName): GoError | undefined {
    const volumeObj = this.attachedVolumes.get(volumeName);
    if (volumeObj === undefined) {
      return new GoError(`no volume with the name "${volumeName}" exists in the list of attached volumes`);
    }
    volumeObj.mountedPods.delete(podName);
    this.foundDuringReconstruction.get(volumeName)?.delete(podName);
    return undefined;
  }

  deleteVolume(volumeName: UniqueVolumeName): GoError | undefined {
    const volumeObj = this.attachedVolumes.get(volumeName);
    if (volumeObj === undefined) return undefined;
    if (volumeObj.mountedPods.size !== 0) {
      return new GoError(
        `failed to DeleteVolume "${volumeName}", it still has ${volumeObj.mountedPods.size} mountedPods`,
      );
    }
    this.attachedVolumes.delete(volumeName);
    this.foundDuringReconstruction.delete(volumeName);
    this.removedVolumes++;
    return undefined;
  }

  /**
   * PodExistsInVolume: whether the pod's mount of the volume is (certainly) there, the device path, and
   * VolumeNotAttachedError when the volume is not attached at all.
   */
  podExistsInVolume(
    podName: UniquePodName,
    volumeName: UniqueVolumeName,
  ): { exists: boolean; devicePath: string; err: GoError | undefined } {
    const volumeObj = this.attachedVolumes.get(volumeName);
    if (volumeObj === undefined) {
      return { exists: false, devicePath: '', err: new VolumeNotAttachedError(volumeName) };
    }
    const podObj = volumeObj.mountedPods.get(podName);
    if (podObj !== undefined) {
      if (podObj.volumeMountStateForPod === VolumeMountUncertain) {
        return { exists: false, devicePath: volumeObj.devicePath, err: undefined };
      }
      if (podObj.remountRequired) {
        return {
          exists: true,
          devicePath: volumeObj.devicePath,
          err: new RemountRequiredError(
            `volumeName "${volumeName}" is mounted to "${podName}" but should be remounted`,
          ),
        };
      }
    }
    return { exists: podObj !== undefined, devicePath: volumeObj.devicePath, err: undefined };
  }

  /** PodRemovedFromVolume: false while the pod's mount is mounted or uncertain. */
  podRemovedFromVolume(podName: UniquePodName, volumeName: UniqueVolumeName): boolean {
    const podObj = this.attachedVolumes.get(volumeName)?.mountedPods.get(podName);
    if (podObj === undefined) return true;
    return !(
      podObj.volumeMountStateForPod === VolumeMountUncertain ||
      podObj.volumeMountStateForPod === VolumeMounted
    );
  }

  volumeExistsWithSpecName(podName: UniquePodName, volumeSpecName: string): boolean {
    for (const volumeObj of this.attachedVolumes.values()) {
      const podObj = volumeObj.mountedPods.get(podName);
      if (podObj !== undefined && specName(podObj, volumeObj) === volumeSpecName) return true;
    }
    return false;
  }

  volumeExists(volumeName: UniqueVolumeName): boolean {
    return this.attachedVolumes.has(volumeName);
  }

  /** GetMountedVolumes: pod mounts in state VolumeMounted. */
  getMountedVolumes(): MountedVolume[] {
    return this.collectMounted((_, p) => p.volumeMountStateForPod === VolumeMounted);
  }

  /** GetAllMountedVolumes: pod mounts that are mounted or uncertain. */
  getAllMountedVolumes(): MountedVolume[] {
    return this.collectMounted(
      (_, p) =>
        p.volumeMountStateForPod === VolumeMounted || p.volumeMountStateForPod === VolumeMountUncertain,
    );
  }

  getMountedVolumesForPod(podName: UniquePodName): MountedVolume[] {
    return this.collectMounted((n, p) => n === podName && p.volumeMountStateForPod === VolumeMounted);
  }

  getPossiblyMountedVolumesForPod(podName: UniquePodName): MountedVolume[] {
    return this.collectMounted(
      (n, p) =>
        n === podName &&
        (p.volumeMountStateForPod === VolumeMounted || p.volumeMountStateForPod === VolumeMountUncertain),
    );
  }

  getGloballyMountedVolumes(): AttachedVolume[] {
    return [...this.attachedVolumes.values()]
      .filter((v) => v.deviceMountState === DeviceGloballyMounted)
      .map((v) => this.newAttachedVolume(v));
  }

  getAttachedVolumes(): AttachedVolume[] {
    return [...this.attachedVolumes.values()].map((v) => this.newAttachedVolume(v));
  }

  /** GetUnmountedVolumes: attached volumes that no pod has mounted (their device may still be). */
  getUnmountedVolumes(): AttachedVolume[] {
    return [...this.attachedVolumes.values()]
      .filter((v) => v.mountedPods.size === 0)
      .map((v) => this.newAttachedVolume(v));
  }

  /**
   * CheckAndMarkVolumeAsUncertainViaReconstruction (#110670): adds the pod's mount as uncertain only if
   * the volume is attached and the pod is not already mounted or uncertain; true if it added it.
   */
  checkAndMarkVolumeAsUncertainViaReconstruction(opts: MarkVolumeOpts): boolean {
    const volumeObj = this.attachedVolumes.get(opts.volumeName);
    if (volumeObj === undefined) return false;
    const podObj = volumeObj.mountedPods.get(opts.podName);
    if (podObj !== undefined && podObj.volumeMountStateForPod !== VolumeNotMounted) return false;
    volumeObj.mountedPods.set(opts.podName, {
      podName: opts.podName,
      podUID: opts.podUID,
      mounter: opts.mounter,
      blockVolumeMapper: opts.blockVolumeMapper,
      outerVolumeSpecName: opts.outerVolumeSpecName,
      volumeGidValue: opts.volumeGidVolume,
      volumeSpec: opts.volumeSpec,
      volumeMountStateForPod: VolumeMountUncertain,
      remountRequired: false,
      podDisplayName: opts.podDisplayName,
    });
    let pods = this.foundDuringReconstruction.get(opts.volumeName);
    if (pods === undefined) {
      pods = new Set();
      this.foundDuringReconstruction.set(opts.volumeName, pods);
    }
    pods.add(opts.podName);
    return true;
  }

  /** IsVolumeReconstructed (#110670): only an uncertain mount that reconstruction added counts. */
  isVolumeReconstructed(volumeName: UniqueVolumeName, podName: UniquePodName): boolean {
    if (this.getVolumeMountState(volumeName, podName) !== VolumeMountUncertain) return false;
    return this.foundDuringReconstruction.get(volumeName)?.has(podName) ?? false;
  }

  /**
   * IsVolumeDeviceReconstructed (#122211, read at v1.31.12): the volume has an entry in
   * foundDuringReconstruction, which a pod mounting it successfully empties but only DeleteVolume removes:
   * its device was found by reconstruction and has not left the actual state since.
   */
  isVolumeDeviceReconstructed(volumeName: UniqueVolumeName): boolean {
    return this.foundDuringReconstruction.has(volumeName);
  }

  /**
   * CheckAndMarkDeviceUncertainViaReconstruction (#110670): a device the actual state has as not mounted
   * becomes uncertain (so UnmountDevice runs); true if it changed it.
   */
  checkAndMarkDeviceUncertainViaReconstruction(
    volumeName: UniqueVolumeName,
    deviceMountPath: string,
  ): boolean {
    const volumeObj = this.attachedVolumes.get(volumeName);
    if (volumeObj === undefined || volumeObj.deviceMountState !== DeviceNotMounted) return false;
    volumeObj.deviceMountState = DeviceMountUncertain;
    volumeObj.deviceMountPath = deviceMountPath;
    return true;
  }

  syncReconstructedVolume(
    volumeName: UniqueVolumeName,
    podName: UniquePodName,
    outerVolumeSpecName: string,
  ): void {
    const podObj = this.attachedVolumes.get(volumeName)?.mountedPods.get(podName);
    if (podObj !== undefined && podObj.outerVolumeSpecName !== outerVolumeSpecName) {
      podObj.outerVolumeSpecName = outerVolumeSpecName;
    }
  }

  private collectMounted(pred: (podName: UniquePodName, p: MountedPod) => boolean): MountedVolume[] {
    const out: MountedVolume[] = [];
    for (const volumeObj of this.attachedVolumes.values()) {
      for (const [podName, podObj] of volumeObj.mountedPods) {
        if (pred(podName, podObj)) out.push(getMountedVolume(podObj, volumeObj));
      }
    }
    return out;
  }

  private newAttachedVolume(v: AttachedVolumeObj): AttachedVolume {
    return {
      volumeName: v.volumeName,
      volumeSpec: v.spec,
      nodeName: this.nodeName,
      // An uncertain attach-ability counts as not attachable (`== volumeAttachabilityTrue`).
      pluginIsAttachable: v.pluginIsAttachable === true,
      devicePath: v.devicePath,
      deviceMountPath: v.deviceMountPath,
      pluginName: v.pluginName,
      deviceMountState: v.deviceMountState,
    };
  }
}

function specName(podObj: MountedPod, volumeObj: AttachedVolumeObj): string {
  return podObj.volumeSpec?.name ?? volumeObj.spec.name;
}

function getMountedVolume(podObj: MountedPod, volumeObj: AttachedVolumeObj): MountedVolume {
  return {
    podName: podObj.podName,
    volumeName: volumeObj.volumeName,
    innerVolumeSpecName: specName(podObj, volumeObj),
    outerVolumeSpecName: podObj.outerVolumeSpecName,
    pluginName: volumeObj.pluginName,
    podUID: podObj.podUID,
    mounter: podObj.mounter,
    blockVolumeMapper: podObj.blockVolumeMapper,
    volumeGidValue: podObj.volumeGidValue,
    volumeSpec: podObj.volumeSpec,
    deviceMountPath: volumeObj.deviceMountPath,
    podDisplayName: podObj.podDisplayName,
  };
}
