// Ported from kubernetes pkg/kubelet/pleg/generic.go, release-1.23: relist the runtime every second,
// refresh the cache, and emit lifecycle events. The cache therefore lags the runtime by up to a relist.
import type { RuntimeContainerState, UID } from '../../api/v1.js';
import { WRITES_POD_CACHE_TIME, WRITES_RUNTIME } from '../../elisionMasks.js';
import type { FakeRuntime } from '../../runtime/fakeRuntime.js';
import { type Chan, type Co, IdleLoop, type Sim } from '../../sim/index.js';
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
export type PlegContainerState = 'running' | 'exited' | 'unknown' | 'non-existent';

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

/** podRecord: the container states of the last relist that looked at the pod. */
interface PodRecord {
  states: Map<string, PlegContainerState>;
  /** The runtime's version of the pod then (FakeRuntime.podVersion). */
  version: number;
  /** The last relist that saw the pod in the runtime. */
  stamp: number;
}

export interface PodLifecycleEvent {
  readonly id: UID;
  readonly type: PodLifeCycleEventType;
  readonly data: string;
}

export class GenericPLEG {
  private readonly podRecords = new Map<UID, PodRecord>();
  /** Counts relists: a record stamped with the current one was seen in the runtime this relist. */
  private relistStamp = 0;

  constructor(
    private readonly sim: Sim,
    private readonly runtime: FakeRuntime,
    private readonly cache: Cache,
    readonly eventChannel: Chan<PodLifecycleEvent>,
  ) {}

  /**
   * wait.Until(g.relist, g.relistPeriod). A relist that finds the runtime as the last one left it changes
   * nothing but the cache's timestamp, so elision may skip the relists after it (src/sim/elision.ts)
   * until the runtime changes, or until a subscriber of the cache is due.
   */
  *run(): Co<void> {
    const loop = new IdleLoop(this.sim, plegRelistPeriodMs, {
      version: () => this.runtime.version,
      hook: (roundMs) => this.cache.relistSkipped(roundMs),
      readMask: WRITES_RUNTIME,
      hookWrites: WRITES_POD_CACHE_TIME,
    });
    for (;;) {
      loop.begin();
      this.relist();
      this.sim.noteDeadline(this.cache.nextNotifyMs());
      yield* loop.end();
    }
  }

  /**
   * relist: atomic here (between two yields), as the runtime calls are instant reads of the fake. A pod
   * the runtime has not changed since the last relist (its version) is skipped: its status would be the
   * same, no event would come of it, and the cache's UpdateTime below makes its entry as new as a Set
   * would (GetNewerThan reads the newer of the two times). So a relist costs a lookup per unchanged pod.
   */
  relist(): void {
    const now = this.sim.nowMs;
    const stamp = ++this.relistStamp;
    let seen = 0;
    const uids = this.runtime.knownUIDsView();
    for (let i = 0; i < uids.length; i++) {
      const uid = uids[i] as UID;
      const version = this.runtime.podVersion(uid);
      const record = this.podRecords.get(uid);
      seen++;
      if (record !== undefined) {
        record.stamp = stamp;
        if (record.version === version) continue;
      }
      const old = record?.states;
      const status = this.runtime.getPodStatus(uid);
      const next = new Map<string, PlegContainerState>();
      // getContainersFromPods: sandboxes count as containers (ready = running, not ready = exited).
      for (const sb of status.sandboxStatuses) next.set(sb.id, sb.ready ? 'running' : 'exited');
      for (const c of status.containerStatuses) next.set(c.id, convertState(c.state));
      const events: PodLifecycleEvent[] = [];
      for (const [id, state] of next)
        events.push(...generateEvents(uid, id, old?.get(id) ?? 'non-existent', state));
      if (old !== undefined)
        for (const [id, before] of old)
          if (!next.has(id)) events.push(...generateEvents(uid, id, before, 'non-existent'));
      this.podRecords.set(uid, { states: next, version, stamp });
      this.cache.set(uid, status, now);
      this.send(events);
    }
    if (seen !== this.podRecords.size) {
      for (const [uid, record] of [...this.podRecords]) {
        if (record.stamp === stamp) continue;
        const events: PodLifecycleEvent[] = [];
        for (const [id, before] of record.states)
          events.push(...generateEvents(uid, id, before, 'non-existent'));
        this.podRecords.delete(uid);
        this.cache.set(uid, this.runtime.getPodStatus(uid), now);
        this.send(events);
      }
    }
    this.cache.updateTime(now);
  }

  /**
   * relist's send loop: ContainerChanged is dropped here ("Filter out events that are not reliable and no
   * other components use yet", generic.go relist, release-1.20 and 1.23), so a container seen only in the
   * created (unknown) state wakes no pod worker. A full channel drops the event, as upstream does ("event
   * channel is full, discard this relist() cycle event").
   */
  private send(events: readonly PodLifecycleEvent[]): void {
    for (const e of events) {
      if (e.type === 'ContainerChanged') continue;
      this.eventChannel.trySend(e);
    }
  }
}

/** generateEvents (generic.go): the lifecycle events of one container's state change. */
export function generateEvents(
  uid: UID,
  id: string,
  oldState: PlegContainerState,
  newState: PlegContainerState,
): PodLifecycleEvent[] {
  if (oldState === newState) return [];
  switch (newState) {
    case 'running':
      return [{ id: uid, type: 'ContainerStarted', data: id }];
    case 'exited':
      return [{ id: uid, type: 'ContainerDied', data: id }];
    case 'unknown':
      return [{ id: uid, type: 'ContainerChanged', data: id }];
    case 'non-existent':
      // We already reported that the container died before.
      if (oldState === 'exited') return [{ id: uid, type: 'ContainerRemoved', data: id }];
      return [
        { id: uid, type: 'ContainerDied', data: id },
        { id: uid, type: 'ContainerRemoved', data: id },
      ];
  }
}
