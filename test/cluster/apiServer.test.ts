// The API server's watch is a stream: a node sees a pod's events in the order they happened, even when
// two of them become due at the same virtual instant (the seeded tie-break must never reorder them).
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../src/api/v1.js';
import { APIServer } from '../../src/cluster/apiServer.js';
import { type Co, Sim } from '../../src/sim/index.js';

function pod(uid: string): Pod {
  return {
    metadata: { uid, name: uid, namespace: 'default', annotations: {} },
    spec: { nodeName: 'node-a', containers: [{ name: 'c1' }], volumes: [], restartPolicy: 'Always' },
    status: { phase: 'Pending', containerStatuses: [] },
  };
}

describe('APIServer watch', () => {
  it('delivers ADDED before DELETED for every seed, also when both fall due at once', () => {
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
      expect(seen, `seed ${seed}`).toEqual(['SYNCED', 'ADDED p1', 'DELETED p1']);
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
      'DELETED p1',
    ]);
  });

  it('failNodeStatusUpdates fails the next patches of volumesAttached; node watchers see the heartbeat and the patch that succeeds', () => {
    const sim = new Sim(1);
    const api = new APIServer(sim, sim.rng.fork('apiserver'), () => {});
    api.addNode('node-a');
    const seen: string[] = [];
    api.watchNodes(
      'adc',
      (type, n) =>
        seen.push(
          `${type} ${n.status.volumesAttached.map((v) => v.name).join(',')} ${n.status.lastHeartbeatMs}`,
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
        yield* kubeClient.updateNodeStatus('node-a', undefined);
      })(),
    );
    sim.run({ horizonMs: 10_000, maxEvents: 10_000 });
    expect(results[0]).toContain('etcdserver: request timed out');
    expect(results[1]).toContain('etcdserver: request timed out');
    expect(results[2]).toBeUndefined();
    const heartbeat = api.getNode('node-a').status.lastHeartbeatMs;
    expect(heartbeat).toBeGreaterThan(0);
    expect(seen).toEqual(['ADDED  0', 'SYNCED', 'MODIFIED lun-1 0', `MODIFIED lun-1 ${heartbeat}`]);
    expect(api.getNode('node-a').status.volumesInUse).toEqual([]);
  });
});
