// A fake container runtime (CRI-like) for one node: sandboxes and containers per pod UID, with
// latencies drawn from the seeded RNG. It is host state: it survives kubelet restarts. Every state change
// is published as a fact, so the invariant checkers see ground truth, not what the kubelet believes.
//
// Defaults (documented in docs/runtime.md): RunPodSandbox 100-300 ms, CreateContainer 10-50 ms,
// StartContainer 20-100 ms (+ the container's startDelay, + an injected containerStart delay; a start
// longer than the kubelet's 2 min runtime-request-timeout fails with DeadlineExceeded), Stop/Remove
// 10-50 ms. After SIGTERM a container's process exits within 100-800 ms with probability 1/2; otherwise
// it ignores SIGTERM and is SIGKILLed when the grace period ends.

import { GoError } from '../api/errors.js';
import type { RuntimeContainerState, RuntimePod, RuntimePodStatus, UID } from '../api/v1.js';
import { WRITES_RUNTIME } from '../elisionMasks.js';
import type { Fact } from '../facts.js';
import {
  AssertionError,
  assert,
  type Co,
  type Process,
  park,
  type Rng,
  type Sim,
  sleep,
} from '../sim/index.js';
import { containerNotFound } from './crierror.js';
import { RUNTIME_REQUEST_TIMEOUT_MS } from './runtimeRequestTimeout.js';
import { StopFaults } from './stopFaults.js';

export interface RuntimeContainerSpec {
  readonly name: string;
  readonly startDelayMs: number;
  /**
   * Its preStop hook's running time (the io.kubernetes.container.preStopHandler annotation: a kill without
   * the API pod restores the hook from it); undefined: no hook.
   */
  readonly preStopMs?: number | undefined;
}

export interface RuntimePodMeta {
  readonly uid: UID;
  readonly name: string;
  readonly namespace: string;
  /** name_namespace for a static pod, so overlap of two static pods can be seen. */
  readonly staticFullname?: string | undefined;
  /** The io.kubernetes.pod.terminationGracePeriod label: a kill without an API pod restores it. */
  readonly terminationGracePeriodSeconds?: number | undefined;
}

interface Container {
  readonly id: string;
  readonly name: string;
  state: RuntimeContainerState;
  exitCode: number | undefined;
  readonly createdAtMs: number;
  startedAtMs: number | undefined;
  finishedAtMs: number | undefined;
  /** How long the process takes to exit after SIGTERM; Infinity: it ignores SIGTERM. */
  readonly sigtermExitMs: number;
  /** Virtual ms at which the process will exit (a stop is in progress), or Infinity. */
  exitAtMs: number;
  /** Stops and preStop hooks waiting for this container's process to exit. */
  readonly stopWaiters: Process[];
  /** Its preStop hook's running time (annotation preStopHandler); undefined: no hook. */
  readonly preStopMs: number | undefined;
}

interface SandboxState {
  readonly id: string;
  ready: boolean;
}

interface PodEntry {
  readonly meta: RuntimePodMeta;
  sandbox: SandboxState | undefined;
  sandboxAttempt: number;
  /** By container ID: several attempts of one container name may coexist (old ones exited). */
  readonly containers: Map<string, Container>;
  readonly attempts: Map<string, number>;
  /** The runtime's version at this pod's last change (a relist skips a pod whose version it has seen). */
  version: number;
  /** GetPods(false)'s entry for the pod at `version` (null: not running), reused until the pod changes. */
  running: { version: number; pod: RuntimePod | null } | undefined;
}

/** An injected fault for the next container starts of a pod (scenario `fault.containerStart`). */
export interface ContainerStartFault {
  delayMs: number;
  error: string | undefined;
}

const SANDBOX_LATENCY_MS = [100, 300] as const;
const CREATE_LATENCY_MS = [10, 50] as const;
const START_LATENCY_MS = [20, 100] as const;
const STOP_REMOVE_LATENCY_MS = [10, 50] as const;
/** The longest a StopContainer call takes before its SIGTERM (grace-period-exceeded allows for it). */
export const STOP_CONTAINER_LATENCY_MS_MAX = STOP_REMOVE_LATENCY_MS[1];
const SIGTERM_EXIT_MS = [100, 800] as const;

/**
 * The node's mount namespaces as the runtime uses them: a container gets its own copy of the pod's
 * volume mounts when it is created (runc sets the namespace up before the process starts) and keeps the
 * filesystems open until its process is gone, whatever the host unmounts meanwhile; its block devices are
 * only device nodes until the process starts and opens them.
 */
export interface MountNamespaces {
  createNamespace(containerId: string, podUID: UID): void;
  /** The process runs: the block devices whose nodes the container got are opened. */
  startNamespace(containerId: string): void;
  destroyNamespace(containerId: string): void;
}

export class FakeRuntime {
  private readonly pods = new Map<UID, PodEntry>();
  private readonly startFaults = new Map<UID, ContainerStartFault>();
  /** Injected StopContainer failures (scenario `fault.stopContainer`). */
  readonly stopFaults = new StopFaults();
  /**
   * Bumped by every change of what a listing or a status shows: a relist or a runtime-cache refresh
   * that sees the same version sees the same runtime (elision, src/sim/elision.ts).
   */
  version = 0;
  /** Every UID the runtime knows, kept sorted (a relist walks it without sorting or copying). */
  private readonly sortedUIDs: UID[] = [];
  /** StartContainer requests under way: container ID -> the pod's UID (insertion order: the calls' order). */
  private readonly startsInFlight = new Map<string, UID>();

  constructor(
    private readonly sim: Sim,
    private readonly rng: Rng,
    readonly nodeName: string,
    private readonly publish: (fact: Fact) => void,
    private readonly namespaces?: MountNamespaces,
    /** The node's elision domain: a container's exit changes this node alone (src/sim/elision.ts). */
    private readonly domain = 0,
  ) {}

  injectContainerStartFault(uid: UID, fault: ContainerStartFault): void {
    this.startFaults.set(uid, fault);
  }

  /** The containerStart fault waiting for the pod's next container start, if any. */
  pendingStartFault(uid: UID): ContainerStartFault | undefined {
    return this.startFaults.get(uid);
  }

  // ---- CRI calls (each takes virtual time) ----

  *runPodSandbox(meta: RuntimePodMeta): Co<GoError | undefined> {
    yield* sleep(this.latency(SANDBOX_LATENCY_MS, 'RunPodSandbox'));
    const entry = this.entry(meta);
    entry.sandboxAttempt++;
    this.touched(entry);
    entry.sandbox = { id: `${meta.uid}/sandbox/${entry.sandboxAttempt}`, ready: true };
    this.publish({
      kind: 'sandboxCreated',
      atMs: this.sim.nowMs,
      node: this.nodeName,
      uid: meta.uid,
      pod: meta.name,
    });
    return undefined;
  }

  *stopPodSandbox(uid: UID): Co<GoError | undefined> {
    yield* sleep(this.latency(STOP_REMOVE_LATENCY_MS, 'StopPodSandbox'));
    const entry = this.pods.get(uid);
    if (entry === undefined) return undefined;
    if (entry.sandbox?.ready === true) this.sandboxDown(entry);
    this.touched(entry);
    return undefined;
  }

  /** A ready sandbox stops (the pause process and the pod's network go): ground truth for the checkers. */
  private sandboxDown(entry: PodEntry): void {
    if (entry.sandbox !== undefined) entry.sandbox.ready = false;
    this.publish({
      kind: 'sandboxStopped',
      atMs: this.sim.nowMs,
      node: this.nodeName,
      uid: entry.meta.uid,
      pod: entry.meta.name,
    });
  }

  *removePodSandbox(uid: UID): Co<GoError | undefined> {
    yield* sleep(this.latency(STOP_REMOVE_LATENCY_MS, 'RemovePodSandbox'));
    const entry = this.pods.get(uid);
    if (entry === undefined) return undefined;
    // CRI: "If there are any running containers in the sandbox, they must be forcibly terminated" and the
    // sandbox stopped first; the kubelet only removes stopped sandboxes, so this is never taken today.
    if (entry.sandbox?.ready === true) this.sandboxDown(entry);
    entry.sandbox = undefined;
    this.touched(entry);
    if (entry.containers.size === 0) this.forget(uid);
    return undefined;
  }

  *createContainer(meta: RuntimePodMeta, spec: RuntimeContainerSpec): Co<Result<string>> {
    yield* sleep(this.latency(CREATE_LATENCY_MS, 'CreateContainer'));
    const entry = this.entry(meta);
    if (entry.sandbox === undefined || !entry.sandbox.ready) {
      return { value: undefined, err: new GoError(`sandbox of pod ${meta.name} is not ready`) };
    }
    const attempt = (entry.attempts.get(spec.name) ?? 0) + 1;
    entry.attempts.set(spec.name, attempt);
    this.touched(entry);
    const c: Container = {
      id: `${meta.uid}/${spec.name}/${attempt}`,
      name: spec.name,
      state: 'created',
      exitCode: undefined,
      createdAtMs: this.sim.nowMs,
      startedAtMs: undefined,
      finishedAtMs: undefined,
      sigtermExitMs: this.rng.durationOrNeverMs(
        0.5,
        SIGTERM_EXIT_MS[0],
        SIGTERM_EXIT_MS[1],
        'exit after SIGTERM',
      ),
      exitAtMs: Number.POSITIVE_INFINITY,
      stopWaiters: [],
      preStopMs: spec.preStopMs,
    };
    entry.containers.set(c.id, c);
    this.namespaces?.createNamespace(c.id, meta.uid);
    this.publish({
      kind: 'containerCreated',
      atMs: this.sim.nowMs,
      node: this.nodeName,
      uid: meta.uid,
      pod: meta.name,
      container: spec.name,
    });
    return { value: c.id, err: undefined };
  }

  *startContainer(
    meta: RuntimePodMeta,
    spec: RuntimeContainerSpec,
    containerId: string,
  ): Co<GoError | undefined> {
    const fault = this.startFaults.get(meta.uid);
    const faultDelayMs = fault?.delayMs ?? 0;
    const startMs = this.latency(START_LATENCY_MS, 'StartContainer') + spec.startDelayMs + faultDelayMs;
    const timedOut = startMs > RUNTIME_REQUEST_TIMEOUT_MS;
    this.startsInFlight.set(containerId, meta.uid);
    yield* sleep(timedOut ? RUNTIME_REQUEST_TIMEOUT_MS : startMs);
    this.startsInFlight.delete(containerId);
    const started = this.pods.get(meta.uid);
    const c = started?.containers.get(containerId);
    if (started === undefined || c === undefined || c.state !== 'created') {
      return new GoError(`container ${spec.name} of pod ${meta.name} is not in created state`);
    }
    this.touched(started);
    if (fault?.error !== undefined || timedOut) {
      this.startFaults.delete(meta.uid);
      // containerd marks a container whose start failed exited (exit code 128, reason StartError); a start
      // cut off by the request's deadline failed the same way, its task created under that context.
      c.state = 'exited';
      c.exitCode = 128;
      c.finishedAtMs = this.sim.nowMs;
      this.namespaces?.destroyNamespace(c.id);
      const why = timedOut
        ? 'rpc error: code = DeadlineExceeded desc = context deadline exceeded'
        : (fault?.error ?? '');
      this.publish({
        kind: 'containerStartFailed',
        atMs: this.sim.nowMs,
        node: this.nodeName,
        uid: meta.uid,
        pod: meta.name,
        container: spec.name,
        error: why,
      });
      return new GoError(`failed to start container ${spec.name}: ${why}`);
    }
    if (fault !== undefined) this.startFaults.delete(meta.uid);
    c.state = 'running';
    c.startedAtMs = this.sim.nowMs;
    this.namespaces?.startNamespace(c.id);
    this.publish({
      kind: 'containerStarted',
      atMs: this.sim.nowMs,
      node: this.nodeName,
      uid: meta.uid,
      pod: meta.name,
      container: spec.name,
      staticFullname: meta.staticFullname,
    });
    return undefined;
  }

  /**
   * The kubelet process died: its gRPC connection closes, so every StartContainer it had under way is
   * cancelled. containerd's StartContainer fails with the request's context (its deferred cleanup deletes
   * the task runc had created and records the container exited, exit code 128, reason StartError), as for
   * a start cut off by the request's deadline: the container never runs and its namespace is gone. (The
   * kubelet's calls block in a coroutine of its process group, which a restart abandons.)
   */
  kubeletGone(): void {
    for (const [containerId, uid] of this.startsInFlight) {
      const entry = this.pods.get(uid);
      const c = entry?.containers.get(containerId);
      if (entry === undefined || c === undefined || c.state !== 'created') continue;
      this.touched(entry);
      c.state = 'exited';
      c.exitCode = 128;
      c.finishedAtMs = this.sim.nowMs;
      this.namespaces?.destroyNamespace(c.id);
      this.publish({
        kind: 'containerStartFailed',
        atMs: this.sim.nowMs,
        node: this.nodeName,
        uid,
        pod: entry.meta.name,
        container: c.name,
        error: 'rpc error: code = Canceled desc = context canceled',
      });
    }
    this.startsInFlight.clear();
  }

  /** StopContainer with a grace period: SIGTERM now, SIGKILL when the grace period ends. */
  *stopContainer(uid: UID, containerId: string, gracePeriodSeconds: number): Co<GoError | undefined> {
    if (!(gracePeriodSeconds >= 0)) throw new AssertionError(`negative grace period ${gracePeriodSeconds}`);
    yield* sleep(this.latency(STOP_REMOVE_LATENCY_MS, 'StopContainer'));
    const entry = this.pods.get(uid);
    const c = entry?.containers.get(containerId);
    // StopContainer is idempotent for a container the runtime still holds, but one it no longer holds
    // (removed by garbage collection or `crictl rm`) is NotFound, as containerd's container store answers.
    if (entry === undefined || c === undefined) return containerNotFound(containerId);
    const fault = this.stopFaults.fire(uid, c.name);
    if (fault !== undefined) {
      // removes: the container was removed under the kubelet just before the call reached the runtime,
      // so listings and statuses no longer show it and the call answers NotFound. Otherwise the runtime
      // did not stop it: no signal, the container runs on (the kubelet's kill fails).
      if (fault.removes) this.removeNow(entry, c);
      const err = fault.removes ? containerNotFound(c.id) : new GoError(fault.error);
      this.publish({
        kind: 'faultInjected',
        atMs: this.sim.nowMs,
        node: this.nodeName,
        fault: 'stopContainer',
        pod: entry.meta.name,
        uid,
        container: c.name,
        gracePeriodSeconds,
        error: err.message,
      });
      return err;
    }
    if (c.state === 'created') {
      this.exit(entry, c, 0);
      return undefined;
    }
    if (c.state !== 'running') return undefined;
    this.publish({
      kind: 'containerStopping',
      atMs: this.sim.nowMs,
      node: this.nodeName,
      uid,
      pod: entry.meta.name,
      container: c.name,
      gracePeriodSeconds,
    });
    const exitAtMs = this.sim.nowMs + Math.min(c.sigtermExitMs, gracePeriodSeconds * 1000);
    if (exitAtMs < c.exitAtMs) {
      c.exitAtMs = exitAtMs;
      const exitCode = c.sigtermExitMs <= gracePeriodSeconds * 1000 ? 143 : 137;
      this.sim.at(
        exitAtMs,
        () => {
          if (c.state === 'running' && c.exitAtMs === exitAtMs) this.exit(entry, c, exitCode);
        },
        this.domain,
        WRITES_RUNTIME,
      );
    }
    const self = this.sim.current;
    assert(self !== undefined, 'stopContainer outside a coroutine');
    c.stopWaiters.push(self);
    yield* park();
    return undefined;
  }

  /** The container's preStop hook as its annotations keep it (restoreSpecsFromContainerLabels). */
  preStopOf(uid: UID, containerId: string): number | undefined {
    return this.pods.get(uid)?.containers.get(containerId)?.preStopMs;
  }

  /**
   * The preStop hook's exec (the kubelet's handler runner: ExecSync of the hook's command in the
   * container): it runs for the hook's time, or until the container's process exits, which ends every
   * exec in it. Fails at once for a container that is not running.
   */
  *execPreStopHook(uid: UID, containerId: string): Co<GoError | undefined> {
    const entry = this.pods.get(uid);
    const c = entry?.containers.get(containerId);
    if (entry === undefined || c === undefined || c.state !== 'running' || c.preStopMs === undefined) {
      return new GoError(`container ${containerId} is not running`);
    }
    this.publish({
      kind: 'preStopHookStarted',
      atMs: this.sim.nowMs,
      node: this.nodeName,
      uid,
      pod: entry.meta.name,
      container: c.name,
    });
    const self = this.sim.current;
    assert(self !== undefined, 'execPreStopHook outside a coroutine');
    // The hook's own end: wakes the exec unless the container's exit woke it first (it has returned
    // then, and a finished process is not woken).
    this.sim.at(
      this.sim.nowMs + c.preStopMs,
      () => {
        if (self.state === 'blocked') this.sim.unpark(self, undefined);
      },
      this.domain,
      WRITES_RUNTIME,
    );
    c.stopWaiters.push(self);
    yield* park();
    return c.state === 'running'
      ? undefined
      : new GoError(`container ${containerId} exited during its preStop hook`);
  }

  *removeContainer(uid: UID, containerId: string): Co<GoError | undefined> {
    yield* sleep(this.latency(STOP_REMOVE_LATENCY_MS, 'RemoveContainer'));
    const entry = this.pods.get(uid);
    const c = entry?.containers.get(containerId);
    if (entry === undefined || c === undefined) return undefined;
    if (c.state === 'running') return new GoError(`cannot remove running container ${c.id}`);
    entry.containers.delete(containerId);
    this.touched(entry);
    this.namespaces?.destroyNamespace(c.id);
    this.publish({
      kind: 'containerRemoved',
      atMs: this.sim.nowMs,
      node: this.nodeName,
      uid,
      pod: entry.meta.name,
      container: c.name,
    });
    if (entry.containers.size === 0 && entry.sandbox === undefined) this.forget(uid);
    return undefined;
  }

  /**
   * The container is removed at once, as `crictl rm -f` does: a running process is killed (SIGKILL, exit
   * 137), then the runtime forgets the container, so ListContainers and the pod's status no longer have it.
   */
  private removeNow(entry: PodEntry, c: Container): void {
    if (c.state === 'running' || c.state === 'created') this.exit(entry, c, 137);
    entry.containers.delete(c.id);
    this.touched(entry);
    this.namespaces?.destroyNamespace(c.id);
    this.publish({
      kind: 'containerRemoved',
      atMs: this.sim.nowMs,
      node: this.nodeName,
      uid: entry.meta.uid,
      pod: entry.meta.name,
      container: c.name,
    });
    if (entry.containers.size === 0 && entry.sandbox === undefined) this.forget(entry.meta.uid);
  }

  // ---- scenario actions on the host ----

  /** The container's process exits on its own (scenario `crashContainer`), with `exitCode` (1: it failed). */
  crashContainer(uid: UID, name: string | undefined, exitCode = 1): boolean {
    const entry = this.pods.get(uid);
    if (entry === undefined) return false;
    for (const c of entry.containers.values()) {
      if ((name === undefined || c.name === name) && c.state === 'running') {
        this.exit(entry, c, exitCode);
        return true;
      }
    }
    return false;
  }

  // ---- listings (instant: they read state; the PLEG adds the lag) ----

  /** kubecontainer GetPods(all): every pod the runtime knows, with its containers and sandbox. */
  getPods(all: boolean): RuntimePod[] {
    const out: RuntimePod[] = [];
    for (const entry of this.pods.values()) {
      // The runtime cache lists running pods every few seconds: an unchanged pod's listing is reused.
      if (!all && entry.running?.version === entry.version) {
        if (entry.running.pod !== null) out.push(entry.running.pod);
        continue;
      }
      const containers = [...entry.containers.values()]
        .filter((c) => all || c.state === 'running')
        .map((c) => ({ id: c.id, name: c.name, state: c.state }));
      const sandboxes =
        entry.sandbox !== undefined && (all || entry.sandbox.ready)
          ? [{ id: entry.sandbox.id, ready: entry.sandbox.ready }]
          : [];
      if (!all && containers.length === 0 && sandboxes.length === 0) {
        entry.running = { version: entry.version, pod: null };
        continue;
      }
      const pod: RuntimePod = {
        id: entry.meta.uid,
        name: entry.meta.name,
        namespace: entry.meta.namespace,
        containers,
        sandboxes,
      };
      if (!all) entry.running = { version: entry.version, pod };
      out.push(pod);
    }
    return out;
  }

  getPodStatus(uid: UID): RuntimePodStatus {
    const entry = this.pods.get(uid);
    if (entry === undefined) {
      return {
        id: uid,
        name: '',
        namespace: '',
        containerStatuses: [],
        sandboxStatuses: [],
        timestampMs: this.sim.nowMs,
      };
    }
    return {
      id: uid,
      name: entry.meta.name,
      namespace: entry.meta.namespace,
      containerStatuses: [...entry.containers.values()].map((c) => ({
        id: c.id,
        name: c.name,
        state: c.state,
        exitCode: c.exitCode,
        createdAtMs: c.createdAtMs,
        startedAtMs: c.startedAtMs,
        finishedAtMs: c.finishedAtMs,
      })),
      sandboxStatuses:
        entry.sandbox === undefined ? [] : [{ id: entry.sandbox.id, ready: entry.sandbox.ready }],
      timestampMs: this.sim.nowMs,
    };
  }

  /** The labels the runtime keeps for a pod (what a kill without an API object restores). */
  getPodMeta(uid: UID): RuntimePodMeta | undefined {
    return this.pods.get(uid)?.meta;
  }

  hasRunningContainers(uid: UID): boolean {
    const entry = this.pods.get(uid);
    if (entry === undefined) return false;
    for (const c of entry.containers.values()) if (c.state === 'running') return true;
    return false;
  }

  /** UIDs the runtime knows, sorted so that callers iterate deterministically. */
  knownUIDs(): UID[] {
    return [...this.sortedUIDs];
  }

  /** The same, without a copy: for a caller that does not yield while it walks them (a relist). */
  knownUIDsView(): readonly UID[] {
    return this.sortedUIDs;
  }

  /** The runtime's version at the pod's last change, -1 if the runtime does not know it. */
  podVersion(uid: UID): number {
    return this.pods.get(uid)?.version ?? -1;
  }

  private touched(entry: PodEntry): void {
    // Every change of a pod's containers or sandbox comes here: a goroutine that changes the runtime
    // only at times (the container GC) is a writer of it only then (Process.footprintWriteMask).
    this.sim.touchFootprint(WRITES_RUNTIME);
    this.version++;
    entry.version = this.version;
  }

  private forget(uid: UID): void {
    this.pods.delete(uid);
    this.sortedUIDs.splice(this.sortedIndex(uid), 1);
  }

  /** Where `uid` is or would go in sortedUIDs (code-unit order, as Array.prototype.sort's default). */
  private sortedIndex(uid: UID): number {
    let lo = 0;
    let hi = this.sortedUIDs.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.sortedUIDs[mid] as UID) < uid) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private exit(entry: PodEntry, c: Container, exitCode: number): void {
    const wasRunning = c.state === 'running';
    this.touched(entry);
    c.state = 'exited';
    c.exitCode = exitCode;
    c.finishedAtMs = this.sim.nowMs;
    c.exitAtMs = Number.POSITIVE_INFINITY;
    // The namespace dies with the container's process (or its init, for one that never started).
    this.namespaces?.destroyNamespace(c.id);
    if (wasRunning) {
      this.publish({
        kind: 'containerExited',
        atMs: this.sim.nowMs,
        node: this.nodeName,
        uid: entry.meta.uid,
        pod: entry.meta.name,
        container: c.name,
        exitCode,
      });
    }
    const waiters = c.stopWaiters.splice(0);
    for (const p of waiters) if (p.state === 'blocked') this.sim.unpark(p, undefined);
  }

  private entry(meta: RuntimePodMeta): PodEntry {
    let entry = this.pods.get(meta.uid);
    if (entry === undefined) {
      entry = {
        meta,
        sandbox: undefined,
        sandboxAttempt: 0,
        containers: new Map(),
        attempts: new Map(),
        version: 0,
        running: undefined,
      };
      this.pods.set(meta.uid, entry);
      this.sortedUIDs.splice(this.sortedIndex(meta.uid), 0, meta.uid);
      this.touched(entry);
    }
    return entry;
  }

  private latency(range: readonly [number, number], what: string): number {
    return this.rng.latencyMs(range[0], range[1], what);
  }
}

export type Result<T> = { value: T; err: undefined } | { value: undefined; err: GoError };
