// node-shutdown-marked-failed: after a graceful node shutdown started on node N (nodeShutdownStarted),
// a restartable pod on N is published with phase Failed (apiPodPhase phase=Failed restartable=true; the
// fact's node is the pod's node). Catches the pre-#102344 shutdown manager, which set Failed (reason
// Shutdown) on pods it killed. Upstream later restored that behaviour (#106900); the simulator follows
// #102344 as merged, so with the fix on this must not fire.
import type { Fact } from '../facts.js';
import { secs } from './format.js';
import type { Checker, Violation } from './types.js';

type Shutdown = Extract<Fact, { kind: 'nodeShutdownStarted' }>;

export class NodeShutdownMarkedFailed implements Checker {
  readonly id = 'node-shutdown-marked-failed';
  /** node -> the first nodeShutdownStarted there. */
  readonly #shutdowns = new Map<string, Shutdown>();

  onFact(f: Fact, report: (v: Violation) => void): void {
    if (f.kind === 'nodeShutdownStarted') {
      if (!this.#shutdowns.has(f.node)) this.#shutdowns.set(f.node, f);
      return;
    }
    // The shutdown status function's reason is "Shutdown"; a pod Failed for another reason (an eviction,
    // a crash with restartPolicy Never) was not marked Failed by the shutdown.
    if (f.kind !== 'apiPodPhase' || f.phase !== 'Failed' || !f.restartable || f.reason !== 'Shutdown') return;
    const shutdown = this.#shutdowns.get(f.node);
    if (shutdown === undefined) return;
    report({
      invariant: this.id,
      atMs: f.atMs,
      node: f.node,
      pod: f.pod,
      uid: f.uid,
      volume: null,
      message:
        `graceful shutdown of ${f.node} (started at ${secs(shutdown.atMs)}) marked restartable pod ${f.pod} ` +
        `(uid ${f.uid}) Failed at ${secs(f.atMs)}${f.reason === undefined ? '' : ` (reason ${f.reason})`}`,
      causes: [shutdown, f],
    });
  }

  onEnd(): void {}
}
