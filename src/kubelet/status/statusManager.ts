// Ported from kubernetes pkg/kubelet/status/status_manager.go, release-1.23: the kubelet's cache of pod
// statuses, synced to the API server on change and every 10 s, and the final delete of a pod once its
// resources are reclaimed (canBeDeleted). The reclaim check itself is the kubelet's
// PodResourcesAreReclaimed (kubelet_pods.go), where PR #102344's change sits; from 1.27 (#115331, fix
// `status-deletes-finished-pods`) canBeDeleted waits for TerminatePod's podIsFinished instead (v1.28.0).
import { GoError } from '../../api/errors.js';
import type { ContainerStatus, Pod, PodStatus, RestartPolicy, UID } from '../../api/v1.js';
import {
  isMirrorPod,
  isPodPhaseTerminal,
  isStaticPod,
  newContainerStatus,
  newPodStatus,
} from '../../api/v1.js';
import {
  WRITES_NONE,
  WRITES_PODS,
  WRITES_RUNTIME,
  WRITES_STATUS,
  WRITES_VOLUMES,
} from '../../elisionMasks.js';
import {
  type Chan,
  type Co,
  IdleLoop,
  type ProcessGroup,
  SELECT_TIMEOUT,
  type SelectCase,
  type Sim,
  VersionedMap,
} from '../../sim/index.js';
import type { KubeClient } from '../kubeClient.js';

/** syncPeriod in status_manager.go. */
export const statusSyncPeriodMs = 10_000;
const podStatusChannelCapacity = 1000;

export interface PodDeletionSafetyProvider {
  podResourcesAreReclaimed(pod: Pod, status: PodStatus): boolean;
  /**
   * PodCouldHaveRunningContainers, for mergePodStatus's terminal-phase hold (release-1.23, #108366);
   * undefined where the kubelet has no such hold (release-1.20).
   */
  podCouldHaveRunningContainers?: ((pod: Pod) => boolean) | undefined;
  /**
   * #115331 (1.27): the final delete waits for SyncTerminatedPod (TerminatePod's podIsFinished) and a
   * terminal API phase, no longer for PodResourcesAreReclaimed. Asked where it decides (the switch
   * `status-deletes-finished-pods`); undefined: never (release-1.20).
   */
  deletesFinishedPodsOnly?: (() => boolean) | undefined;
}

export interface PodManagerView {
  getPodByUID(uid: UID): Pod | undefined;
}

interface VersionedPodStatus {
  status: PodStatus;
  version: number;
  podName: string;
  podNamespace: string;
  /** TerminatePod wrote it (#115331): SyncTerminatedPod is done, the pod may be deleted. */
  podIsFinished: boolean;
}

export class StatusManager {
  /** Versioned: housekeeping's idle check counts its changes (src/sim/versioned.ts). */
  private readonly podStatuses = new VersionedMap<UID, VersionedPodStatus>();
  private readonly apiStatusVersions = new Map<UID, number>();
  private readonly podStatusChannel: Chan<UID>;

  constructor(
    private readonly sim: Sim,
    private readonly group: ProcessGroup,
    private readonly kubeClient: KubeClient,
    private readonly podManager: PodManagerView,
    private readonly podDeletionSafety: PodDeletionSafetyProvider,
  ) {
    this.podStatusChannel = sim.chan<UID>(podStatusChannelCapacity, 'podStatusChannel');
  }

  start(): void {
    // It changes its own statuses; what it writes to the API server comes back as watch events.
    const p = this.sim.spawn('statusManager', this.run(), this.group);
    p.writeMask = WRITES_STATUS;
    // Of its node's state it changes only the statuses it drops (deletePodStatus touches them): its API
    // versions and next batch time are its own, read by none of the node's other goroutines. It reads
    // the statuses, the pod manager and the pod workers, and what PodResourcesAreReclaimed looks at:
    // the pod cache, cgroups and volumes.
    p.footprintWriteMask = WRITES_NONE;
    p.readMask = WRITES_PODS | WRITES_STATUS | WRITES_RUNTIME | WRITES_VOLUMES;
  }

  private *run(): Co<void> {
    // Its first step only sets its own next batch time and waits: it reads and changes nothing else.
    this.sim.writesOnly(WRITES_NONE);
    this.sim.readsOnly(WRITES_NONE);
    const cases: SelectCase[] = [{ recv: this.podStatusChannel }];
    // A batch that synced nothing lets elision skip the batches after it until something changes on this
    // node (src/sim/elision.ts); each skipped batch still moves the next one's time.
    const loop = new IdleLoop(this.sim, statusSyncPeriodMs, {
      hook: (roundMs) => {
        this.nextBatchMs = roundMs + statusSyncPeriodMs;
      },
      // The hook moves only the manager's own next batch time, which nothing else reads.
      hookWrites: WRITES_NONE,
    });
    this.nextBatchMs = this.sim.nowMs + statusSyncPeriodMs;
    for (;;) {
      // A select with a zero timeout would be Go's default branch; the batch is simply due.
      const waitMs = this.nextBatchMs - this.sim.nowMs;
      const r = waitMs > 0 ? yield* loop.select(cases, waitMs) : { index: SELECT_TIMEOUT, value: undefined };
      if (r.index === SELECT_TIMEOUT) {
        // Only a batch is judged: it looks at every status (a single status does not).
        loop.begin();
        this.nextBatchMs = this.sim.nowMs + statusSyncPeriodMs;
        yield* this.syncBatch();
      } else {
        const uid = r.value as UID;
        const status = this.podStatuses.get(uid);
        if (status !== undefined) yield* this.syncPod(uid, status);
      }
    }
  }

  /** When the next batch is due (kept across elided batches). */
  private nextBatchMs = 0;

  /** Counts every change of the cached statuses (src/sim/versioned.ts). */
  get version(): number {
    return this.podStatuses.version;
  }

  getPodStatus(uid: UID): PodStatus | undefined {
    return this.podStatuses.get(uid)?.status;
  }

  setPodStatus(pod: Pod, status: PodStatus): void {
    // Deleting pods are force-updated so that the final delete is attempted.
    this.updateStatusInternal(pod, status, pod.metadata.deletionTimestamp !== undefined);
  }

  /** TerminatePod: every container that is not terminated is reported terminated (137, unknown). */
  terminatePod(pod: Pod): void {
    const old = this.podStatuses.get(pod.metadata.uid)?.status ?? pod.status;
    const containerStatuses = old.containerStatuses.map((c) =>
      c.state === 'terminated'
        ? c
        : newContainerStatus({
            name: c.name,
            state: 'terminated',
            reason: 'ContainerStatusUnknown',
            exitCode: 137,
          }),
    );
    const named = new Set(containerStatuses.map((c) => c.name));
    for (const c of pod.spec.containers) {
      if (!named.has(c.name))
        containerStatuses.push(
          newContainerStatus({
            name: c.name,
            state: 'terminated',
            reason: 'ContainerStatusUnknown',
            exitCode: 137,
          }),
        );
    }
    // #115331: "Make sure all pods are transitioned to a terminal phase" (static pods excepted,
    // TODO(#116484)): a pod still Pending or Running is marked Failed, or canBeDeleted would wait for
    // ever for a terminal phase.
    let phase = old.phase;
    if (!isStaticPod(pod) && !isPodPhaseTerminal(phase) && this.deletesFinishedPodsOnly()) phase = 'Failed';
    this.updateStatusInternal(
      pod,
      newPodStatus({ phase, reason: old.reason, message: old.message, containerStatuses }),
      true,
      true,
    );
  }

  private deletesFinishedPodsOnly(): boolean {
    return this.podDeletionSafety.deletesFinishedPodsOnly?.() ?? false;
  }

  removeOrphanedStatuses(podUIDs: ReadonlySet<UID>): void {
    for (const uid of [...this.podStatuses.keys()]) {
      if (!podUIDs.has(uid)) this.deletePodStatus(uid);
    }
  }

  /** Returns whether an update was triggered (false also when the state transition check aborts it). */
  private updateStatusInternal(
    pod: Pod,
    status: PodStatus,
    forceUpdate: boolean,
    podIsFinished = false,
  ): boolean {
    const uid = pod.metadata.uid;
    const cached = this.podStatuses.get(uid);
    // "Got unexpected podIsFinished=false, while podIsFinished=true in status cache": it stays true.
    const finished = podIsFinished || (cached?.podIsFinished === true && !isStaticPod(pod));
    // No mirror pods are modelled: the old status is the cached one, else the API's.
    const oldStatus = cached?.status ?? pod.status;
    // Check for illegal state transition in containers ("Status update on pod aborted").
    const err = checkContainerStateTransition(
      oldStatus.containerStatuses,
      status.containerStatuses,
      pod.spec.restartPolicy,
    );
    if (err !== undefined) return false;
    if (cached !== undefined && !forceUpdate && sameStatus(cached.status, status)) return false;
    const next: VersionedPodStatus = {
      status,
      version: (cached?.version ?? 0) + 1,
      podName: pod.metadata.name,
      podNamespace: pod.metadata.namespace,
      podIsFinished: finished,
    };
    this.podStatuses.set(uid, next);
    // A full channel is fine: syncBatch picks the newest version up within 10 s.
    this.podStatusChannel.trySend(uid);
    return true;
  }

  private *syncBatch(): Co<void> {
    for (const uid of [...this.podStatuses.keys()].sort()) {
      const status = this.podStatuses.get(uid);
      if (status === undefined) continue;
      if (this.needsUpdate(uid, status)) yield* this.syncPod(uid, status);
      else if (this.needsReconcile(uid, status.status)) {
        // "Delete the apiStatusVersions here to force an update on the pod status".
        this.apiStatusVersions.delete(uid);
        yield* this.syncPod(uid, status);
      }
    }
  }

  /**
   * needsReconcile (release-1.23 and v1.28.0): the API's status as the pod manager last saw it differs
   * from the cached one, so the kubelet, the source of truth, sends it again. It is what finally writes a
   * terminal phase that mergePodStatus held back while the pod could still run containers (a pod rejected
   * right after a restart, before the pod workers synced: #118497's "we wait 10s until syncBatch"). A
   * static pod's status is its mirror pod's, which is not modelled: never reconciled here.
   */
  private needsReconcile(uid: UID, status: PodStatus): boolean {
    const pod = this.podManager.getPodByUID(uid);
    if (pod === undefined || isStaticPod(pod)) return false;
    return !sameStatus(pod.status, status);
  }

  private needsUpdate(uid: UID, status: VersionedPodStatus): boolean {
    const latest = this.apiStatusVersions.get(uid);
    if (latest === undefined || latest < status.version) return true;
    const pod = this.podManager.getPodByUID(uid);
    if (pod === undefined) return false;
    return this.canBeDeleted(pod, status);
  }

  private *syncPod(uid: UID, status: VersionedPodStatus): Co<void> {
    if (!this.needsUpdate(uid, status)) return;
    const pod = yield* this.kubeClient.getPod(status.podNamespace, status.podName);
    if (pod === undefined) return; // "Pod not found, doing nothing"
    if (pod.metadata.uid !== uid) {
      // "Pod was deleted and then recreated, skipping status update": this status is not the new pod's.
      this.deletePodStatus(uid);
      return;
    }
    const merged = this.mergePodStatus(pod, status.status);
    // Upstream patches and deletes the pod it fetched (pod.UID is the patch's and the delete's precondition).
    const err = yield* this.kubeClient.patchPodStatus(pod.metadata.uid, merged);
    if (err !== undefined) return;
    this.apiStatusVersions.set(pod.metadata.uid, status.version);
    // canBeDeleted judges the version just patched (upstream: m.canBeDeleted(pod, status.status, ...)),
    // with the API object as the patch left it (upstream: pod = newPod).
    if (this.canBeDeleted(pod, status, merged.phase)) {
      const delErr = yield* this.kubeClient.deletePod(
        pod.metadata.namespace,
        pod.metadata.name,
        pod.metadata.uid,
      );
      if (delErr === undefined) this.deletePodStatus(uid);
    }
  }

  /**
   * mergePodStatus (release-1.23): never publish a terminal phase while the pod could still have running
   * containers; keep the old phase, reason and message until it cannot.
   */
  private mergePodStatus(pod: Pod, next: PodStatus): PodStatus {
    const couldRun = this.podDeletionSafety.podCouldHaveRunningContainers;
    if (couldRun === undefined) return next;
    const old = pod.status;
    if (!isPodPhaseTerminal(old.phase) && isPodPhaseTerminal(next.phase) && couldRun(pod)) {
      return newPodStatus({
        phase: old.phase,
        reason: old.reason,
        message: old.message,
        containerStatuses: next.containerStatuses,
      });
    }
    return next;
  }

  private canBeDeleted(pod: Pod, status: VersionedPodStatus, apiPhase = pod.status.phase): boolean {
    if (pod.metadata.deletionTimestamp === undefined || isMirrorPod(pod)) return false;
    if (this.deletesFinishedPodsOnly()) {
      // Delay deletion of pods until the phase is terminal, based on the API's pod.Status; then only
      // an update completing pod termination (TerminatePod) lets it go. A pod no worker drives never
      // gets one (#118472).
      if (!isPodPhaseTerminal(apiPhase)) return false;
      return status.podIsFinished;
    }
    return this.podDeletionSafety.podResourcesAreReclaimed(pod, status.status);
  }

  private deletePodStatus(uid: UID): void {
    this.sim.touch(WRITES_STATUS);
    this.podStatuses.delete(uid);
    this.apiStatusVersions.delete(uid);
  }
}

/**
 * checkContainerStateTransition (status_manager.go, release-1.20 and 1.23 alike): no container may go
 * from terminated back to running or waiting, unless the restart policy is Always, or it is OnFailure
 * and the container failed (a non-zero exit code).
 */
export function checkContainerStateTransition(
  oldStatuses: readonly ContainerStatus[],
  newStatuses: readonly ContainerStatus[],
  restartPolicy: RestartPolicy,
): GoError | undefined {
  // If we should always restart, containers are allowed to leave the terminated state
  if (restartPolicy === 'Always') return undefined;
  for (const oldStatus of oldStatuses) {
    // Skip any container that wasn't terminated
    if (oldStatus.state !== 'terminated') continue;
    // Skip any container that failed but is allowed to restart
    if (oldStatus.exitCode !== 0 && restartPolicy === 'OnFailure') continue;
    for (const newStatus of newStatuses) {
      if (oldStatus.name === newStatus.name && newStatus.state !== 'terminated') {
        return new GoError(
          `terminated container ${newStatus.name} attempted illegal transition to non-terminated state`,
        );
      }
    }
  }
  return undefined;
}

function sameStatus(a: PodStatus, b: PodStatus): boolean {
  if (a.phase !== b.phase || a.reason !== b.reason || a.message !== b.message) return false;
  if (a.containerStatuses.length !== b.containerStatuses.length) return false;
  for (let i = 0; i < a.containerStatuses.length; i++) {
    const x = a.containerStatuses[i];
    const y = b.containerStatuses[i];
    if (x?.name !== y?.name || x?.state !== y?.state || x?.exitCode !== y?.exitCode) return false;
  }
  return true;
}
