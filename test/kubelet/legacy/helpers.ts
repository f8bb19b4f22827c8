// Test helpers for the release-1.20 pod worker and podKiller ports (createPodWorkers, newPod, the fake
// cache of pod_workers_test.go).
import type { GoError } from '../../../src/api/errors.js';
import {
  emptyRuntimePodStatus,
  type Pod,
  type RuntimePod,
  type RuntimePodStatus,
  type UID,
} from '../../../src/api/v1.js';
import type { Fact } from '../../../src/facts.js';
import { LegacyPodWorkers } from '../../../src/kubelet/legacy/podWorkers.js';
import type { SyncPodOptions } from '../../../src/kubelet/legacy/types.js';
import type { PodCache, SyncPodType } from '../../../src/kubelet/types.js';
import { WorkQueue } from '../../../src/kubelet/workQueue.js';
import { type Co, type Process, ProcessGroup, Sim, sleep } from '../../../src/sim/index.js';

export const bounds = { horizonMs: 10_000_000, maxEvents: 1_000_000 };

/** newPod(uid, name) of pod_workers_test.go. */
export function newPod(uid: string, name: string, namespace = ''): Pod {
  return {
    metadata: { uid, name, namespace, annotations: {} },
    spec: { nodeName: 'node-a', containers: [{ name: 'c' }], volumes: [], restartPolicy: 'Always' },
    status: { phase: 'Pending', containerStatuses: [] },
  };
}

export function runtimePod(uid: string, name = uid): RuntimePod {
  return {
    id: uid,
    name,
    namespace: '',
    containers: [{ id: `${uid}-c`, name: 'c', state: 'running' }],
    sandboxes: [{ id: `${uid}-s`, ready: true }],
  };
}

/** containertest.NewFakeCache(FakeRuntime): GetNewerThan never blocks and returns an empty status. */
export class FakeCache implements PodCache {
  readonly newerThanCalls: { uid: UID; minTimeMs: number; atMs: number }[] = [];
  constructor(private readonly clock: { readonly nowMs: number }) {}
  get(uid: UID): RuntimePodStatus {
    return emptyRuntimePodStatus(uid, 0);
  }
  // biome-ignore lint/correctness/useYield: the fake cache never blocks, like containertest.FakeCache.
  *getNewerThan(uid: UID, minTimeMs: number): Co<RuntimePodStatus> {
    this.newerThanCalls.push({ uid, minTimeMs, atMs: this.clock.nowMs });
    return this.get(uid);
  }
}

/** syncPodRecord, plus when the sync ran and in which goroutine. */
export interface SyncPodRecord {
  name: string;
  updateType: SyncPodType;
  options: SyncPodOptions;
  startMs: number;
  endMs: number | undefined;
  proc: Process | undefined;
}

export interface Harness {
  sim: Sim;
  group: ProcessGroup;
  podWorkers: LegacyPodWorkers;
  processed: Map<UID, SyncPodRecord[]>;
  workQueue: WorkQueue;
  cache: FakeCache;
  facts: Fact[];
}

export interface HarnessOptions {
  seed?: number;
  /** How long one sync takes (default: no time at all, as the Go fake). */
  syncDelayMs?: (options: SyncPodOptions, sim: Sim) => number;
  /** What a sync returns (default nil). */
  syncResult?: (options: SyncPodOptions) => GoError | undefined;
  /** Extra work done inside the sync (after recording, before the delay). */
  syncBody?: (options: SyncPodOptions) => Co<void>;
  resyncIntervalMs?: number;
  backOffPeriodMs?: number;
}

/** createPodWorkers(): real pod workers whose syncPodFn records every call. Resync 1 s, backoff 1 s. */
export function createPodWorkers(o: HarnessOptions = {}): Harness {
  const sim = new Sim(o.seed ?? 1);
  const group = new ProcessGroup('kubelet');
  const processed = new Map<UID, SyncPodRecord[]>();
  const workQueue = new WorkQueue(sim);
  const cache = new FakeCache(sim);
  const facts: Fact[] = [];
  const podWorkers = new LegacyPodWorkers({
    sim,
    rng: sim.rng.fork('node-a/podWorkers'),
    group,
    syncPodFn: function* (options: SyncPodOptions): Co<GoError | undefined> {
      const pod = options.pod;
      const record: SyncPodRecord = {
        name: pod.metadata.name,
        updateType: options.updateType,
        options,
        startMs: sim.nowMs,
        endMs: undefined,
        proc: sim.current,
      };
      const list = processed.get(pod.metadata.uid) ?? [];
      list.push(record);
      processed.set(pod.metadata.uid, list);
      if (o.syncBody !== undefined) yield* o.syncBody(options);
      const delay = o.syncDelayMs?.(options, sim) ?? 0;
      if (delay > 0) yield* sleep(delay);
      record.endMs = sim.nowMs;
      return o.syncResult?.(options);
    },
    workQueue,
    podCache: cache,
    resyncIntervalMs: o.resyncIntervalMs ?? 1000,
    backOffPeriodMs: o.backOffPeriodMs ?? 1000,
    nodeName: 'node-a',
    publish: (f) => facts.push(f),
  });
  return { sim, group, podWorkers, processed, workQueue, cache, facts };
}

/** drainWorkers: run until nothing can happen, then every worker must be idle. */
export function drainWorkers(h: Harness): void {
  const outcome = h.sim.run(bounds);
  if (outcome.reason !== 'idle') throw new Error(`simulation did not go idle: ${outcome.reason}`);
  for (const [uid, working] of h.podWorkers.isWorking) {
    if (working) throw new Error(`pod worker ${uid} still working after drain`);
  }
}

/** Runs `body` as a goroutine (a test driver), outside the kubelet's group. */
export function drive(sim: Sim, body: () => Co<void>): void {
  sim.spawn('test-driver', body());
}
