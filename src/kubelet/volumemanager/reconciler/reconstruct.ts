// Ported from kubernetes pkg/kubelet/volumemanager/reconciler/reconciler.go, release-1.23: syncStates,
// reconstructVolume, cleanupMounts and updateStates, the one-shot reconstruction of the actual state from
// the pods directory after a kubelet start. A volume whose reconstruction fails and that no pod wants
// gets cleanupMounts, which "currently only includes UnmountVolume operation": the pod's bind mount is
// torn down, the global mount stays and the volume drops out of volumesInUse (issue #101791, still open).
import { GoError, InconsistentReadError } from '../../../api/errors.js';
import type { Fact } from '../../../facts.js';
import type { Co } from '../../../sim/index.js';
import { EmptyNodeName, EmptyUniquePodName } from '../../../volume/util/nestedPendingOperations.js';
import type { BlockVolumeMapper, DeviceMounter, Mounter, Spec } from '../../../volume/volume.js';
import type { PodVolumeOnDisk } from '../host.js';
import {
  getUniqueVolumeNameFromSpec,
  type MarkVolumeOpts,
  type MountedVolume,
  type UniquePodName,
  type UniqueVolumeName,
  VolumeMounted,
  VolumeMountUncertain,
} from '../operationexecutor/operationExecutor.js';
import type { DistributiveOmit } from '../operationexecutor/operationGenerator.js';
import type { Reconciler } from './reconciler.js';

/** reconstructedVolume. */
export interface ReconstructedVolume {
  volumeName: UniqueVolumeName;
  podName: UniquePodName;
  podDisplayName: string | undefined;
  volumeSpec: Spec;
  outerVolumeSpecName: string;
  volumeGidValue: string;
  devicePath: string;
  mounter: Mounter | undefined;
  deviceMounter: DeviceMounter | undefined;
  blockVolumeMapper: BlockVolumeMapper | undefined;
}

/**
 * globalVolumeInfo (PR #110670): one volume and every pod found using it. Release-1.23 kept one
 * reconstructedVolume per volume name, so the last pod found replaced the others.
 */
export interface GlobalVolumeInfo {
  volumeName: UniqueVolumeName;
  volumeSpec: Spec;
  devicePath: string;
  mounter: Mounter | undefined;
  deviceMounter: DeviceMounter | undefined;
  blockVolumeMapper: BlockVolumeMapper | undefined;
  podVolumes: Map<UniquePodName, ReconstructedVolume>;
}

export function globalVolumeInfoOf(v: ReconstructedVolume): GlobalVolumeInfo {
  return {
    volumeName: v.volumeName,
    volumeSpec: v.volumeSpec,
    devicePath: v.devicePath,
    mounter: v.mounter,
    deviceMounter: v.deviceMounter,
    blockVolumeMapper: v.blockVolumeMapper,
    podVolumes: new Map(),
  };
}

/**
 * syncStates scans the volume directories under the pods directory on disk; a volume that is in neither
 * the desired nor the actual state is reconstructed into the actual state, so the reconciler can clean it
 * up (or a pod can use it again).
 */
export function* syncStates(rc: Reconciler): Co {
  const { actualStateOfWorld: asw, desiredStateOfWorld: dsw, operationExecutor: oe } = rc.o;
  // Get volumes information by reading the pod's directory
  const podVolumes = rc.o.host.getVolumesFromPodDir();
  publish(rc, { kind: 'reconstructionStarted', volumeDirs: podVolumes.length });
  // Fix reconstruct-every-pod-of-volume (PR #110670) tracks every pod of a volume; release-1.23 keyed
  // volumesNeedUpdate by volume name alone, so a second pod of a shared volume replaced the first
  // (issue #110547): the first pod's mount never reached the actual state and was never cleaned up.
  // Read where it decides, not up front: a run that never reads a switch is the same run with it flipped.
  const perPod = (): boolean => rc.o.fixes.on('reconstruct-every-pod-of-volume');
  const volumesNeedUpdate = new Map<UniqueVolumeName, GlobalVolumeInfo>();
  const volumeNeedReport: UniqueVolumeName[] = [];
  for (const volume of podVolumes) {
    if (asw.volumeExistsWithSpecName(volume.podUID, volume.volumeName)) {
      // Volume exists in actual state of world, skip
      continue;
    }
    const volumeInDSW = dsw.volumeExistsWithSpecName(volume.podUID, volume.volumeName);
    const r = yield* reconstructVolume(rc, volume);
    if (r.err !== undefined || r.volume === undefined) {
      const err = r.err ?? new GoError('reconstruction returned nothing');
      if (volumeInDSW) {
        // Some pod needs the volume, don't clean it up and hope that reconcile() calls SetUp and
        // reconstructs the volume in ASW.
        publishReconstruction(rc, volume, err, 'skippedDesired');
        continue;
      }
      // No pod needs the volume.
      publishReconstruction(rc, volume, err, 'cleanupMounts');
      cleanupMounts(rc, volume);
      continue;
    }
    const reconstructed = r.volume;
    if (volumeInDSW) {
      // Some pod needs the volume. And it exists on disk. Some previous kubelet must have created the
      // directory, therefore it must have reported the volume as in use. Mark the volume as in use also in
      // this new kubelet so reconcile() calls SetUp and re-mounts the volume if it's necessary.
      volumeNeedReport.push(reconstructed.volumeName);
      if (perPod()) {
        // #110670: remember it; if the mount never reaches the actual state (the pod goes before it
        // mounts), processReconstructedVolumes adds it as uncertain so that it is cleaned up.
        const gvl =
          rc.skippedDuringReconstruction.get(reconstructed.volumeName) ?? globalVolumeInfoOf(reconstructed);
        gvl.podVolumes.set(reconstructed.podName, reconstructed);
        rc.skippedDuringReconstruction.set(reconstructed.volumeName, gvl);
      }
      publishReconstruction(rc, volume, undefined, 'reportedInUse');
      continue;
    }
    // There is no pod that uses the volume.
    if (oe.isOperationPending(reconstructed.volumeName, EmptyUniquePodName, EmptyNodeName)) {
      // Volume is in pending operation, skip cleaning up mounts (upstream only logs this).
    }
    publishReconstruction(rc, volume, undefined, 'addedToActualState');
    const cached = volumesNeedUpdate.get(reconstructed.volumeName);
    let gvl = globalVolumeInfoOf(reconstructed);
    if (cached !== undefined && perPod()) gvl = cached;
    else if (cached !== undefined) {
      // volumesNeedUpdate[reconstructedVolume.volumeName] = reconstructedVolume: the earlier pod is gone.
      for (const lost of cached.podVolumes.values()) {
        publish(rc, {
          kind: 'volumeReconstruction',
          uid: lost.podName,
          pod: lost.podDisplayName ?? lost.podName,
          volume: volume.volumeName,
          mode: volume.mode,
          ok: true,
          inconsistentRead: false,
          outcome: 'lostToAnotherPod',
          podKnown: rc.o.podKnown?.(lost.podName) ?? false,
          podTerminating: rc.o.podTerminating?.(lost.podName) ?? false,
        });
      }
    }
    gvl.podVolumes.set(reconstructed.podName, reconstructed);
    volumesNeedUpdate.set(reconstructed.volumeName, gvl);
  }
  if (volumesNeedUpdate.size > 0) updateStates(rc, volumesNeedUpdate);
  if (volumeNeedReport.length > 0) dsw.markVolumesReportedInUse(volumeNeedReport);
  publishReconstructionFinished(rc);
}

/**
 * The reconstructionFinished fact, once the desired state is populated (syncStates' end, or the new
 * reconstruction's first pass that may unmount).
 */
export function publishReconstructionFinished(rc: Reconciler): void {
  const { actualStateOfWorld: asw, desiredStateOfWorld: dsw } = rc.o;
  // Simulator observation (upstream has no such step): devices still mounted on the node that neither
  // state holds now. One-shot reconstruction looks only at pod volume dirs, so nothing will unmount them.
  const unreconstructedDevices = (rc.o.host.globallyMountedVolumes?.() ?? []).filter(
    (v) => !asw.volumeExists(v) && !dsw.volumeExists(v),
  );
  // Likewise the per-pod references to a block volume's global map that no pod dir names any more.
  const unreconstructedPodMaps = rc.o.host.orphanedPodMapRefs?.() ?? [];
  const podDirVolumes = rc.o.host.podDirVolumes?.() ?? [];
  publish(rc, {
    kind: 'reconstructionFinished',
    unreconstructedDevices,
    unreconstructedPodMaps,
    podDirVolumes,
  });
}

type ReconstructionFact = Extract<
  Fact,
  { kind: 'reconstructionStarted' | 'reconstructionFinished' | 'volumeReconstruction' }
>;

export function publish(rc: Reconciler, fact: DistributiveOmit<ReconstructionFact, 'atMs' | 'node'>): void {
  rc.o.host.publish(Object.assign({}, fact, { atMs: rc.o.clock.nowMs, node: rc.o.nodeName }) as Fact);
}

export function publishReconstruction(
  rc: Reconciler,
  volume: PodVolumeOnDisk,
  err: GoError | undefined,
  outcome: Extract<Fact, { kind: 'volumeReconstruction' }>['outcome'],
): void {
  publish(rc, {
    kind: 'volumeReconstruction',
    uid: volume.podUID,
    pod: volume.podName ?? volume.podUID,
    volume: volume.volumeName,
    mode: volume.mode,
    ok: err === undefined,
    error: err?.message,
    inconsistentRead: err instanceof InconsistentReadError,
    outcome,
    podKnown: rc.o.podKnown?.(volume.podUID) ?? false,
    podTerminating: rc.o.podTerminating?.(volume.podUID) ?? false,
    podPathMounted:
      volume.mode === 'Block'
        ? undefined
        : rc.o.host.isLikelyMountPoint?.(
            volume.plugin === 'csi' ? `${volume.mountPath}/mount` : volume.mountPath,
          ),
  });
}

/** cleanupMounts: only the pod's UnmountVolume; the device (global mount) is left alone. */
export function cleanupMounts(rc: Reconciler, volume: PodVolumeOnDisk): void {
  const mountedVolume: MountedVolume = {
    podName: volume.podUID,
    volumeName: volume.volumeName,
    innerVolumeSpecName: volume.volumeName,
    outerVolumeSpecName: '',
    pluginName: volume.plugin,
    podUID: volume.podUID,
    volumeGidValue: '',
    volumeSpec: undefined,
    deviceMountPath: '',
    podDisplayName: volume.podName,
  };
  const err = rc.o.operationExecutor.unmountVolume(mountedVolume, rc.o.actualStateOfWorld);
  if (err !== undefined) rc.lastErrors.push(err);
}

/**
 * reconstructVolume: ConstructVolumeSpec, then the plugin's mounter / mapper and (release-1.23) an
 * existence check. reconstruct_common.go of 1.28 has no such check (#116134: a volume dir whose mount is
 * gone is reconstructed all the same, and the reconciler's unmount of the uncertain mount cleans it up):
 * the new reconstruction passes `checkExistence` false.
 */
export function* reconstructVolume(
  rc: Reconciler,
  volume: PodVolumeOnDisk,
  checkExistence = true,
): Co<{ volume: ReconstructedVolume | undefined; err: GoError | undefined }> {
  // plugin initializations
  const plugin = rc.o.volumePluginMgr.findPluginByName(volume.plugin);
  const attachable = plugin.isAttachable();
  const r = yield* rc.o.operationExecutor.reconstructVolumeOperation(
    volume.mode,
    plugin,
    volume.podUID,
    volume.volumeName,
    volume.mountPath,
  );
  if (r.err !== undefined) return { volume: undefined, err: r.err };
  const volumeSpec = r.value;
  // We have to find the plugins by volume spec (NOT by plugin name) here in order to correctly
  // reconstruct ephemeral volume types; every simulated plugin is attachable or device-mountable.
  const uniqueVolumeName = getUniqueVolumeNameFromSpec(plugin, volumeSpec);
  let volumeMapper: BlockVolumeMapper | undefined;
  let volumeMounter: Mounter | undefined;
  let deviceMounter: DeviceMounter | undefined;
  let checkPath: string;
  if (volume.mode === 'Block') {
    volumeMapper = plugin.newBlockVolumeMapper(volumeSpec, volume.podUID);
    checkPath = volumeMapper.getPodDeviceMapPath();
  } else {
    volumeMounter = plugin.newMounter(volumeSpec, volume.podUID);
    checkPath = volumeMounter.getPath();
    deviceMounter = plugin.newAttacher();
  }
  if (checkExistence) {
    // Check existence of mount point for filesystem volume or symbolic link for block volume
    const check = rc.o.operationExecutor.checkVolumeExistenceOperation(
      volumeSpec,
      checkPath,
      attachable,
      rc.o.host,
    );
    if (check.err !== undefined) return { volume: undefined, err: check.err };
    // If mount or symlink doesn't exist, volume reconstruction should be failed
    if (!check.exists) {
      return { volume: undefined, err: new GoError(`volume: "${uniqueVolumeName}" is not mounted`) };
    }
  }
  return {
    volume: {
      volumeName: uniqueVolumeName,
      podName: volume.podUID,
      podDisplayName: volume.podName,
      volumeSpec,
      // volume.volumeSpecName is actually InnerVolumeSpecName. It will not be used for volume cleanup.
      // in case pod is added back to desired state, outerVolumeSpecName will be updated from dsw
      // information. See issue #103143 and its fix for details.
      outerVolumeSpecName: volume.volumeName,
      volumeGidValue: '',
      // devicePath is updated during updateStates() by checking node status's VolumesAttached data.
      devicePath: '',
      mounter: volumeMounter,
      deviceMounter,
      blockVolumeMapper: volumeMapper,
    },
    err: undefined,
  };
}

/** updateDevicePath: the device paths from node.status.volumesAttached. */
function updateDevicePath(rc: Reconciler, volumesNeedUpdate: Map<UniqueVolumeName, GlobalVolumeInfo>): void {
  // A failed GET of the node: "unable to get node status", the device paths stay as reconstructed.
  for (const attachedVolume of rc.o.host.getVolumesAttached() ?? []) {
    const volume = volumesNeedUpdate.get(attachedVolume.name);
    if (volume !== undefined) volume.devicePath = attachedVolume.devicePath;
  }
}

/** getDeviceMountPath: the global map path of a Block volume, else the device mount path. */
export function getDeviceMountPath(gvl: GlobalVolumeInfo): string | undefined {
  if (gvl.blockVolumeMapper !== undefined) return gvl.blockVolumeMapper.getGlobalMapPath(gvl.volumeSpec);
  if (gvl.deviceMounter !== undefined) return gvl.deviceMounter.getDeviceMountPath(gvl.volumeSpec);
  return undefined;
}

export function markOptsOf(
  volume: ReconstructedVolume,
  state: MarkVolumeOpts['volumeMountState'],
): MarkVolumeOpts {
  return {
    podName: volume.podName,
    podUID: volume.podName,
    volumeName: volume.volumeName,
    mounter: volume.mounter,
    blockVolumeMapper: volume.blockVolumeMapper,
    outerVolumeSpecName: volume.outerVolumeSpecName,
    volumeGidVolume: volume.volumeGidValue,
    volumeSpec: volume.volumeSpec,
    volumeMountState: state,
    podDisplayName: volume.podDisplayName,
  };
}

/** updateStates: attached, mounted into each pod found, and the device globally mounted. */
export function updateStates(
  rc: Reconciler,
  volumesNeedUpdate: Map<UniqueVolumeName, GlobalVolumeInfo>,
): void {
  const asw = rc.o.actualStateOfWorld;
  // Get the node status to retrieve volume device path information.
  updateDevicePath(rc, volumesNeedUpdate);
  for (const gvl of volumesNeedUpdate.values()) {
    let err = asw.markVolumeAsAttached(gvl.volumeName, gvl.volumeSpec, '', gvl.devicePath);
    if (err !== undefined) {
      rc.lastErrors.push(err);
      continue;
    }
    for (const volume of gvl.podVolumes.values()) {
      err = asw.markVolumeAsMounted(markOptsOf(volume, VolumeMounted));
      if (err !== undefined) rc.lastErrors.push(err);
    }
    // If the volume has device to mount, we mark its device as mounted.
    const deviceMountPath = getDeviceMountPath(gvl);
    if (deviceMountPath !== undefined) {
      err = asw.markDeviceAsMounted(gvl.volumeName, gvl.devicePath, deviceMountPath);
      if (err !== undefined) rc.lastErrors.push(err);
    }
  }
}

/**
 * processReconstructedVolumes (#110670, after each reconcile while any remain): volumes syncStates
 * skipped because a pod wanted them were assumed to reach the actual state by being mounted; once a
 * volume is attached, each of its pods not already mounted is added as uncertain (and the device
 * too), so a pod that went away before its mount still gets its volume torn down.
 */
export function processReconstructedVolumes(rc: Reconciler): void {
  const asw = rc.o.actualStateOfWorld;
  for (const [volumeName, gvl] of [...rc.skippedDuringReconstruction]) {
    // check if volume is marked as attached to the node
    if (!asw.volumeExists(volumeName)) continue;
    rc.skippedDuringReconstruction.delete(volumeName);
    let uncertainVolumeCount = 0;
    for (const volume of gvl.podVolumes.values()) {
      if (asw.checkAndMarkVolumeAsUncertainViaReconstruction(markOptsOf(volume, VolumeMountUncertain))) {
        uncertainVolumeCount++;
      }
    }
    if (uncertainVolumeCount > 0) {
      const deviceMountPath = getDeviceMountPath(gvl);
      if (deviceMountPath !== undefined)
        asw.checkAndMarkDeviceUncertainViaReconstruction(volumeName, deviceMountPath);
    }
  }
}
