// The attach/detach controller's elision masks (src/cluster/attachdetach/elisionMasks.ts): a pod or
// node delivery wakes the reconciler only when it changes the desired or actual state of world (a node's
// Ready condition comes from its Lease, which no delivery carries), and a timeline entry that only changes the API server's pods wakes
// no parked loop at all (src/cluster/scenarioActions.ts).
import { describe, expect, it } from 'vitest';
import { World } from '../../../src/cluster/world.js';
import { Fixes } from '../../../src/fixes.js';
import { parseScenarioText } from '../../../src/scenario/load.js';
import type { Process } from '../../../src/sim/index.js';

/** Steps of the controller's reconciler in one elided run of `timeline` (two nodes, one FC volume). */
function reconcilerSteps(timeline: string): { steps: number; nodePatches: number } {
  const scenario = parseScenarioText(
    'name: probe\nseed: 1\nhorizon: 2m\ncluster:\n  nodes: [node-a, node-b]\n  volumes:\n' +
      `    - {name: lun-1, plugin: fc, capacity: 10Gi}\ntimeline:\n${timeline}`,
    'probe.yaml',
  );
  const world = new World({ scenario, seed: 1, fixes: Fixes.all(), elide: true });
  let steps = 0;
  let nodePatches = 0;
  const step = world.sim.step.bind(world.sim);
  world.sim.step = (p: Process): void => {
    if (p.name === 'attachdetach-controller/reconciler') steps++;
    step(p);
  };
  world.bus.subscribe((f) => {
    if (f.kind === 'nodeVolumesInUse') nodePatches++;
  });
  world.start();
  world.sim.run({ horizonMs: scenario.horizonMs, maxEvents: 1_000_000 });
  return { steps, nodePatches };
}

/** Four pods created 5 s apart and deleted 30 s later; p0 mounts lun-1 if `p0Volume`. */
const pods = (p0Volume: boolean): string =>
  [0, 1, 2, 3]
    .map((i) => {
      const volumes = i === 0 && p0Volume ? ', volumes: [lun-1]' : '';
      return (
        `  - at: ${i * 5}s\n    createPod: {pod: p${i}, node: node-a, containers: 3${volumes}}\n` +
        `  - at: ${i * 5 + 30}s\n    deletePod: {pod: p${i}}\n`
      );
    })
    .join('');

describe('attach/detach controller elision', () => {
  it('pod actions, node status patches and status patches of pods without volumes do not wake the reconciler; a volume does', () => {
    const quiet = reconcilerSteps(pods(false));
    // Its first two passes run (the first has no previous pass to compare with), and the controller's
    // populator (every minute, over 2 minutes) may wake it: the 8 timeline entries (creates and deletes
    // of API pods, which change only the API server), each node's first status patch and the pods'
    // deliveries (created, status patches, deletion) may not.
    expect(quiet.nodePatches).toBe(2);
    expect(quiet.steps).toBeLessThanOrEqual(2 + 2);
    // p0's volume enters and leaves the desired state: those deliveries wake it (and it attaches).
    expect(reconcilerSteps(pods(true)).steps).toBeGreaterThan(quiet.steps);
  });
});
