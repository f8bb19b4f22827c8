// Ported from kubernetes pkg/kubelet/kuberuntime/kuberuntime_manager.go and kuberuntime_container.go,
// release-1.23 (SyncPod / computePodActions, KillPod / killContainer): the kubelet's side of the CRI.
// Simplified to what the races need: no init or ephemeral containers, no image pulls, no probes.
import { GoError } from '../../api/errors.js';
import {
  getPodFullName,
  isStaticPod,
  type Pod,
  type RuntimeContainerStatus,
  type RuntimePod,
  type RuntimePodStatus,
} from '../../api/v1.js';
import type { Fact } from '../../facts.js';
import type { FakeRuntime, RuntimePodMeta } from '../../runtime/fakeRuntime.js';
import { AssertionError, CLOSED, type Co, type ProcessGroup, type Sim } from '../../sim/index.js';

/** minimumGracePeriodInSeconds in kuberuntime_container.go. */
export const minimumGracePeriodInSeconds = 2;
/** The kubelet's crash-loop back-off: 10 s doubling to 5 min (kubelet.go backOffPeriod / MaxContainerBackOff). */
const crashBackOffInitialMs = 10_000;
const crashBackOffMaxMs = 300_000;

export function runtimeMetaOf(pod: Pod): RuntimePodMeta {
  return {
    uid: pod.metadata.uid,
    name: pod.metadata.name,
    namespace: pod.metadata.namespace,
    staticFullname: isStaticPod(pod) ? getPodFullName(pod) : undefined,
    terminationGracePeriodSeconds: pod.spec.terminationGracePeriodSeconds,
  };
}

/** kubecontainer.ConvertPodStatusToRunningPod: the running containers and sandboxes of a status. */
export function convertPodStatusToRunningPod(status: RuntimePodStatus): RuntimePod {
  return {
    id: status.id,
    name: status.name,
    namespace: status.namespace,
    containers: status.containerStatuses
      .filter((c) => c.state === 'running')
      .map((c) => ({ id: c.id, name: c.name, state: c.state })),
    sandboxes: status.sandboxStatuses,
  };
}

/** The newest attempt of each container name, as computePodActions reads a pod status. */
function latestByName(status: RuntimePodStatus | undefined): Map<string, RuntimeContainerStatus> {
  const out = new Map<string, RuntimeContainerStatus>();
  if (status === undefined) return out;
  for (const c of status.containerStatuses) {
    const prev = out.get(c.name);
    if (prev === undefined || (c.startedAtMs ?? -1) >= (prev.startedAtMs ?? -1)) out.set(c.name, c);
  }
  return out;
}

/** utilerrors.NewAggregate: nil for none, the error itself for one, `[a, b]` for several. */
function aggregate(errs: readonly string[]): GoError | undefined {
  if (errs.length === 0) return undefined;
  if (errs.length === 1) return new GoError(errs[0] ?? '');
  return new GoError(`[${errs.join(', ')}]`);
}

export class KubeGenericRuntimeManager {
  private readonly crashBackOff = new Map<string, { untilMs: number; periodMs: number }>();

  constructor(
    private readonly sim: Sim,
    private readonly runtime: FakeRuntime,
    private readonly group: ProcessGroup,
    private readonly nodeName: string,
    private readonly publish: (fact: Fact) => void,
  ) {}

  /** GetPodStatus straight from the runtime (no cache), as syncTerminatingPod re-reads it. */
  getPodStatus(pod: Pod): RuntimePodStatus {
    return this.runtime.getPodStatus(pod.metadata.uid);
  }

  /**
   * SyncPod: make the runtime match the spec, from the (cached) status the pod worker handed in.
   * computePodActions: a sandbox if none is ready, then every container that is not running and whose
   * restart policy allows a (re)start.
   */
  *syncPod(pod: Pod, podStatus: RuntimePodStatus | undefined): Co<GoError | undefined> {
    const meta = runtimeMetaOf(pod);
    const sandboxReady = podStatus?.sandboxStatuses.some((s) => s.ready) ?? false;
    let latest = latestByName(podStatus);
    if (!sandboxReady) {
      // A new sandbox means every container restarts in it (killPodWithSyncResult of the old one first).
      if (podStatus?.containerStatuses.some((c) => c.state === 'running')) {
        const err = yield* this.killPod(
          pod,
          convertPodStatusToRunningPod(podStatus),
          undefined,
          'SyncPod: sandbox changed',
        );
        if (err !== undefined) return err;
      }
      const err = yield* this.runtime.runPodSandbox(meta);
      if (err !== undefined) return err;
      latest = new Map();
    }
    for (const spec of pod.spec.containers) {
      const cs = latest.get(spec.name);
      if (cs !== undefined && (cs.state === 'running' || cs.state === 'created')) continue;
      if (cs !== undefined && cs.state === 'exited') {
        const policy = pod.spec.restartPolicy;
        if (policy === 'Never' || (policy === 'OnFailure' && cs.exitCode === 0)) continue;
        const key = `${pod.metadata.uid}/${spec.name}`;
        const backOff = this.crashBackOff.get(key);
        if (backOff !== undefined && this.sim.nowMs < backOff.untilMs) continue; // ErrCrashLoopBackOff
        const periodMs =
          backOff === undefined ? crashBackOffInitialMs : Math.min(backOff.periodMs * 2, crashBackOffMaxMs);
        this.crashBackOff.set(key, { untilMs: this.sim.nowMs + periodMs, periodMs });
      }
      const containerSpec = { name: spec.name, startDelayMs: spec.startDelayMs ?? 0 };
      const created = yield* this.runtime.createContainer(meta, containerSpec);
      if (created.err !== undefined) return created.err;
      const err = yield* this.runtime.startContainer(meta, containerSpec, created.value);
      if (err !== undefined) return err;
    }
    return undefined;
  }

  /**
   * KillPod -> killPodWithSyncResult: stop every running container in parallel (one goroutine each),
   * then the sandbox. The grace period of each container follows killContainer.
   */
  *killPod(
    pod: Pod | undefined,
    runningPod: RuntimePod,
    gracePeriodOverride: number | undefined,
    source: string,
  ): Co<GoError | undefined> {
    const gracePeriodSeconds = this.effectiveGracePeriod(pod, runningPod, gracePeriodOverride);
    const uid = runningPod.id;
    const name = pod?.metadata.name ?? runningPod.name;
    this.publish({
      kind: 'killPodStarted',
      atMs: this.sim.nowMs,
      node: this.nodeName,
      uid,
      pod: name,
      gracePeriodSeconds,
      source,
    });
    // killPodWithSyncResult: one sync result per container, then one for the sandboxes; KillPod returns
    // their aggregate (PodSyncResult.Error), which the pod worker treats as a failed sync and retries.
    const errs: string[] = [];
    const containers = runningPod.containers;
    if (containers.length > 0) {
      const done = this.sim.chan<GoError | undefined>(containers.length, 'killContainersWithSyncResult');
      for (const c of containers) {
        const runtime = this.runtime;
        this.sim.spawn(
          `killContainer ${c.id}`,
          (function* (): Co {
            const err = yield* runtime.stopContainer(uid, c.id, gracePeriodSeconds);
            yield* done.send(
              err === undefined
                ? undefined
                : new GoError(
                    `failed to "KillContainer" for "${c.name}" with KillContainerError: "${err.message}"`,
                  ),
            );
          })(),
          this.group,
        );
      }
      // The results arrive in completion order; sorted so the aggregate reads the same whatever the order.
      const containerErrs: string[] = [];
      for (let i = 0; i < containers.length; i++) {
        const err = yield* done.recv();
        if (err !== CLOSED && err !== undefined) containerErrs.push(err.message);
      }
      errs.push(...containerErrs.sort());
    }
    // Stop all sandboxes of the pod, whatever became of the containers (the sandbox is removed by GC).
    for (const s of runningPod.sandboxes) {
      if (!s.ready) continue; // stopping a stopped sandbox is a no-op in the fake runtime
      const err = yield* this.runtime.stopPodSandbox(uid);
      if (err !== undefined) {
        errs.push(`failed to "KillPodSandbox" for "${uid}" with KillPodSandboxError: "${err.message}"`);
      }
    }
    this.publish({ kind: 'killPodFinished', atMs: this.sim.nowMs, node: this.nodeName, uid, pod: name });
    return aggregate(errs);
  }

  /** killContainer's grace period: deletion grace, else spec, min 2 s, then the override wins. */
  effectiveGracePeriod(
    pod: Pod | undefined,
    runningPod: RuntimePod,
    gracePeriodOverride: number | undefined,
  ): number {
    let gracePeriod = minimumGracePeriodInSeconds;
    if (pod !== undefined) {
      if (pod.metadata.deletionGracePeriodSeconds !== undefined)
        gracePeriod = pod.metadata.deletionGracePeriodSeconds;
      else if (pod.spec.terminationGracePeriodSeconds !== undefined)
        gracePeriod = pod.spec.terminationGracePeriodSeconds;
    } else {
      // restoreSpecsFromContainerLabels: only the spec's terminationGracePeriod label survives.
      const labels = this.runtime.getPodMeta(runningPod.id);
      if (labels?.terminationGracePeriodSeconds !== undefined)
        gracePeriod = labels.terminationGracePeriodSeconds;
    }
    if (gracePeriod < minimumGracePeriodInSeconds) gracePeriod = minimumGracePeriodInSeconds;
    if (gracePeriodOverride !== undefined) gracePeriod = gracePeriodOverride;
    if (!(gracePeriod >= 0)) throw new AssertionError(`negative effective grace period ${gracePeriod}`);
    return gracePeriod;
  }

  /**
   * getContainersToDeleteInPod (pod_container_deletor.go): the dead containers of the pod (only those
   * with the name of `filterContainerID`'s container, when given), newest first, beyond the newest
   * `containersToKeep`.
   */
  containersToDeleteInPod(
    uid: string,
    filterContainerID: string | undefined,
    containersToKeep: number,
  ): string[] {
    const status = this.runtime.getPodStatus(uid);
    const filterName =
      filterContainerID === undefined
        ? undefined
        : status.containerStatuses.find((c) => c.id === filterContainerID)?.name;
    if (filterContainerID !== undefined && filterName === undefined) return [];
    const dead = status.containerStatuses
      .filter((c) => c.state === 'exited' && (filterName === undefined || c.name === filterName))
      .sort((a, b) => (b.startedAtMs ?? -1) - (a.startedAtMs ?? -1) || (a.id < b.id ? 1 : -1));
    const byName = new Map<string, number>();
    const out: string[] = [];
    for (const c of dead) {
      const kept = byName.get(c.name) ?? 0;
      if (kept < containersToKeep) byName.set(c.name, kept + 1);
      else out.push(c.id);
    }
    return out;
  }

  *removeContainers(uid: string, ids: readonly string[]): Co<void> {
    for (const id of ids) yield* this.runtime.removeContainer(uid, id);
  }

  /** Container GC: remove exited containers of pods the predicate allows (kuberuntime_gc.go). */
  *removeDeadContainers(shouldRemove: (uid: string) => boolean): Co<void> {
    for (const uid of this.runtime.knownUIDs()) {
      if (!shouldRemove(uid)) continue;
      const status = this.runtime.getPodStatus(uid);
      for (const c of status.containerStatuses) {
        if (c.state === 'exited' || c.state === 'created') yield* this.runtime.removeContainer(uid, c.id);
      }
      if (!this.runtime.hasRunningContainers(uid) && status.sandboxStatuses.every((s) => !s.ready)) {
        yield* this.runtime.removePodSandbox(uid);
      }
    }
  }

  getPods(all: boolean): RuntimePod[] {
    return this.runtime.getPods(all);
  }
}
