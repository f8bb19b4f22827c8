// Ported from kubernetes pkg/kubelet/volumemanager/reconciler/reconciler.go, release-1.23 (the loop;
// the one-shot reconstruction after a kubelet start is in reconstruct.ts). The kubelet runs with
// controller attach/detach enabled: attachable volumes are verified against node.status.volumesAttached
// (VerifyControllerAttachedVolume) and dropped from the actual state with MarkVolumeAsDetached.
import type { GoError } from '../../../api/errors.js';
import { WRITES_VOLUMES } from '../../../elisionMasks.js';
import type { Fixes } from '../../../fixes.js';
import { type Co, roundLoop, type Sim } from '../../../sim/index.js';
import { isExponentialBackoff } from '../../../volume/util/exponentialBackoff.js';
import {
  EmptyNodeName,
  EmptyUniquePodName,
  isAlreadyExists,
} from '../../../volume/util/nestedPendingOperations.js';
import {
  type ActualStateOfWorld,
  deviceMayBeMounted,
  isRemountRequiredError,
  isVolumeNotAttachedError,
} from '../cache/actualStateOfWorld.js';
import type { DesiredStateOfWorld } from '../cache/desiredStateOfWorld.js';
import type { PodVolumeOnDisk, VolumeHost, VolumePluginMgr } from '../host.js';
import {
  isMountFailedPreconditionError,
  type OperationExecutor,
  type UniqueVolumeName,
} from '../operationexecutor/operationExecutor.js';
import { type GlobalVolumeInfo, processReconstructedVolumes, syncStates } from './reconstruct.js';
import {
  cleanOrphanVolumes,
  type FailedReconstruction,
  publishReconstructedOutcomes,
  readyToUnmount,
  reconstructVolumes,
  updateReconstructedFromNodeStatus,
} from './reconstructNew.js';

export interface ReconcilerOptions {
  readonly controllerAttachDetachEnabled: boolean;
  readonly loopSleepDurationMs: number;
  readonly waitForAttachTimeoutMs: number;
  readonly nodeName: string;
  readonly desiredStateOfWorld: DesiredStateOfWorld;
  readonly actualStateOfWorld: ActualStateOfWorld;
  readonly populatorHasAddedPods: () => boolean;
  readonly operationExecutor: OperationExecutor;
  readonly volumePluginMgr: VolumePluginMgr;
  readonly host: Pick<
    VolumeHost,
    | 'getVolumesFromPodDir'
    | 'getVolumesAttached'
    | 'isLikelyMountPoint'
    | 'pathExists'
    | 'globallyMountedVolumes'
    | 'orphanedPodMapRefs'
    | 'podDirVolumes'
    | 'publish'
  >;
  readonly clock: { readonly nowMs: number };
  /** The kernel, for the elision of idle rounds (src/sim/elision.ts); without it, plain sleeps. */
  readonly sim?: Sim | undefined;
  readonly fixes: Fixes;
  /** For facts only: whether the pod manager knows a pod UID. */
  readonly podKnown?: ((uid: string) => boolean) | undefined;
  /** Simulator observation for the facts: ShouldPodContainersBeTerminating of the pod. */
  readonly podTerminating?: ((uid: string) => boolean) | undefined;
}

/** isExpectedError: errors the reconciler does not log (already running, backing off, precondition). */
export function isExpectedError(err: GoError | undefined): boolean {
  return isAlreadyExists(err) || isExponentialBackoff(err) || isMountFailedPreconditionError(err);
}

export class Reconciler {
  /** timeOfLastSync: set once syncStates ran (StatesHasBeenSynced). */
  private timeOfLastSyncMs: number | undefined = undefined;
  /** Errors of the last pass that were not expected ones (upstream logs them), for traces and tests. */
  readonly lastErrors: GoError[] = [];
  /** skippedDuringReconstruction (#110670): reconstructed volumes that a pod wanted, by volume. */
  readonly skippedDuringReconstruction = new Map<UniqueVolumeName, GlobalVolumeInfo>();
  // The new reconstruction's state (reconciler_common.go, 1.28).
  volumesFailedReconstruction: FailedReconstruction[] = [];
  volumesNeedUpdateFromNodeStatus: UniqueVolumeName[] = [];
  volumesNeedReportedInUse: UniqueVolumeName[] = [];
  /** For the facts only: the volume dirs reconstructVolumes put into the actual state. */
  readonly reconstructedOnDisk: PodVolumeOnDisk[] = [];
  /** For the facts only: the first pass that may unmount has published what became of them. */
  private reconstructionSettled = false;
  /** Which reconstruction this reconciler runs (read once, where Run forks). */
  private newReconstruction = false;

  constructor(readonly o: ReconcilerOptions) {}

  /**
   * Run (reconciler_common.go, 1.28): runNew with NewVolumeManagerReconstruction (fix
   * `new-volume-reconstruction`), else runOld: wait.Until(reconciliationLoopFunc, loopSleepDuration).
   */
  *run(): Co {
    this.newReconstruction = this.o.fixes.on('new-volume-reconstruction');
    if (this.newReconstruction) {
      yield* this.runNew();
      return;
    }
    // A pass reads the volume manager's caches and operations and the node's storage, nothing else.
    const loop = this.newLoop();
    for (;;) {
      loop.begin();
      yield* this.reconciliationLoopFunc();
      yield* loop.end();
    }
  }

  private newLoop(): ReturnType<typeof roundLoop> {
    return roundLoop(this.o.sim, this.o.loopSleepDurationMs, {
      version: () => this.idleVersion(),
      readMask: WRITES_VOLUMES,
    });
  }

  /** runNew (reconciler_new.go): reconstruct once at start, then wait.Until(reconcileNew, loopSleepDuration). */
  *runNew(): Co {
    yield* reconstructVolumes(this);
    const loop = this.newLoop();
    for (;;) {
      loop.begin();
      this.reconcileNew();
      yield* loop.end();
    }
  }

  reconcileNew(): void {
    this.lastErrors.length = 0;
    const ready = readyToUnmount(this);
    if (ready && !this.reconstructionSettled) publishReconstructedOutcomes(this);
    if (ready) {
      // Unmounts are triggered before mounts so that a volume that was referenced by a pod that was deleted
      // and is now referenced by another pod is unmounted from the first pod before being mounted to the
      // new pod.
      this.unmountVolumes();
    }
    // Next we mount required volumes. This function could also trigger attach if kubelet is responsible
    // for attaching volumes.
    this.mountAttachVolumes();
    // Unmount volumes only when DSW and ASW are fully populated to prevent unmounting a volume that is
    // still needed, but it did not reach DSW yet.
    if (ready) {
      // Ensure devices that should be detached/unmounted are detached/unmounted.
      this.unmountDetachDevices();
      // Clean up any orphan volumes that failed reconstruction.
      cleanOrphanVolumes(this);
      this.reconstructionSettled = true;
    }
    if (this.volumesNeedUpdateFromNodeStatus.length !== 0) updateReconstructedFromNodeStatus(this);
    if (this.volumesNeedUpdateFromNodeStatus.length === 0) {
      // ASW is fully populated only after both devicePaths and uncertain volume attach-ability were
      // reconstructed from the API server. This will start reconciliation of node.status.volumesInUse.
      // (updateLastSyncTime: only whether it ever ran is read.)
      this.timeOfLastSyncMs ??= this.o.clock.nowMs;
    }
    // 1.28 to 1.30 only: #125014 (1.31) removed volumesNeedReportedInUse, which reconstructVolumes no
    // longer fills with fix no-reconstructed-reported-in-use on.
    if (this.volumesNeedReportedInUse.length !== 0 && this.o.populatorHasAddedPods()) {
      // Once DSW is populated, mark all reconstructed as reported in node.status, so they can proceed with
      // MountDevice / SetUp.
      this.o.desiredStateOfWorld.markVolumesReportedInUse(this.volumesNeedReportedInUse);
      this.volumesNeedReportedInUse = [];
    }
  }

  /**
   * What a pass can change without an effect (an operation is a spawn; src/sim/elision.ts): it marks
   * volumes detached, syncs states once, and re-adds reconstructed volumes (NaN: never idle then).
   */
  private idleVersion(): number {
    if (this.skippedDuringReconstruction.size > 0) return Number.NaN;
    // The new reconstruction's first passes settle it (never idle until then).
    if (this.newReconstruction && (!this.reconstructionSettled || this.volumesNeedReportedInUse.length > 0))
      return Number.NaN;
    return this.o.actualStateOfWorld.removedVolumes + (this.statesHasBeenSynced() ? 1 : 0);
  }

  *reconciliationLoopFunc(): Co {
    this.reconcile();
    // Sync the state with the reality once after all existing pods are added to the desired state from
    // all sources. Otherwise, the reconstruct process may clean up pods' volumes that are still in use
    // because desired state of world does not contain a complete list of pods.
    if (this.o.populatorHasAddedPods() && !this.statesHasBeenSynced()) {
      yield* syncStates(this);
      this.timeOfLastSyncMs = this.o.clock.nowMs;
    }
  }

  statesHasBeenSynced(): boolean {
    return this.timeOfLastSyncMs !== undefined;
  }

  reconcile(): void {
    this.lastErrors.length = 0;
    // Unmounts are triggered before mounts so that a volume that was referenced by a pod that was deleted
    // and is now referenced by another pod is unmounted from the first pod before being mounted to the new pod.
    this.unmountVolumes();
    // Next we mount required volumes. This function could also trigger attach if kubelet is responsible
    // for attaching volumes. If underlying PVC was resized while in-use then this function also handles
    // volume resizing.
    this.mountAttachVolumes();
    // Ensure devices that should be detached/unmounted are detached/unmounted.
    this.unmountDetachDevices();
    // After running the above operations if skippedDuringReconstruction is not empty then ensure that all
    // volumes which were discovered and skipped during reconstruction are added to actualStateOfWorld in
    // uncertain state.
    if (this.skippedDuringReconstruction.size > 0) processReconstructedVolumes(this);
  }

  private note(err: GoError | undefined): void {
    if (err !== undefined && !isExpectedError(err)) this.lastErrors.push(err);
  }

  unmountVolumes(): void {
    const { actualStateOfWorld: asw, desiredStateOfWorld: dsw, operationExecutor: oe } = this.o;
    // Ensure volumes that should be unmounted are unmounted.
    for (const mountedVolume of asw.getAllMountedVolumes()) {
      if (!dsw.podExistsInVolume(mountedVolume.podName, mountedVolume.volumeName)) {
        // Volume is mounted, unmount it
        this.note(oe.unmountVolume(mountedVolume, asw));
      }
    }
  }

  mountAttachVolumes(): void {
    const { actualStateOfWorld: asw, desiredStateOfWorld: dsw, operationExecutor: oe } = this.o;
    // Ensure volumes that should be attached/mounted are attached/mounted.
    for (const volumeToMount of dsw.getVolumesToMount()) {
      const r = asw.podExistsInVolume(volumeToMount.podName, volumeToMount.volumeName);
      volumeToMount.devicePath = r.devicePath;
      if (isVolumeNotAttachedError(r.err)) {
        if (this.o.controllerAttachDetachEnabled || !volumeToMount.pluginIsAttachable) {
          // Volume is not attached (or doesn't implement attacher), kubelet attach is disabled, wait
          // for controller to finish attaching volume.
          if (volumeToMount.pluginIsAttachable && !volumeToMount.reportedInUse) {
            // Don't even try to start an operation if there is already one running, or the volume has
            // not been reported in use yet (waitForVolumeAttach).
            continue;
          }
          this.note(oe.verifyControllerAttachedVolume(volumeToMount, this.o.nodeName, asw));
        }
        // (controller attach/detach disabled: the kubelet's own AttachVolume is not modelled.)
      } else if (!r.exists || isRemountRequiredError(r.err)) {
        // Volume is not mounted, or is already mounted, but requires remounting
        this.note(
          oe.mountVolume(this.o.waitForAttachTimeoutMs, volumeToMount, asw, isRemountRequiredError(r.err)),
        );
      }
    }
  }

  unmountDetachDevices(): void {
    const { actualStateOfWorld: asw, desiredStateOfWorld: dsw, operationExecutor: oe } = this.o;
    for (const attachedVolume of asw.getUnmountedVolumes()) {
      // Check IsOperationPending to avoid marking a volume as detached if it's in the process of mounting.
      if (
        !dsw.volumeExists(attachedVolume.volumeName) &&
        !oe.isOperationPending(attachedVolume.volumeName, EmptyUniquePodName, EmptyNodeName)
      ) {
        if (deviceMayBeMounted(attachedVolume)) {
          // Volume is globally mounted to device, unmount it
          this.note(oe.unmountDevice(attachedVolume, asw));
        } else if (this.o.controllerAttachDetachEnabled || !attachedVolume.pluginIsAttachable) {
          // Volume is attached to node, detach it. Kubelet not responsible for detaching or this volume
          // has a non-attachable volume plugin.
          asw.markVolumeAsDetached(attachedVolume.volumeName, attachedVolume.nodeName);
        }
        // (controller attach/detach disabled: the kubelet's own DetachVolume is not modelled.)
      }
    }
  }
}
