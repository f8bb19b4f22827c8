// The API server's watch is a stream: a node sees a pod's events in the order they happened, even when
// two of them become due at the same virtual instant (the seeded tie-break must never reorder them).
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../src/api/v1.js';
import { APIServer } from '../../src/cluster/apiServer.js';
import { Sim } from '../../src/sim/index.js';

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
