// Kubelet behaviours pinned to the upstream source line by line (v1.23.13 kubelet.go and kuberuntime,
// v1.20.4 where the legacy paths differ), checked on a whole world.
import { describe, expect, it } from 'vitest';
import type { PodStatus } from '../../src/api/v1.js';
import { World } from '../../src/cluster/world.js';
import type { Fact } from '../../src/facts.js';
import { Fixes } from '../../src/fixes.js';
import { parseScenarioText } from '../../src/scenario/load.js';

function scenarioText(timeline: string, horizon = '2m'): string {
  return `name: probe\nseed: 1\nhorizon: ${horizon}\ncluster:\n  nodes: [node-a]\ntimeline:\n${timeline}`;
}

interface Probe {
  readonly world: World;
  readonly facts: Fact[];
  run(): void;
}

function probe(timeline: string, fixes: Fixes, horizon = '2m', seed = 1): Probe {
  const scenario = parseScenarioText(scenarioText(timeline, horizon), 'probe.yaml');
  const world = new World({ scenario, seed, fixes });
  const facts: Fact[] = [];
  world.bus.subscribe((f) => facts.push(f));
  return {
    world,
    facts,
    run: () => {
      world.sim.run({ horizonMs: scenario.horizonMs, maxEvents: 2_000_000 });
    },
  };
}

describe('syncTerminatingPod (kubelet.go v1.23.13)', () => {
  it('sets the pod status before the kill and none after it', () => {
    const p = probe(
      '  - at: 0s\n    createPod: {pod: web, node: node-a, containers: 1, gracePeriod: 3s}\n' +
        '  - at: 5s\n    deletePod: {pod: web}\n',
      Fixes.all(),
    );
    p.world.start();
    const kubelet = p.world.nodeOf('node-a').kubelet;
    if (kubelet === undefined) throw new Error('no kubelet');
    const writes: { atMs: number; status: PodStatus }[] = [];
    const original = kubelet.statusManager.setPodStatus.bind(kubelet.statusManager);
    kubelet.statusManager.setPodStatus = (pod, status) => {
      writes.push({ atMs: p.world.sim.nowMs, status });
      original(pod, status);
    };
    p.run();
    const killStarted = p.facts.find((f) => f.kind === 'killPodStarted' && f.source === 'syncTerminatingPod');
    const killFinished = p.facts.find((f) => f.kind === 'killPodFinished');
    const terminatedPhase = p.facts.find((f) => f.kind === 'podWorkerPhase' && f.phase === 'terminated');
    expect(killStarted).toBeDefined();
    expect(killFinished).toBeDefined();
    expect(terminatedPhase).toBeDefined();
    // One write at the kill (before it), then nothing until syncTerminatedPod.
    expect(writes.some((w) => w.atMs === killStarted?.atMs)).toBe(true);
    const between = writes.filter(
      (w) =>
        w.atMs >= (killFinished?.atMs ?? Number.POSITIVE_INFINITY) &&
        w.atMs < (terminatedPhase?.atMs ?? Number.NEGATIVE_INFINITY),
    );
    expect(between).toEqual([]);
  });
});
