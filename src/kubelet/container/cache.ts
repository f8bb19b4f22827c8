// Ported from kubernetes pkg/kubelet/container/cache.go, release-1.23: the PLEG-fed runtime cache.
// GetNewerThan blocks until the cache holds data newer than a given time, which is how a pod worker
// waits for the next relist after its own sync.
import { emptyRuntimePodStatus, type RuntimePodStatus, type UID } from '../../api/v1.js';
import { WRITES_POD_CACHE_TIME } from '../../elisionMasks.js';
import { AssertionError, assert, type Co, type Process, park, type Sim } from '../../sim/index.js';
import type { PodCache } from '../types.js';

interface Entry {
  status: RuntimePodStatus;
  modifiedMs: number;
}

export class Cache implements PodCache {
  private readonly pods = new Map<UID, Entry>();
  /** Every entry is at least as new as this (UpdateTime after each relist). */
  private timestampMs = -1;
  private readonly subscribers: { uid: UID; minTimeMs: number; proc: Process }[] = [];

  constructor(private readonly sim: Sim) {}

  get(uid: UID): RuntimePodStatus {
    return this.pods.get(uid)?.status ?? emptyRuntimePodStatus(uid, this.sim.nowMs);
  }

  *getNewerThan(uid: UID, minTimeMs: number): Co<RuntimePodStatus> {
    for (;;) {
      const data = this.getIfNewerThan(uid, minTimeMs);
      if (data !== undefined) return data;
      const proc = this.sim.current;
      assert(proc !== undefined, 'getNewerThan outside a coroutine');
      this.subscribers.push({ uid, minTimeMs, proc });
      yield* park();
    }
  }

  set(uid: UID, status: RuntimePodStatus, timestampMs: number): void {
    this.pods.set(uid, { status, modifiedMs: timestampMs });
    this.notify(uid, timestampMs);
  }

  delete(uid: UID): void {
    this.pods.delete(uid);
  }

  /** UpdateTime: every entry is now known to be current as of `timestampMs`. */
  updateTime(timestampMs: number): void {
    this.sim.touch(WRITES_POD_CACHE_TIME);
    this.timestampMs = timestampMs;
    this.notifyAll(timestampMs);
  }

  /**
   * A relist elided while idle (src/sim/elision.ts) still makes every entry current as of its time. No
   * subscriber can be due then: the relist is woken for real at the first subscriber's time (nextNotifyMs).
   */
  relistSkipped(timestampMs: number): void {
    for (const s of this.subscribers) {
      if (timestampMs > s.minTimeMs) throw new AssertionError(`skipped relist at ${timestampMs} was due`);
    }
    this.timestampMs = timestampMs;
  }

  /** When UpdateTime would next wake a subscriber: just after the earliest time one waits past. */
  nextNotifyMs(): number {
    let next = Number.POSITIVE_INFINITY;
    for (const s of this.subscribers) if (s.minTimeMs + 1 < next) next = s.minTimeMs + 1;
    return next;
  }

  private getIfNewerThan(uid: UID, minTimeMs: number): RuntimePodStatus | undefined {
    this.sim.noteReads(WRITES_POD_CACHE_TIME);
    const entry = this.pods.get(uid);
    const globalNewer = this.timestampMs > minTimeMs;
    if (entry === undefined) return globalNewer ? emptyRuntimePodStatus(uid, this.timestampMs) : undefined;
    if (globalNewer || entry.modifiedMs > minTimeMs) return entry.status;
    return undefined;
  }

  private notify(uid: UID, timestampMs: number): void {
    for (let i = this.subscribers.length - 1; i >= 0; i--) {
      const s = this.subscribers[i];
      if (s === undefined || s.uid !== uid || timestampMs <= s.minTimeMs) continue;
      this.subscribers.splice(i, 1);
      if (s.proc.state === 'blocked') this.sim.unpark(s.proc, undefined);
    }
  }

  private notifyAll(timestampMs: number): void {
    for (let i = 0; i < this.subscribers.length; ) {
      const s = this.subscribers[i];
      if (s !== undefined && timestampMs > s.minTimeMs) {
        this.subscribers.splice(i, 1);
        if (s.proc.state === 'blocked') this.sim.unpark(s.proc, undefined);
      } else i++;
    }
  }
}
