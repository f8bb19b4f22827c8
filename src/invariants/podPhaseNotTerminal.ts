// pod-phase-not-terminal (liveness, judged when the run ends): an API pod whose containers have all ended
// for good by its restart policy (Never: every container exited or failed to start; OnFailure: every
// container exited 0), none of them stopped by the kubelet, has not reached Failed or Succeeded in the
// API server POD_PHASE_BOUND_MS later, while its node's kubelet ran. Upstream: the kubelet's getPhase
// (pkg/kubelet/kubelet_pods.go, release-1.23 and release-1.20) makes such a pod Succeeded (every
// container exited 0) or Failed, syncPod hands the status to the status manager (SetPodStatus), which
// patches it at once and retries every syncPeriod (10 s). A pod that never reports its end keeps its
// controller (a Job) waiting for ever and its volumes attached. Judged from ground truth: the runtime's
// container starts and exits and the API server's phase. Not judged: a static pod (its status goes to
// its mirror pod), a pod whose deletion or eviction was requested, one the kubelet stopped a container
// of, a node whose kubelet is down at the end or whose shutdown started.
import type { Fact, FactKind } from '../facts.js';
import { secs } from './format.js';
import { KUBELET_UPTIME_KINDS, KubeletUptime } from './kubeletUptime.js';
import type { Checker, Violation } from './types.js';

/**
 * How long after the last container's end the API may still show a running phase: PLEG's relist (1 s),
 * the pod worker's sync (or its error back-off, 10 s with jitter) and the status manager's patch, retried
 * every 10 s, with the API server's latency; 2 min, rounded up generously.
 */
export const POD_PHASE_BOUND_MS = 2 * 60_000;

type Created = Extract<Fact, { kind: 'apiPodCreated' }>;

interface PodState {
  readonly created: Created;
  /** Container name -> its newest attempt's exit code (absent: running or never ended). */
  readonly ended: Map<string, number>;
  /** The moment the pod's containers had all ended for good (undefined: not yet, or not any more). */
  doneAtMs: number | undefined;
  /** The fact that completed it. */
  doneBy: Fact | undefined;
  excused: boolean;
  terminal: boolean;
}

export class PodPhaseNotTerminal implements Checker {
  readonly id = 'pod-phase-not-terminal';
  readonly kinds: readonly FactKind[] = [
    ...KUBELET_UPTIME_KINDS,
    'apiPodCreated',
    'apiPodDeletionRequested',
    'apiPodPhase',
    'containerExited',
    'containerStartFailed',
    'containerStarted',
    'containerStopping',
    'podEvictionRequested',
  ];
  readonly #pods = new Map<string, PodState>();
  readonly #uptime = new KubeletUptime();

  onFact(f: Fact): void {
    switch (f.kind) {
      case 'apiPodCreated':
        if (f.static || f.restartPolicy === 'Always') return;
        this.#pods.set(f.uid, {
          created: f,
          ended: new Map(),
          doneAtMs: undefined,
          doneBy: undefined,
          excused: false,
          terminal: false,
        });
        return;
      case 'apiPodDeletionRequested':
      case 'podEvictionRequested':
      case 'containerStopping': {
        const p = this.#pods.get(f.uid);
        if (p !== undefined) p.excused = true;
        return;
      }
      case 'apiPodPhase': {
        const p = this.#pods.get(f.uid);
        if (p !== undefined && (f.phase === 'Failed' || f.phase === 'Succeeded')) p.terminal = true;
        return;
      }
      case 'containerStarted': {
        const p = this.#pods.get(f.uid);
        if (p === undefined) return;
        p.ended.delete(f.container);
        p.doneAtMs = undefined;
        p.doneBy = undefined;
        return;
      }
      case 'containerExited':
      case 'containerStartFailed': {
        const p = this.#pods.get(f.uid);
        if (p === undefined) return;
        p.ended.set(f.container, f.kind === 'containerExited' ? f.exitCode : 128);
        if (p.doneAtMs === undefined && this.#done(p)) {
          p.doneAtMs = f.atMs;
          p.doneBy = f;
        }
        return;
      }
      default:
        this.#uptime.onFact(f);
        return;
    }
  }

  /** Every container of the spec ended, and the restart policy restarts none of them. */
  #done(p: PodState): boolean {
    for (const c of p.created.containers) {
      const code = p.ended.get(c);
      if (code === undefined) return false;
      if (p.created.restartPolicy === 'OnFailure' && code !== 0) return false;
    }
    return true;
  }

  onEnd(endMs: number, report: (v: Violation) => void): void {
    for (const [uid, p] of this.#pods) {
      if (p.terminal || p.excused || p.doneAtMs === undefined || p.doneBy === undefined) continue;
      const node = p.created.node;
      const kubeletSinceMs = this.#uptime.upSinceMs(node);
      if (kubeletSinceMs === undefined) continue;
      const sinceMs = Math.max(p.doneAtMs, kubeletSinceMs);
      if (endMs - sinceMs < POD_PHASE_BOUND_MS) continue;
      const codes = [...p.created.containers].map((c) => `${c}=${p.ended.get(c)}`).join(', ');
      report({
        invariant: this.id,
        atMs: endMs,
        node,
        pod: p.created.pod,
        uid,
        volume: null,
        message:
          `pod ${p.created.pod} (uid ${uid}, restartPolicy ${p.created.restartPolicy}) has had every container ` +
          `ended for good since ${secs(p.doneAtMs)} (exit codes ${codes}) but the API server still shows no ` +
          `Failed or Succeeded phase at the end (${secs(endMs)}), its kubelet up since ${secs(kubeletSinceMs)}: ` +
          'getPhase makes such a pod terminal and the status manager patches it',
        causes: [p.created, p.doneBy],
      });
    }
  }
}
