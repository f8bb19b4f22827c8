// Elision's parked set costs an event the same with 1,000 idle nodes as with 10: advance takes only the
// eager entries whose round is due (a heap by next round and tie), unpark looks only at the changed node's
// loops (a bucket per domain). Before, both scanned every parked entry on every event: a 1,000-node
// scenario ran at 300 us an event (28 entries looked at per event on 10 nodes, 918 on 300; 1.6 and 1.7 now) and one of 1,000 nodes for 6 minutes took 29 s (3.8 s now).
import { describe, expect, it } from 'vitest';
import { World } from '../../src/cluster/world.js';
import { Fixes } from '../../src/fixes.js';
import { parseScenarioText } from '../../src/scenario/load.js';

function idleNodes(n: number): World {
  const nodes = Array.from({ length: n }, (_, i) => `n${i}`).join(', ');
  const text = `name: idle\nhorizon: 2m\ncluster:\n  nodes: [${nodes}]\ntimeline:\n  - at: 1s\n    createPod: { pod: web, node: n0, containers: 1 }\n`;
  const world = new World({
    scenario: parseScenarioText(text, 'f.yaml'),
    seed: 1,
    fixes: Fixes.all(),
    elide: true,
  });
  world.start();
  world.sim.run({ horizonMs: 120_000, maxEvents: 10_000_000 });
  return world;
}

describe('the parked set scales with the changed node, not with the cluster', () => {
  it('entries looked at per event stay under a small constant from 10 to 300 nodes', () => {
    const perEvent = [10, 300].map((n) => {
      const w = idleNodes(n);
      expect(w.sim.parked.count).toBeGreaterThan(n); // every node has parked loops
      return w.sim.parked.visits / w.sim.events;
    });
    for (const v of perEvent) expect(v).toBeLessThan(4);
    // And it does not grow with the node count (a scan per event would multiply it by 30).
    expect(perEvent[1]).toBeLessThan((perEvent[0] as number) * 2);
  });
});
