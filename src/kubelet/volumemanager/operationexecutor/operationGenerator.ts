// Ported from kubernetes pkg/volume/util/operationexecutor/operation_generator.go, release-1.23
// (Filesystem mode and VerifyControllerAttachedVolume; Block mode is in operationGeneratorBlock.ts);
// markDeviceErrorState also read at v1.31.12 (#122211).
// Fix `unmount-device-uncertain` (PR #100183) off runs the code before that PR: a failed TearDown
// leaves the pod's mount VolumeMounted, a failed UnmountDevice (or a device still open) leaves the
// device DeviceGloballyMounted, so a new pod skips MountDevice.
import { GoError } from '../../../api/errors.js';
import type { Fact } from '../../../facts.js';
import type { Fixes } from '../../../fixes.js';
import type { Co } from '../../../sim/index.js';
import type { GeneratedOperations } from '../../../volume/util/nestedPendingOperations.js';
import type { Attacher, Detacher, Unmounter, VolumePlugin } from '../../../volume/volume.js';
import type { VolumeHost, VolumePluginMgr } from '../host.js';
import {
  type ActualStateOfWorldAttacherUpdater,
  type ActualStateOfWorldMounterUpdater,
  type AttachedVolume,
  attachedVolumeError,
  DeviceGloballyMounted,
  DeviceMountUncertain,
  DeviceNotMounted,
  hasMountRefs,
  isOperationFinishedError,
  isUncertainProgressError,
  type MarkVolumeOpts,
  type MountedVolume,
  MountPreConditionFailedError,
  mountedVolumeError,
  VerifyControllerAttachedVolumeOpName,
  VolumeMounted,
  VolumeMountUncertain,
  VolumeNotMounted,
  type VolumeToMount,
  volumeToMountError,
} from './operationExecutor.js';
import {
  generateMapVolumeFunc,
  generateUnmapDeviceFunc,
  generateUnmapVolumeFunc,
} from './operationGeneratorBlock.js';

export interface Generated {
  ops: GeneratedOperations | undefined;
  err: GoError | undefined;
}

export interface OperationGeneratorOptions {
  readonly nodeName: string;
  readonly fixes: Fixes;
  readonly volumePluginMgr: VolumePluginMgr;
  readonly host: Pick<
    VolumeHost,
    'getVolumesAttached' | 'isDeviceOpened' | 'getDeviceBindMountRefs' | 'publishDeviceResidue' | 'publish'
  >;
  readonly clock: { readonly nowMs: number };
}

export class OperationGenerator {
  constructor(readonly opts: OperationGeneratorOptions) {}

  get volumePluginMgr(): VolumePluginMgr {
    return this.opts.volumePluginMgr;
  }

  /** Simulator addition: publishes a fact stamped with the virtual time and this node. */
  publish(fact: DistributiveOmit<Fact, 'atMs' | 'node'>): void {
    this.opts.host.publish(
      Object.assign({}, fact, { atMs: this.opts.clock.nowMs, node: this.opts.nodeName }) as Fact,
    );
  }

  /** Simulator addition: a pod's volume was set up (mounted or mapped) for it. */
  publishVolumeSetUp(volumeToMount: VolumeToMount): void {
    this.publish({
      kind: 'volumeSetUp',
      uid: volumeToMount.pod.metadata.uid,
      pod: volumeToMount.pod.metadata.name,
      volume: volumeToMount.volumeName,
    });
  }

  /** Simulator addition: a pod's volume was torn down (unmounted or unmapped), or that failed with `err`. */
  publishVolumeTearDown(volumeToUnmount: MountedVolume, err: GoError | undefined): void {
    this.publish({
      kind: 'volumeTearDown',
      uid: volumeToUnmount.podUID,
      pod: volumeToUnmount.podDisplayName ?? volumeToUnmount.podUID,
      volume: volumeToUnmount.volumeName,
      ok: err === undefined,
    });
  }

  /** Whether PR #100183's uncertain marking is in the code. */
  get markUncertainOnFailure(): boolean {
    return this.opts.fixes.on('unmount-device-uncertain');
  }

  /** Whether PR #107789 marks the device uncertain when it is still open after a successful unmount. */
  get markUncertainWhenStillOpen(): boolean {
    return this.opts.fixes.on('unmount-device-open-uncertain');
  }

  generateMountVolumeFunc(
    waitForAttachTimeoutMs: number,
    volumeToMount: VolumeToMount,
    asw: ActualStateOfWorldMounterUpdater,
    _isRemount: boolean,
  ): GeneratedOperations {
    const mountVolumeFunc = (): Co<GoError | undefined> =>
      mountVolumeOp(this, waitForAttachTimeoutMs, volumeToMount, asw);
    return { operationName: 'volume_mount', operationFunc: mountVolumeFunc };
  }

  markDeviceErrorState(
    volumeToMount: VolumeToMount,
    devicePath: string,
    deviceMountPath: string,
    mountError: GoError,
    asw: ActualStateOfWorldMounterUpdater,
  ): void {
    if (
      isOperationFinishedError(mountError) &&
      asw.getDeviceMountState(volumeToMount.volumeName) === DeviceMountUncertain
    ) {
      // #122211 (1.30; 1.29.1, 1.28, 1.27, 1.26): a device reconstruction found stays uncertain ("leaving
      // volume uncertain"), so it is still unmounted / unmapped when no pod wants it; before, a failed
      // MountDevice / SetUpDevice after a restart marked it unmounted and what the old kubelet had staged
      // stayed behind. Read only where it decides.
      if (
        asw.isVolumeDeviceReconstructed(volumeToMount.volumeName) &&
        this.opts.fixes.on('reconstructed-device-stays-uncertain')
      )
        return;
      // Only devices which were uncertain can be marked as unmounted
      asw.markDeviceAsUnmounted(volumeToMount.volumeName);
      return;
    }
    if (
      isUncertainProgressError(mountError) &&
      asw.getDeviceMountState(volumeToMount.volumeName) === DeviceNotMounted
    ) {
      // only devices which are not mounted can be marked as uncertain. We do not want to mark a device
      // which was previously marked as mounted here as uncertain.
      asw.markDeviceAsUncertain(volumeToMount.volumeName, devicePath, deviceMountPath);
    }
  }

  markVolumeErrorState(
    volumeToMount: VolumeToMount,
    markOpts: MarkVolumeOpts,
    mountError: GoError,
    asw: ActualStateOfWorldMounterUpdater,
  ): void {
    if (
      isOperationFinishedError(mountError) &&
      asw.getVolumeMountState(volumeToMount.volumeName, markOpts.podName) === VolumeMountUncertain
    ) {
      // #110670: a volume reconstruction added as uncertain stays uncertain whatever the mount's error,
      // so its mounts are still torn down when the pod goes ("leaving volume uncertain"). Before it, a
      // failed SetUp forgot the mount the previous kubelet had made.
      if (
        this.opts.fixes.on('reconstruct-every-pod-of-volume') &&
        asw.isVolumeReconstructed(volumeToMount.volumeName, volumeToMount.podName)
      )
        return;
      asw.markVolumeAsUnmounted(volumeToMount.podName, volumeToMount.volumeName);
      return;
    }
    if (
      isUncertainProgressError(mountError) &&
      asw.getVolumeMountState(volumeToMount.volumeName, markOpts.podName) === VolumeNotMounted
    ) {
      asw.markVolumeMountAsUncertain(markOpts);
    }
  }

  generateMapVolumeFunc(
    waitForAttachTimeoutMs: number,
    volumeToMount: VolumeToMount,
    asw: ActualStateOfWorldMounterUpdater,
  ): Generated {
    return generateMapVolumeFunc(this, waitForAttachTimeoutMs, volumeToMount, asw);
  }

  generateUnmapVolumeFunc(volumeToUnmount: MountedVolume, asw: ActualStateOfWorldMounterUpdater): Generated {
    return generateUnmapVolumeFunc(this, volumeToUnmount, asw);
  }

  generateUnmapDeviceFunc(deviceToDetach: AttachedVolume, asw: ActualStateOfWorldMounterUpdater): Generated {
    return generateUnmapDeviceFunc(this, deviceToDetach, asw);
  }

  generateUnmountVolumeFunc(
    volumeToUnmount: MountedVolume,
    asw: ActualStateOfWorldMounterUpdater,
  ): Generated {
    // Get mountable plugin
    const volumePlugin = this.volumePluginMgr.findPluginByName(volumeToUnmount.pluginName);
    const volumeUnmounter = volumePlugin.newUnmounter(
      volumeToUnmount.innerVolumeSpecName,
      volumeToUnmount.podUID,
    );
    const unmountVolumeFunc = (): Co<GoError | undefined> =>
      unmountVolumeOp(this, volumeToUnmount, asw, volumeUnmounter);
    return { ops: { operationName: 'volume_unmount', operationFunc: unmountVolumeFunc }, err: undefined };
  }

  generateUnmountDeviceFunc(
    deviceToDetach: AttachedVolume,
    asw: ActualStateOfWorldMounterUpdater,
  ): Generated {
    // Get DeviceMounter plugin
    const plugin = this.volumePluginMgr.findPluginByName(deviceToDetach.pluginName);
    const volumeDeviceUnmounter = plugin.newDetacher();
    const volumeDeviceMounter = plugin.newAttacher();
    const unmountDeviceFunc = (): Co<GoError | undefined> =>
      unmountDeviceOp(this, deviceToDetach, asw, plugin, volumeDeviceUnmounter, volumeDeviceMounter);
    return { ops: { operationName: 'unmount_device', operationFunc: unmountDeviceFunc }, err: undefined };
  }

  generateVerifyControllerAttachedVolumeFunc(
    volumeToMount: VolumeToMount,
    nodeName: string,
    asw: ActualStateOfWorldAttacherUpdater,
  ): Generated {
    const host = this.opts.host;
    if (volumeToMount.pluginIsAttachable) {
      const cachedAttachedVolumes = host.getVolumesAttached() ?? [];
      if (!cachedAttachedVolumes.some((v) => v.name === volumeToMount.volumeName)) {
        return {
          ops: undefined,
          err: new MountPreConditionFailedError(
            `volume ${volumeToMount.volumeName} is not yet in node's status`,
          ),
        };
      }
    }
    const verifyControllerAttachedVolumeFunc = (): Co<GoError | undefined> =>
      verifyControllerAttachedVolumeOp(volumeToMount, nodeName, asw, host);
    return {
      ops: {
        operationName: VerifyControllerAttachedVolumeOpName,
        operationFunc: verifyControllerAttachedVolumeFunc,
      },
      err: undefined,
    };
  }
}

/** Omit over each member of a union. */
export type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** GenerateMountVolumeFunc's operation (hoisted: no generator closure per operation, see NestedPendingOperations.runOperation). */
function* mountVolumeOp(
  og: OperationGenerator,
  waitForAttachTimeoutMs: number,
  volumeToMount: VolumeToMount,
  asw: ActualStateOfWorldMounterUpdater,
): Co<GoError | undefined> {
  // Get mounter plugin
  const volumePlugin = og.volumePluginMgr.findPluginBySpec(volumeToMount.volumeSpec);
  const podUID = volumeToMount.pod.metadata.uid;
  const volumeMounter = volumePlugin.newMounter(volumeToMount.volumeSpec, podUID);
  // Get attacher, if possible
  const volumeAttacher = volumePlugin.isAttachable() ? volumePlugin.newAttacher() : undefined;
  // get deviceMounter: every simulated plugin (fc, iscsi, csi) is device-mountable
  const volumeDeviceMounter = volumePlugin.newAttacher();

  let devicePath = volumeToMount.devicePath;
  if (volumeAttacher !== undefined) {
    // Wait for attachable volumes to finish attaching
    const r = yield* volumeAttacher.waitForAttach(
      volumeToMount.volumeSpec,
      devicePath,
      podUID,
      waitForAttachTimeoutMs,
    );
    if (r.err !== undefined) {
      // On failure, return error. Caller will log and retry.
      return volumeToMountError(volumeToMount, 'MountVolume.WaitForAttach failed', r.err);
    }
    devicePath = r.value;
  }

  if (asw.getDeviceMountState(volumeToMount.volumeName) !== DeviceGloballyMounted) {
    const deviceMountPath = volumeDeviceMounter.getDeviceMountPath(volumeToMount.volumeSpec);
    // Mount device to global mount path
    const err = yield* volumeDeviceMounter.mountDevice(volumeToMount.volumeSpec, devicePath, deviceMountPath);
    if (err !== undefined) {
      og.markDeviceErrorState(volumeToMount, devicePath, deviceMountPath, err, asw);
      // On failure, return error. Caller will log and retry.
      return volumeToMountError(volumeToMount, 'MountVolume.MountDevice failed', err);
    }
    // Update actual state of world to reflect volume is globally mounted
    const markErr = asw.markDeviceAsMounted(volumeToMount.volumeName, devicePath, deviceMountPath);
    if (markErr !== undefined) {
      return volumeToMountError(volumeToMount, 'MountVolume.MarkDeviceAsMounted failed', markErr);
    }
  }

  // Execute mount
  const mountErr = yield* volumeMounter.setUp();
  // Update actual state of world
  const markOpts: MarkVolumeOpts = {
    podName: volumeToMount.podName,
    podUID,
    volumeName: volumeToMount.volumeName,
    mounter: volumeMounter,
    outerVolumeSpecName: volumeToMount.outerVolumeSpecName,
    volumeGidVolume: volumeToMount.volumeGidValue,
    volumeSpec: volumeToMount.volumeSpec,
    volumeMountState: VolumeMounted,
    podDisplayName: volumeToMount.pod.metadata.name,
  };
  if (mountErr !== undefined) {
    og.markVolumeErrorState(volumeToMount, markOpts, mountErr, asw);
    // On failure, return error. Caller will log and retry.
    return volumeToMountError(volumeToMount, 'MountVolume.SetUp failed', mountErr);
  }
  og.publishVolumeSetUp(volumeToMount);
  const markVolMountedErr = asw.markVolumeAsMounted(markOpts);
  if (markVolMountedErr !== undefined) {
    return volumeToMountError(volumeToMount, 'MountVolume.MarkVolumeAsMounted failed', markVolMountedErr);
  }
  return undefined;
}

/** A mounted volume's options for markVolumeMountAsUncertain (PR #100183's uncertain marking). */
export function uncertainMountOpts(v: MountedVolume): MarkVolumeOpts {
  return {
    podName: v.podName,
    podUID: v.podUID,
    volumeName: v.volumeName,
    outerVolumeSpecName: v.outerVolumeSpecName,
    volumeGidVolume: v.volumeGidValue,
    volumeSpec: v.volumeSpec,
    volumeMountState: VolumeMountUncertain,
    podDisplayName: v.podDisplayName,
  };
}

/** GenerateUnmountVolumeFunc's operation (hoisted: no generator closure per operation). */
function* unmountVolumeOp(
  og: OperationGenerator,
  volumeToUnmount: MountedVolume,
  asw: ActualStateOfWorldMounterUpdater,
  volumeUnmounter: Unmounter,
): Co<GoError | undefined> {
  // Execute unmount
  const unmountErr = yield* volumeUnmounter.tearDown();
  og.publishVolumeTearDown(volumeToUnmount, unmountErr);
  if (unmountErr !== undefined) {
    if (og.markUncertainOnFailure) {
      // Mark the volume as uncertain, so SetUp is called for new pods. Teardown may be already in progress.
      asw.markVolumeMountAsUncertain(uncertainMountOpts(volumeToUnmount));
    }
    // On failure, return error. Caller will log and retry.
    return mountedVolumeError(volumeToUnmount, 'UnmountVolume.TearDown failed', unmountErr);
  }
  // Update actual state of world
  asw.markVolumeAsUnmounted(volumeToUnmount.podName, volumeToUnmount.volumeName);
  return undefined;
}

/** GenerateUnmountDeviceFunc's operation (hoisted: no generator closure per operation). */
function* unmountDeviceOp(
  og: OperationGenerator,
  deviceToDetach: AttachedVolume,
  asw: ActualStateOfWorldMounterUpdater,
  plugin: VolumePlugin,
  volumeDeviceUnmounter: Detacher,
  volumeDeviceMounter: Attacher,
): Co<GoError | undefined> {
  let deviceMountPath = volumeDeviceMounter.getDeviceMountPath(deviceToDetach.volumeSpec);
  if (deviceMountPath === '') {
    // The simulated plugins answer '' where upstream's GetDeviceMountPath fails with "does not exist"
    // (the spec no longer resolves): don't fail the unmount, proceed with the path the actual state
    // recorded, so that the device can be marked as unmounted.
    deviceMountPath = deviceToDetach.deviceMountPath;
  }
  const refs = yield* plugin.getDeviceMountRefs(deviceMountPath);
  if (refs.err !== undefined || hasMountRefs(deviceMountPath, refs.value)) {
    const err =
      refs.err ??
      new GoError(
        `the device mount path "${deviceMountPath}" is still mounted by other references [${refs.value?.join(' ')}]`,
      );
    return attachedVolumeError(deviceToDetach, 'GetDeviceMountRefs check failed', err);
  }
  // Execute unmount
  const unmountDeviceErr = yield* volumeDeviceUnmounter.unmountDevice(deviceMountPath);
  if (unmountDeviceErr !== undefined) {
    if (og.markUncertainOnFailure) {
      // Mark the device as uncertain, so MountDevice is called for new pods. UnmountDevice may be already in progress.
      asw.markDeviceAsUncertain(deviceToDetach.volumeName, deviceToDetach.devicePath, deviceMountPath);
    }
    // On failure, return error. Caller will log and retry.
    return attachedVolumeError(deviceToDetach, 'UnmountDevice failed', unmountDeviceErr);
  }
  // Before logging that UnmountDevice succeeded and moving on, check whether the device is in use
  // anywhere else on the system. Retry if it returns true.
  if (og.opts.host.isDeviceOpened(deviceToDetach.devicePath)) {
    og.publish({ kind: 'deviceInUseAfterUnmount', volume: deviceToDetach.volumeName });
    if (og.markUncertainWhenStillOpen) {
      // Mark the device as uncertain, so MountDevice is called for new pods (PR #107789: the global
      // mount is gone, so the actual state must not say GloballyMounted any more).
      asw.markDeviceAsUncertain(deviceToDetach.volumeName, deviceToDetach.devicePath, deviceMountPath);
    }
    return attachedVolumeError(
      deviceToDetach,
      'UnmountDevice failed',
      new GoError('the device is in use when it was no longer expected to be in use'),
    );
  }
  // Update actual state of world
  const markErr = asw.markDeviceAsUnmounted(deviceToDetach.volumeName);
  if (markErr !== undefined)
    return attachedVolumeError(deviceToDetach, 'MarkDeviceAsUnmounted failed', markErr);
  og.opts.host.publishDeviceResidue?.(deviceToDetach.volumeName, deviceToDetach.devicePath);
  return undefined;
}

/** GenerateVerifyControllerAttachedVolumeFunc's operation (hoisted: no generator closure per operation). */
// biome-ignore lint/correctness/useYield: upstream's operation body does not block.
function* verifyControllerAttachedVolumeOp(
  volumeToMount: VolumeToMount,
  nodeName: string,
  asw: ActualStateOfWorldAttacherUpdater,
  host: OperationGeneratorOptions['host'],
): Co<GoError | undefined> {
  if (!volumeToMount.pluginIsAttachable) {
    // If the volume does not implement the attacher interface, it is assumed to be attached and the
    // actual state of the world is updated accordingly.
    const e = asw.markVolumeAsAttached(volumeToMount.volumeName, volumeToMount.volumeSpec, nodeName, '');
    if (e !== undefined) {
      return volumeToMountError(
        volumeToMount,
        'VerifyControllerAttachedVolume.MarkVolumeAsAttachedByUniqueVolumeName failed',
        e,
      );
    }
    return undefined;
  }
  if (!volumeToMount.reportedInUse) {
    // If the given volume has not yet been added to the list of VolumesInUse in the node's volume
    // status, do not proceed, return error. Caller will log and retry.
    return volumeToMountError(
      volumeToMount,
      "Volume has not been added to the list of VolumesInUse in the node's volume status",
    );
  }
  // Fetch current node object (a failed GET is retried like a volume not attached yet)
  for (const attachedVolume of host.getVolumesAttached() ?? []) {
    if (attachedVolume.name === volumeToMount.volumeName) {
      const e = asw.markVolumeAsAttached('', volumeToMount.volumeSpec, nodeName, attachedVolume.devicePath);
      if (e !== undefined) {
        return volumeToMountError(
          volumeToMount,
          'VerifyControllerAttachedVolume.MarkVolumeAsAttached failed',
          e,
        );
      }
      return undefined;
    }
  }
  // Volume not attached, return error. Caller will log and retry.
  return volumeToMountError(volumeToMount, 'Volume not attached according to node status');
}
