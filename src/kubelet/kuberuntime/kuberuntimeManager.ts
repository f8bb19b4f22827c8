// Ported from kubernetes pkg/kubelet/kuberuntime/kuberuntime_manager.go and kuberuntime_container.go,
// release-1.23 (SyncPod / computePodActions, KillPod / killContainer): the kubelet's side of the CRI.
// Simplified to what the races need: no init or ephemeral containers, no image pulls, no probes.

import { GoError } from '../../api/errors.js';
import {
  emptyRuntimePodStatus,
  findContainerStatusByName,
  getPodFullName,
  isStaticPod,
  type Pod,
  type RuntimePod,
  type RuntimePodStatus,
  type UID,
} from '../../api/v1.js';
import { WRITES_RUNTIME } from '../../elisionMasks.js';
import type { Fact } from '../../facts.js';
import { isNotFound } from '../../runtime/crierror.js';
import type { FakeRuntime, RuntimePodMeta } from '../../runtime/fakeRuntime.js';
import {
  AssertionError,
  type Chan,
  CLOSED,
  type Co,
  type ProcessGroup,
  type Sim,
  select,
} from '../../sim/index.js';
import { Backoff } from '../util/backoff.js';

/** minimumGracePeriodInSeconds in kuberuntime_container.go. */
export const minimumGracePeriodInSeconds = 2;
/** The kubelet's crash-loop back-off: 10 s doubling to 5 min (kubelet.go backOffPeriod / MaxContainerBackOff). */
const backOffPeriodMs = 10_000;
const maxContainerBackOffMs = 300_000;

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

/** podActions: what SyncPod does (no init or ephemeral containers, no per-container kills: no probes). */
export interface PodActions {
  /** Stop every running container and the sandbox first (killPodWithSyncResult). */
  readonly killPod: boolean;
  readonly createSandbox: boolean;
  /** 0 for the first sandbox, else the previous sandbox's attempt + 1 (only whether it is 0 matters here). */
  readonly attempt: number;
  /** Indices into pod.spec.containers. */
  readonly containersToStart: readonly number[];
}

/** podSandboxChanged: a new sandbox is needed when there is none, or the newest one is not ready. */
function podSandboxChanged(podStatus: RuntimePodStatus): { changed: boolean; attempt: number } {
  const newest = podStatus.sandboxStatuses[0];
  if (newest === undefined) return { changed: true, attempt: 0 };
  // The fake runtime keeps one sandbox per pod: "more than one ready" cannot happen, and neither can a
  // changed network namespace or a missing IP.
  if (!newest.ready) return { changed: true, attempt: 1 };
  return { changed: false, attempt: 0 };
}

/** shouldRestartOnFailure (kuberuntime_manager.go). */
function shouldRestartOnFailure(pod: Pod): boolean {
  return pod.spec.restartPolicy !== 'Never';
}

/** containerSucceeded (kuberuntime_manager.go): the newest attempt is not running and exited 0. */
function containerSucceeded(name: string, podStatus: RuntimePodStatus): boolean {
  const cs = findContainerStatusByName(podStatus, name);
  if (cs === undefined || cs.state === 'running') return false;
  return cs.exitCode === 0;
}

/** kubecontainer.ShouldContainerBeRestarted (container/helpers.go, release-1.20 and 1.23 alike). */
export function shouldContainerBeRestarted(pod: Pod, name: string, podStatus: RuntimePodStatus): boolean {
  // Once a pod has been marked deleted, it should not be restarted
  if (pod.metadata.deletionTimestamp !== undefined) return false;
  const status = findContainerStatusByName(podStatus, name);
  // If the container was never started before, we should start it.
  if (status === undefined) return true;
  if (status.state === 'running') return false;
  // Always restart container in the unknown, or in the created state.
  if (status.state === 'unknown' || status.state === 'created') return true;
  if (pod.spec.restartPolicy === 'Never') return false; // "Already ran container, do nothing"
  if (pod.spec.restartPolicy === 'OnFailure' && status.exitCode === 0) return false;
  return true;
}

/**
 * computePodActions (kuberuntime_manager.go, identical in release-1.20 and 1.23 for what is modelled):
 * a new sandbox kills the pod and starts every container again, except that a pod that must not restart
 * (restartPolicy Never) and has already created containers in an earlier sandbox gets no new sandbox:
 * it is only killed. With a ready sandbox, every container that is not running and may restart is
 * started; a pod with nothing to keep and nothing to start is killed (its sandbox stopped).
 */
export function computePodActions(pod: Pod, podStatus: RuntimePodStatus): PodActions {
  const { changed: createPodSandbox, attempt } = podSandboxChanged(podStatus);
  if (createPodSandbox) {
    if (!shouldRestartOnFailure(pod) && attempt !== 0 && podStatus.containerStatuses.length !== 0) {
      // Should not restart the pod, just return: no sandbox for a pod that is already done. (With no
      // container statuses we assume no container was ever created, and retry the sandbox.)
      return { killPod: true, createSandbox: false, attempt, containersToStart: [] };
    }
    // Get the containers to start, excluding the ones that succeeded if RestartPolicy is OnFailure.
    const containersToStart: number[] = [];
    pod.spec.containers.forEach((c, idx) => {
      if (pod.spec.restartPolicy === 'OnFailure' && containerSucceeded(c.name, podStatus)) return;
      containersToStart.push(idx);
    });
    // No sandbox for a pod whose (absent) init containers are done and has no container to start.
    if (containersToStart.length === 0) {
      return { killPod: true, createSandbox: false, attempt, containersToStart: [] };
    }
    return { killPod: true, createSandbox: true, attempt, containersToStart };
  }
  let keepCount = 0;
  const containersToStart: number[] = [];
  pod.spec.containers.forEach((c, idx) => {
    const status = findContainerStatusByName(podStatus, c.name);
    // If container does not exist, or is not running, check whether we need to restart it. (A container
    // in the unknown state would also be killed first; the fake runtime never reports one.)
    if (status === undefined || status.state !== 'running') {
      if (shouldContainerBeRestarted(pod, c.name, podStatus)) containersToStart.push(idx);
      return;
    }
    // Running: no spec hashes and no probes are modelled, so it is kept.
    keepCount++;
  });
  return {
    killPod: keepCount === 0 && containersToStart.length === 0,
    createSandbox: false,
    attempt,
    containersToStart,
  };
}

/** utilerrors.NewAggregate: nil for none, the error itself for one, `[a, b]` for several. */
/** What every container's kill of one KillPod shares. */
interface KillPlan {
  readonly runtime: FakeRuntime;
  readonly sim: Sim;
  readonly group: ProcessGroup;
  readonly uid: UID;
  readonly pod: Pod | undefined;
  /** The deletion's grace, else the spec's (setTerminationGracePeriod; restored from labels without a pod). */
  readonly baseGracePeriod: number;
  readonly gracePeriodOverride: number | undefined;
  /** #115835 (1.28): the override before the preStop hook, the 2 s minimum last. */
  readonly overrideBeforePreStop: boolean;
  /** #107670 (switch stop-container-not-found): a NotFound StopContainer counts as stopped. */
  readonly notFoundIsStopped: boolean;
  readonly done: Chan<GoError | undefined>;
}

/**
 * killContainer (kuberuntime_container.go): one container's goroutine of killContainersWithSyncResult.
 * Before #115835 the preStop hook ran within the deletion's (or the spec's) grace, the minimum came next
 * and the override last, replacing what the hook had left: since #102344 every kill of the pod worker
 * carries one, so a container with a hook got the hook's time on top of its grace (#115817). From 1.28 the
 * override comes first, the hook runs within it and is taken from it, and the 2 s minimum comes last. A
 * module function, not a generator closure per container: each generator function object gets a hidden
 * class of its own when first called, which keeps its whole closure alive past young-generation GCs.
 */
function* killContainer(plan: KillPlan, c: { readonly id: string; readonly name: string }): Co {
  const { runtime, uid, gracePeriodOverride } = plan;
  // containerSpec.Lifecycle.PreStop, from the pod, or restored from the container's annotations.
  const preStopMs =
    plan.pod === undefined
      ? runtime.preStopOf(uid, c.id)
      : plan.pod.spec.containers.find((k) => k.name === c.name)?.preStopMs;
  let gracePeriod = plan.baseGracePeriod;
  if (plan.overrideBeforePreStop) {
    if (gracePeriodOverride !== undefined) gracePeriod = gracePeriodOverride;
    if (preStopMs !== undefined && gracePeriod > 0)
      gracePeriod -= yield* executePreStopHook(plan, c, gracePeriod);
    if (gracePeriod < minimumGracePeriodInSeconds) gracePeriod = minimumGracePeriodInSeconds;
  } else {
    if (preStopMs !== undefined && gracePeriod > 0)
      gracePeriod -= yield* executePreStopHook(plan, c, gracePeriod);
    if (gracePeriod < minimumGracePeriodInSeconds) gracePeriod = minimumGracePeriodInSeconds;
    if (gracePeriodOverride !== undefined) gracePeriod = gracePeriodOverride;
  }
  const err = yield* runtime.stopContainer(uid, c.id, gracePeriod);
  // `if err != nil && !crierror.IsNotFound(err)`: a container the runtime no longer holds needs no stop.
  // Before #107670 the error was returned, so KillPod failed on a container that was already gone.
  const failed = err !== undefined && !(plan.notFoundIsStopped && isNotFound(err)) ? err : undefined;
  yield* plan.done.send(
    failed === undefined
      ? undefined
      : new GoError(`failed to "KillContainer" for "${c.name}" with KillContainerError: "${failed.message}"`),
  );
}

/**
 * executePreStopHook: the hook runs in a goroutine of its own, and the kill waits for it at most the grace
 * period ("PreStop hook not completed in grace period"), the hook running on if it is not done. Returns
 * the whole seconds it waited, truncated as upstream's int64(Sub(start).Seconds()).
 */
function* executePreStopHook(
  plan: KillPlan,
  c: { readonly id: string; readonly name: string },
  gracePeriodSeconds: number,
): Co<number> {
  const startMs = plan.sim.nowMs;
  const hookDone = plan.sim.chan<GoError | undefined>(1, 'preStopHook');
  const hook = plan.sim.spawn(
    `preStop ${c.id}`,
    runPreStopHook(plan.runtime, plan.uid, c.id, hookDone),
    plan.group,
  );
  hook.writeMask = WRITES_RUNTIME;
  yield* select([{ recv: hookDone as Chan<unknown> }], gracePeriodSeconds * 1000);
  return Math.trunc((plan.sim.nowMs - startMs) / 1000);
}

/** The hook's goroutine: the handler runner's exec, then its result to a buffered channel. */
function* runPreStopHook(
  runtime: FakeRuntime,
  uid: UID,
  containerId: string,
  done: Chan<GoError | undefined>,
): Co {
  const err = yield* runtime.execPreStopHook(uid, containerId);
  yield* done.send(err);
}

function aggregate(errs: readonly string[]): GoError | undefined {
  if (errs.length === 0) return undefined;
  if (errs.length === 1) return new GoError(errs[0] ?? '');
  return new GoError(`[${errs.join(', ')}]`);
}

export class KubeGenericRuntimeManager {
  /** kl.backOff: the crash-loop back-off of the kubelet process (a restarted kubelet starts afresh). */
  private readonly backOff: Backoff;

  constructor(
    private readonly sim: Sim,
    private readonly runtime: FakeRuntime,
    private readonly group: ProcessGroup,
    private readonly nodeName: string,
    private readonly publish: (fact: Fact) => void,
    /** #115835 (switch prestop-counts-against-grace): killContainer's order from 1.28 on. */
    private readonly overrideBeforePreStop: boolean,
    /** #107670 (switch stop-container-not-found): killContainer ignores a NotFound StopContainer. */
    private readonly notFoundIsStopped: boolean,
  ) {
    this.backOff = new Backoff(backOffPeriodMs, maxContainerBackOffMs, () => sim.nowMs);
  }

  /** GetPodStatus straight from the runtime (no cache), as syncTerminatingPod re-reads it. */
  getPodStatus(pod: Pod): RuntimePodStatus {
    return this.runtime.getPodStatus(pod.metadata.uid);
  }

  /**
   * SyncPod: make the runtime match the spec, from the (cached) status the pod worker handed in:
   * computePodActions, then kill (step 2), create the sandbox (step 4) and start the containers (step 7).
   * A failed start does not stop the others; the errors come back aggregated. A container in crash-loop
   * back-off is skipped without an error (kubelet.go syncPod returns none when only back-offs failed).
   */
  *syncPod(pod: Pod, podStatus: RuntimePodStatus | undefined): Co<GoError | undefined> {
    const meta = runtimeMetaOf(pod);
    const status = podStatus ?? emptyRuntimePodStatus(pod.metadata.uid, this.sim.nowMs);
    const changes = computePodActions(pod, status);
    const runningPod = convertPodStatusToRunningPod(status);
    // killPodWithSyncResult of a pod with no running container and no ready sandbox makes no runtime call
    // (a brand-new pod, or one whose sandbox already stopped): skipped, so it publishes no kill facts.
    if (changes.killPod && (runningPod.containers.length > 0 || runningPod.sandboxes.some((s) => s.ready))) {
      const err = yield* this.killPod(
        pod,
        runningPod,
        undefined,
        changes.createSandbox ? 'SyncPod: sandbox changed' : 'SyncPod: all containers dead',
      );
      if (err !== undefined) return err;
    }
    if (changes.createSandbox) {
      const err = yield* this.runtime.runPodSandbox(meta);
      if (err !== undefined) return err;
    }
    const errs: string[] = [];
    for (const idx of changes.containersToStart) {
      const spec = pod.spec.containers[idx];
      if (spec === undefined) continue;
      if (this.doBackOff(pod, spec.name, status)) continue; // ErrCrashLoopBackOff
      const containerSpec = {
        name: spec.name,
        startDelayMs: spec.startDelayMs ?? 0,
        preStopMs: spec.preStopMs,
      };
      const created = yield* this.runtime.createContainer(meta, containerSpec);
      const err =
        created.err ?? (yield* this.runtime.startContainer(meta, containerSpec, created.value ?? ''));
      if (err !== undefined) {
        errs.push(`failed to "StartContainer" for "${spec.name}" with RunContainerError: "${err.message}"`);
      }
    }
    return aggregate(errs);
  }

  /**
   * doBackOff: only a container with an exited attempt is checked, from that attempt's FinishedAt (the
   * newest exited one: the runtime lists the newest first); in back-off its start is skipped
   * (ErrCrashLoopBackOff), otherwise the window moves to its next mark.
   */
  private doBackOff(pod: Pod, name: string, podStatus: RuntimePodStatus): boolean {
    const exited = findContainerStatusByName(podStatus, name, (c) => c.state === 'exited');
    if (exited === undefined) return false;
    // Use the finished time of the latest exited container as the start point to calculate whether to do back-off.
    const ts = exited.finishedAtMs ?? 0;
    // getStableKey: the pod's UID and the container's name (its spec hash never changes here).
    const key = `${pod.metadata.uid}/${name}`;
    if (this.backOff.isInBackOffSince(key, ts)) return true;
    this.backOff.next(key, ts);
    return false;
  }

  /** kl.backOff.GC(): HandlePodCleanups forgets the back-off of containers quiet for twice the maximum. */
  backOffGC(): void {
    this.backOff.gc();
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
      const plan: KillPlan = {
        runtime: this.runtime,
        sim: this.sim,
        group: this.group,
        uid,
        pod,
        baseGracePeriod: this.baseGracePeriod(pod, runningPod),
        gracePeriodOverride,
        overrideBeforePreStop: this.overrideBeforePreStop,
        notFoundIsStopped: this.notFoundIsStopped,
        done,
      };
      for (const c of containers) {
        const killer = this.sim.spawn(`killContainer ${c.id}`, killContainer(plan, c), this.group);
        // It stops one container and reports to the killer (elision: src/elisionMasks.ts).
        killer.writeMask = WRITES_RUNTIME;
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

  /**
   * killContainer's grace period for a container without a preStop hook: the deletion's grace, else the
   * spec's, then the 2 s minimum and the override, in the release's order (#115835: a 1 s override stays
   * 1 s before 1.28 and is raised to 2 s from it).
   */
  effectiveGracePeriod(
    pod: Pod | undefined,
    runningPod: RuntimePod,
    gracePeriodOverride: number | undefined,
  ): number {
    let gracePeriod = this.baseGracePeriod(pod, runningPod);
    if (this.overrideBeforePreStop && gracePeriodOverride !== undefined) gracePeriod = gracePeriodOverride;
    if (gracePeriod < minimumGracePeriodInSeconds) gracePeriod = minimumGracePeriodInSeconds;
    if (!this.overrideBeforePreStop && gracePeriodOverride !== undefined) gracePeriod = gracePeriodOverride;
    if (!(gracePeriod >= 0)) throw new AssertionError(`negative effective grace period ${gracePeriod}`);
    return gracePeriod;
  }

  /** setTerminationGracePeriod: the deletion's grace, else the spec's (restored from labels without a pod). */
  private baseGracePeriod(pod: Pod | undefined, runningPod: RuntimePod): number {
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
      // containerStatusbyCreatedList: newest CreatedAt first (an attempt whose start failed never started,
      // yet it is the newest: sorting by StartedAt would delete it and keep an older one).
      .sort((a, b) => (b.createdAtMs ?? -1) - (a.createdAtMs ?? -1) || (a.id < b.id ? 1 : -1));
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
