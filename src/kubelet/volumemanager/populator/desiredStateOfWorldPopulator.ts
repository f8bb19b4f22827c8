// Ported from kubernetes pkg/kubelet/volumemanager/populator/desired_state_of_world_populator.go,
// release-1.23; with fix `pod-worker-lifecycle` off, the release-1.20 rules of the same file (PR #102344's
// diff): pods are judged by util.IsPodTerminated on the status manager's status, and a pod's volumes are
// removed once the runtime cache lists no running container of it.
import { GoError } from '../../../api/errors.js';
import { type Pod, PVCProtectionFinalizer, type UID } from '../../../api/v1.js';
import { WRITES_NONE, WRITES_PODS, WRITES_VOLUMES } from '../../../elisionMasks.js';
import type { Fixes } from '../../../fixes.js';
import { type Co, roundLoop, type Sim, sleep, WRITES_ALL } from '../../../sim/index.js';
import type { Spec } from '../../../volume/volume.js';
import type { PodStateProvider } from '../../types.js';
import type { ActualStateOfWorld } from '../cache/actualStateOfWorld.js';
import type { DesiredStateOfWorld } from '../cache/desiredStateOfWorld.js';
import type { LegacyPodStatusProvider, PodManager, VolumeHost } from '../host.js';
import { getUniquePodName, type UniquePodName } from '../operationexecutor/operationExecutor.js';

/** getPVCExtractPV's error for a claim with a deletionTimestamp. */
const PVC_BEING_DELETED = 'PVC is being deleted';

/** podStateProvider as the release-1.23 populator uses it. */
export type PopulatorPodStateProvider = Pick<
  PodStateProvider,
  'shouldPodContainersBeTerminating' | 'shouldPodRuntimeBeRemoved'
>;

export interface DesiredStateOfWorldPopulatorOptions {
  readonly clock: { readonly nowMs: number };
  /** The kernel, for the elision of idle rounds (src/sim/elision.ts); without it, plain sleeps. */
  readonly sim?: Sim | undefined;
  readonly loopSleepDurationMs: number;
  readonly getPodStatusRetryDurationMs: number;
  readonly podManager: PodManager;
  readonly podStateProvider: PopulatorPodStateProvider;
  readonly legacyPodStatusProvider: LegacyPodStatusProvider;
  readonly desiredStateOfWorld: DesiredStateOfWorld;
  readonly actualStateOfWorld: ActualStateOfWorld;
  readonly host: Pick<VolumeHost, 'getPersistentVolumeClaim' | 'getVolumeSpec' | 'sourcesReady'> &
    Partial<Pick<VolumeHost, 'publish'>>;
  /** The node, for the facts published through host.publish. */
  readonly nodeName?: string;
  readonly fixes: Fixes;
  /** keepTerminatedPodVolumes (kubelet flag, default false). */
  readonly keepTerminatedPodVolumes?: boolean;
}

export class DesiredStateOfWorldPopulator {
  /** processedPods: true once all of a pod's volumes were added; false forces reprocessing. */
  private readonly processedPods = new Map<UniquePodName, boolean>();
  /** timeOfLastGetPodStatus: only ever set by the release-1.20 runtime listing. */
  private timeOfLastGetPodStatusMs: number | undefined = undefined;
  private hasAddedPodsFlag = false;
  /**
   * Simulator addition: bumped by every change a loop round makes (a pod processed, a volume removed,
   * errors dropped, the runtime listed), so that a round that changed nothing is known to be idle
   * (src/sim/elision.ts).
   */
  private version = 0;
  /**
   * Simulator observation: `podName\0volumeName` of each volume that findAndRemoveDeletedPods keeps for a
   * pod whose runtime is removed because the actual state never had it mounted for the pod (published as
   * terminatedPodVolumeKeptDesired once, and again when the volume finally leaves the desired state).
   */
  private readonly keptForTerminatedPod = new Set<string>();

  constructor(private readonly o: DesiredStateOfWorldPopulatorOptions) {
    this.legacy = !o.fixes.on('pod-worker-lifecycle');
  }

  /**
   * Run: wait.PollUntil(loopSleepDuration, populatorLoop until sources are ready), then hasAddedPods =
   * true, then wait.Until(populatorLoop, loopSleepDuration).
   */
  *run(): Co {
    // Its first step only starts the first sleep: it reads and changes nothing (src/sim/choices.ts).
    this.o.sim?.writesOnly(WRITES_NONE);
    this.o.sim?.readsOnly(WRITES_NONE);
    for (;;) {
      yield* sleep(this.o.loopSleepDurationMs);
      const done = this.o.host.sourcesReady?.() ?? true;
      this.populatorLoop();
      if (done) break;
    }
    this.hasAddedPodsFlag = true;
    // A round reads pods, their workers' lifecycle and the volume manager's caches (and, release-1.20,
    // statuses and the runtime cache): src/elisionMasks.ts.
    const reads = this.legacy ? WRITES_ALL : WRITES_PODS | WRITES_VOLUMES;
    const loop = roundLoop(this.o.sim, this.o.loopSleepDurationMs, {
      version: () => this.version,
      readMask: reads,
    });
    for (;;) {
      loop.begin();
      this.populatorLoop();
      yield* loop.end();
    }
  }

  /** ReprocessPod: forces the pod's volumes to be processed again (WaitForAttachAndMount). */
  reprocessPod(podName: UniquePodName): void {
    this.processedPods.set(podName, false);
    this.o.sim?.touch(WRITES_VOLUMES); // elision: the next populator round has work
  }

  /** HasAddedPods: the populator has looped through all pods once after the sources were ready. */
  hasAddedPods(): boolean {
    return this.hasAddedPodsFlag;
  }

  populatorLoop(): void {
    this.findAndAddNewPods();
    // findAndRemoveDeletedPods() calls out to the container runtime to determine if the containers for a
    // given pod are terminated. This is an expensive operation, therefore we limit the rate that
    // findAndRemoveDeletedPods() is called independently of the main populator loop.
    const last = this.timeOfLastGetPodStatusMs;
    if (last !== undefined && this.o.clock.nowMs - last < this.o.getPodStatusRetryDurationMs) {
      this.o.sim?.noteDeadline(last + this.o.getPodStatusRetryDurationMs);
      return;
    }
    this.findAndRemoveDeletedPods();
  }

  /** Fix `pod-worker-lifecycle` off: the release-1.20 rules (read once: a round asks it per pod). */
  private readonly legacy: boolean;

  /** Iterate through all pods and add to desired state of world if they don't exist but should. */
  findAndAddNewPods(): void {
    for (const pod of this.o.podManager.getPods()) {
      if (this.legacy) {
        // release-1.20: Do not (re)add volumes for terminated pods
        if (this.o.legacyPodStatusProvider.isPodTerminated(pod)) continue;
      } else if (this.skipsPod(pod.metadata.uid)) {
        continue;
      }
      this.processPodVolumes(pod);
    }
  }

  /**
   * Whether a round leaves the pod's volumes out. Release-1.23 skips every pod whose containers should be
   * terminating; with #114326 (fix `dsw-terminating-pod-on-restart`) that holds only once hasAddedPods is
   * set, and before it (the rounds after a kubelet restart, while syncStates waits for them) only a pod
   * whose runtime should already be removed is skipped: a terminating pod's container may still run, and
   * its reconstructed volume must meet it in the desired state (#113979).
   */
  private skipsPod(uid: UID): boolean {
    const psp = this.o.podStateProvider;
    // Keep consistency of adding pod during reconstruction. (Both sides agree once hasAddedPods is set, so
    // the switch is read only before: a run is the same up to its first read, src/fixes.ts.)
    if (this.hasAddedPodsFlag || !this.o.fixes.on('dsw-terminating-pod-on-restart')) {
      // Do not (re)add volumes for pods that can't also be starting containers
      return psp.shouldPodContainersBeTerminating(uid);
    }
    // When kubelet restarts, we need to add pods to dsw if there is a possibility that the container may
    // still be running
    return psp.shouldPodRuntimeBeRemoved(uid);
  }

  /** Iterate through all pods in desired state of world, and remove if they no longer exist. */
  findAndRemoveDeletedPods(): void {
    if (this.legacy) {
      this.findAndRemoveDeletedPodsLegacy();
    } else {
      this.findAndRemoveDeletedPodsFixed();
    }
    const dsw = this.o.desiredStateOfWorld;
    for (const podName of dsw.getPodsWithErrors()) {
      if (this.o.podManager.getPodByUID(podName) === undefined) {
        dsw.popPodErrors(podName);
        this.version++;
      }
    }
  }

  private findAndRemoveDeletedPodsFixed(): void {
    const { desiredStateOfWorld: dsw, actualStateOfWorld: asw, podStateProvider } = this.o;
    for (const volumeToMount of dsw.getVolumesToMount()) {
      const uid: UID = volumeToMount.pod.metadata.uid;
      const pod = this.o.podManager.getPodByUID(uid);
      const podExists = pod !== undefined;
      if (podExists) {
        // Exclude known pods that we expect to be running
        if (!podStateProvider.shouldPodRuntimeBeRemoved(uid)) continue;
        if (this.o.keepTerminatedPodVolumes === true) continue;
      }
      // Once a pod has been deleted from kubelet pod manager, do not delete it immediately from volume
      // manager. Instead, check the kubelet pod state provider to verify that all containers in the pod
      // have been terminated.
      if (!podStateProvider.shouldPodRuntimeBeRemoved(uid)) continue;
      const removed = asw.podRemovedFromVolume(volumeToMount.podName, volumeToMount.volumeName);
      if (removed && podExists) {
        // Actual state does not yet have volume mount information and pod still exists in pod manager,
        // skip removing volume from desired state
        this.noteKept(volumeToMount.podName, pod, volumeToMount.volumeName, true);
        continue;
      }
      this.noteKept(volumeToMount.podName, volumeToMount.pod, volumeToMount.volumeName, false);
      dsw.deletePodFromVolume(volumeToMount.podName, volumeToMount.volumeName);
      this.processedPods.delete(volumeToMount.podName);
      this.version++;
    }
  }

  /**
   * Publishes the skip above for a pod whose runtime is removed, the first time it is taken, and the
   * removal that ends it: the known-open hazard terminal-pod-volume-kept-desired (src/invariants/hazards.ts).
   * Upstream relies on the pod leaving the pod manager (PR #75458); a terminal pod the API keeps (a
   * completed Job's) keeps the volume desired, and listed in volumesInUse, for as long as it exists.
   */
  private noteKept(podName: UniquePodName, pod: Pod, volumeName: string, kept: boolean): void {
    const key = `${podName}\u0000${volumeName}`;
    if (kept === this.keptForTerminatedPod.has(key)) return;
    if (kept) this.keptForTerminatedPod.add(key);
    else this.keptForTerminatedPod.delete(key);
    this.o.host.publish?.({
      kind: 'terminatedPodVolumeKeptDesired',
      atMs: this.o.clock.nowMs,
      node: this.o.nodeName ?? '',
      uid: pod.metadata.uid,
      pod: pod.metadata.name,
      volume: volumeName,
      kept,
    });
  }

  /** release-1.20: IsPodTerminated for known pods, then the runtime listing for running containers. */
  private findAndRemoveDeletedPodsLegacy(): void {
    const { desiredStateOfWorld: dsw, actualStateOfWorld: asw, legacyPodStatusProvider } = this.o;
    let runningPods: ReturnType<LegacyPodStatusProvider['getRunningRuntimePods']> = [];
    let runningPodsFetched = false;
    for (const volumeToMount of dsw.getVolumesToMount()) {
      const uid: UID = volumeToMount.pod.metadata.uid;
      const pod = this.o.podManager.getPodByUID(uid);
      const podExists = pod !== undefined;
      if (pod !== undefined) {
        // Skip running pods
        if (!legacyPodStatusProvider.isPodTerminated(pod)) continue;
        if (this.o.keepTerminatedPodVolumes === true) continue;
      }
      // Once a pod has been deleted from kubelet pod manager, do not delete it immediately from volume
      // manager. Instead, check the kubelet containerRuntime to verify that all containers in the pod
      // have been terminated.
      if (!runningPodsFetched) {
        runningPods = legacyPodStatusProvider.getRunningRuntimePods();
        runningPodsFetched = true;
        this.timeOfLastGetPodStatusMs = this.o.clock.nowMs;
        this.version++;
      }
      let runningContainers = false;
      for (const runningPod of runningPods) {
        if (runningPod.id === uid) {
          // GetPods(false) lists running containers only.
          if (runningPod.containers.some((c) => c.state === 'running')) runningContainers = true;
          break;
        }
      }
      if (runningContainers) continue;
      const { exists } = asw.podExistsInVolume(volumeToMount.podName, volumeToMount.volumeName);
      if (!exists && podExists) continue;
      dsw.deletePodFromVolume(volumeToMount.podName, volumeToMount.volumeName);
      this.processedPods.delete(volumeToMount.podName);
      this.version++;
    }
  }

  /**
   * createVolumeSpec for a PVC volume: getPVCExtractPV, then the bound PV (getPVSpec). Returns the error
   * text getPVCExtractPV gives ("error processing PVC ns/name: " is the caller's prefix).
   */
  private createVolumeSpec(claimName: string): { volumeSpec: Spec | undefined } | string {
    const err = this.getPVCExtractPV(claimName);
    if (err !== undefined) return err;
    return { volumeSpec: this.o.host.getVolumeSpec(claimName) };
  }

  /**
   * getPVCExtractPV: fetches the claim, checks whether it is being deleted; undefined if the pod may use
   * it. Every claim is Bound to the volume of its name, so the phase and volumeName checks never fail.
   */
  private getPVCExtractPV(claimName: string): string | undefined {
    const pvc = this.o.host.getPersistentVolumeClaim(claimName);
    if (pvc === undefined)
      return `failed to fetch PVC from API server: persistentvolumeclaims "${claimName}" not found`;
    if (pvc instanceof GoError) return `failed to fetch PVC from API server: ${pvc.message}`;
    // Pods that use a PVC that is being deleted must not be started (StorageObjectInUseProtection, 1.9; GA
    // and on by default in every modelled release). Without #130335 that holds for a running pod too: a
    // kubelet that restarts while its claim terminates leaves the volume out of the desired state, and the
    // reconciler unmounts it. #130335 (fix dsw-terminating-pvc-protected) lets the claim through while
    // kubernetes.io/pvc-protection still holds it: the claim stays Terminating until the pod is deleted.
    if (
      pvc.metadata.deletionTimestamp !== undefined &&
      !(
        this.o.fixes.on('dsw-terminating-pvc-protected') &&
        pvc.metadata.finalizers.includes(PVCProtectionFinalizer)
      )
    ) {
      return PVC_BEING_DELETED;
    }
    return undefined;
  }

  /** processPodVolumes: adds the pod's volumes to the desired state of the world. */
  private processPodVolumes(pod: Pod): void {
    const uniquePodName = getUniquePodName(pod);
    if (this.processedPods.get(uniquePodName) === true) return;
    this.version++;
    const dsw = this.o.desiredStateOfWorld;
    let allVolumesAdded = true;
    for (const podVolume of pod.spec.volumes) {
      // createVolumeSpec: the pod's volume is a claim on the cluster volume of that name.
      const got = this.createVolumeSpec(podVolume);
      if (typeof got === 'string' || got.volumeSpec === undefined) {
        const why =
          typeof got === 'string'
            ? got
            : `failed to fetch PV ${podVolume} from API server: persistentvolumes "${podVolume}" not found`;
        dsw.addErrorToPod(uniquePodName, `error processing PVC default/${podVolume}: ${why}`);
        // (A claim of no cluster volume cannot be written: the loader refuses it. A failed read, a claim
        // deleted since, and a claim being deleted are published: the hazards pvc-lookup-error-unmounts-
        // running and deleting-pvc-unmounts-running tie to them.)
        if (typeof got === 'string')
          this.o.host.publish?.({
            kind: 'podVolumeLookupFailed',
            atMs: this.o.clock.nowMs,
            node: this.o.nodeName ?? '',
            uid: pod.metadata.uid,
            pod: pod.metadata.name,
            volume: podVolume,
            error: why,
            cause: why === PVC_BEING_DELETED ? 'deleting' : 'fetch',
          });
        allVolumesAdded = false;
        continue;
      }
      const volumeSpec = got.volumeSpec;
      // Add volume to desired state of world
      const { volumeName, err } = dsw.addPodToVolume(uniquePodName, pod, volumeSpec, podVolume, '');
      if (err !== undefined) {
        dsw.addErrorToPod(uniquePodName, err.message);
        allVolumesAdded = false;
      }
      // sync reconstructed volume. 1.28: "This is necessary only when the old-style reconstruction is
      // still used" (fix new-volume-reconstruction off).
      if (!this.o.fixes.on('new-volume-reconstruction')) {
        this.o.actualStateOfWorld.syncReconstructedVolume(volumeName, uniquePodName, podVolume);
      }
    }
    // some of the volume additions may have failed, should not mark this pod as fully processed
    if (allVolumesAdded) {
      this.processedPods.set(uniquePodName, true);
      // (MarkRemountRequired: no simulated plugin requires a remount.)
      // Remove any stored errors for the pod, everything went well in this processPodVolumes
      dsw.popPodErrors(uniquePodName);
    } else if (this.processedPods.has(uniquePodName)) {
      // For the Pod which has been processed at least once, even though some volumes may not have been
      // reprocessed successfully this round, we still mark it as processed to avoid processing it at a
      // very high frequency. The pod will be reprocessed when volume manager calls ReprocessPod() which
      // is triggered by SyncPod.
      this.processedPods.set(uniquePodName, true);
    }
  }
}
