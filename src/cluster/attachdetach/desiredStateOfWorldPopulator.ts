// Ported from kubernetes pkg/controller/volume/attachdetach/populator/desired_state_of_world_populator.go, release-1.23.
// A slow safety net behind the pod informer's handlers: every loopSleepDuration it removes
// pods the informer no longer has (or that terminated), and every listPodsRetryDuration it adds the
// volumes of every active pod again.
import type { Pod } from '../../api/v1.js';
import { type Co, sleep } from '../../sim/index.js';
import { isPodTerminated } from '../../volume/volumeUtil.js';
import { type DesiredStateOfWorld, getUniquePodName } from './desiredStateOfWorld.js';
import type { AttachDetachVolumePluginMgr } from './operations.js';
import { determineVolumeAction, processPodVolumes, type VolumeSpecLister } from './util.js';

/** The pod informer's lister. */
export interface PodLister {
  /** Pods(namespace).Get(name). */
  get(namespace: string, name: string): Pod | undefined;
  /** List(labels.Everything()). */
  list(): Pod[];
}

export interface DesiredStateOfWorldPopulatorOptions {
  readonly loopSleepDurationMs: number;
  readonly listPodsRetryDurationMs: number;
  readonly podLister: PodLister;
  readonly desiredStateOfWorld: DesiredStateOfWorld;
  readonly volumePluginMgr: AttachDetachVolumePluginMgr;
  readonly volumeSpecLister: VolumeSpecLister;
  readonly now: () => number;
}

export class DesiredStateOfWorldPopulator {
  /** When findAndAddActivePods last listed the pods; undefined is Go's zero time. */
  private timeOfLastListPodsMs: number | undefined = undefined;

  constructor(private readonly o: DesiredStateOfWorldPopulatorOptions) {}

  /** Run: wait.Until(populatorLoopFunc, loopSleepDuration). */
  *run(): Co<void> {
    for (;;) {
      this.populatorLoopFunc();
      yield* sleep(this.o.loopSleepDurationMs);
    }
  }

  populatorLoopFunc(): void {
    this.findAndRemoveDeletedPods();
    // findAndAddActivePods is called periodically, independently of the main populator loop.
    if (
      this.timeOfLastListPodsMs !== undefined &&
      this.o.now() - this.timeOfLastListPodsMs < this.o.listPodsRetryDurationMs
    ) {
      return;
    }
    this.findAndAddActivePods();
  }

  /** Iterate through all pods in desired state of world, and remove if they no longer exist in the informer. */
  private findAndRemoveDeletedPods(): void {
    const dsw = this.o.desiredStateOfWorld;
    for (const [dswPodUID, dswPodToAdd] of dsw.getPodToAdd()) {
      // Retrieve the pod object from pod informer with the namespace key
      const informerPod = this.o.podLister.get(
        dswPodToAdd.pod.metadata.namespace,
        dswPodToAdd.pod.metadata.name,
      );
      if (informerPod !== undefined) {
        const volumeActionFlag = determineVolumeAction(informerPod, dsw, true);
        // Check whether the unique identifier of the pod from dsw matches the one retrieved from pod informer
        if (volumeActionFlag && getUniquePodName(informerPod) === dswPodUID) continue;
      }
      // the pod from dsw does not exist in pod informer, or it does not match the unique identifier
      // retrieved from the informer, delete it from dsw
      dsw.deletePod(dswPodUID, dswPodToAdd.volumeName, dswPodToAdd.nodeName);
    }
    // Upstream then checks whether a volume changed from attachable to non-attachable (a CSIDriver
    // object's attachRequired); the simulated plugins' attachability never changes.
  }

  private findAndAddActivePods(): void {
    const pods = this.o.podLister.list();
    this.timeOfLastListPodsMs = this.o.now();
    for (const pod of pods) {
      // Do not add volumes for terminated pods
      if (isPodTerminated(pod, pod.status)) continue;
      processPodVolumes(
        pod,
        true,
        this.o.desiredStateOfWorld,
        this.o.volumePluginMgr,
        this.o.volumeSpecLister,
      );
    }
  }
}
