// Whether a node's kubelet is up at the end of a run, and since when: what the end-of-run liveness checks
// (volume-in-use-after-unmount, mirror-pod-missing, pod-phase-not-terminal) need before they blame the
// kubelet for something it had time to do. A node whose shutdown started is never counted up: its
// kubelet is taking everything down.
import type { Fact, FactKind } from '../facts.js';

export const KUBELET_UPTIME_KINDS = [
  'kubeletStarted',
  'kubeletStopped',
  'nodeShutdownStarted',
] as const satisfies readonly FactKind[];

export class KubeletUptime {
  /** node -> its kubelet's last start, while it runs. */
  readonly #running = new Map<string, number>();
  readonly #shutDown = new Set<string>();

  /** Takes one of KUBELET_UPTIME_KINDS; any other fact is ignored. */
  onFact(f: Fact): void {
    if (f.kind === 'kubeletStarted') this.#running.set(f.node, f.atMs);
    else if (f.kind === 'kubeletStopped') this.#running.delete(f.node);
    else if (f.kind === 'nodeShutdownStarted') this.#shutDown.add(f.node);
  }

  /** When the node's kubelet last started, if it runs now and the node's shutdown never started. */
  upSinceMs(node: string): number | undefined {
    return this.#shutDown.has(node) ? undefined : this.#running.get(node);
  }
}
