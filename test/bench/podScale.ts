// A scenario of many pods on one node, built in memory (no file, so the scenario format's bounds do not
// apply): pod i is created at i * (1 min / pods), one container, no volume, and runs until the horizon
// (10 virtual minutes). The `memory` section of `npm run bench` runs it for the pods table and the
// scale curve; a child process runs each size so that its peak RSS is its own.
import type { Scenario, TimelineEntry } from '../../src/scenario/types.js';

export const SCALE_HORIZON_MS = 10 * 60_000;

export function podScaleScenario(pods: number, horizonMs = SCALE_HORIZON_MS): Scenario {
  const timeline: TimelineEntry[] = [];
  for (let i = 0; i < pods; i++) {
    timeline.push({
      atMs: Math.floor((i * 60_000) / pods),
      line: 0,
      action: {
        kind: 'createPod',
        pod: `p${i}`,
        node: 'node-a',
        containers: [{ name: 'c1', startDelayMs: null }],
        volumes: [],
        static: false,
        gracePeriodS: 30,
        restartPolicy: 'Always',
      },
    });
  }
  return {
    file: '',
    name: `pods-${pods}`,
    description: `${pods} pods on one node`,
    upstream: [],
    seed: 1,
    horizonMs,
    nodes: ['node-a'],
    volumes: [],
    timeline,
    claims: [],
  };
}
