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

export type PodLifeCycleEventType =
  | 'ContainerStarted'
  | 'ContainerDied'
  | 'ContainerRemoved'
  | 'ContainerChanged';

/** plegContainerState: a created container maps to unknown, as upstream's convertState does. */
type PlegContainerState = 'running' | 'exited' | 'unknown' | 'non-existent';

function convertState(state: RuntimeContainerState): PlegContainerState {
  switch (state) {
    case 'running':
      return 'running';
    case 'exited':
      return 'exited';
    default:
      return 'unknown';
  }
}

export interface PodLifecycleEvent {
  readonly id: UID;
  readonly type: PodLifeCycleEventType;
  readonly data: string;
}

export class GenericPLEG {
  private readonly podRecords = new Map<UID, Map<string, PlegContainerState>>();

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
      const old = this.podRecords.get(uid) ?? new Map<string, PlegContainerState>();
      const next = new Map<string, PlegContainerState>();
      // getContainersFromPods: sandboxes count as containers (ready = running, not ready = exited).
      for (const sb of status.sandboxStatuses) next.set(sb.id, sb.ready ? 'running' : 'exited');
      for (const c of status.containerStatuses) next.set(c.id, convertState(c.state));
      for (const [id, state] of next) this.generateEvents(uid, id, old.get(id) ?? 'non-existent', state);
      for (const [id, before] of old) if (!next.has(id)) this.generateEvents(uid, id, before, 'non-existent');
      this.podRecords.set(uid, next);
      this.cache.set(uid, status, now);
    }
    for (const [uid, old] of [...this.podRecords]) {
      if (seen.has(uid)) continue;
      for (const [id, before] of old) this.generateEvents(uid, id, before, 'non-existent');
      this.podRecords.delete(uid);
      this.cache.set(uid, this.runtime.getPodStatus(uid), now);
    }
    this.cache.updateTime(now);
  }

  /** generateEvents (generic.go): the lifecycle events of one container's state change. */
  private generateEvents(
    uid: UID,
    id: string,
    oldState: PlegContainerState,
    newState: PlegContainerState,
  ): void {
    if (oldState === newState) return;
    switch (newState) {
      case 'running':
        this.emit({ id: uid, type: 'ContainerStarted', data: id });
        return;
      case 'exited':
        this.emit({ id: uid, type: 'ContainerDied', data: id });
        return;
      case 'unknown':
        this.emit({ id: uid, type: 'ContainerChanged', data: id });
        return;
      case 'non-existent':
        if (oldState === 'exited') {
          this.emit({ id: uid, type: 'ContainerRemoved', data: id });
        } else {
          this.emit({ id: uid, type: 'ContainerDied', data: id });
          this.emit({ id: uid, type: 'ContainerRemoved', data: id });
        }
        return;
    }
  }

  private emit(e: PodLifecycleEvent): void {
    // A full channel drops the event, as upstream does ("event channel is full, discard this relist() cycle event").
    this.eventChannel.trySend(e);
  }
}
