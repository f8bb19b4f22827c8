// termination-stuck (liveness, checked at the end of a run): a pod whose deletion was requested
// (apiPodDeletionRequested at T with grace G) must by the end have no running containers, every volume
// it set up torn down (a volumeSetUp not followed by a volumeTearDown ok=true is not), and, unless it
// is a static pod, its API object gone (apiPodDeleted). Flagged only when end - T >= G + the
// termination budget (and, once a kill started, end >= its start + its grace + the budget), no fault is
// still active at the end and the node's kubelet is up. Catches #104648 (UID reuse: finished worker
// ignores updates), #50350 (API deletion blocked on container GC), #107733 / #113091 (static pods that
// never finish) and an abandoned tear-down of an uncertain volume. Everything is keyed by UID.
import type { Fact, FactKind } from '../facts.js';
import { secs } from './format.js';
import type { Checker, Violation } from './types.js';

type Started = Extract<Fact, { kind: 'containerStarted' }>;
type SetUp = Extract<Fact, { kind: 'volumeSetUp' }>;
type DeletionRequested = Extract<Fact, { kind: 'apiPodDeletionRequested' }>;

/** How many recent lifecycle facts per UID are kept as causes. */
const RECENT = 6;
export const DEFAULT_TERMINATION_BUDGET_MS = 120_000;

interface PodState {
  pod: string;
  isStatic: boolean;
  /** The deletion request with the earliest T + grace (the tightest deadline). */
  request: DeletionRequested | undefined;
  /** T + grace of `request`, in ms. */
  dueMs: number;
  /**
   * The earliest time a kill promises the containers gone (its start + its grace, or its finish once it
   * returned), Infinity while none started. The kubelet may kill with a longer grace than the API's: a
   * deletion or eviction override of 0 becomes the spec's terminationGracePeriodSeconds (#115819,
   * reproduced as upstream has it), so a force-deleted pod with a 40 min grace is terminating, not stuck,
   * for 40 min.
   */
  killDueMs: number;
  deleted: boolean;
  /** node -> container -> containerStarted, for containers not yet exited / removed. */
  readonly running: Map<string, Map<string, Started>>;
  /** node -> volume -> volumeSetUp not yet followed by a successful volumeTearDown. */
  readonly volumes: Map<string, Map<string, SetUp>>;
  /** The node the pod was last seen on ('' if none yet). */
  node: string;
  readonly recent: Fact[];
}

export interface TerminationStuckConfig {
  readonly faultsActiveAtEnd: () => boolean;
  readonly terminationBudgetMs: number;
}

const byTime = (a: Fact, b: Fact): number => a.atMs - b.atMs;

export class TerminationStuck implements Checker {
  readonly id = 'termination-stuck';
  readonly kinds: readonly FactKind[] = [
    'apiPodCreated',
    'apiPodDeleted',
    'apiPodDeletionRequested',
    'containerExited',
    'containerRemoved',
    'containerStarted',
    'killPodFinished',
    'killPodStarted',
    'kubeletStarted',
    'kubeletStopped',
    'podTerminated',
    'podTerminationRequested',
    'podWorkerPhase',
    'volumeSetUp',
    'volumeTearDown',
  ];
  readonly #config: TerminationStuckConfig;
  readonly #pods = new Map<string, PodState>();
  /** node -> when its kubelet process last started, null while it is down; absent: up from 0. */
  readonly #kubeletUpSinceMs = new Map<string, number | null>();

  constructor(config: TerminationStuckConfig) {
    this.#config = config;
  }

  onFact(f: Fact): void {
    switch (f.kind) {
      case 'kubeletStarted':
        this.#kubeletUpSinceMs.set(f.node, f.atMs);
        return;
      case 'kubeletStopped':
        this.#kubeletUpSinceMs.set(f.node, null);
        return;
      case 'apiPodCreated': {
        const s = this.#seen(f.uid, f.pod, f.node);
        s.isStatic ||= f.static;
        // A static pod put back from the same manifest reuses its UID (#104847): it is wanted again, so an
        // earlier deletion no longer asks for its termination.
        s.request = undefined;
        s.killDueMs = Number.POSITIVE_INFINITY;
        return;
      }
      case 'apiPodDeletionRequested': {
        const s = this.#state(f.uid, f.pod);
        const dueMs = f.atMs + f.gracePeriodSeconds * 1000;
        if (s.request === undefined || dueMs < s.dueMs) {
          s.request = f;
          s.dueMs = dueMs;
        }
        remember(s, f);
        return;
      }
      case 'apiPodDeleted': {
        const s = this.#state(f.uid, f.pod);
        s.deleted = true;
        remember(s, f);
        return;
      }
      case 'containerStarted': {
        const s = this.#seen(f.uid, f.pod, f.node);
        if (f.staticFullname !== undefined) s.isStatic = true;
        inner(s.running, f.node).set(f.container, f);
        return;
      }
      case 'containerExited':
      case 'containerRemoved': {
        const s = this.#seen(f.uid, f.pod, f.node);
        s.running.get(f.node)?.delete(f.container);
        remember(s, f);
        return;
      }
      case 'volumeSetUp': {
        const s = this.#seen(f.uid, f.pod, f.node);
        inner(s.volumes, f.node).set(f.volume, f);
        return;
      }
      case 'volumeTearDown': {
        const s = this.#seen(f.uid, f.pod, f.node);
        if (f.ok) s.volumes.get(f.node)?.delete(f.volume);
        remember(s, f);
        return;
      }
      case 'killPodStarted': {
        const s = this.#seen(f.uid, f.pod, f.node);
        s.killDueMs = Math.min(s.killDueMs, f.atMs + f.gracePeriodSeconds * 1000);
        remember(s, f);
        return;
      }
      case 'killPodFinished': {
        // The containers are stopped: what is left (volumes, the API object) has the budget from now.
        const s = this.#seen(f.uid, f.pod, f.node);
        s.killDueMs = Math.min(s.killDueMs, f.atMs);
        remember(s, f);
        return;
      }
      case 'podTerminationRequested':
      case 'podTerminated':
      case 'podWorkerPhase': {
        remember(this.#seen(f.uid, f.pod, f.node), f);
        return;
      }
      default:
        return;
    }
  }

  onEnd(endMs: number, report: (v: Violation) => void): void {
    if (this.#config.faultsActiveAtEnd()) return;
    for (const [uid, s] of this.#pods) {
      const request = s.request;
      if (request === undefined) continue;
      // Only a kubelet can finish a termination: none is judged on a node whose kubelet is down at the
      // end, and one that came back after the request has the grace period from its start.
      const upSinceMs = this.#kubeletUpSinceMs.get(s.node);
      if (upSinceMs === null) continue;
      let dueMs = Math.max(s.dueMs, (upSinceMs ?? 0) + request.gracePeriodSeconds * 1000);
      if (s.killDueMs !== Number.POSITIVE_INFINITY) dueMs = Math.max(dueMs, s.killDueMs);
      if (endMs < dueMs + this.#config.terminationBudgetMs) continue;
      const problems: string[] = [];
      const outstanding: Fact[] = [];
      let node: string | null = s.node === '' ? null : s.node;
      const containers: string[] = [];
      for (const [n, running] of s.running)
        for (const started of running.values()) {
          node ??= n;
          containers.push(started.container);
          outstanding.push(started);
        }
      if (containers.length > 0) problems.push(`container(s) ${containers.join(', ')} still running`);
      const volumes: string[] = [];
      for (const [n, setUp] of s.volumes)
        for (const su of setUp.values()) {
          node ??= n;
          volumes.push(su.volume);
          outstanding.push(su);
        }
      if (volumes.length > 0) problems.push(`volume(s) ${volumes.join(', ')} not torn down`);
      if (!s.deleted && !s.isStatic) problems.push('API object not deleted');
      if (problems.length === 0) continue;
      const causes: Fact[] = [request];
      for (const r of s.recent) if (r !== request) causes.push(r);
      for (const o of outstanding.slice(0, RECENT)) if (!causes.includes(o)) causes.push(o);
      report({
        invariant: this.id,
        atMs: endMs,
        node,
        pod: s.pod,
        uid,
        volume: null,
        message:
          `${s.isStatic ? 'static ' : ''}pod ${s.pod} (uid ${uid}) was deleted at ${secs(request.atMs)} ` +
          `(grace ${request.gracePeriodSeconds}s) but termination has not finished by the end ` +
          `(${secs(endMs)}, no fault active): ` +
          problems.join('; '),
        causes: causes.sort(byTime),
      });
    }
  }

  #seen(uid: string, pod: string, node: string): PodState {
    const s = this.#state(uid, pod);
    if (node !== '') s.node = node;
    return s;
  }

  #state(uid: string, pod: string): PodState {
    let s = this.#pods.get(uid);
    if (s === undefined) {
      s = {
        pod,
        isStatic: false,
        request: undefined,
        dueMs: 0,
        killDueMs: Number.POSITIVE_INFINITY,
        deleted: false,
        running: new Map(),
        volumes: new Map(),
        node: '',
        recent: [],
      };
      this.#pods.set(uid, s);
    }
    return s;
  }
}

function remember(s: PodState, f: Fact): void {
  s.recent.push(f);
  if (s.recent.length > RECENT) s.recent.shift();
}

function inner<T>(outer: Map<string, Map<string, T>>, key: string): Map<string, T> {
  let m = outer.get(key);
  if (m === undefined) {
    m = new Map();
    outer.set(key, m);
  }
  return m;
}
