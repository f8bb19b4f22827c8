// mirror-pod-missing (liveness, judged when the run ends): a static pod runs on a node (a container of it
// running, its manifest on the node's disk, its kubelet up) while the API server holds no mirror pod of it
// (a mirror pod whose config-mirror annotation names this static pod's UID), and that has lasted
// MIRROR_BOUND_MS. Upstream's syncPod (pkg/kubelet/kubelet.go, release-1.23 and release-1.20) keeps the
// mirror pod, a static pod's only face in the API server, in step on every sync: "Create Mirror Pod for
// Static Pod if it doesn't already exist", after deleting one that is being deleted or that
// IsMirrorPodOf says mirrors another version ("The mirror pod is semantically different from the static
// pod. Remove it."). Judged from ground truth: the API server's mirror pod creates and deletes, the
// manifests on disk and the runtime's containers. Not judged: a static pod whose termination was
// requested (its manifest removed, an eviction, a kill, its node's shutdown).
import type { Fact, FactKind } from '../facts.js';
import { secs } from './format.js';
import { KUBELET_UPTIME_KINDS, KubeletUptime } from './kubeletUptime.js';
import type { Checker, Violation } from './types.js';

/**
 * How long a running static pod may lack its mirror: the pod worker's resync (resyncInterval 1 min with
 * jitter 0.5: at most 90 s) or an error back-off, then the API call; 3 min, rounded up.
 */
export const MIRROR_BOUND_MS = 3 * 60_000;

type Created = Extract<Fact, { kind: 'apiPodCreated' }>;

interface StaticPod {
  readonly created: Created;
  terminating: boolean;
  /** Running containers (name -> since). */
  readonly running: Map<string, number>;
  /** Since when it has had a running container without a break (undefined: none runs). */
  runningSinceMs: number | undefined;
  /** Live mirror pods of it (their own UIDs). */
  readonly mirrors: Set<string>;
  /** When it last lost its last mirror (0: never had one). */
  mirrorlessSinceMs: number;
}

export class MirrorPodMissing implements Checker {
  readonly id = 'mirror-pod-missing';
  readonly kinds: readonly FactKind[] = [
    ...KUBELET_UPTIME_KINDS,
    'apiPodCreated',
    'apiPodDeletionRequested',
    'containerExited',
    'containerRemoved',
    'containerStarted',
    'mirrorPod',
    'podEvictionRequested',
    'podTerminationRequested',
  ];
  /** static uid -> its state (the current lifecycle). */
  readonly #pods = new Map<string, StaticPod>();
  readonly #uptime = new KubeletUptime();

  onFact(f: Fact): void {
    switch (f.kind) {
      case 'apiPodCreated': {
        if (!f.static) return;
        const old = this.#pods.get(f.uid);
        // A manifest put back with its old UID: a new lifecycle, but the API keeps the mirror it had.
        this.#pods.set(f.uid, {
          created: f,
          terminating: false,
          running: old?.running ?? new Map(),
          runningSinceMs: old?.runningSinceMs,
          mirrors: old?.mirrors ?? new Set(),
          mirrorlessSinceMs: old?.mirrorlessSinceMs ?? f.atMs,
        });
        return;
      }
      case 'apiPodDeletionRequested':
      case 'podEvictionRequested':
      case 'podTerminationRequested': {
        const p = this.#pods.get(f.uid);
        if (p !== undefined) p.terminating = true;
        return;
      }
      case 'containerStarted': {
        const p = this.#pods.get(f.uid);
        if (p === undefined) return;
        if (p.running.size === 0) p.runningSinceMs = f.atMs;
        p.running.set(f.container, f.atMs);
        return;
      }
      case 'containerExited':
      case 'containerRemoved': {
        const p = this.#pods.get(f.uid);
        if (p === undefined) return;
        p.running.delete(f.container);
        if (p.running.size === 0) p.runningSinceMs = undefined;
        return;
      }
      case 'mirrorPod': {
        const p = this.#pods.get(f.staticUid);
        if (p === undefined) return;
        if (f.op === 'created') {
          p.mirrors.add(f.uid);
        } else if (p.mirrors.delete(f.uid) && p.mirrors.size === 0) {
          p.mirrorlessSinceMs = f.atMs;
        }
        return;
      }
      default:
        this.#uptime.onFact(f);
        return;
    }
  }

  onEnd(endMs: number, report: (v: Violation) => void): void {
    for (const [uid, p] of this.#pods) {
      if (p.terminating || p.mirrors.size > 0 || p.runningSinceMs === undefined) continue;
      const node = p.created.node;
      const kubeletSinceMs = this.#uptime.upSinceMs(node);
      if (kubeletSinceMs === undefined) continue;
      const sinceMs = Math.max(p.runningSinceMs, kubeletSinceMs, p.mirrorlessSinceMs, p.created.atMs);
      if (endMs - sinceMs < MIRROR_BOUND_MS) continue;
      report({
        invariant: this.id,
        atMs: endMs,
        node,
        pod: p.created.pod,
        uid,
        volume: null,
        message:
          `static pod ${p.created.pod} (uid ${uid}) runs on ${node} with no mirror pod in the API server at ` +
          `the end (${secs(endMs)}): a container running since ${secs(p.runningSinceMs)}, ` +
          `${p.mirrorlessSinceMs > p.created.atMs ? `its last mirror deleted at ${secs(p.mirrorlessSinceMs)}` : 'no mirror of it ever created'}, ` +
          `the kubelet up since ${secs(kubeletSinceMs)}: syncPod creates a static pod's mirror on every sync`,
        causes: [p.created],
      });
    }
  }
}
