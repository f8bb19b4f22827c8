// Ported from kubernetes pkg/kubelet/pleg/generic.go, release-1.23: relist the runtime every second,
// refresh the cache, and emit lifecycle events. The cache therefore lags the runtime by up to a relist.
import type { RuntimeContainerState, UID } from '../../api/v1.js';
import type { FakeRuntime } from '../../runtime/fakeRuntime.js';
import { type Chan, type Co, type Sim, sleep } from '../../sim/index.js';
import type { Cache } from '../container/cache.js';

/** relistPeriod in pkg/kubelet/kubelet.go (plegRelistPeriod). */
export const plegRelistPeriodMs = 1000;
/** plegChannelCapacity in pkg/kubelet/kubelet.go. */
export const plegChannelCapacity = 1000;

export type PodLifeCycleEventType = 'ContainerStarted' | 'ContainerDied' | 'ContainerRemoved';

export interface PodLifecycleEvent {
  readonly id: UID;
  readonly type: PodLifeCycleEventType;
  readonly data: string;
}

export class GenericPLEG {
  private readonly podRecords = new Map<UID, Map<string, RuntimeContainerState>>();

  constructor(
    private readonly sim: Sim,
    private readonly runtime: FakeRuntime,
    private readonly cache: Cache,
    readonly eventChannel: Chan<PodLifecycleEvent>,
  ) {}

  *run(): Co<void> {
    for (;;) {
      this.relist();
      yield* sleep(plegRelistPeriodMs);
    }
  }

  /** relist: atomic here (between two yields), as the runtime calls are instant reads of the fake. */
  relist(): void {
    const now = this.sim.nowMs;
    const seen = new Set<UID>();
    for (const uid of this.runtime.knownUIDs()) {
      seen.add(uid);
      const status = this.runtime.getPodStatus(uid);
      const old = this.podRecords.get(uid) ?? new Map<string, RuntimeContainerState>();
      const next = new Map<string, RuntimeContainerState>();
      for (const c of status.containerStatuses) next.set(c.id, c.state);
      for (const [id, state] of next) {
        const before = old.get(id);
        if (before === state) continue;
        if (state === 'running') this.emit({ id: uid, type: 'ContainerStarted', data: id });
        else if (state === 'exited' && before === 'running')
          this.emit({ id: uid, type: 'ContainerDied', data: id });
      }
      for (const [id, before] of old) {
        if (next.has(id)) continue;
        if (before === 'running') this.emit({ id: uid, type: 'ContainerDied', data: id });
        this.emit({ id: uid, type: 'ContainerRemoved', data: id });
      }
      this.podRecords.set(uid, next);
      this.cache.set(uid, status, now);
    }
    for (const uid of [...this.podRecords.keys()]) {
      if (seen.has(uid)) continue;
      this.podRecords.delete(uid);
      this.cache.set(uid, this.runtime.getPodStatus(uid), now);
    }
    this.cache.updateTime(now);
  }

  private emit(e: PodLifecycleEvent): void {
    // A full channel drops the event, as upstream does ("event channel is full, discard this relist() cycle event").
    this.eventChannel.trySend(e);
  }
}
