// grace-period-not-honoured: the runtime SIGKILLed a container sooner after its first SIGTERM than the
// shortest grace period anyone asked for that pod. The rule is upstream's: every kill of a pod runs with
// the grace the pod worker computed in calculateEffectiveGracePeriod (pod_workers.go, release-1.23: the
// API's deletionGracePeriodSeconds, a shorter override of the eviction or shutdown manager, else the spec's
// terminationGracePeriodSeconds; "gracePeriod can only decrease"; never below 1 s) and killContainer
// (kuberuntime_container.go: deletion grace, else spec, at least minimumGracePeriodInSeconds, then the
// override wins) hands it to StopContainer. So a container is never SIGKILLed before the smallest of those
// requests has passed since it was first asked to stop: its first SIGTERM, or the preStop hook that preceded
// it (preStopHookStarted), which the grace covers too (#115835). The only lawful shortening the requests do not show
// is HandlePodCleanups' 1-second kill of an orphaned pod (kubelet_pods.go: "This termination is aggressive
// because all known pods should already be in a known state ... pods that were orphaned due to kubelet
// restart or bugs"): a pod that left its source (API object gone, static manifest removed) before the
// kubelet process that kills it started, or whose REMOVE that process dropped (podRemoveDropped).
//
// Reads ground truth: containerStopping (the runtime's SIGTERM) and containerExited with code 137 (the
// runtime's SIGKILL when the stop's grace ran out); the requests come from the API server
// (apiPodCreated's spec grace, apiPodDeletionRequested, a force delete), the scenario's eviction request
// (podEvictionRequested) and the node's shutdown (min(spec, the non-critical share of ShutdownGracePeriod)).
import type { Fact, FactKind } from '../facts.js';
import { secs } from './format.js';
import type { Checker, Violation } from './types.js';

/** Exit code of a process killed by SIGKILL (128 + 9), as the runtime reports a stop that ran out of grace. */
const SIGKILL_EXIT_CODE = 137;
/** HandlePodCleanups' override for orphaned runtime pods (kubelet_pods.go, `one := int64(1)`). */
const ORPHAN_KILL_GRACE_SECONDS = 1;
/** killPodStarted's source for a kill of a runtime pod (syncTerminatingPod with a RunningPod). */
const RUNTIME_POD_KILL_SOURCE = 'syncTerminatingPod (runtime pod)';

interface PodState {
  readonly node: string;
  readonly specGraceSeconds: number;
  /** The shortest grace requested so far (deletion, force delete, eviction, shutdown) and its fact. */
  requested: { readonly seconds: number; readonly what: string; readonly fact: Fact } | undefined;
  /** When the pod left its source (API object deleted, static manifest removed). */
  leftSourceAtMs: number | undefined;
  removeDropped: boolean;
  readonly created: Fact;
}

/** A container's first SIGTERM since it last started, with the pod lifecycle that sent it. */
interface Sigterm {
  readonly fact: Extract<Fact, { kind: 'containerStopping' }>;
  /** The preStop hook that preceded it in the same kill: the grace counts from the hook's start. */
  readonly hook: Fact | undefined;
  readonly life: PodState;
}

export class GracePeriodNotHonoured implements Checker {
  readonly id = 'grace-period-not-honoured';
  readonly kinds: readonly FactKind[] = [
    'apiPodCreated',
    'apiPodDeletionRequested',
    'apiPodDeleted',
    'podEvictionRequested',
    'nodeShutdownStarted',
    'podRemoveDropped',
    'kubeletStarted',
    'containerStarted',
    'preStopHookStarted',
    'killPodStarted',
    'killPodFinished',
    'containerStopping',
    'containerExited',
  ];
  readonly #pods = new Map<string, PodState>();
  /**
   * uid -> container name -> its first SIGTERM. Kept across a UID's lifecycles: a container still
   * stopping when a static pod is put back from the same manifest is judged by the lifecycle that stopped it.
   */
  readonly #sigterms = new Map<string, Map<string, Sigterm>>();
  /** `uid/container` -> the preStop hook begun since the container last started and before its SIGTERM. */
  readonly #hooks = new Map<string, Fact>();
  /** node -> when its running kubelet process started. */
  readonly #kubeletStartMs = new Map<string, number>();
  /**
   * uid -> the lifecycle a kill in progress was started for. A static pod put back from the same manifest
   * while the kubelet still kills the old one (an orphan's 1 s kill) gets the UID's next apiPodCreated
   * before that kill's SIGTERMs: they belong to the lifecycle the kill began in.
   */
  readonly #killLife = new Map<string, PodState>();
  /** uid -> the lifecycle before the current one (a static pod put back from the same manifest). */
  readonly #previous = new Map<string, PodState>();

  onFact(f: Fact, report: (v: Violation) => void): void {
    switch (f.kind) {
      case 'apiPodCreated': {
        // A new lifecycle (a static pod put back from the same manifest reuses its UID) asks afresh.
        const before = this.#pods.get(f.uid);
        if (before !== undefined) this.#previous.set(f.uid, before);
        this.#pods.set(f.uid, {
          node: f.node,
          specGraceSeconds: f.gracePeriodSeconds,
          requested: undefined,
          leftSourceAtMs: undefined,
          removeDropped: false,
          created: f,
        });
        return;
      }
      case 'apiPodDeletionRequested': {
        const p = this.#pods.get(f.uid);
        if (p === undefined) return;
        this.#request(p, f.gracePeriodSeconds, `the deletion at ${secs(f.atMs)}`, f);
        // A static pod's deletion is the removal of its manifest: it left its source.
        if (p.created.kind === 'apiPodCreated' && p.created.static) p.leftSourceAtMs ??= f.atMs;
        return;
      }
      case 'apiPodDeleted': {
        const p = this.#pods.get(f.uid);
        if (p === undefined) return;
        if (f.by === 'user-force') this.#request(p, 0, `the force delete at ${secs(f.atMs)}`, f);
        p.leftSourceAtMs ??= f.atMs;
        return;
      }
      case 'podEvictionRequested': {
        const p = this.#pods.get(f.uid);
        if (p !== undefined) this.#request(p, f.gracePeriodSeconds, `the eviction at ${secs(f.atMs)}`, f);
        return;
      }
      case 'nodeShutdownStarted': {
        const max = f.podGracePeriodSeconds;
        for (const p of this.#pods.values()) {
          if (p.node !== f.node) continue;
          this.#request(p, Math.min(p.specGraceSeconds, max), `the node shutdown at ${secs(f.atMs)}`, f);
        }
        return;
      }
      case 'podRemoveDropped': {
        const p = this.#pods.get(f.uid);
        if (p !== undefined) p.removeDropped = true;
        return;
      }
      case 'kubeletStarted':
        this.#kubeletStartMs.set(f.node, f.atMs);
        return;
      case 'containerStarted':
        this.#sigterms.get(f.uid)?.delete(f.container);
        this.#hooks.delete(`${f.uid}/${f.container}`);
        return;
      case 'preStopHookStarted': {
        // The grace period counts from the hook's start: the hook is part of the container's stop.
        const key = `${f.uid}/${f.container}`;
        if (!this.#hooks.has(key)) this.#hooks.set(key, f);
        return;
      }
      case 'killPodStarted': {
        if (this.#killLife.has(f.uid)) return;
        let life = this.#pods.get(f.uid);
        // A runtime pod's kill is HandlePodCleanups' of a pod its pod manager did not have: if the UID's
        // current lifecycle was put back (the API or the manifest) after the previous one was orphaned,
        // the containers it stops are the orphan's (with #113145's queue the kill starts only after the
        // put-back pod was admitted, behind it at the same instant).
        const previous = this.#previous.get(f.uid);
        if (
          f.source === RUNTIME_POD_KILL_SOURCE &&
          life !== undefined &&
          previous !== undefined &&
          !this.#orphaned(life, f.node) &&
          this.#orphaned(previous, f.node)
        )
          life = previous;
        if (life !== undefined) this.#killLife.set(f.uid, life);
        return;
      }
      case 'killPodFinished':
        this.#killLife.delete(f.uid);
        return;
      case 'containerStopping': {
        const life = this.#killLife.get(f.uid) ?? this.#pods.get(f.uid);
        if (life === undefined) return;
        let byName = this.#sigterms.get(f.uid);
        if (byName === undefined) {
          byName = new Map();
          this.#sigterms.set(f.uid, byName);
        }
        if (!byName.has(f.container))
          byName.set(f.container, { fact: f, hook: this.#hooks.get(`${f.uid}/${f.container}`), life });
        return;
      }
      case 'containerExited': {
        if (f.exitCode !== SIGKILL_EXIT_CODE) return;
        const byName = this.#sigterms.get(f.uid);
        const term = byName?.get(f.container);
        if (byName === undefined || term === undefined) return;
        byName.delete(f.container);
        this.#judge(term, f, report);
        return;
      }
      default:
        return;
    }
  }

  onEnd(): void {}

  /** It left its source before the node's running kubelet process started, or that process dropped its REMOVE. */
  #orphaned(p: PodState, node: string): boolean {
    const startedMs = this.#kubeletStartMs.get(node);
    return (
      p.leftSourceAtMs !== undefined &&
      (p.removeDropped || (startedMs !== undefined && startedMs >= p.leftSourceAtMs))
    );
  }

  #request(p: PodState, seconds: number, what: string, fact: Fact): void {
    if (p.requested === undefined || seconds < p.requested.seconds) p.requested = { seconds, what, fact };
  }

  #judge(
    sigterm: Sigterm,
    kill: Extract<Fact, { kind: 'containerExited' }>,
    report: (v: Violation) => void,
  ): void {
    const p = sigterm.life;
    const term = sigterm.fact;
    let owedSeconds = p.requested?.seconds ?? p.specGraceSeconds;
    let why = p.requested?.what ?? "the spec's terminationGracePeriodSeconds";
    // The kubelet process running now sent the stop that ran out (or a later one than the SIGTERM's).
    if (this.#orphaned(p, kill.node) && ORPHAN_KILL_GRACE_SECONDS < owedSeconds) {
      owedSeconds = ORPHAN_KILL_GRACE_SECONDS;
      why = 'HandlePodCleanups for an orphaned pod';
    }
    const since = sigterm.hook ?? term;
    const elapsedMs = kill.atMs - since.atMs;
    if (elapsedMs >= owedSeconds * 1000) return;
    const causes: Fact[] = [p.created];
    if (p.requested !== undefined) causes.push(p.requested.fact);
    if (sigterm.hook !== undefined) causes.push(sigterm.hook);
    causes.push(term, kill);
    report({
      invariant: this.id,
      atMs: kill.atMs,
      node: kill.node,
      pod: kill.pod,
      uid: kill.uid,
      volume: null,
      message:
        `container ${kill.pod}/${kill.container} (uid ${kill.uid}) was SIGKILLed at ${secs(kill.atMs)}, ` +
        `${secs(elapsedMs)} after ${sigterm.hook === undefined ? '' : `its preStop hook began at ${secs(since.atMs)}, before `}its SIGTERM at ${secs(term.atMs)} (StopContainer grace ` +
        `${term.gracePeriodSeconds}s), though the shortest grace period asked for the pod is ${owedSeconds}s ` +
        `(${why})`,
      causes,
    });
  }
}
