// Tests of the release-1.20 podKiller port (kubelet_pods.go podKillerWithChannel): it dedups only its own
// in-flight kills, by runningPod.ID, and knows nothing of kills that go through the pod worker (race R4).
import { describe, expect, it } from 'vitest';
import type { GoError } from '../../../src/api/errors.js';
import type { Pod, RuntimePod } from '../../../src/api/v1.js';
import { PodKiller, podKillingChannelCapacity } from '../../../src/kubelet/legacy/podKiller.js';
import type { PodKillerKillPod } from '../../../src/kubelet/legacy/types.js';
import { type Co, ProcessGroup, Sim, sleep } from '../../../src/sim/index.js';
import { bounds, createPodWorkers, drainWorkers, drive, newPod, runtimePod } from './helpers.js';

interface KillCall {
  source: string;
  uid: string;
  apiPod: Pod | undefined;
  grace: number | undefined;
  startMs: number;
  endMs: number | undefined;
}

/** A fake kl.killPod: takes `killMs`, tracks how many kills of each UID run at once. */
class FakeKubelet implements PodKillerKillPod {
  readonly calls: KillCall[] = [];
  readonly inFlight = new Map<string, number>();
  readonly maxInFlight = new Map<string, number>();
  source = 'podKiller';
  constructor(
    private readonly sim: Sim,
    private readonly killMs = 500,
  ) {}
  *killPod(pod: Pod | undefined, runningPod: RuntimePod, grace: number | undefined): Co<GoError | undefined> {
    yield* this.kill(this.source, pod, runningPod.id, grace);
    return undefined;
  }
  *kill(source: string, apiPod: Pod | undefined, uid: string, grace: number | undefined): Co<void> {
    const call: KillCall = { source, uid, apiPod, grace, startMs: this.sim.nowMs, endMs: undefined };
    this.calls.push(call);
    const n = (this.inFlight.get(uid) ?? 0) + 1;
    this.inFlight.set(uid, n);
    this.maxInFlight.set(uid, Math.max(n, this.maxInFlight.get(uid) ?? 0));
    yield* sleep(this.killMs);
    this.inFlight.set(uid, n - 1);
    call.endMs = this.sim.nowMs;
  }
}

function setup(seed = 1): { sim: Sim; group: ProcessGroup; kubelet: FakeKubelet; podKiller: PodKiller } {
  const sim = new Sim(seed);
  const group = new ProcessGroup('kubelet');
  const kubelet = new FakeKubelet(sim);
  const podKiller = new PodKiller({ sim, group, kubelet, nodeName: 'node-a' });
  podKiller.start();
  return { sim, group, kubelet, podKiller };
}

describe('podKiller (release-1.20)', () => {
  it('kills a runtime pod with the API pod it was given and no grace period override', () => {
    const { sim, kubelet, podKiller } = setup();
    const apiPod = newPod('a', 'web');
    drive(sim, function* (): Co<void> {
      yield* podKiller.killPod({ APIPod: apiPod, RunningPod: runtimePod('a') });
      yield* podKiller.killPod({ RunningPod: runtimePod('b') });
    });
    sim.run(bounds);
    const calls = [...kubelet.calls].sort((x, y) => x.uid.localeCompare(y.uid));
    expect(calls.map((c) => [c.uid, c.apiPod, c.grace, c.endMs])).toEqual([
      ['a', apiPod, undefined, 500],
      ['b', undefined, undefined, 500],
    ]);
  });

  it('dedups a second KillPod of the same runningPod.ID while the first is in flight, not after', () => {
    const { sim, kubelet, podKiller } = setup();
    const at = (t: number, uid: string): void =>
      sim.at(t, () =>
        drive(sim, function* (): Co<void> {
          yield* podKiller.killPod({ RunningPod: runtimePod(uid) });
        }),
      );
    at(0, 'a');
    at(100, 'a'); // dropped: a's kill runs until 500
    at(200, 'b'); // another pod: runs at once, beside a's kill
    at(499, 'a'); // still in flight: dropped
    at(600, 'a'); // a's first kill has finished: a new kill
    sim.run(bounds);
    expect(kubelet.calls.map((c) => [c.uid, c.startMs])).toEqual([
      ['a', 0],
      ['b', 200],
      ['a', 600],
    ]);
    expect(kubelet.maxInFlight.get('a')).toBe(1);
  });

  it('marks mirror pods pending termination until a kill of that UID finishes', () => {
    const { sim, podKiller } = setup();
    const pod = newPod('s1', 'static-web', 'default');
    const seen: [number, boolean, boolean, boolean][] = [];
    const look = (t: number): void =>
      sim.at(t, () =>
        seen.push([
          t,
          podKiller.isMirrorPodPendingTerminationByUID('s1'),
          podKiller.isMirrorPodPendingTerminationByPodName('static-web_default'),
          podKiller.isMirrorPodPendingTerminationByPodName('other_default'),
        ]),
      );
    sim.at(0, () => {
      // deletePod: MarkMirrorPodPendingTermination, then KillPod
      podKiller.markMirrorPodPendingTermination(pod);
      drive(sim, function* (): Co<void> {
        yield* podKiller.killPod({ APIPod: pod, RunningPod: runtimePod('s1') });
      });
    });
    look(1);
    look(499);
    look(501);
    sim.run(bounds);
    expect(seen).toEqual([
      [1, true, true, false],
      [499, true, true, false],
      [501, false, false, false],
    ]);
  });

  it('KillPod blocks once the channel holds podKillingChannelCapacity requests', () => {
    const sim = new Sim(1);
    const group = new ProcessGroup('kubelet');
    const podKiller = new PodKiller({ sim, group, kubelet: new FakeKubelet(sim), nodeName: 'node-a' });
    // not started: nothing reads the channel
    let sent = 0;
    drive(sim, function* (): Co<void> {
      for (let i = 0; i <= podKillingChannelCapacity; i++) {
        yield* podKiller.killPod({ RunningPod: runtimePod(`p${i}`) });
        sent++;
      }
    });
    sim.run(bounds);
    expect(sent).toBe(podKillingChannelCapacity);
    podKiller.start();
    sim.run(bounds);
    expect(sent).toBe(podKillingChannelCapacity + 1);
  });

  it('Close ends PerformPodKillingWork after the queued requests are served', () => {
    const { sim, group, kubelet, podKiller } = setup();
    drive(sim, function* (): Co<void> {
      yield* podKiller.killPod({ RunningPod: runtimePod('a') });
      podKiller.close();
    });
    sim.run(bounds);
    expect(kubelet.calls.map((c) => c.uid)).toEqual(['a']);
    expect(group.members.size).toBe(0);
  });
});

describe('rule (c): the podKiller and the pod worker kill the same pod at once (race R4)', () => {
  it('a SyncPodKill through the pod worker and a podKiller kill of the same UID overlap', () => {
    const h = createPodWorkers({
      // kl.syncPod for SyncPodKill: killPod(pod, nil, podStatus, override)
      syncBody: function* (o): Co<void> {
        if (o.updateType === 'SyncPodKill') {
          yield* kubelet.kill(
            'podWorker',
            o.pod,
            o.pod.metadata.uid,
            o.killPodOptions?.podTerminationGracePeriodSecondsOverride,
          );
        }
      },
    });
    const kubelet = new FakeKubelet(h.sim);
    const podKiller = new PodKiller({ sim: h.sim, group: h.group, kubelet, nodeName: 'node-a' });
    podKiller.start();
    const pod = newPod('u1', 'web');
    // eviction: killPodNow -> UpdatePod(SyncPodKill, grace 1)
    h.podWorkers.updatePod({
      pod,
      updateType: 'SyncPodKill',
      killPodOptions: { podTerminationGracePeriodSecondsOverride: 1 },
    });
    // housekeeping 100 ms later: the pod is no longer desired, its runtime pod is still there
    h.sim.at(100, () =>
      drive(h.sim, function* (): Co<void> {
        yield* podKiller.killPod({ RunningPod: runtimePod('u1') });
      }),
    );
    // and the same again at 200 ms: this one IS deduped (the podKiller's own kill is in flight)
    h.sim.at(200, () =>
      drive(h.sim, function* (): Co<void> {
        yield* podKiller.killPod({ RunningPod: runtimePod('u1') });
      }),
    );
    drainWorkers(h);
    expect(kubelet.calls.map((c) => [c.source, c.startMs, c.endMs, c.grace])).toEqual([
      ['podWorker', 0, 500, 1],
      ['podKiller', 100, 600, undefined], // no override: the spec's grace period, longer than 1 s
    ]);
    expect(kubelet.maxInFlight.get('u1')).toBe(2);
  });
});
