// grace-period-increased: a kill of a pod starts (killPodStarted) with a longer grace period than an
// earlier kill of the same UID already used (the smallest earlier gracePeriodSeconds). Catches #101376's
// legacy sequence: an eviction's kill at 1 s, then a housekeeping kill with no override at the spec's
// 30 s. Only kills that started count: upstream #115819 (an override of 0 becomes the spec's value
// before any kill starts) is reproduced and is not this violation. Kills are compared within one
// lifecycle of the UID: the release-1.23 pod worker keeps the grace it used in the pod's podSyncStatus
// (pod_workers.go, "gracePeriod can only decrease"), and once the pod is finished that status drops no
// later update and is then purged or restarted (#104847), so the next lifecycle's kills start afresh.
import type { Fact, FactKind } from '../facts.js';
import { secs } from './format.js';
import type { Checker, Violation } from './types.js';

type KillStarted = Extract<Fact, { kind: 'killPodStarted' }>;

export class GracePeriodIncreased implements Checker {
  readonly id = 'grace-period-increased';
  readonly kinds: readonly FactKind[] = [
    'apiPodCreated',
    'killPodStarted',
    'kubeletStopped',
    'podWorkerPhase',
  ];
  /** uid -> the earliest kill with the smallest grace period so far. */
  readonly #shortest = new Map<string, KillStarted>();

  onFact(f: Fact, report: (v: Violation) => void): void {
    if (f.kind === 'kubeletStopped') {
      // A grace override that never reached the API (an eviction's) dies with the kubelet process; the
      // invariant judges the kills of one kubelet process against each other.
      for (const [uid, k] of [...this.#shortest]) if (k.node === f.node) this.#shortest.delete(uid);
      return;
    }
    if (f.kind === 'podWorkerPhase') {
      // The lifecycle is over: a static pod put back with its UID (#104847) is killed by a new one.
      if (f.phase === 'finished') this.#shortest.delete(f.uid);
      return;
    }
    if (f.kind === 'apiPodCreated') {
      // A static pod put back from the same manifest reuses its UID (#104847): a new pod, new kills.
      this.#shortest.delete(f.uid);
      return;
    }
    if (f.kind !== 'killPodStarted') return;
    const min = this.#shortest.get(f.uid);
    if (min === undefined || f.gracePeriodSeconds < min.gracePeriodSeconds) {
      this.#shortest.set(f.uid, f);
      return;
    }
    if (f.gracePeriodSeconds <= min.gracePeriodSeconds) return;
    report({
      invariant: this.id,
      atMs: f.atMs,
      node: f.node,
      pod: f.pod,
      uid: f.uid,
      volume: null,
      message:
        `a kill of pod ${f.pod} (uid ${f.uid}) started at ${secs(f.atMs)} with grace period ` +
        `${f.gracePeriodSeconds}s (${f.source}), longer than the ${min.gracePeriodSeconds}s an earlier kill ` +
        `already used at ${secs(min.atMs)} (${min.source})`,
      causes: [min, f],
    });
  }

  onEnd(): void {}
}
