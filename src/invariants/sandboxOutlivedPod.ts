// sandbox-outlived-pod (liveness, judged when the run ends): a pod sandbox that is still ready on its
// node's runtime at the end, although the pod left the API server (or its static manifest was removed)
// long enough ago for the kubelet to have killed it: the bound, 2 min, plus the pod's grace period, counted
// from the later of that moment, the sandbox's creation and the start of the node's kubelet now running.
// Upstream: KillPod -> killPodWithSyncResult (pkg/kubelet/kuberuntime/kuberuntime_manager.go, release-1.20
// to 1.31) stops every container and then "Stop all sandboxes belongs to same pod", returning an error
// (so the kill is retried) if a StopPodSandbox fails; and housekeeping (HandlePodCleanups, every 2 s) kills
// any runtime pod that the pod manager does not know, and GetPods(false) lists a pod whose sandbox is ready
// even with no container running. The container GC removes only sandboxes that are not ready, so a sandbox
// the kill skipped keeps the pod's network namespace, its IP and pause process on the node for ever.
// Judged from ground truth: the runtime's sandboxCreated / sandboxStopped and the API server's pod facts.
// Not judged: a node whose kubelet is down at the end or whose shutdown started.
import type { Fact, FactKind } from '../facts.js';
import { secs } from './format.js';
import { KUBELET_UPTIME_KINDS, KubeletUptime } from './kubeletUptime.js';
import type { Checker, Violation } from './types.js';

/**
 * How long after a pod left (beyond its grace period) its sandbox may still be ready: housekeeping's 2 s
 * period, the pod worker's kill and a failed kill's error back-off (10 s with jitter), the runtime's
 * StopContainer / StopPodSandbox latencies and a kubelet that restarted meanwhile (its first housekeeping
 * waits for the sources to be ready); 2 min, rounded up generously.
 */
export const SANDBOX_STOP_BOUND_MS = 2 * 60_000;

type Left = Extract<Fact, { kind: 'apiPodDeleted' | 'apiPodDeletionRequested' }>;
type SandboxCreated = Extract<Fact, { kind: 'sandboxCreated' }>;

interface PodInfo {
  readonly static: boolean;
  /** The longest grace period anyone gave the pod (its spec, a deletion request, an eviction). */
  graceS: number;
  /** The moment the pod left: an API pod's removal, a static pod's manifest removal. */
  left: Left | undefined;
}

export class SandboxOutlivedPod implements Checker {
  readonly id = 'sandbox-outlived-pod';
  readonly kinds: readonly FactKind[] = [
    ...KUBELET_UPTIME_KINDS,
    'apiPodCreated',
    'apiPodDeleted',
    'apiPodDeletionRequested',
    'podEvictionRequested',
    'sandboxCreated',
    'sandboxStopped',
  ];
  readonly #pods = new Map<string, PodInfo>();
  /** `node\0uid` -> the creation of the sandbox that is ready now. */
  readonly #ready = new Map<string, SandboxCreated>();
  readonly #uptime = new KubeletUptime();

  onFact(f: Fact): void {
    switch (f.kind) {
      case 'apiPodCreated': {
        // A static pod put back from the same manifest reuses its UID: a new lifecycle, not gone.
        this.#pods.set(f.uid, { static: f.static, graceS: f.gracePeriodSeconds, left: undefined });
        return;
      }
      case 'apiPodDeletionRequested': {
        const p = this.#pods.get(f.uid);
        if (p === undefined) return;
        p.graceS = Math.max(p.graceS, f.gracePeriodSeconds);
        // A static pod's deletion is its manifest's removal: it leaves the pod manager at once.
        if (p.static) p.left ??= f;
        return;
      }
      case 'podEvictionRequested': {
        // An eviction's override may be longer than the spec's grace; the kill it started runs that long.
        const p = this.#pods.get(f.uid);
        if (p !== undefined) p.graceS = Math.max(p.graceS, f.gracePeriodSeconds);
        return;
      }
      case 'apiPodDeleted': {
        const p = this.#pods.get(f.uid);
        if (p !== undefined) p.left ??= f;
        return;
      }
      case 'sandboxCreated':
        this.#ready.set(`${f.node}\u0000${f.uid}`, f);
        return;
      case 'sandboxStopped':
        this.#ready.delete(`${f.node}\u0000${f.uid}`);
        return;
      default:
        this.#uptime.onFact(f);
        return;
    }
  }

  onEnd(endMs: number, report: (v: Violation) => void): void {
    for (const sandbox of this.#ready.values()) {
      const p = this.#pods.get(sandbox.uid);
      const left = p?.left;
      if (p === undefined || left === undefined) continue;
      const upSinceMs = this.#uptime.upSinceMs(sandbox.node);
      if (upSinceMs === undefined) continue;
      const fromMs = Math.max(left.atMs, sandbox.atMs, upSinceMs);
      const dueMs = fromMs + p.graceS * 1000 + SANDBOX_STOP_BOUND_MS;
      if (endMs < dueMs) continue;
      const how =
        left.kind === 'apiPodDeleted'
          ? `left the API server at ${secs(left.atMs)} (${left.by === 'kubelet' ? 'deleted by its kubelet' : 'force-deleted'})`
          : `had its static manifest removed at ${secs(left.atMs)}`;
      report({
        invariant: this.id,
        atMs: endMs,
        node: sandbox.node,
        pod: sandbox.pod,
        uid: sandbox.uid,
        volume: null,
        message:
          `pod ${sandbox.pod} (uid ${sandbox.uid}) ${how}, but its sandbox on ${sandbox.node} (created at ` +
          `${secs(sandbox.atMs)}) is still ready at the end (${secs(endMs)}; due stopped by ${secs(dueMs)}, ` +
          `grace ${p.graceS}s, its kubelet up since ${secs(upSinceMs)}): KillPod stops every sandbox of the pod ` +
          'and housekeeping kills any runtime pod the pod manager no longer has',
        causes: [sandbox, left],
      });
    }
  }
}
