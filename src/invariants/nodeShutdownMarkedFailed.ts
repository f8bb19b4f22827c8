// node-shutdown-marked-failed (a finding, not a violation): after a graceful node shutdown started on
// node N (nodeShutdownStarted), a restartable pod on N is published with phase Failed by the shutdown
// manager (apiPodPhase phase=Failed restartable=true with the shutdown's reason: "Shutdown" in
// release-1.20, "Terminated" since #102840). Release-1.20 and -1.21 did this, PR #102344 stopped it
// (issue #104531 calls that a regression) and #106899 / #106900 / #106901 restored it: it records which
// behaviour a kubelet has (fix node-shutdown-failed-phase), so it is reported as a finding.
import type { Fact, FactKind } from '../facts.js';
import { secs } from './format.js';
import type { Checker, Violation } from './types.js';

type Shutdown = Extract<Fact, { kind: 'nodeShutdownStarted' }>;

export class NodeShutdownMarkedFailed implements Checker {
  readonly id = 'node-shutdown-marked-failed';
  readonly kinds: readonly FactKind[] = ['apiPodPhase', 'nodeShutdownStarted'];
  /** node -> the first nodeShutdownStarted there. */
  readonly #shutdowns = new Map<string, Shutdown>();

  onFact(f: Fact, report: (v: Violation) => void): void {
    if (f.kind === 'nodeShutdownStarted') {
      if (!this.#shutdowns.has(f.node)) this.#shutdowns.set(f.node, f);
      return;
    }
    // The shutdown status function's reason is "Shutdown"; a pod Failed for another reason (an eviction,
    // a crash with restartPolicy Never) was not marked Failed by the shutdown.
    if (f.kind !== 'apiPodPhase' || f.phase !== 'Failed' || !f.restartable) return;
    if (f.reason !== 'Shutdown' && f.reason !== 'Terminated') return;
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
