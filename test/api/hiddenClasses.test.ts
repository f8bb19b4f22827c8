// The API objects of a run share one V8 hidden class per type (src/api/v1.ts, newPod and its siblings):
// what a pod's readers (syncPod, handlePodCleanups, relist, the status manager) are compiled against.
// A second class for one type would not change a result; it would make those readers polymorphic and
// have every fuzz worker thread compile them again when it first meets it. %HaveSameMap is V8's own
// answer; the natives syntax that spells it is switched on for this process alone.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../src/api/v1.js';
import { World } from '../../src/cluster/world.js';
import { Fixes } from '../../src/fixes.js';
import { loadScenarioFile } from '../../src/scenario/load.js';

setFlagsFromString('--allow-natives-syntax');
const haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b);') as (a: object, b: object) => boolean;

const scenariosDir = join(import.meta.dirname, '..', '..', 'scenarios');

/** Every pod object an observer's watch delivered over a run of `file`, mirror pods included. */
function podsSeen(file: string, fixes: Fixes): Pod[] {
  const scenario = loadScenarioFile(join(scenariosDir, file));
  const world = new World({ scenario, seed: scenario.seed, fixes });
  const pods: Pod[] = [];
  world.api.watchPods(
    'hidden-classes',
    (_type, pod) => pods.push(pod),
    () => {},
  );
  world.start();
  world.sim.run({ horizonMs: scenario.horizonMs, maxEvents: 2_000_000 });
  for (const node of world.nodes.keys()) pods.push(...world.api.mirrorPodsOnNode(node));
  return pods;
}

/** The parts of `pods` whose hidden class differs from the first one's, by kind. */
function classesBeyondTheFirst(pods: readonly Pod[]): Record<string, number> {
  const parts: Record<string, object[]> = {
    pod: [],
    metadata: [],
    spec: [],
    containerSpec: [],
    status: [],
    containerStatus: [],
  };
  for (const p of pods) {
    parts['pod']?.push(p);
    parts['metadata']?.push(p.metadata);
    parts['spec']?.push(p.spec);
    parts['containerSpec']?.push(...p.spec.containers);
    parts['status']?.push(p.status);
    parts['containerStatus']?.push(...p.status.containerStatuses);
  }
  const extra: Record<string, number> = {};
  for (const [kind, objects] of Object.entries(parts)) {
    const classes: object[] = [];
    for (const o of objects) if (!classes.some((c) => haveSameMap(c, o))) classes.push(o);
    extra[kind] = Math.max(0, classes.length - 1);
  }
  return extra;
}

describe('API objects share one hidden class per type', () => {
  it('over every bundled scenario, with every fix on and with the legacy kubelet', () => {
    const files = readdirSync(scenariosDir)
      .filter((f) => f.endsWith('.yaml'))
      .sort();
    const all: Pod[] = [];
    for (const fixes of [Fixes.all(), Fixes.none()]) for (const f of files) all.push(...podsSeen(f, fixes));
    // Deleted, mirrored, patched by the kubelet with running and terminated containers: all seen.
    expect(all.some((p) => p.metadata.deletionTimestamp !== undefined)).toBe(true);
    expect(all.some((p) => p.status.containerStatuses.some((c) => c.state === 'running'))).toBe(true);
    expect(all.some((p) => p.status.containerStatuses.some((c) => c.state === 'terminated'))).toBe(true);
    expect(all.some((p) => p.metadata.uid.includes('_mirror'))).toBe(true);
    expect(classesBeyondTheFirst(all)).toEqual({
      pod: 0,
      metadata: 0,
      spec: 0,
      containerSpec: 0,
      status: 0,
      containerStatus: 0,
    });
  });
});
