// Ported from kubernetes pkg/kubelet/kubelet.go and kubelet_pods.go, release-1.20: the kubelet code
// paths PR #102344 replaced (fix `pod-worker-lifecycle` off). dispatchWork short-cuts terminal pods
// (TerminatePod without telling the worker), deletePod forgets the worker and kills through the
// podKiller only if the runtime cache lists the pod, housekeeping kills undesired runtime pods through
// the podKiller, and syncPod itself kills on SyncPodKill or a deletion timestamp.
// Fix `mirror-pod-pending-termination` (#98103, in 1.20.3 as #98316): deletePod marks a static pod
// that has a mirror pod as pending termination until the podKiller has killed it; meanwhile syncPod
// refuses to start any pod of that full name, and housekeeping keeps its mirror pod and cgroup. Off is
// 1.20.0-1.20.2: none of it, so an edited static pod starts while the old one is still in its grace
// period.
import { GoError } from '../../api/errors.js';
import { getPodFullName, type Pod, type PodStatus, type RuntimePod, type UID } from '../../api/v1.js';
import type { Co } from '../../sim/index.js';
import type { Kubelet } from '../kubelet.js';
import { backOffPeriodMs, resyncIntervalMs } from '../kubelet.js';
import { deleteOrphanedMirrorPods, syncMirrorPod } from '../kubeletMirrorPods.js';
import { generateAPIPodStatus, notRunning } from '../status/generate.js';
import type { SyncPodType } from '../types.js';
import { PodKiller } from './podKiller.js';
import { killPodNow, LegacyPodWorkers } from './podWorkers.js';
import type { KillPodFunc, SyncPodOptions } from './types.js';

export class LegacyKubelet {
  readonly podWorkers: LegacyPodWorkers;
  readonly podKiller: PodKiller;
  private readonly killPodNowFn: KillPodFunc;
  /** lastContainerStartedTime: the newest PLEG ContainerStarted per pod, for deletePod's cache refresh. */
  readonly lastContainerStartedTime = new Map<UID, number>();

  constructor(private readonly kl: Kubelet) {
    this.podWorkers = new LegacyPodWorkers({
      sim: kl.sim,
      rng: kl.rng.fork('podWorkers'),
      group: kl.group,
      syncPodFn: (o) => this.syncPod(o),
      workQueue: kl.workQueue,
      podCache: kl.podCache,
      resyncIntervalMs,
      backOffPeriodMs,
      nodeName: kl.nodeName,
      publish: kl.publish,
    });
    this.podKiller = new PodKiller({
      sim: kl.sim,
      group: kl.group,
      kubelet: {
        killPod: (pod, runningPod, gracePeriodOverride) =>
          kl.killPod(pod, runningPod, gracePeriodOverride, 'podKiller'),
      },
      nodeName: kl.nodeName,
    });
    this.killPodNowFn = killPodNow(kl.sim, this.podWorkers);
  }

  start(): void {
    this.podKiller.start();
  }

  /** podAndContainersAreTerminal: from the status manager's cached status, else the API's. */
  podAndContainersAreTerminal(pod: Pod): { containersTerminal: boolean; podWorkerTerminal: boolean } {
    const status = this.kl.statusManager.getPodStatus(pod.metadata.uid) ?? pod.status;
    const containersTerminal = notRunning(status.containerStatuses);
    const podWorkerTerminal =
      status.phase === 'Failed' ||
      status.phase === 'Succeeded' ||
      (pod.metadata.deletionTimestamp !== undefined && containersTerminal);
    return { containersTerminal, podWorkerTerminal };
  }

  podIsTerminated(pod: Pod): boolean {
    return this.podAndContainersAreTerminal(pod).podWorkerTerminal;
  }

  /** IsPodDeleted (container GC): gone from config, evicted, or deleting with no running container. */
  isPodDeleted(uid: UID): boolean {
    const pod = this.kl.podManager.getPodByUID(uid);
    if (pod === undefined) return true;
    const status = this.kl.statusManager.getPodStatus(uid) ?? pod.status;
    return (
      status.reason === 'Evicted' ||
      (pod.metadata.deletionTimestamp !== undefined && notRunning(status.containerStatuses))
    );
  }

  /** cleanUpContainersInPod (1.20): removeAll for an evicted pod or a deleting pod with nothing running. */
  removeAllOnContainerDied(uid: UID): boolean {
    const pod = this.kl.podManager.getPodByUID(uid);
    if (pod === undefined) return false;
    const apiPodStatus = generateAPIPodStatus(
      pod,
      this.kl.podCache.get(uid),
      this.kl.statusManager.getPodStatus(uid) ?? pod.status,
    );
    return (
      pod.status.reason === 'Evicted' ||
      (pod.metadata.deletionTimestamp !== undefined && notRunning(apiPodStatus.containerStatuses))
    );
  }

  /** dispatchWork (1.20): a deleting pod whose containers look terminal is finished here, not by its worker. */
  dispatchWork(pod: Pod, syncType: SyncPodType, mirrorPod: Pod | undefined): void {
    const { containersTerminal, podWorkerTerminal } = this.podAndContainersAreTerminal(pod);
    if (pod.metadata.deletionTimestamp !== undefined && containersTerminal) {
      this.kl.publish({
        kind: 'podTerminated',
        atMs: this.kl.sim.nowMs,
        node: this.kl.nodeName,
        uid: pod.metadata.uid,
        pod: pod.metadata.name,
        reason: 'dispatchWork: deleting pod with no running container status, statusManager.TerminatePod',
      });
      this.kl.statusManager.terminatePod(pod);
      return;
    }
    if (podWorkerTerminal) return;
    this.podWorkers.updatePod({ pod, mirrorPod, updateType: syncType });
  }

  /** deletePod (1.20): ForgetWorker, then kill only what the runtime cache lists. */
  deletePod(pod: Pod): void {
    const uid = pod.metadata.uid;
    this.podWorkers.forgetWorker(uid);
    const lastStarted = this.lastContainerStartedTime.get(uid);
    if (lastStarted !== undefined) this.kl.forceUpdateRuntimeCacheIfOlder(lastStarted);
    const runningPod = this.kl.runtimeCacheGetPods().find((p) => p.id === uid);
    if (runningPod === undefined) {
      // "pod not found": the kubelet concludes there is nothing to kill.
      this.kl.publish({
        kind: 'podTerminated',
        atMs: this.kl.sim.nowMs,
        node: this.kl.nodeName,
        uid,
        pod: pod.metadata.name,
        reason: 'deletePod: pod not found in the runtime cache, nothing to kill',
      });
      return;
    }
    if (
      this.kl.fixes.on('mirror-pod-pending-termination') &&
      this.kl.podManager.getMirrorPodByPod(pod) !== undefined
    ) {
      this.podKiller.markMirrorPodPendingTermination(pod);
    }
    this.kl.sim.spawn(
      `${this.kl.nodeName}/podKiller.KillPod ${pod.metadata.name}`,
      this.podKiller.killPod({ APIPod: pod, RunningPod: runningPod }),
      this.kl.group,
    );
  }

  /** HandlePodCleanups (1.20): kill every runtime pod that is not desired through the podKiller. */
  *handlePodCleanups(): Co<void> {
    const kl = this.kl;
    const { pods: allPods, mirrorPods } = kl.podManager.getPodsAndMirrorPods();
    const activePods = allPods.filter((p) => !this.podIsTerminated(p));
    const desiredPods = new Set<UID>(activePods.map((p) => p.metadata.uid));
    this.podWorkers.forgetNonExistingPodWorkers(desiredPods);
    const runningPods: RuntimePod[] = kl.runtimeCacheGetPods();
    for (const pod of runningPods) {
      if (!desiredPods.has(pod.id)) yield* this.podKiller.killPod({ RunningPod: pod });
    }
    kl.statusManager.removeOrphanedStatuses(new Set([...allPods, ...mirrorPods].map((p) => p.metadata.uid)));
    // Remove any orphaned mirror pods. Before #98103 (pod_manager.go DeleteOrphanedMirrorPods) at once;
    // since, only once the pod killer is done with the static pod.
    const pendingTermination = kl.fixes.on('mirror-pod-pending-termination');
    yield* deleteOrphanedMirrorPods(
      kl,
      (fullname) => pendingTermination && this.podKiller.isMirrorPodPendingTerminationByPodName(fullname),
    );
    // cleanupOrphanedPodCgroups (1.20): destroy cgroups of pods that are not active and have no volumes.
    for (const uid of [...kl.host.podCgroups].sort()) {
      if (desiredPods.has(uid)) continue;
      // if the pod is within termination grace period, we shouldn't cleanup the underlying cgroup (#98103)
      if (pendingTermination && this.podKiller.isMirrorPodPendingTerminationByUID(uid)) continue;
      if (kl.volumeManager.podVolumesExist(uid)) continue;
      kl.host.podCgroups.delete(uid);
    }
    kl.runtimeManager.backOffGC();
  }

  *killPodNow(pod: Pod, status: PodStatus, gracePeriodOverride: number | undefined): Co<GoError | undefined> {
    return yield* this.killPodNowFn(pod, status, gracePeriodOverride);
  }

  /** syncPod (1.20): one function for every update type, SyncPodKill included. */
  *syncPod(o: SyncPodOptions): Co<GoError | undefined> {
    const kl = this.kl;
    const pod = o.pod;
    const uid = pod.metadata.uid;
    if (o.updateType === 'SyncPodKill') {
      const killPodOptions = o.killPodOptions;
      if (killPodOptions?.podStatusFunc === undefined)
        return new GoError('kill pod options are required if update type is kill');
      kl.statusManager.setPodStatus(pod, killPodOptions.podStatusFunc(pod, o.podStatus));
      return yield* this.killPodFromStatus(
        pod,
        o,
        killPodOptions.podTerminationGracePeriodSecondsOverride,
        'syncPod (SyncPodKill)',
      );
    }
    // If the pod is a static pod and its mirror pod is still gracefully terminating, we do not want to
    // start the new static pod until the old static pod is gracefully terminated (#98103).
    const podFullName = getPodFullName(pod);
    if (
      kl.fixes.on('mirror-pod-pending-termination') &&
      this.podKiller.isMirrorPodPendingTerminationByPodName(podFullName)
    ) {
      return new GoError(`pod "${podFullName}" is pending termination`);
    }
    const apiPodStatus = generateAPIPodStatus(
      pod,
      o.podStatus,
      kl.statusManager.getPodStatus(uid) ?? pod.status,
    );
    kl.statusManager.setPodStatus(pod, apiPodStatus);
    if (pod.metadata.deletionTimestamp !== undefined || apiPodStatus.phase === 'Failed') {
      return yield* this.killPodFromStatus(pod, o, undefined, 'syncPod (deleting or failed)');
    }
    if (!this.podIsTerminated(pod)) kl.host.podCgroups.add(uid); // pcm.EnsureExists
    // Create Mirror Pod for Static Pod if it doesn't already exist
    yield* syncMirrorPod(kl, pod, o.mirrorPod);
    if (!this.podIsTerminated(pod)) {
      const err = yield* kl.volumeManager.waitForAttachAndMount(pod);
      if (err !== undefined) return err;
    }
    return yield* kl.runtimeManager.syncPod(pod, o.podStatus);
  }

  /** killPod(pod, nil, podStatus, override): the running pod is what the (cached) status shows. */
  private *killPodFromStatus(
    pod: Pod,
    o: SyncPodOptions,
    gracePeriodOverride: number | undefined,
    source: string,
  ): Co<GoError | undefined> {
    const status = o.podStatus ?? this.kl.podCache.get(pod.metadata.uid);
    const runningPod: RuntimePod = {
      id: status.id,
      name: pod.metadata.name,
      namespace: pod.metadata.namespace,
      containers: status.containerStatuses
        .filter((c) => c.state === 'running')
        .map((c) => ({ id: c.id, name: c.name, state: c.state })),
      sandboxes: status.sandboxStatuses,
    };
    return yield* this.kl.killPod(pod, runningPod, gracePeriodOverride, source);
  }
}
