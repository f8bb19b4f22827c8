// grace-period-exceeded: the runtime was told to stop a container (StopContainer, containerStopping) with a
// LONGER grace period than the kubelet had been asked for the pod by the requests that had reached it when
// the kill started. The counterpart of grace-period-not-honoured (a kill too short). The rule is
// upstream's (release-1.23): pod_workers.go calculateEffectiveGracePeriod ("gracePeriod can only
// decrease": the API's DeletionGracePeriodSeconds and a KillPodOptions.PodTerminationGracePeriodSecondsOverride
// of the eviction manager, the node shutdown manager or HandlePodCleanups' orphan kill win only when
// shorter; never below 1 s), and kuberuntime_container.go killContainer (deletion grace, else the spec's,
// at least minimumGracePeriodInSeconds = 2, THEN the override replaces it). Since #102344 the pod worker
// always passes the grace it settled on down as the override, so a terminating pod is stopped with
// exactly that grace (1 s stays 1 s); a kill with no override (release-1.20's podKiller and syncPod
// deletion, SyncPod's own kills, and #113145's replay of an orphan's last update, which publishes no
// podKillDispatched) gets the 2 s minimum. From 1.28 (#115835) killContainer applies the override first,
// runs the container's preStop hook within it, takes the whole seconds it waited from it and applies the
// 2 s minimum last; so the rule is upstream's fixed one: a 1 s grace may reach StopContainer as 2 s, a
// hook (preStopHookStarted) may run only within the grace, and StopContainer gets at most what it left.
//
// Reads ground truth: containerStopping (what the runtime was told); the requests: apiPodCreated's spec
// grace, podDeletionDelivered (the node's kubelet watch delivered the pod marked for deletion with its
// deletionGracePeriodSeconds: a request counts from its delivery, not from the API call, so a kubelet that
// is down or not yet reached is not judged by it), podEvictionRequested, nodeShutdownStarted (min(spec,
// the non-critical share of ShutdownGracePeriod)) and, for an orphan (the pod left its source before the
// running kubelet process started), HandlePodCleanups' 1 s. killPodStarted only marks when a kill's grace
// was computed: requests that reach the kubelet later bind the next kill, not this one. A force delete's
// 0 makes upstream fall back to the spec's grace (#115819, 1.22 to 1.30; #124063 makes it 1 s from 1.31,
// which this release-independent bound does not require), so it bounds nothing; a hard eviction's 0 means
// at once (1 s, eviction_manager.go's constant since #124063), its fallback before that fix being the
// known-open hazard hard-eviction-full-grace. Requests that never reached the API (evictions, shutdown) die with the kubelet process.
import type { Fact, FactKind } from '../facts.js';
import { STOP_CONTAINER_LATENCY_MS_MAX } from '../runtime/fakeRuntime.js';
import { secs } from './format.js';
import type { Checker, Violation } from './types.js';

/** killContainer's minimumGracePeriodInSeconds (kuberuntime_container.go). */
const MINIMUM_GRACE_PERIOD_SECONDS = 2;
/** eviction_manager.go immediateEvictionGracePeriodSeconds: what a hard eviction means (#124063). */
const IMMEDIATE_EVICTION_GRACE_SECONDS = 1;
/** HandlePodCleanups' override for orphaned runtime pods (kubelet_pods.go, `one := int64(1)`). */
const ORPHAN_KILL_GRACE_SECONDS = 1;

/** A request that reached the running kubelet process: a deletion grace, an override, or a 0 (#115819). */
interface Request {
  readonly kind: 'deletion' | 'override' | 'zero';
  readonly seconds: number;
  readonly what: string;
  readonly fact: Fact;
}

interface Life {
  readonly node: string;
  readonly static: boolean;
  readonly specGraceSeconds: number;
  readonly created: Fact;
  /**
   * What the running kubelet process was asked, in order: deletion graces delivered, overrides (eviction,
   * node shutdown), requests of 0 (force delete, hard eviction: upstream falls back to the spec, #115819).
   */
  readonly requests: Request[];
  /** When the pod left its source (API object removed, static manifest removed). */
  leftSourceAtMs: number | undefined;
  /** A container of it ran on its node (the node shutdown kills the pods the kubelet runs). */
  ran: boolean;
}

/** The most a kill may tell the runtime, computed when the kill started. */
interface Allowed {
  readonly seconds: number;
  readonly why: string;
  readonly causes: readonly Fact[];
}

export class GracePeriodExceeded implements Checker {
  readonly id = 'grace-period-exceeded';
  readonly kinds: readonly FactKind[] = [
    'apiPodCreated',
    'apiPodDeletionRequested',
    'apiPodDeleted',
    'podDeletionDelivered',
    'podEvictionRequested',
    'nodeShutdownStarted',
    'kubeletStarted',
    'kubeletStopped',
    'containerStarted',
    'podKillDispatched',
    'killPodStarted',
    'killPodFinished',
    'preStopHookStarted',
    'containerStopping',
  ];
  readonly #lives = new Map<string, Life>();
  /** uid -> the bound of the kill under way (killPodStarted .. killPodFinished). */
  readonly #kills = new Map<string, Allowed>();
  /** uid -> when the kill under way started. */
  readonly #killStartMs = new Map<string, number>();
  /** `uid/container` -> the preStop hook of its kill under way, not yet followed by a SIGTERM. */
  readonly #hooks = new Map<string, Fact>();
  /** node -> when its running kubelet process started. */
  readonly #kubeletStartMs = new Map<string, number>();
  /** uid -> the bound of the kill the pod worker handed its goroutine last (podKillDispatched). */
  readonly #dispatched = new Map<string, Allowed>();

  onFact(f: Fact, report: (v: Violation) => void): void {
    switch (f.kind) {
      case 'apiPodCreated':
        this.#lives.set(f.uid, {
          node: f.node,
          static: f.static,
          specGraceSeconds: f.gracePeriodSeconds,
          created: f,
          requests: [],
          leftSourceAtMs: undefined,
          ran: false,
        });
        this.#kills.delete(f.uid);
        this.#dispatched.delete(f.uid);
        return;
      case 'apiPodDeletionRequested': {
        // A static pod's deletion is the removal of its manifest (the kubelet kills it with the spec's
        // grace): it left its source. An API pod's request counts when it is delivered.
        const p = this.#lives.get(f.uid);
        if (p?.static === true) p.leftSourceAtMs ??= f.atMs;
        return;
      }
      case 'apiPodDeleted': {
        const p = this.#lives.get(f.uid);
        if (p !== undefined) p.leftSourceAtMs ??= f.atMs;
        return;
      }
      case 'podDeletionDelivered': {
        const p = this.#lives.get(f.uid);
        if (p === undefined || p.node !== f.node) return;
        this.#ask(p, 'deletion', f.gracePeriodSeconds, `the deletion delivered at ${secs(f.atMs)}`, f);
        return;
      }
      case 'podEvictionRequested': {
        const p = this.#lives.get(f.uid);
        if (p === undefined) return;
        if (f.gracePeriodSeconds <= 0) {
          // A hard eviction means "at once": the eviction manager's own constant since #124063. Its 0
          // becoming the spec's grace is #115819 (hazard hard-eviction-full-grace), not a rule.
          const what = `the hard eviction at ${secs(f.atMs)} (override 0: at once, #115819)`;
          this.#ask(p, 'override', IMMEDIATE_EVICTION_GRACE_SECONDS, what, f);
          return;
        }
        this.#ask(p, 'override', f.gracePeriodSeconds, `the eviction at ${secs(f.atMs)}`, f);
        return;
      }
      case 'nodeShutdownStarted': {
        const max = f.podGracePeriodSeconds;
        for (const p of this.#lives.values()) {
          // processShutdownEvent kills the pods of the pod manager: not one that left its source already.
          if (p.node !== f.node || !p.ran || p.leftSourceAtMs !== undefined) continue;
          const s = Math.min(p.specGraceSeconds, max);
          this.#ask(p, 'override', s, `the node shutdown at ${secs(f.atMs)}`, f);
        }
        return;
      }
      case 'kubeletStarted':
        this.#kubeletStartMs.set(f.node, f.atMs);
        return;
      case 'kubeletStopped':
        // What the process was asked dies with it; the next one hears the API afresh (its LIST).
        for (const p of this.#lives.values()) {
          if (p.node !== f.node) continue;
          p.requests.length = 0;
        }
        for (const [uid] of this.#kills) if (this.#lives.get(uid)?.node === f.node) this.#kills.delete(uid);
        for (const [uid] of this.#dispatched)
          if (this.#lives.get(uid)?.node === f.node) this.#dispatched.delete(uid);
        return;
      case 'containerStarted': {
        const p = this.#lives.get(f.uid);
        if (p !== undefined && p.node === f.node) p.ran = true;
        return;
      }
      case 'podKillDispatched': {
        const p = this.#lives.get(f.uid);
        if (p !== undefined && p.node === f.node) this.#dispatched.set(f.uid, this.#allowed(p, f, true));
        return;
      }
      case 'killPodStarted': {
        const p = this.#lives.get(f.uid);
        if (p === undefined || p.node !== f.node) return;
        // A kill the pod worker was handed carries its grace as the override; any other (release-1.20's
        // podKiller and syncPod deletion, SyncPod's own kills) has none and is bound now.
        const dispatched = this.#dispatched.get(f.uid);
        this.#dispatched.delete(f.uid);
        this.#kills.set(f.uid, dispatched ?? this.#allowed(p, f, false));
        this.#killStartMs.set(f.uid, f.atMs);
        return;
      }
      case 'killPodFinished':
        this.#kills.delete(f.uid);
        this.#killStartMs.delete(f.uid);
        return;
      case 'preStopHookStarted':
        this.#hooks.set(`${f.uid}/${f.container}`, f);
        return;
      case 'containerStopping': {
        const p = this.#lives.get(f.uid);
        const key = `${f.uid}/${f.container}`;
        const hookFact = this.#hooks.get(key);
        this.#hooks.delete(key);
        if (p === undefined || p.node !== f.node) return;
        // A container stopped outside a pod kill (SyncPod's killContainer): no override, the 2 s minimum.
        const allowed = this.#kills.get(f.uid) ?? this.#allowed(p, f, false);
        const killStartMs = this.#killStartMs.get(f.uid) ?? f.atMs;
        const hook = hookFact !== undefined && hookFact.atMs >= killStartMs ? hookFact : undefined;
        // The SIGTERM follows the hook by StopContainer's own latency at most: the kubelet stopped waiting
        // for the hook that much earlier, and counts the seconds it waited down to whole ones.
        const hookMs =
          hook === undefined ? 0 : Math.max(0, f.atMs - hook.atMs - STOP_CONTAINER_LATENCY_MS_MAX);
        if (hook !== undefined && hookMs > allowed.seconds * 1000) {
          report(
            this.#violation(
              f,
              allowed,
              hook,
              `was told to stop at ${secs(f.atMs)}, ${secs(f.atMs - hook.atMs)} after its preStop hook began at ` +
                `${secs(hook.atMs)}, though the kubelet had been asked for at most ${allowed.seconds}s ` +
                `(${allowed.why}): a kill waits for its hook only within the grace period (#115835)`,
            ),
          );
          return;
        }
        // The 2 s minimum comes last: it may raise a shorter grace (from 1.28 a 1 s override too).
        const bound = Math.max(MINIMUM_GRACE_PERIOD_SECONDS, allowed.seconds - Math.trunc(hookMs / 1000));
        if (f.gracePeriodSeconds <= bound) return;
        report(
          this.#violation(
            f,
            allowed,
            hook,
            `was told to stop at ${secs(f.atMs)} with a grace period of ${f.gracePeriodSeconds}s, though the ` +
              `kubelet had been asked for at most ${allowed.seconds}s (${allowed.why})` +
              (hook === undefined
                ? ''
                : ` and its preStop hook, begun at ${secs(hook.atMs)}, had taken ${Math.trunc(hookMs / 1000)}s of them (#115817)`),
          ),
        );
        return;
      }
      default:
        return;
    }
  }

  onEnd(): void {}

  #violation(
    f: Extract<Fact, { kind: 'containerStopping' }>,
    allowed: Allowed,
    hook: Fact | undefined,
    what: string,
  ): Violation {
    return {
      invariant: this.id,
      atMs: f.atMs,
      node: f.node,
      pod: f.pod,
      uid: f.uid,
      volume: null,
      message: `container ${f.pod}/${f.container} (uid ${f.uid}) ${what}`,
      causes: [...allowed.causes, ...(hook === undefined ? [] : [hook]), f],
    };
  }

  #ask(p: Life, kind: 'deletion' | 'override', seconds: number, what: string, fact: Fact): void {
    p.requests.push({ kind: seconds <= 0 ? 'zero' : kind, seconds, what, fact });
  }

  /**
   * The longest grace a kill settled now (`at`) may use (`podKill`: handed to the pod worker, with an
   * override). Only requests published before it count; one published at the same instant may have
   * reached the pod worker after it (the eviction manager's and the shutdown manager's goroutines run
   * later, a watch delivery waits for syncLoop), or before.
   */
  #allowed(p: Life, at: Fact, podKill: boolean): Allowed {
    // Those of the same instant reached the pod worker in order, some of them before it: the kill is
    // judged by the loosest of the prefixes.
    let n = 0;
    while (n < p.requests.length && (p.requests[n]?.fact.atMs ?? Number.POSITIVE_INFINITY) < at.atMs) n++;
    let loosest = this.#bound(p, at, podKill, n);
    for (let k = n + 1; k <= p.requests.length; k++) {
      const b = this.#bound(p, at, podKill, k);
      if (b.seconds > loosest.seconds) loosest = b;
    }
    return loosest;
  }

  /** The bound from the first `count` requests. */
  #bound(p: Life, at: Fact, podKill: boolean, count: number): Allowed {
    let deletion: Request | undefined;
    let override: Request | undefined;
    let zero: Request | undefined;
    for (let i = 0; i < count; i++) {
      const r = p.requests[i] as Request;
      if (r.kind === 'zero') zero ??= r;
      else if (r.kind === 'deletion') {
        if (deletion === undefined || r.seconds < deletion.seconds) deletion = r;
      } else if (override === undefined || r.seconds < override.seconds) override = r;
    }
    const causes: Fact[] = [p.created];
    let seconds = deletion?.seconds ?? p.specGraceSeconds;
    let why = deletion?.what ?? "the spec's terminationGracePeriodSeconds";
    if (deletion !== undefined) causes.push(deletion.fact);
    const startedMs = this.#kubeletStartMs.get(p.node);
    const orphan = p.leftSourceAtMs !== undefined && startedMs !== undefined && startedMs >= p.leftSourceAtMs;
    // killContainer's minimum applies unless the pod worker passes its grace down as the override.
    if (!podKill && seconds < MINIMUM_GRACE_PERIOD_SECONDS) {
      seconds = MINIMUM_GRACE_PERIOD_SECONDS;
      why += `, raised to killContainer's ${MINIMUM_GRACE_PERIOD_SECONDS}s minimum`;
    }
    // An override binds a pod kill alone (killPodNow, HandlePodCleanups); the spec is only the default.
    if (override !== undefined && podKill && (deletion === undefined || override.seconds < seconds)) {
      seconds = override.seconds;
      why = override.what;
      causes.push(override.fact);
    }
    if (podKill && orphan && ORPHAN_KILL_GRACE_SECONDS < seconds) {
      seconds = ORPHAN_KILL_GRACE_SECONDS;
      why = `HandlePodCleanups' kill of an orphaned pod (it left its source at ${secs(p.leftSourceAtMs ?? 0)}, before the kubelet started at ${secs(startedMs ?? 0)})`;
    }
    if (zero !== undefined) {
      // #115819: a request of 0 falls back to the spec's grace (at least killContainer's minimum).
      const spec = Math.max(p.specGraceSeconds, MINIMUM_GRACE_PERIOD_SECONDS);
      if (spec > seconds) {
        seconds = spec;
        why = `${zero.what}, of 0 s, falls back to the spec's grace (#115819)`;
        causes.push(zero.fact);
      }
    }
    if (seconds < 1) seconds = 1;
    causes.push(at);
    return { seconds, why, causes };
  }
}
