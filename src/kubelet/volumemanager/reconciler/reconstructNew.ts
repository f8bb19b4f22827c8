// Ported from kubernetes pkg/kubelet/volumemanager/reconciler/reconstruct_new.go, release-1.28 (KEP-3756),
// checked against reconstruct.go of v1.31.12 (the same code, renamed at GA, less volumesNeedReportedInUse).
// The reconstruction of NewVolumeManagerReconstruction (fix `new-volume-reconstruction`): it runs once
// when the reconciler starts, before the desired state is populated, and puts every volume it can
// reconstruct into the actual state as uncertain, attached with an uncertain attach-ability and an
// uncertain device; the reconciler then settles each one (SetUp for a pod that wants it, TearDown /
// UnmountDevice for the rest), and retries a failed unmount as it would any other. A volume whose
// reconstruction fails waits in volumesFailedReconstruction until the desired state is populated, then
// gets cleanupMounts' single UnmountVolume unless a pod wants it: "cleanup is one shot operation".
import { GoError } from '../../../api/errors.js';
import type { Co } from '../../../sim/index.js';
import type { PodVolumeOnDisk } from '../host.js';
import { type UniqueVolumeName, VolumeMountUncertain } from '../operationexecutor/operationExecutor.js';
import type { Reconciler } from './reconciler.js';
import {
  cleanupMounts,
  type GlobalVolumeInfo,
  getDeviceMountPath,
  globalVolumeInfoOf,
  markOptsOf,
  publish,
  publishReconstruction,
  publishReconstructionFinished,
  reconstructVolume,
} from './reconstruct.js';

/**
 * readyToUnmount: the reconciler may unmount only once the desired state is fully populated (a volume
 * still needed may not have reached it yet) and the device paths were corrected from node.status.
 */
export function readyToUnmount(rc: Reconciler): boolean {
  // During kubelet startup, all volumes present on disk are added as uncertain to ASW. Allow unmount
  // only when DSW is fully populated to prevent unmounting volumes that did not reach DSW yet.
  if (!rc.o.populatorHasAddedPods()) return false;
  // Allow unmount only when ASW device paths were corrected from node.status to prevent calling unmount
  // with a wrong devicePath.
  return rc.volumesNeedUpdateFromNodeStatus.length === 0;
}

/**
 * reconstructVolumes scans the pods' volume directories; a volume it can reconstruct goes into the actual
 * state as uncertain, one it cannot into volumesFailedReconstruction, to be cleaned up once the desired
 * state is populated.
 */
export function* reconstructVolumes(rc: Reconciler): Co {
  const asw = rc.o.actualStateOfWorld;
  // Get volumes information by reading the pod's directory
  const podVolumes = rc.o.host.getVolumesFromPodDir();
  publish(rc, { kind: 'reconstructionStarted', volumeDirs: podVolumes.length });
  const reconstructedVolumes = new Map<UniqueVolumeName, GlobalVolumeInfo>();
  const reconstructedVolumeNames: UniqueVolumeName[] = [];
  for (const volume of podVolumes) {
    if (asw.volumeExistsWithSpecName(volume.podUID, volume.volumeName)) {
      // Volume exists in actual state, skip cleaning up mounts: there is nothing to reconstruct.
      continue;
    }
    const r = yield* reconstructVolume(rc, volume, false);
    if (r.err !== undefined || r.volume === undefined) {
      // We can't reconstruct the volume. Remember to check DSW after it's fully populated and force
      // unmount the volume when it's orphaned.
      const err = r.err ?? new GoError('reconstruction returned nothing');
      publishReconstruction(rc, volume, err, 'failedReconstruction');
      rc.volumesFailedReconstruction.push({ volume, err });
      continue;
    }
    const reconstructed = r.volume;
    const gvl = reconstructedVolumes.get(reconstructed.volumeName) ?? globalVolumeInfoOf(reconstructed);
    gvl.podVolumes.set(reconstructed.podName, reconstructed);
    reconstructedVolumeNames.push(reconstructed.volumeName);
    reconstructedVolumes.set(reconstructed.volumeName, gvl);
    rc.reconstructedOnDisk.push(volume);
  }
  if (reconstructedVolumes.size > 0) {
    // Add the volumes to ASW
    updateStatesNew(rc, reconstructedVolumes);
    // The reconstructed volumes are mounted, hence a previous kubelet must have already put it into
    // node.status.volumesInUse. Remember to update DSW with this information. #125014 (1.31, switch
    // no-reconstructed-reported-in-use) removed this: a reconstructed volume is always in the actual state,
    // so the desired state's reportedInUse is left to the node status loop; 1.28 to 1.30 marked exactly
    // these volumes once the populator had added pods, which also cleared the flag of every other volume
    // the node status had reported (MarkVolumesReportedInUse sets the listed ones and clears the rest).
    if (!rc.o.fixes.on('no-reconstructed-reported-in-use'))
      rc.volumesNeedReportedInUse = reconstructedVolumeNames;
    // Remember to update devicePath from node.status.volumesAttached
    rc.volumesNeedUpdateFromNodeStatus = reconstructedVolumeNames;
  }
  // "Volume reconstruction finished": what it could not see is known now (the desired state is empty yet).
  publishReconstructionFinished(rc);
}

/** updateStatesNew: each volume attached (attach-ability uncertain), each pod's mount and the device uncertain. */
export function updateStatesNew(
  rc: Reconciler,
  reconstructedVolumes: Map<UniqueVolumeName, GlobalVolumeInfo>,
): void {
  const asw = rc.o.actualStateOfWorld;
  for (const gvl of reconstructedVolumes.values()) {
    const err = asw.addAttachUncertainReconstructedVolume(
      gvl.volumeName,
      gvl.volumeSpec,
      rc.o.nodeName,
      gvl.devicePath,
    );
    if (err !== undefined) {
      rc.lastErrors.push(err);
      continue;
    }
    for (const volume of gvl.podVolumes.values()) {
      asw.checkAndMarkVolumeAsUncertainViaReconstruction(markOptsOf(volume, VolumeMountUncertain));
    }
    // If the volume has device to mount, we mark its device as uncertain.
    const deviceMountPath = getDeviceMountPath(gvl);
    if (deviceMountPath !== undefined) {
      const markErr = asw.markDeviceAsUncertain(gvl.volumeName, gvl.devicePath, deviceMountPath);
      if (markErr !== undefined) rc.lastErrors.push(markErr);
    }
  }
}

/**
 * Simulator observation (upstream has no such step), on the first pass that may unmount: what became of
 * each reconstructed volume, judged as syncStates judges it once the desired state is populated (a pod
 * wants it, or it is left to the reconciler's unmount), so the hazards read both reconstructions alike.
 */
export function publishReconstructedOutcomes(rc: Reconciler): void {
  const dsw = rc.o.desiredStateOfWorld;
  for (const volume of rc.reconstructedOnDisk) {
    const wanted = dsw.volumeExistsWithSpecName(volume.podUID, volume.volumeName);
    publishReconstruction(rc, volume, undefined, wanted ? 'reportedInUse' : 'addedToActualState');
  }
  rc.reconstructedOnDisk.length = 0;
}

/** cleanOrphanVolumes tries to clean up all volumes that failed reconstruction. */
export function cleanOrphanVolumes(rc: Reconciler): void {
  if (rc.volumesFailedReconstruction.length === 0) return;
  for (const { volume, err } of rc.volumesFailedReconstruction) {
    if (rc.o.desiredStateOfWorld.volumeExistsWithSpecName(volume.podUID, volume.volumeName)) {
      // Some pod needs the volume, don't clean it up and hope that reconcile() calls SetUp and
      // reconstructs the volume in ASW.
      publishReconstruction(rc, volume, err, 'skippedDesired');
      continue;
    }
    // Cleaning up mounts for volume that could not be reconstructed.
    publishReconstruction(rc, volume, err, 'cleanupMounts');
    cleanupMounts(rc, volume);
  }
  // Clean the cache, cleanup is one shot operation.
  rc.volumesFailedReconstruction = [];
}

/**
 * updateReconstructedFromNodeStatus: the device paths and attach-ability of the reconstructed volumes
 * from node.status.volumesAttached, which the kubelet can read only once it reaches the API server: a
 * failed GET (a kubelet started while its node is cut off) leaves them to the next pass, as upstream's
 * "This may repeat few times per second until kubelet is able to read its own status for the first time"
 * (reconstruct.go of v1.30.7). Reading a failed GET as an empty list would mark every reconstructed volume
 * not attachable, and the node status would drop them from volumesInUse while they are mounted.
 */
export function updateReconstructedFromNodeStatus(rc: Reconciler): void {
  const asw = rc.o.actualStateOfWorld;
  const volumesAttached = rc.o.host.getVolumesAttached();
  if (volumesAttached === undefined) return;
  for (const volumeID of rc.volumesNeedUpdateFromNodeStatus) {
    let attachable = false;
    for (const attachedVolume of volumesAttached) {
      if (volumeID !== attachedVolume.name) continue;
      asw.updateReconstructedDevicePath(volumeID, attachedVolume.devicePath);
      attachable = true;
    }
    asw.updateReconstructedVolumeAttachability(volumeID, attachable);
  }
  rc.volumesNeedUpdateFromNodeStatus = [];
}

/** A pod volume dir whose reconstruction failed, with the error (for the facts). */
export interface FailedReconstruction {
  readonly volume: PodVolumeOnDisk;
  readonly err: GoError;
}
