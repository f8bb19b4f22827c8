// Ported from kubernetes pkg/volume/util/operationexecutor/operation_executor.go, release-1.23.
// The types shared by the caches and the operation generator, and the executor that keys each operation
// for serialisation: MountVolume of attachable / device-mountable volumes, UnmountDevice and
// VerifyControllerAttachedVolume on (volumeName, EmptyUniquePodName); UnmountVolume per pod.
import { GoError, TransientOperationFailure, UncertainProgressError } from '../../../api/errors.js';
import type { Pod, UID, VolumeMode } from '../../../api/v1.js';
import type { Co } from '../../../sim/index.js';
import type { NestedPendingOperations } from '../../../volume/util/nestedPendingOperations.js';
import { EmptyNodeName, EmptyUniquePodName } from '../../../volume/util/nestedPendingOperations.js';
import type {
  BlockVolumeMapper,
  Mounter,
  PluginKind,
  Result,
  Spec,
  VolumePlugin,
} from '../../../volume/volume.js';
import type { OperationGenerator } from './operationGenerator.js';

/** v1.UniqueVolumeName; in the simulator, the cluster volume's name (see getUniqueVolumeNameFromSpec). */
export type UniqueVolumeName = string;
/** volumetypes.UniquePodName: the pod UID. */
export type UniquePodName = string;

/** DeviceMountState: the state of a volume's global (device) mount on the node. */
export type DeviceMountState = 'DeviceGloballyMounted' | 'DeviceMountUncertain' | 'DeviceNotMounted';
/** device has been globally mounted successfully */
export const DeviceGloballyMounted: DeviceMountState = 'DeviceGloballyMounted';
/** device may not be mounted but a mount operation may be in-progress which can cause device mount to succeed */
export const DeviceMountUncertain: DeviceMountState = 'DeviceMountUncertain';
/** device has not been mounted globally */
export const DeviceNotMounted: DeviceMountState = 'DeviceNotMounted';

/** VolumeMountState: the state of a volume's mount into one pod. */
export type VolumeMountState = 'VolumeMounted' | 'VolumeMountUncertain' | 'VolumeNotMounted';
export const VolumeMounted: VolumeMountState = 'VolumeMounted';
export const VolumeMountUncertain: VolumeMountState = 'VolumeMountUncertain';
export const VolumeNotMounted: VolumeMountState = 'VolumeNotMounted';

export const VerifyControllerAttachedVolumeOpName = 'verify_controller_attached_volume';

/** util.GetUniquePodName. */
export function getUniquePodName(pod: Pod): UniquePodName {
  return pod.metadata.uid;
}

/**
 * util.GetUniqueVolumeNameFromSpec. Upstream: `<plugin name>/<volume name>`. The simulator has one LUN
 * per cluster volume with a cluster-unique name, so the unique name is that name: node.status
 * volumesInUse / volumesAttached, the attach/detach controller and facts all speak scenario names.
 */
export function getUniqueVolumeNameFromSpec(_plugin: VolumePlugin, spec: Spec): UniqueVolumeName {
  return spec.name;
}

/** MarkVolumeOpts. */
export interface MarkVolumeOpts {
  podName: UniquePodName;
  podUID: UID;
  volumeName: UniqueVolumeName;
  mounter?: Mounter | undefined;
  blockVolumeMapper?: BlockVolumeMapper | undefined;
  outerVolumeSpecName: string;
  volumeGidVolume: string;
  volumeSpec?: Spec | undefined;
  volumeMountState: VolumeMountState;
  /** Simulator addition: the pod's name, for facts. */
  podDisplayName?: string | undefined;
}

/** VolumeToMount: one (volume, pod) pair of the desired state. */
export interface VolumeToMount {
  volumeName: UniqueVolumeName;
  podName: UniquePodName;
  volumeSpec: Spec;
  outerVolumeSpecName: string;
  pod: Pod;
  pluginIsAttachable: boolean;
  pluginIsDeviceMountable: boolean;
  volumeGidValue: string;
  devicePath: string;
  reportedInUse: boolean;
}

/** AttachedVolume (operationexecutor), plus the cache's DeviceMountState. */
export interface AttachedVolume {
  volumeName: UniqueVolumeName;
  volumeSpec: Spec;
  nodeName: string;
  pluginIsAttachable: boolean;
  devicePath: string;
  deviceMountPath: string;
  pluginName: PluginKind;
  deviceMountState: DeviceMountState;
}

/** MountedVolume: one (volume, pod) pair of the actual state. */
export interface MountedVolume {
  podName: UniquePodName;
  volumeName: UniqueVolumeName;
  innerVolumeSpecName: string;
  outerVolumeSpecName: string;
  pluginName: PluginKind;
  podUID: UID;
  mounter?: Mounter | undefined;
  blockVolumeMapper?: BlockVolumeMapper | undefined;
  volumeGidValue: string;
  /** undefined for reconstruction's cleanupMounts, as upstream. */
  volumeSpec?: Spec | undefined;
  deviceMountPath: string;
  /** Simulator addition: the pod's name, for facts. */
  podDisplayName?: string | undefined;
}

/** ActualStateOfWorldMounterUpdater. */
export interface ActualStateOfWorldMounterUpdater {
  markVolumeAsMounted(opts: MarkVolumeOpts): GoError | undefined;
  markVolumeAsUnmounted(podName: UniquePodName, volumeName: UniqueVolumeName): GoError | undefined;
  markVolumeMountAsUncertain(opts: MarkVolumeOpts): GoError | undefined;
  markDeviceAsMounted(
    volumeName: UniqueVolumeName,
    devicePath: string,
    deviceMountPath: string,
  ): GoError | undefined;
  markDeviceAsUncertain(
    volumeName: UniqueVolumeName,
    devicePath: string,
    deviceMountPath: string,
  ): GoError | undefined;
  markDeviceAsUnmounted(volumeName: UniqueVolumeName): GoError | undefined;
  getDeviceMountState(volumeName: UniqueVolumeName): DeviceMountState;
  getVolumeMountState(volumeName: UniqueVolumeName, podName: UniquePodName): VolumeMountState;
  isVolumeReconstructed(volumeName: UniqueVolumeName, podName: UniquePodName): boolean;
  /** IsVolumeDeviceReconstructed (#122211): reconstruction found the volume's device. */
  isVolumeDeviceReconstructed(volumeName: UniqueVolumeName): boolean;
}

/** ActualStateOfWorldAttacherUpdater (the kubelet's part of it). */
export interface ActualStateOfWorldAttacherUpdater {
  markVolumeAsAttached(
    volumeName: UniqueVolumeName,
    volumeSpec: Spec,
    nodeName: string,
    devicePath: string,
  ): GoError | undefined;
  markVolumeAsDetached(volumeName: UniqueVolumeName, nodeName: string): void;
}

/** mountPreConditionFailed: VerifyControllerAttachedVolume found the volume not yet in node status. */
export class MountPreConditionFailedError extends GoError {}

export function isMountFailedPreconditionError(err: GoError | undefined): boolean {
  return err instanceof MountPreConditionFailedError;
}

/** util.CheckVolumeModeFilesystem: a missing spec counts as Filesystem. */
export function checkVolumeModeFilesystem(spec: Spec | undefined): boolean {
  return spec === undefined || spec.volumeMode !== 'Block';
}

/** volumetypes.IsOperationFinishedError: neither uncertain progress nor a transient failure. */
export function isOperationFinishedError(err: GoError): boolean {
  return !(err instanceof UncertainProgressError) && !(err instanceof TransientOperationFailure);
}

export function isUncertainProgressError(err: GoError): boolean {
  return err instanceof UncertainProgressError;
}

/** util.HasMountRefs: references that do not contain the mount path itself are real other users. */
export function hasMountRefs(mountPath: string, mountRefs: readonly string[]): boolean {
  return mountRefs.some((ref) => !ref.includes(mountPath));
}

export function volumeToMountError(v: VolumeToMount, prefix: string, err?: GoError): GoError {
  const suffix = err === undefined ? '' : ` : ${err.message}`;
  return new GoError(
    `${prefix} for volume "${v.volumeName}" pod "${v.pod.metadata.name}" (UID: "${v.pod.metadata.uid}")${suffix}`,
  );
}

export function mountedVolumeError(v: MountedVolume, prefix: string, err?: GoError): GoError {
  const suffix = err === undefined ? '' : ` : ${err.message}`;
  return new GoError(
    `${prefix} for volume "${v.volumeName}" pod "${v.podName}" (UID: "${v.podUID}")${suffix}`,
  );
}

export function attachedVolumeError(v: AttachedVolume, prefix: string, err?: GoError): GoError {
  const suffix = err === undefined ? '' : ` : ${err.message}`;
  return new GoError(`${prefix} for volume "${v.volumeName}" on node "${v.nodeName}"${suffix}`);
}

export class OperationExecutor {
  constructor(
    private readonly pendingOperations: NestedPendingOperations,
    private readonly operationGenerator: OperationGenerator,
  ) {}

  isOperationPending(
    volumeName: UniqueVolumeName,
    podName: UniquePodName,
    nodeName = EmptyNodeName,
  ): boolean {
    return this.pendingOperations.isOperationPending(volumeName, podName, nodeName);
  }

  isOperationSafeToRetry(
    volumeName: UniqueVolumeName,
    podName: UniquePodName,
    operationName: string,
  ): boolean {
    return this.pendingOperations.isOperationSafeToRetry(volumeName, podName, EmptyNodeName, operationName);
  }

  mountVolume(
    waitForAttachTimeoutMs: number,
    volumeToMount: VolumeToMount,
    asw: ActualStateOfWorldMounterUpdater,
    isRemount: boolean,
  ): GoError | undefined {
    const g = checkVolumeModeFilesystem(volumeToMount.volumeSpec)
      ? {
          ops: this.operationGenerator.generateMountVolumeFunc(
            waitForAttachTimeoutMs,
            volumeToMount,
            asw,
            isRemount,
          ),
          err: undefined,
        }
      : this.operationGenerator.generateMapVolumeFunc(waitForAttachTimeoutMs, volumeToMount, asw);
    if (g.err !== undefined || g.ops === undefined) return g.err;
    // Avoid executing mount/map from multiple pods referencing the same volume in parallel.
    let podName = EmptyUniquePodName;
    if (!volumeToMount.pluginIsAttachable && !volumeToMount.pluginIsDeviceMountable) {
      podName = getUniquePodName(volumeToMount.pod);
    }
    return this.pendingOperations.run(volumeToMount.volumeName, podName, EmptyNodeName, g.ops);
  }

  unmountVolume(volumeToUnmount: MountedVolume, asw: ActualStateOfWorldMounterUpdater): GoError | undefined {
    const g = checkVolumeModeFilesystem(volumeToUnmount.volumeSpec)
      ? this.operationGenerator.generateUnmountVolumeFunc(volumeToUnmount, asw)
      : this.operationGenerator.generateUnmapVolumeFunc(volumeToUnmount, asw);
    if (g.err !== undefined || g.ops === undefined) return g.err;
    // All volume plugins can execute unmount/unmap for multiple pods referencing the same volume in parallel.
    return this.pendingOperations.run(
      volumeToUnmount.volumeName,
      volumeToUnmount.podUID,
      EmptyNodeName,
      g.ops,
    );
  }

  unmountDevice(deviceToDetach: AttachedVolume, asw: ActualStateOfWorldMounterUpdater): GoError | undefined {
    const g = checkVolumeModeFilesystem(deviceToDetach.volumeSpec)
      ? this.operationGenerator.generateUnmountDeviceFunc(deviceToDetach, asw)
      : this.operationGenerator.generateUnmapDeviceFunc(deviceToDetach, asw);
    if (g.err !== undefined || g.ops === undefined) return g.err;
    // Avoid executing unmount/unmap device from multiple pods referencing the same volume in parallel.
    return this.pendingOperations.run(deviceToDetach.volumeName, EmptyUniquePodName, EmptyNodeName, g.ops);
  }

  verifyControllerAttachedVolume(
    volumeToMount: VolumeToMount,
    nodeName: string,
    asw: ActualStateOfWorldAttacherUpdater,
  ): GoError | undefined {
    const g = this.operationGenerator.generateVerifyControllerAttachedVolumeFunc(
      volumeToMount,
      nodeName,
      asw,
    );
    if (g.err !== undefined || g.ops === undefined) return g.err;
    return this.pendingOperations.run(volumeToMount.volumeName, EmptyUniquePodName, EmptyNodeName, g.ops);
  }

  /**
   * ReconstructVolumeOperation: Filesystem volumes through the plugin's ConstructVolumeSpec (which reads
   * /proc/mounts), Block volumes through its ConstructBlockVolumeSpec (the pod's volumeDevices link and
   * the global map path; volumePath is pods/{uid}/volumeDevices/{plugin}/{volumeName}).
   */
  *reconstructVolumeOperation(
    volumeMode: VolumeMode,
    plugin: VolumePlugin,
    uid: UID,
    volumeSpecName: string,
    volumePath: string,
  ): Co<Result<Spec>> {
    if (volumeMode === 'Filesystem') return yield* plugin.constructVolumeSpec(volumeSpecName, volumePath);
    return yield* plugin.constructBlockVolumeSpec(uid, volumeSpecName, volumePath);
  }

  /**
   * CheckVolumeExistenceOperation: a Filesystem volume of an attachable plugin must still be a mount
   * point; a Block volume must still have its symbolic link to the raw device under the pod's device map
   * (IsSymlinkExist: a missing link is "not exist", not an error).
   */
  checkVolumeExistenceOperation(
    volumeSpec: Spec,
    mountPath: string,
    attachable: boolean,
    host: { isLikelyMountPoint?(path: string): boolean; pathExists?(path: string): boolean },
  ): { exists: boolean; err: GoError | undefined } {
    if (checkVolumeModeFilesystem(volumeSpec)) {
      if (attachable && host.isLikelyMountPoint !== undefined) {
        return { exists: host.isLikelyMountPoint(mountPath), err: undefined };
      }
      return { exists: true, err: undefined };
    }
    return { exists: host.pathExists?.(mountPath) ?? true, err: undefined };
  }
}
