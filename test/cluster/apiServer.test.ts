// The API server's watch is a stream: a node sees a pod's events in the order they happened, even when
// two of them become due at the same virtual instant (the seeded tie-break must never reorder them).
import { describe, expect, it } from 'vitest';
import type { Pod, PodPhase } from '../../src/api/v1.js';
import { APIServer } from '../../src/cluster/apiServer.js';
import type { Fact } from '../../src/facts.js';
import { type ChoiceLog, ChoiceRun, type Co, dependent, Sim, sleep } from '../../src/sim/index.js';

function pod(uid: string, phase: PodPhase = 'Pending', terminationGracePeriodSeconds = 30): Pod {
  return {
    metadata: { uid, name: uid, namespace: 'default', annotations: {} },
    spec: {
      nodeName: 'node-a',
      containers: [{ name: 'c1' }],
      volumes: [],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds,
    },
    status: { phase, containerStatuses: [] },
  };
}

describe('APIServer watch', () => {
  it('delivers ADDED, MODIFIED, DELETED in order for every seed, also when they fall due at once', () => {
    for (let seed = 0; seed < 200; seed++) {
      const sim = new Sim(seed);
      const api = new APIServer(sim, sim.rng.fork('apiserver'), () => {});
      api.addNode('node-a');
      const seen: string[] = [];
      api.watchNode(
        'node-a',
        (type, p) => seen.push(`${type} ${p.metadata.uid}`),
        () => seen.push('SYNCED'),
      );
      sim.at(0, () => api.createPod(pod('p1')));
      sim.at(10, () => api.forceDeletePod('p1'));
      sim.run({ horizonMs: 10_000, maxEvents: 10_000 });
      expect(seen, `seed ${seed}`).toEqual(['SYNCED', 'ADDED p1', 'MODIFIED p1', 'DELETED p1']);
    }
  });
});

describe('APIServer controller informers and node status', () => {
  it('a controller watch draws its delays from its own stream: the kubelet sees the same deliveries with or without it', () => {
    const deliveries = (withController: boolean): { kubelet: string[]; controller: string[] } => {
      const sim = new Sim(7);
      const api = new APIServer(sim, sim.rng.fork('apiserver'), () => {});
      api.addNode('node-a');
      const kubelet: string[] = [];
      const controller: string[] = [];
      api.watchNode(
        'node-a',
        (type, p) => kubelet.push(`${sim.nowMs} ${type} ${p.metadata.uid}`),
        () => {},
      );
      if (withController) {
        api.watchPods(
          'adc',
          (type, p) => controller.push(`${sim.nowMs} ${type} ${p.metadata.uid}`),
          () => controller.push(`${sim.nowMs} SYNCED`),
        );
      }
      sim.at(0, () => api.createPod(pod('p1')));
      sim.at(5, () => api.createPod(pod('p2')));
      sim.at(10, () => api.forceDeletePod('p1'));
      sim.run({ horizonMs: 10_000, maxEvents: 10_000 });
      return { kubelet, controller };
    };
    const alone = deliveries(false);
    const both = deliveries(true);
    expect(both.kubelet).toEqual(alone.kubelet);
    expect(both.controller.map((e) => e.split(' ').slice(1).join(' '))).toEqual([
      'SYNCED',
      'ADDED p1',
      'ADDED p2',
      'MODIFIED p1',
      'DELETED p1',
    ]);
  });

  it('failNodeStatusUpdates fails the next patches of volumesAttached; node watchers see the patch that succeeds and the kubelet volumesInUse patch, not a Lease renewal', () => {
    const sim = new Sim(1);
    const api = new APIServer(sim, sim.rng.fork('apiserver'), () => {});
    api.addNode('node-a');
    const seen: string[] = [];
    api.watchNodes(
      'adc',
      (type, n) =>
        seen.push(
          `${type} ${n.status.volumesAttached.map((v) => v.name).join(',')} ${n.status.volumesInUse.join(',')}`,
        ),
      () => seen.push('SYNCED'),
    );
    api.failNodeStatusUpdates('node-a', 2);
    const client = api.controllerClient('adc');
    const kubeClient = api.client();
    const results: (string | undefined)[] = [];
    sim.spawn(
      'patcher',
      (function* (): Co {
        for (let i = 0; i < 3; i++)
          results.push(
            (yield* client.patchNodeVolumesAttached('node-a', [{ name: 'lun-1', devicePath: '' }]))?.message,
          );
        kubeClient.renewLease('node-a', sim.nowMs);
        yield* kubeClient.patchNodeStatus('node-a', ['lun-1']);
      })(),
    );
    sim.run({ horizonMs: 10_000, maxEvents: 10_000 });
    expect(results[0]).toContain('etcdserver: request timed out');
    expect(results[1]).toContain('etcdserver: request timed out');
    expect(results[2]).toBeUndefined();
    const renewed = api.nodeLeaseRenewTimeMs('node-a');
    expect(renewed).toBeGreaterThan(0);
    expect(seen).toEqual(['ADDED  ', 'SYNCED', 'MODIFIED lun-1 ', 'MODIFIED lun-1 lun-1']);
    expect(api.getNode('node-a').status.volumesInUse).toEqual(['lun-1']);
  });
});

/** What node-a's watch delivered (type, deletionTimestamp, deletionGracePeriodSeconds) and the facts. */
function deletion(
  steps: (api: APIServer, sim: Sim) => void,
  p: Pod = pod('p1'),
): { seen: string[]; facts: Fact[] } {
  const sim = new Sim(1);
  const facts: Fact[] = [];
  const api = new APIServer(sim, sim.rng.fork('apiserver'), (f) => facts.push(f));
  api.addNode('node-a');
  const seen: string[] = [];
  api.watchNode(
    'node-a',
    (type, o) => {
      const m = o.metadata;
      seen.push(`${type} ts=${m.deletionTimestamp ?? '-'} grace=${m.deletionGracePeriodSeconds ?? '-'}`);
    },
    () => {},
  );
  sim.at(0, () => api.createPod(p));
  steps(api, sim);
  sim.run({ horizonMs: 10_000, maxEvents: 10_000 });
  // The deletion's own facts: creates and the watch's deliveries to the kubelet (podDeletionDelivered, which
  // grace-period-exceeded reads: test/invariants/gracePeriodExceeded.test.ts) are not what these tests are about.
  return {
    seen,
    facts: facts.filter((f) => f.kind !== 'apiPodCreated' && f.kind !== 'podDeletionDelivered'),
  };
}

describe('APIServer pod deletion (store.Delete, rest.BeforeDelete, CheckGracefulDelete)', () => {
  it('a force delete first sets deletionTimestamp and a zero grace period, then removes the object', () => {
    const { seen, facts } = deletion((api, sim) => sim.at(100, () => api.forceDeletePod('p1')));
    expect(seen).toEqual(['ADDED ts=- grace=-', 'MODIFIED ts=100 grace=0', 'DELETED ts=100 grace=0']);
    expect(facts.map((f) => f.kind)).toEqual(['apiPodDeletionRequested', 'apiPodDeleted']);
    expect(facts[0]).toMatchObject({ gracePeriodSeconds: 0 });
    expect(facts[1]).toMatchObject({ by: 'user-force' });
  });

  it('a force delete shortens a pending graceful deletion to 0 and removes the object', () => {
    const { seen } = deletion((api, sim) => {
      sim.at(100, () => api.deletePodGracefully('p1'));
      sim.at(200, () => api.forceDeletePod('p1'));
    });
    expect(seen).toEqual([
      'ADDED ts=- grace=-',
      'MODIFIED ts=100 grace=30',
      'MODIFIED ts=100 grace=0',
      'DELETED ts=100 grace=0',
    ]);
  });

  it('a graceful delete only ever shortens: a longer grace period later changes nothing', () => {
    const { seen, facts } = deletion((api, sim) => {
      sim.at(100, () => api.deletePodGracefully('p1', 10));
      sim.at(200, () => api.deletePodGracefully('p1', 20));
      sim.at(300, () => api.deletePodGracefully('p1', 5));
    });
    expect(seen).toEqual(['ADDED ts=- grace=-', 'MODIFIED ts=100 grace=10', 'MODIFIED ts=100 grace=5']);
    expect(facts.map((f) => f.kind === 'apiPodDeletionRequested' && f.gracePeriodSeconds)).toEqual([10, 5]);
  });

  it('deleting a pod that is already Failed or Succeeded is immediate (CheckGracefulDelete)', () => {
    for (const phase of ['Failed', 'Succeeded'] as const) {
      const { seen, facts } = deletion(
        (api, sim) => sim.at(100, () => api.deletePodGracefully('p1')),
        pod('p1', phase),
      );
      expect(seen).toEqual(['ADDED ts=- grace=-', 'MODIFIED ts=100 grace=0', 'DELETED ts=100 grace=0']);
      expect(facts.at(-1)).toMatchObject({ kind: 'apiPodDeleted', by: 'user-force' });
    }
  });

  it('a pod whose own grace period is 0 is deleted at once by a delete that names none', () => {
    const { seen } = deletion(
      (api, sim) => sim.at(100, () => api.deletePodGracefully('p1')),
      pod('p1', 'Running', 0),
    );
    expect(seen).toEqual(['ADDED ts=- grace=-', 'MODIFIED ts=100 grace=0', 'DELETED ts=100 grace=0']);
  });

  it("the kubelet's final delete (grace 0) is the same two-phase delete, but not a new deletion request", () => {
    const { seen, facts } = deletion((api, sim) => {
      sim.at(100, () => api.deletePodGracefully('p1'));
      sim.spawn(
        'statusManager',
        (function* (): Co {
          yield* sleep(1000);
          yield* api.client().deletePod('default', 'p1', 'p1');
        })(),
      );
    });
    expect(seen).toEqual([
      'ADDED ts=- grace=-',
      'MODIFIED ts=100 grace=30',
      'MODIFIED ts=100 grace=0',
      'DELETED ts=100 grace=0',
    ]);
    expect(facts.map((f) => f.kind)).toEqual(['apiPodDeletionRequested', 'apiPodDeleted']);
    expect(facts[1]).toMatchObject({ by: 'kubelet' });
  });
});

describe('APIServer footprints (podrace explore)', () => {
  /**
   * Five requests of node-a's kubelet at one instant, each a callback that changes and reads nothing of
   * the node itself: who they touch is the API server's resources alone.
   */
  function requests(): { log: ChoiceLog; at: Record<string, number> } {
    const sim = new Sim(3);
    const run = new ChoiceRun([]);
    sim.setChoices(run);
    const api = new APIServer(sim, sim.rng.fork('apiserver'), () => {});
    api.addNode('node-a');
    api.createPod(pod('p1'));
    const client = api.client('node-a');
    const order: string[] = [];
    const request = (name: string, fn: () => void) =>
      sim.at(
        5,
        () => {
          sim.writesOnly(0);
          sim.readsOnly(0);
          order.push(name);
          fn();
        },
        1,
      );
    request('lease', () => client.renewLease('node-a', 5));
    request('getPod', () => api.getPodByUID('p1'));
    request('list', () => api.podsOnNode('node-a'));
    request('delete', () => api.forceDeletePod('p1'));
    request('node', () => api.getNode('node-a'));
    sim.run({ horizonMs: 10, maxEvents: 100 });
    const at: Record<string, number> = {};
    order.forEach((name, j) => {
      at[name] = j;
    });
    return { log: run.log, at };
  }

  it('requests of different resources commute, and two reads of one resource do', () => {
    const { log, at } = requests();
    const dep = (a: string, b: string) => dependent(log, at[a] as number, at[b] as number);
    expect(dep('lease', 'getPod')).toBe(false);
    expect(dep('lease', 'delete')).toBe(false);
    expect(dep('getPod', 'list')).toBe(false);
    expect(dep('node', 'delete')).toBe(false);
    expect(dep('node', 'lease')).toBe(false);
  });

  it('a write of a resource conflicts with every read of it', () => {
    const { log, at } = requests();
    const dep = (a: string, b: string) => dependent(log, at[a] as number, at[b] as number);
    expect(dep('getPod', 'delete')).toBe(true);
    expect(dep('delete', 'list')).toBe(true);
    // Without the reads recorded, a GET before the delete would seem to commute with it.
    expect(log.readTouches.length).toBeGreaterThan(0);
  });
});

describe('APIServer footprints: a watch', () => {
  /** node-a's watch, and at the instant its LIST is delivered, a callback that runs `at` (writes nothing of the node). */
  function deliveryWith(at: (api: APIServer) => void): { log: ChoiceLog; delivery: number; other: number } {
    const deliveredAtMs = (() => {
      const sim = new Sim(3);
      const api = new APIServer(sim, sim.rng.fork('apiserver'), () => {});
      api.addNode('node-a');
      let t = -1;
      api.watchNode(
        'node-a',
        () => {},
        () => {
          t = sim.nowMs;
        },
      );
      sim.run({ horizonMs: 1000, maxEvents: 100 });
      return t;
    })();
    const sim = new Sim(3);
    const run = new ChoiceRun([]);
    sim.setChoices(run);
    const api = new APIServer(sim, sim.rng.fork('apiserver'), () => {});
    api.addNode('node-a');
    api.watchNode(
      'node-a',
      () => {},
      () => {},
    );
    let other = -1;
    sim.at(
      deliveredAtMs,
      () => {
        sim.writesOnly(0);
        sim.readsOnly(0);
        other = sim.events - 1;
        at(api);
      },
      1,
    );
    sim.run({ horizonMs: 1000, maxEvents: 100 });
    const log = run.log;
    // The delivery: the other event of that instant (it may run first or last, and deliver or not).
    let delivery = -1;
    for (let j = 0; j < log.seq.length; j++) if (log.timeMs[j] === deliveredAtMs && j !== other) delivery = j;
    return { log, delivery, other };
  }

  it('a delivery does not commute with the end of its watch (a kubelet restart), and does with a change of a pod', () => {
    const ended = deliveryWith((api) => api.unwatchNode('node-a'));
    expect(ended.delivery).toBeGreaterThanOrEqual(0);
    expect(dependent(ended.log, ended.delivery, ended.other)).toBe(true);
    const created = deliveryWith((api) => api.createPod(pod('p2')));
    expect(created.delivery).toBeGreaterThanOrEqual(0);
    expect(dependent(created.log, created.delivery, created.other)).toBe(false);
  });
});
