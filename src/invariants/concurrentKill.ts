// concurrent-kill: a second kill of the same pod UID starts in the runtime (killPodStarted, any node)
// before an earlier one returned (killPodFinished). Catches #40474 (and #101376, #101524, #98424): the
// pre-#102344 podKiller and HandlePodCleanups killing a pod the worker is already killing.
import type { Fact, FactKind } from '../facts.js';
import { secs } from './format.js';
import type { Checker, Violation } from './types.js';

type KillStarted = Extract<Fact, { kind: 'killPodStarted' }>;

export class ConcurrentKill implements Checker {
  readonly id = 'concurrent-kill';
  readonly kinds: readonly FactKind[] = ['killPodFinished', 'killPodStarted', 'kubeletStopped'];
  /** uid -> kills started and not yet finished, oldest first. */
  readonly #inFlight = new Map<string, KillStarted[]>();

  onFact(f: Fact, report: (v: Violation) => void): void {
    if (f.kind === 'kubeletStopped') {
      // The process died with its KillPod calls: a kill by the next kubelet process is not concurrent.
      for (const [uid, kills] of this.#inFlight) {
        const alive = kills.filter((k) => k.node !== f.node);
        if (alive.length === 0) this.#inFlight.delete(uid);
        else this.#inFlight.set(uid, alive);
      }
      return;
    }
    if (f.kind === 'killPodFinished') {
      this.#inFlight.get(f.uid)?.shift();
      return;
    }
    if (f.kind !== 'killPodStarted') return;
    let kills = this.#inFlight.get(f.uid);
    if (kills === undefined) {
      kills = [];
      this.#inFlight.set(f.uid, kills);
    }
    const earlier = kills[0];
    if (earlier !== undefined) {
      report({
        invariant: this.id,
        atMs: f.atMs,
        node: f.node,
        pod: f.pod,
        uid: f.uid,
        volume: null,
        message:
          `a kill of pod ${f.pod} (uid ${f.uid}) started at ${secs(f.atMs)} (${f.source}, grace ` +
          `${f.gracePeriodSeconds}s) while the kill started at ${secs(earlier.atMs)} (${earlier.source}, grace ` +
          `${earlier.gracePeriodSeconds}s) has not returned`,
        causes: [earlier, f],
      });
    }
    kills.push(f);
  }

  onEnd(): void {}
}
