// Ported from kubernetes pkg/volume/util/operationexecutor/operation_generator.go, release-1.23: the
// Block-mode functions GenerateMapVolumeFunc, GenerateUnmapVolumeFunc and GenerateUnmapDeviceFunc.
// The simulated host has no block path handler: MapBlockVolume / UnmapBlockVolume / RemoveMapPath
// (symlinks and loop-device locks) are folded into the plugins' MapPodDevice / UnmapPodDevice /
// TearDownDevice. GetDeviceBindMountRefs lists the pods' references below the global map path (the host's).
import { GoError, UncertainProgressError } from '../../../api/errors.js';
import type { UID } from '../../../api/v1.js';
import type { Co } from '../../../sim/index.js';
import type { Attacher, BlockVolumeMapper, BlockVolumeUnmapper } from '../../../volume/volume.js';
import {
  type ActualStateOfWorldMounterUpdater,
  type AttachedVolume,
  attachedVolumeError,
  DeviceGloballyMounted,
  type MarkVolumeOpts,
  type MountedVolume,
  mountedVolumeError,
  VolumeMounted,
  type VolumeToMount,
  volumeToMountError,
} from './operationExecutor.js';
import { type Generated, type OperationGenerator, uncertainMountOpts } from './operationGenerator.js';

/** GenerateMapVolumeFunc: WaitForAttach, SetUpDevice unless globally mapped, MapPodDevice. */
export function generateMapVolumeFunc(
  og: OperationGenerator,
  waitForAttachTimeoutMs: number,
  volumeToMount: VolumeToMount,
  asw: ActualStateOfWorldMounterUpdater,
): Generated {
  // Get block volume mapper plugin
  const blockVolumePlugin = og.volumePluginMgr.findPluginBySpec(volumeToMount.volumeSpec);
  const podUID = volumeToMount.pod.metadata.uid;
  const blockVolumeMapper = blockVolumePlugin.newBlockVolumeMapper(volumeToMount.volumeSpec, podUID);
  const volumeAttacher = blockVolumePlugin.isAttachable() ? blockVolumePlugin.newAttacher() : undefined;

  const mapVolumeFunc = (): Co<GoError | undefined> =>
    mapVolumeOp(og, waitForAttachTimeoutMs, volumeToMount, asw, podUID, blockVolumeMapper, volumeAttacher);
  return { ops: { operationName: 'map_volume', operationFunc: mapVolumeFunc }, err: undefined };
}

/** GenerateUnmapVolumeFunc: with PR #100183, the pod's volume is marked uncertain before unmapping. */
export function generateUnmapVolumeFunc(
  og: OperationGenerator,
  volumeToUnmount: MountedVolume,
  asw: ActualStateOfWorldMounterUpdater,
): Generated {
  const blockVolumePlugin = og.volumePluginMgr.findPluginByName(volumeToUnmount.pluginName);
  const blockVolumeUnmapper = blockVolumePlugin.newBlockVolumeUnmapper(
    volumeToUnmount.innerVolumeSpecName,
    volumeToUnmount.podUID,
  );
  const unmapVolumeFunc = (): Co<GoError | undefined> =>
    unmapVolumeOp(og, volumeToUnmount, asw, blockVolumeUnmapper);
  return { ops: { operationName: 'unmap_volume', operationFunc: unmapVolumeFunc }, err: undefined };
}

/** GenerateUnmapDeviceFunc: with PR #100183, the device is marked uncertain before TearDownDevice. */
export function generateUnmapDeviceFunc(
  og: OperationGenerator,
  deviceToDetach: AttachedVolume,
  asw: ActualStateOfWorldMounterUpdater,
): Generated {
  const blockVolumePlugin = og.volumePluginMgr.findPluginByName(deviceToDetach.pluginName);
  const blockVolumeUnmapper = blockVolumePlugin.newBlockVolumeUnmapper(deviceToDetach.volumeSpec.name, '');
  const unmapDeviceFunc = (): Co<GoError | undefined> =>
    unmapDeviceOp(og, deviceToDetach, asw, blockVolumeUnmapper);
  return { ops: { operationName: 'unmap_device', operationFunc: unmapDeviceFunc }, err: undefined };
}

/** GenerateMapVolumeFunc's operation (hoisted: no generator closure per operation). */
function* mapVolumeOp(
  og: OperationGenerator,
  waitForAttachTimeoutMs: number,
  volumeToMount: VolumeToMount,
  asw: ActualStateOfWorldMounterUpdater,
  podUID: UID,
  blockVolumeMapper: BlockVolumeMapper,
  volumeAttacher: Attacher | undefined,
): Co<GoError | undefined> {
  let devicePath = volumeToMount.devicePath;
  // Get globalMapPath for create symlink
  const globalMapPath = blockVolumeMapper.getGlobalMapPath(volumeToMount.volumeSpec);
  if (volumeAttacher !== undefined) {
    // Wait for attachable volumes to finish attaching
    const r = yield* volumeAttacher.waitForAttach(
      volumeToMount.volumeSpec,
      volumeToMount.devicePath,
      podUID,
      waitForAttachTimeoutMs,
    );
    if (r.err !== undefined)
      return volumeToMountError(volumeToMount, 'MapVolume.WaitForAttach failed', r.err);
    devicePath = r.value;
  }
  // Call SetUpDevice if blockVolumeMapper implements CustomBlockVolumeMapper
  if (asw.getDeviceMountState(volumeToMount.volumeName) !== DeviceGloballyMounted) {
    const r = yield* blockVolumeMapper.setUpDevice();
    if (r.err !== undefined) {
      og.markDeviceErrorState(volumeToMount, devicePath, globalMapPath, r.err, asw);
      return volumeToMountError(volumeToMount, 'MapVolume.SetUpDevice failed', r.err);
    }
  }
  // Update actual state of world to reflect volume is globally mounted
  const markDeviceMappedErr = asw.markDeviceAsMounted(volumeToMount.volumeName, devicePath, globalMapPath);
  if (markDeviceMappedErr !== undefined) {
    return volumeToMountError(volumeToMount, 'MapVolume.MarkDeviceAsMounted failed', markDeviceMappedErr);
  }
  const markVolumeOpts: MarkVolumeOpts = {
    podName: volumeToMount.podName,
    podUID,
    volumeName: volumeToMount.volumeName,
    blockVolumeMapper,
    outerVolumeSpecName: volumeToMount.outerVolumeSpecName,
    volumeGidVolume: volumeToMount.volumeGidValue,
    volumeSpec: volumeToMount.volumeSpec,
    volumeMountState: VolumeMounted,
    podDisplayName: volumeToMount.pod.metadata.name,
  };
  // Call MapPodDevice if blockVolumeMapper implements CustomBlockVolumeMapper
  const m = yield* blockVolumeMapper.mapPodDevice();
  if (m.err !== undefined) {
    og.markVolumeErrorState(volumeToMount, markVolumeOpts, m.err, asw);
    return volumeToMountError(volumeToMount, 'MapVolume.MapPodDevice failed', m.err);
  }
  // From now on, the volume is mapped. Mark it as uncertain on error, so it is be unmapped when
  // volume manager decides to unmap it (upstream's deferred markVolumeErrorState).
  if (m.value.length !== 0) devicePath = m.value;
  if (devicePath.length === 0) {
    const err = volumeToMountError(
      volumeToMount,
      'MapVolume failed',
      new GoError('device path of the volume is empty'),
    );
    og.markVolumeErrorState(volumeToMount, markVolumeOpts, new UncertainProgressError(err.message), asw);
    return err;
  }
  og.publishVolumeSetUp(volumeToMount);
  const markVolMountedErr = asw.markVolumeAsMounted(markVolumeOpts);
  if (markVolMountedErr !== undefined) {
    return volumeToMountError(volumeToMount, 'MapVolume.MarkVolumeAsMounted failed', markVolMountedErr);
  }
  return undefined;
}

/** GenerateUnmapVolumeFunc's operation (hoisted: no generator closure per operation). */
function* unmapVolumeOp(
  og: OperationGenerator,
  volumeToUnmount: MountedVolume,
  asw: ActualStateOfWorldMounterUpdater,
  blockVolumeUnmapper: BlockVolumeUnmapper,
): Co<GoError | undefined> {
  if (og.markUncertainOnFailure) {
    // Mark the device as uncertain to make sure kubelet calls UnmapDevice again in all the "return err"
    // cases below and in case kubelet restarts.
    const e = asw.markVolumeMountAsUncertain(uncertainMountOpts(volumeToUnmount));
    if (e !== undefined)
      return mountedVolumeError(volumeToUnmount, 'UnmapVolume.MarkDeviceAsUncertain failed', e);
  }
  // Call UnmapPodDevice if blockVolumeUnmapper implements CustomBlockVolumeUnmapper
  const unmapErr = yield* blockVolumeUnmapper.unmapPodDevice();
  og.publishVolumeTearDown(volumeToUnmount, unmapErr);
  if (unmapErr !== undefined) {
    return mountedVolumeError(volumeToUnmount, 'UnmapVolume.UnmapPodDevice failed', unmapErr);
  }
  // Update actual state of world
  asw.markVolumeAsUnmounted(volumeToUnmount.podName, volumeToUnmount.volumeName);
  return undefined;
}

/** GenerateUnmapDeviceFunc's operation (hoisted: no generator closure per operation). */
function* unmapDeviceOp(
  og: OperationGenerator,
  deviceToDetach: AttachedVolume,
  asw: ActualStateOfWorldMounterUpdater,
  blockVolumeUnmapper: BlockVolumeUnmapper,
): Co<GoError | undefined> {
  // Search under globalMapPath dir if all symbolic links from pods have been removed already.
  // If symbolic links are there, pods may still refer the volume.
  const globalMapPath = deviceToDetach.deviceMountPath;
  const refs = og.opts.host.getDeviceBindMountRefs(deviceToDetach.devicePath, globalMapPath);
  if (refs.err !== undefined) {
    return attachedVolumeError(deviceToDetach, 'UnmapDevice.GetDeviceBindMountRefs check failed', refs.err);
  }
  if (refs.value.length > 0) {
    const err = new GoError(
      `the device "${globalMapPath}" is still referenced from other Pods [${refs.value.join(' ')}]`,
    );
    return attachedVolumeError(deviceToDetach, 'UnmapDevice failed', err);
  }
  if (og.markUncertainOnFailure) {
    // Mark the device as uncertain to make sure kubelet calls UnmapDevice again in all the "return err"
    // cases below and in case kubelet restarts.
    const e = asw.markDeviceAsUncertain(deviceToDetach.volumeName, deviceToDetach.devicePath, globalMapPath);
    if (e !== undefined)
      return attachedVolumeError(deviceToDetach, 'UnmapDevice.MarkDeviceAsUncertain failed', e);
  }
  // Call TearDownDevice if blockVolumeUnmapper implements CustomBlockVolumeUnmapper
  const unmapErr = yield* blockVolumeUnmapper.tearDownDevice(globalMapPath, deviceToDetach.devicePath);
  if (unmapErr !== undefined) {
    return attachedVolumeError(deviceToDetach, 'UnmapDevice.TearDownDevice failed', unmapErr);
  }
  // Before logging that UnmapDevice succeeded and moving on, check whether the device is in use
  // anywhere else on the system. Retry if it returns true.
  if (og.opts.host.isDeviceOpened(deviceToDetach.devicePath)) {
    og.publish({ kind: 'deviceInUseAfterUnmount', volume: deviceToDetach.volumeName });
    return attachedVolumeError(
      deviceToDetach,
      'UnmapDevice failed',
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
