// Test harness for the pod worker port, after createPodWorkers / fakeQueue / WorkChannel in
// pkg/kubelet/pod_workers_test.go (release-1.23): fake sync functions that record each call, a fake
// runtime cache that never blocks, and a work queue that remembers every enqueue.
import { expect } from 'vitest';
import type { GoError } from '../../src/api/errors.js';
import {
  ConfigSourceAnnotationKey,
  emptyRuntimePodStatus,
  FileSource,
  type Pod,
  type PodPhase,
  type RuntimePod,
  type RuntimePodStatus,
  type UID,
} from '../../src/api/v1.js';
import type { Fact } from '../../src/facts.js';
import type { Fixes } from '../../src/fixes.js';
import { type PodWork, PodWorkers } from '../../src/kubelet/podWorkers.js';
import type { PodCache, PodStatusFunc, PodSyncer, SyncPodType } from '../../src/kubelet/types.js';
import { WorkQueue } from '../../src/kubelet/workQueue.js';
import { type Chan, CLOSED, type Co, type Context, ProcessGroup, Sim } from '../../src/sim/index.js';

export interface PodSpecExtras {
  phase?: PodPhase;
  deletionTimestamp?: number;
  deletionGracePeriodSeconds?: number;
  terminationGracePeriodSeconds?: number;
}

/** newNamedPod: a static pod carries the file-source annotation; its fullname is name_namespace. */
export function newNamedPod(
  uid: UID,
  namespace: string,
  name: string,
  isStatic: boolean,
  extras: PodSpecExtras = {},
): Pod {
  return {
    metadata: {
      uid,
      name,
      namespace,
      annotations: isStatic ? { [ConfigSourceAnnotationKey]: FileSource } : {},
      deletionTimestamp: extras.deletionTimestamp,
      deletionGracePeriodSeconds: extras.deletionGracePeriodSeconds,
    },
    spec: {
      nodeName: 'node-a',
      containers: [{ name: 'c' }],
      volumes: [],
      terminationGracePeriodSeconds: extras.terminationGracePeriodSeconds,
      restartPolicy: 'Always',
    },
    status: { phase: extras.phase ?? 'Pending', containerStatuses: [] },
  };
}

export function newPod(uid: UID, name: string, extras: PodSpecExtras = {}): Pod {
  return newNamedPod(uid, '', name, false, extras);
}

export function newStaticPod(uid: UID, name: string): Pod {
  return newNamedPod(uid, '', name, true);
}

export function runtimePod(id: UID, name: string, namespace = 'test'): RuntimePod {
  return { id, name, namespace, containers: [], sandboxes: [] };
}

/** A coroutine that returns at once without blocking (the fakes of the Go test never block). */
// biome-ignore lint/correctness/useYield: deliberately never blocks
export function* immediately<T>(value: T): Co<T> {
  return value;
}

/** syncPodRecord: one call of a sync function, as the fakes of the Go test record it. */
export interface SyncPodRecord {
  name: string;
  updateType?: SyncPodType;
  runningPod?: RuntimePod | undefined;
  terminated?: true;
  gracePeriod?: number | undefined;
  atMs?: number;
}

/** fakeQueue: remembers every Enqueue with its delay; GetWork returns everything since the last call. */
export class FakeQueue extends WorkQueue {
  readonly items: { uid: UID; delayMs: number }[] = [];
  private currentStart = 0;

  override enqueue(uid: UID, delayMs: number): void {
    this.items.push({ uid, delayMs });
  }
  override getWork(): UID[] {
    const work = this.items.slice(this.currentStart).map((i) => i.uid);
    this.currentStart = this.items.length;
    return work;
  }
  set(): Set<UID> {
    return new Set(this.items.slice(this.currentStart).map((i) => i.uid));
  }
}

/** containertest.NewFakeCache: Get returns the stored (or an empty) status; GetNewerThan never blocks. */
export class FakeCache implements PodCache {
  readonly statuses = new Map<UID, RuntimePodStatus>();
  get(uid: UID): RuntimePodStatus {
    return this.statuses.get(uid) ?? emptyRuntimePodStatus(uid, 0);
  }
  getNewerThan(uid: UID, _minTimeMs: number): Co<RuntimePodStatus> {
    return immediately(this.get(uid));
  }
}

/** Optional behaviour behind the recording fakes (they record first, then run these). */
export interface SyncerHooks {
  syncPod?: (ctx: Context, pod: Pod) => Co<{ isTerminal: boolean; err: GoError | undefined }>;
  syncTerminatingPod?: (
    ctx: Context,
    pod: Pod,
    gracePeriod: number | undefined,
    podStatusFn: PodStatusFunc | undefined,
  ) => Co<GoError | undefined>;
  syncTerminatedPod?: (ctx: Context, pod: Pod) => Co<GoError | undefined>;
}

export interface Harness {
  sim: Sim;
  group: ProcessGroup;
  podWorkers: PodWorkers;
  processed: Map<UID, SyncPodRecord[]>;
  queue: FakeQueue;
  cache: FakeCache;
  facts: Fact[];
  hooks: SyncerHooks;
  /** Pods whose syncPod reports a terminal phase (terminalPhaseSync of the Go test). */
  terminal: Set<UID>;
  /** drainWorkers / drainAllWorkers: run the simulation until nothing is left to do. */
  drain(): void;
}

export interface HarnessOptions {
  resyncIntervalMs?: number;
  backOffPeriodMs?: number;
  seed?: number;
  /** The fix switches the pod workers consult (default: all on). */
  fixes?: Fixes;
}

/** createPodWorkers: resync 1s and back-off 1ms, as the release-1.23 test. */
export function createPodWorkers(o: HarnessOptions = {}): Harness {
  const sim = new Sim(o.seed ?? 1);
  const group = new ProcessGroup('kubelet/node-a');
  const processed = new Map<UID, SyncPodRecord[]>();
  const queue = new FakeQueue(sim);
  const cache = new FakeCache();
  const facts: Fact[] = [];
  const hooks: SyncerHooks = {};
  const terminal = new Set<UID>();
  const record = (uid: UID, r: SyncPodRecord): void => {
    const list = processed.get(uid) ?? [];
    list.push(r);
    processed.set(uid, list);
  };
  const syncer: PodSyncer = {
    *syncPod(ctx, updateType, pod) {
      record(pod.metadata.uid, { name: pod.metadata.name, updateType });
      const r = hooks.syncPod !== undefined ? yield* hooks.syncPod(ctx, pod) : undefined;
      if (r !== undefined && (r.err !== undefined || r.isTerminal)) return r;
      return { isTerminal: terminal.has(pod.metadata.uid), err: undefined };
    },
    *syncTerminatingPod(ctx, pod, _podStatus, runningPod, gracePeriod, podStatusFn) {
      const r: SyncPodRecord = { name: pod.metadata.name, updateType: 'SyncPodKill', gracePeriod };
      if (runningPod !== undefined) r.runningPod = runningPod;
      record(pod.metadata.uid, r);
      if (hooks.syncTerminatingPod !== undefined) {
        return yield* hooks.syncTerminatingPod(ctx, pod, gracePeriod, podStatusFn);
      }
      return undefined;
    },
    *syncTerminatedPod(ctx, pod) {
      record(pod.metadata.uid, { name: pod.metadata.name, terminated: true });
      if (hooks.syncTerminatedPod !== undefined) return yield* hooks.syncTerminatedPod(ctx, pod);
      return undefined;
    },
  };
  const podWorkers = new PodWorkers({
    sim,
    rng: sim.rng.fork('node-a/podWorkers'),
    group,
    syncer,
    workQueue: queue,
    podCache: cache,
    resyncIntervalMs: o.resyncIntervalMs ?? 1000,
    backOffPeriodMs: o.backOffPeriodMs ?? 1,
    nodeName: 'node-a',
    publish: (f) => facts.push(f),
    fixes: o.fixes,
  });
  const drain = (): void => {
    const outcome = sim.run({ horizonMs: sim.nowMs + 3_600_000, maxEvents: 1_000_000 });
    expect(outcome.reason).toBe('idle');
  };
  return { sim, group, podWorkers, processed, queue, cache, facts, hooks, terminal, drain };
}

/** WorkChannelItem: the held end of one intercepted worker channel. */
export class WorkChannelItem {
  pause = false;
  queue: PodWork[] = [];
  constructor(
    private readonly sim: Sim,
    readonly out: Chan<PodWork>,
  ) {}

  hold(): void {
    this.pause = true;
  }

  /** Release: pass on everything held back, in order. */
  release(): void {
    this.pause = false;
    const held = this.queue;
    this.queue = [];
    const out = this.out;
    this.sim.spawn(
      'workChannel/release',
      (function* (): Co {
        for (const w of held) yield* out.send(w);
      })(),
    );
  }
}

/**
 * WorkChannel intercepts the channel between UpdatePod and a worker goroutine, so a test can hold
 * work back from one worker (the Go test's workerChannelFn = channels.Intercept).
 */
export class WorkChannel {
  readonly channels = new Map<UID, WorkChannelItem>();
  constructor(private readonly sim: Sim) {}

  channel(uid: UID): WorkChannelItem {
    let item = this.channels.get(uid);
    if (item === undefined) {
      item = new WorkChannelItem(this.sim, this.sim.chan<PodWork>(1, `intercept/${uid}`));
      this.channels.set(uid, item);
    }
    return item;
  }

  readonly intercept = (uid: UID, inCh: Chan<PodWork>): Chan<PodWork> => {
    const item = this.channel(uid);
    const channels = this.channels;
    this.sim.spawn(
      `workChannel/${uid}`,
      (function* (): Co {
        for (;;) {
          const w = yield* inCh.recv();
          if (w === CLOSED) break;
          if (item.pause) item.queue.push(w);
          else yield* item.out.send(w);
        }
        item.out.close();
        channels.delete(uid);
      })(),
    );
    return item.out;
  };
}
