// Ported from kubernetes pkg/kubelet/volumemanager/volume_manager.go, release-1.23: the facade the
// kubelet uses. run() spawns the populator and reconciler loops into the kubelet's process group; the
// operations run as their own goroutines in the same group, so a kubelet restart kills them all.
import { GoError } from '../../api/errors.js';
import type { Pod, UID } from '../../api/v1.js';
import { WRITES_VOLUMES } from '../../elisionMasks.js';
import type { Fixes } from '../../fixes.js';
import { type Co, IdleLoop, type ProcessGroup, type Sim, sleep } from '../../sim/index.js';
import { NestedPendingOperations } from '../../volume/util/nestedPendingOperations.js';
import type { PodStateProvider } from '../types.js';
import { ActualStateOfWorld } from './cache/actualStateOfWorld.js';
import { DesiredStateOfWorld } from './cache/desiredStateOfWorld.js';
import type { LegacyPodStatusProvider, PodManager, VolumeHost, VolumePluginMgr } from './host.js';
import {
  getUniquePodName,
  type MountedVolume,
  OperationExecutor,
  type UniquePodName,
  type UniqueVolumeName,
} from './operationexecutor/operationExecutor.js';
import { OperationGenerator } from './operationexecutor/operationGenerator.js';
import { DesiredStateOfWorldPopulator } from './populator/desiredStateOfWorldPopulator.js';
import { Reconciler } from './reconciler/reconciler.js';

/** reconcilerLoopSleepPeriod. */
export const reconcilerLoopSleepPeriodMs = 100;
/** desiredStateOfWorldPopulatorLoopSleepPeriod. */
export const desiredStateOfWorldPopulatorLoopSleepPeriodMs = 100;
/** desiredStateOfWorldPopulatorGetPodStatusRetryDuration (only the release-1.20 rule ever waits on it). */
export const desiredStateOfWorldPopulatorGetPodStatusRetryDurationMs = 2_000;
/** podAttachAndMountTimeout: "a little over 2 minutes" so the mount backoff can be seen in the error. */
export const podAttachAndMountTimeoutMs = 2 * 60_000 + 3_000;
/** podAttachAndMountRetryInterval. */
export const podAttachAndMountRetryIntervalMs = 300;
/** waitForAttachTimeout: how long WaitForAttach may wait for the device. */
export const waitForAttachTimeoutMs = 10 * 60_000;

export interface VolumeManagerOptions {
  readonly sim: Sim;
  /** The kubelet's process group: every goroutine of the volume manager is spawned into it. */
  readonly group: ProcessGroup;
  readonly nodeName: string;
  readonly fixes: Fixes;
  readonly volumePluginMgr: VolumePluginMgr;
  readonly podManager: PodManager;
  /** The pod worker (fix `pod-worker-lifecycle` on). */
  readonly podStateProvider: Pick<
    PodStateProvider,
    'shouldPodContainersBeTerminating' | 'shouldPodRuntimeBeRemoved'
  >;
  /** Status manager + runtime cache (fix `pod-worker-lifecycle` off, the release-1.20 populator). */
  readonly legacyPodStatusProvider: LegacyPodStatusProvider;
  readonly host: VolumeHost;
  /** Default true: the attach/detach controller attaches; the kubelet verifies and waits. */
  readonly controllerAttachDetachEnabled?: boolean;
}

export class VolumeManager {
  readonly desiredStateOfWorld: DesiredStateOfWorld;
  readonly actualStateOfWorld: ActualStateOfWorld;
  readonly operationExecutor: OperationExecutor;
  readonly desiredStateOfWorldPopulator: DesiredStateOfWorldPopulator;
  readonly reconciler: Reconciler;

  constructor(private readonly o: VolumeManagerOptions) {
    const clock = o.sim;
    this.desiredStateOfWorld = new DesiredStateOfWorld(o.volumePluginMgr);
    this.actualStateOfWorld = new ActualStateOfWorld(o.nodeName, o.volumePluginMgr);
    this.operationExecutor = new OperationExecutor(
      new NestedPendingOperations(o.sim, o.group, true, WRITES_VOLUMES),
      new OperationGenerator({
        nodeName: o.nodeName,
        fixes: o.fixes,
        volumePluginMgr: o.volumePluginMgr,
        host: o.host,
        clock,
      }),
    );
    this.desiredStateOfWorldPopulator = new DesiredStateOfWorldPopulator({
      clock,
      sim: o.sim,
      loopSleepDurationMs: desiredStateOfWorldPopulatorLoopSleepPeriodMs,
      getPodStatusRetryDurationMs: desiredStateOfWorldPopulatorGetPodStatusRetryDurationMs,
      podManager: o.podManager,
      podStateProvider: o.podStateProvider,
      legacyPodStatusProvider: o.legacyPodStatusProvider,
      desiredStateOfWorld: this.desiredStateOfWorld,
      actualStateOfWorld: this.actualStateOfWorld,
      host: o.host,
      nodeName: o.nodeName,
      fixes: o.fixes,
    });
    this.reconciler = new Reconciler({
      controllerAttachDetachEnabled: o.controllerAttachDetachEnabled ?? true,
      loopSleepDurationMs: reconcilerLoopSleepPeriodMs,
      waitForAttachTimeoutMs,
      nodeName: o.nodeName,
      desiredStateOfWorld: this.desiredStateOfWorld,
      actualStateOfWorld: this.actualStateOfWorld,
      populatorHasAddedPods: () => this.desiredStateOfWorldPopulator.hasAddedPods(),
      operationExecutor: this.operationExecutor,
      volumePluginMgr: o.volumePluginMgr,
      host: o.host,
      clock,
      sim: o.sim,
      podKnown: (uid) => o.podManager.getPodByUID(uid) !== undefined,
      podTerminating: (uid) => o.podStateProvider.shouldPodContainersBeTerminating(uid),
      fixes: o.fixes,
    });
  }

  /** Run: starts the populator and the reconciler goroutines. */
  run(): void {
    // Both change only the volume manager's state and the node's storage (and, through the API server and
    // the SAN, what nodes share, which their footprints record apart): for schedule footprints
    // (src/sim/choices.ts) they write WRITES_VOLUMES; elision keeps their write masks.
    const dswp = this.o.sim.spawn(
      `${this.o.nodeName}/dswp`,
      this.desiredStateOfWorldPopulator.run(),
      this.o.group,
    );
    dswp.footprintWriteMask = WRITES_VOLUMES;
    const rc = this.o.sim.spawn(`${this.o.nodeName}/volume-reconciler`, this.reconciler.run(), this.o.group);
    rc.footprintWriteMask = WRITES_VOLUMES;
  }

  /** GetMountedVolumesForPod: outer volume name -> mounted volume (VolumeMounted only). */
  getMountedVolumesForPod(podName: UniquePodName): Map<string, MountedVolume> {
    const out = new Map<string, MountedVolume>();
    for (const v of this.actualStateOfWorld.getMountedVolumesForPod(podName))
      out.set(v.outerVolumeSpecName, v);
    return out;
  }

  /** GetPossiblyMountedVolumesForPod: as above, uncertain mounts included. */
  getPossiblyMountedVolumesForPod(podName: UniquePodName): Map<string, MountedVolume> {
    const out = new Map<string, MountedVolume>();
    for (const v of this.actualStateOfWorld.getPossiblyMountedVolumesForPod(podName)) {
      out.set(v.outerVolumeSpecName, v);
    }
    return out;
  }

  /**
   * The volume manager's half of kubelet_volumes.go podVolumesExist (for the status manager's
   * PodResourcesAreReclaimed): any mounted or uncertain volume of the pod in the actual state.
   */
  podVolumesExist(uid: UID): boolean {
    return this.actualStateOfWorld.getPossiblyMountedVolumesForPod(uid).length > 0;
  }

  /**
   * GetVolumesInUse: attachable volumes that should be mounted, plus attachable volumes in the actual
   * state (mounted, or whose device may still be mounted), sorted.
   */
  getVolumesInUse(): UniqueVolumeName[] {
    const inUse = new Set<UniqueVolumeName>();
    for (const v of this.desiredStateOfWorld.getVolumesToMount())
      if (v.pluginIsAttachable) inUse.add(v.volumeName);
    for (const v of this.actualStateOfWorld.getAttachedVolumes())
      if (v.pluginIsAttachable) inUse.add(v.volumeName);
    return [...inUse].sort();
  }

  reconcilerStatesHasBeenSynced(): boolean {
    return this.reconciler.statesHasBeenSynced();
  }

  volumeIsAttached(volumeName: UniqueVolumeName): boolean {
    return this.actualStateOfWorld.volumeExists(volumeName);
  }

  /** MarkVolumesAsReportedInUse: called after node.status.volumesInUse was written. */
  markVolumesAsReportedInUse(volumesReportedAsInUse: readonly UniqueVolumeName[]): boolean {
    return this.desiredStateOfWorld.markVolumesReportedInUse(volumesReportedAsInUse);
  }

  /**
   * WaitForAttachAndMount: blocks until every volume of the pod is mounted (polls every 300 ms), or
   * returns an error after podAttachAndMountTimeout or when the populator recorded errors for the pod.
   */
  *waitForAttachAndMount(pod: Pod | undefined): Co<GoError | undefined> {
    if (pod === undefined) return undefined;
    const expectedVolumes = getExpectedVolumes(pod);
    if (expectedVolumes.length === 0) return undefined; // No volumes to verify
    const uniquePodName = getUniquePodName(pod);
    // Some pods expect to have Setup called over and over again to update. Remount plugins for which this
    // is true. (Atomically updating volumes, like Downward API, depend on this to update the contents of
    // the volume).
    this.desiredStateOfWorldPopulator.reprocessPod(uniquePodName);
    const err = yield* this.pollImmediate(() => {
      const errs = this.desiredStateOfWorld.popPodErrors(uniquePodName);
      if (errs.length > 0) return { done: true, err: new GoError(errs.join('; ')) };
      return { done: this.getUnmountedVolumes(uniquePodName, expectedVolumes).length === 0, err: undefined };
    });
    if (err !== undefined) {
      const unmountedVolumes = this.getUnmountedVolumes(uniquePodName, expectedVolumes);
      // Also get unattached volumes for error message
      const unattachedVolumes = expectedVolumes.filter((v) => !this.actualStateOfWorld.volumeExists(v));
      if (unmountedVolumes.length === 0) return undefined;
      return new GoError(
        `unmounted volumes=[${unmountedVolumes.join(' ')}], unattached volumes=[${unattachedVolumes.join(' ')}]: ${err.message}`,
      );
    }
    return undefined;
  }

  /** WaitForUnmount: blocks until no volume of the pod is mounted, or errors after the same timeout. */
  *waitForUnmount(pod: Pod | undefined): Co<GoError | undefined> {
    if (pod === undefined) return undefined;
    const uniquePodName = getUniquePodName(pod);
    this.desiredStateOfWorldPopulator.reprocessPod(uniquePodName);
    const err = yield* this.pollImmediate(() => {
      const errs = this.desiredStateOfWorld.popPodErrors(uniquePodName);
      if (errs.length > 0) return { done: true, err: new GoError(errs.join('; ')) };
      return {
        done: this.actualStateOfWorld.getMountedVolumesForPod(uniquePodName).length === 0,
        err: undefined,
      };
    });
    if (err !== undefined) {
      const mountedVolumes = this.actualStateOfWorld
        .getMountedVolumesForPod(uniquePodName)
        .map((v) => v.outerVolumeSpecName)
        .sort();
      if (mountedVolumes.length === 0) {
        this.publishUncertainIgnored(pod, uniquePodName);
        return undefined;
      }
      return new GoError(`mounted volumes=[${mountedVolumes.join(' ')}]: ${err.message}`);
    }
    this.publishUncertainIgnored(pod, uniquePodName);
    return undefined;
  }

  /**
   * Simulator observation, the known-open hazard `wait-for-unmount-ignores-uncertain` (#113563): upstream's
   * WaitForUnmount counts only VolumeMounted (GetMountedVolumesForPod), so it returns while a mount whose
   * TearDown failed is VolumeMountUncertain (#100183) and is still on the node.
   */
  private publishUncertainIgnored(pod: Pod, uniquePodName: UniquePodName): void {
    const possibly = this.actualStateOfWorld.getPossiblyMountedVolumesForPod(uniquePodName);
    if (possibly.length === 0) return;
    this.o.host.publish({
      kind: 'unmountWaitIgnoredUncertain',
      atMs: this.o.sim.nowMs,
      node: this.o.nodeName,
      uid: pod.metadata.uid,
      pod: pod.metadata.name,
      volumes: possibly.map((v) => v.outerVolumeSpecName).sort(),
    });
  }

  /** wait.PollImmediate(podAttachAndMountRetryInterval, podAttachAndMountTimeout, condition). */
  private *pollImmediate(
    condition: () => { done: boolean; err: GoError | undefined },
  ): Co<GoError | undefined> {
    const deadline = this.o.sim.nowMs + podAttachAndMountTimeoutMs;
    // A poll that finds the condition unchanged lets elision skip the polls after it until something
    // changes on this node, or the last poll before the timeout comes (src/sim/elision.ts).
    const loop = new IdleLoop(this.o.sim, podAttachAndMountRetryIntervalMs, { readMask: WRITES_VOLUMES });
    for (;;) {
      loop.begin();
      const r = condition();
      if (r.err !== undefined) return r.err;
      if (r.done) return undefined;
      if (this.o.sim.nowMs + podAttachAndMountRetryIntervalMs >= deadline) {
        yield* sleep(Math.max(0, deadline - this.o.sim.nowMs));
        return new GoError('timed out waiting for the condition');
      }
      this.o.sim.noteDeadline(deadline - podAttachAndMountRetryIntervalMs);
      yield* loop.end();
    }
  }

  private getUnmountedVolumes(podName: UniquePodName, expectedVolumes: readonly string[]): string[] {
    const mounted = new Set(
      this.actualStateOfWorld.getMountedVolumesForPod(podName).map((v) => v.outerVolumeSpecName),
    );
    return expectedVolumes.filter((v) => !mounted.has(v));
  }
}

/** getExpectedVolumes: the names of the pod's volumes (mounts and devices). */
function getExpectedVolumes(pod: Pod): string[] {
  return [...new Set(pod.spec.volumes)];
}
