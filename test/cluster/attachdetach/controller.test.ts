// The attach/detach controller in the world: its informers, Ready from the node Lease, volumesInUse from node
// status updates, and the force-detach rules of release-1.23 and PR #110721, end to end through facts.
import { describe, expect, it } from 'vitest';
import type { Fact } from '../../../src/facts.js';
import { Fixes } from '../../../src/fixes.js';
import { firedInvariants, runScenario } from '../../../src/run/run.js';
import { loadScenarioFile, parseScenarioText } from '../../../src/scenario/load.js';

function scenario(timeline: string, horizon = '3m'): ReturnType<typeof parseScenarioText> {
  return parseScenarioText(
    `name: probe\nseed: 1\nhorizon: ${horizon}\ncluster:\n  nodes: [node-a, node-b]\n  volumes:\n` +
      `    - {name: lun-1, plugin: fc, capacity: 10Gi}\ntimeline:\n${timeline}`,
    'probe.yaml',
  );
}

function factsOf<K extends Fact['kind']>(
  kind: K,
  all: readonly Fact[] | undefined,
): Extract<Fact, { kind: K }>[] {
  return (all ?? []).filter((f): f is Extract<Fact, { kind: K }> => f.kind === kind);
}

describe('attach/detach controller in the world', () => {
  it('detaches a deleted pod’s volume only after the node’s status stops listing it, with the safe-to-detach check', () => {
    const s = scenario(
      '  - at: 0s\n    createPod: {pod: p1, node: node-a, containers: 1, volumes: [lun-1], gracePeriod: 2s}\n' +
        '  - at: 20s\n    deletePod: {pod: p1}\n',
    );
    const r = runScenario(s, { fixes: Fixes.of('1.23'), recordFacts: true });
    expect(factsOf('volumeAttached', r.facts)).toMatchObject([{ node: 'node-a', volume: 'lun-1' }]);
    const started = factsOf('volumeDetachStarted', r.facts);
    expect(started).toMatchObject([
      { node: 'node-a', volume: 'lun-1', forced: false, verifySafeToDetach: true },
    ]);
    const unmounted = factsOf('unmountDevice', r.facts).find((f) => f.ok);
    const notInUse = factsOf('nodeVolumesInUse', r.facts).find(
      (f) => f.node === 'node-a' && f.atMs > (unmounted?.atMs ?? 0) && !f.volumes.includes('lun-1'),
    );
    expect(unmounted).toBeDefined();
    expect(notInUse).toBeDefined();
    // The controller hears of the new status through its node watch (10-60 ms later), then detaches.
    expect(started[0]?.atMs).toBeGreaterThan((notInUse?.atMs ?? 0) + 10);
    expect(started[0]?.atMs).toBeLessThan((notInUse?.atMs ?? 0) + 200);
    expect(factsOf('volumeDetached', r.facts)).toMatchObject([{ node: 'node-a', forced: false }]);
  });

  it('release-1.23 force-detaches the FC volume from healthy node-a 6 minutes after p1 went (#106710); PR #110721 never does', () => {
    const s = loadScenarioFile('scenarios/fc-force-detach-healthy-node.yaml');
    const r123 = runScenario(s, { fixes: Fixes.of('1.23'), recordFacts: true });
    const detached = factsOf('volumeDetached', r123.facts);
    expect(detached).toMatchObject([{ node: 'node-a', volume: 'lun-1', forced: true }]);
    const p1Gone = factsOf('apiPodDeleted', r123.facts).find((f) => f.pod === 'p1');
    expect(detached[0]?.atMs).toBeGreaterThan((p1Gone?.atMs ?? 0) + 6 * 60_000 - 5_000);
    // node-a stayed healthy: its kubelet renewed the node's Lease all along.
    expect(factsOf('kubeletStopped', r123.facts)).toEqual([]);
    expect(factsOf('volumeAttached', r123.facts).map((f) => f.node)).toEqual(['node-a', 'node-b']);
    // The force detach itself breaks #110721's rule (volume-detached-while-in-use), node-b's mount then
    // corrupts (multi-node-mount).
    expect(firedInvariants(r123)).toEqual(['multi-node-mount', 'volume-detached-while-in-use']);

    const r125 = runScenario(s, { fixes: Fixes.of('1.25'), recordFacts: true });
    expect(factsOf('volumeDetachStarted', r125.facts)).toEqual([]);
    expect(factsOf('multiAttachError', r125.facts)).toMatchObject([
      { node: 'node-b', volume: 'lun-1', attachedTo: ['node-a'], pods: ['p2'], usedBy: [] },
    ]);
    expect(firedInvariants(r125)).toEqual([]);
  });

  it('PR #110721 still force-detaches from a node whose kubelet stopped renewing its Lease (NotReady)', () => {
    const s = scenario(
      '  - at: 0s\n    createPod: {pod: p1, node: node-a, containers: 1, volumes: [lun-1]}\n' +
        '  - at: 20s\n    restartKubelet: {node: node-a, downFor: 9m}\n' +
        '  - at: 30s\n    forceDeletePod: {pod: p1}\n' +
        '  - at: 40s\n    createPod: {pod: p2, node: node-b, containers: 1, volumes: [lun-1]}\n',
      '8m',
    );
    const r = runScenario(s, { fixes: Fixes.all(), recordFacts: true });
    const started = factsOf('volumeDetachStarted', r.facts);
    expect(started).toMatchObject([{ node: 'node-a', forced: true, verifySafeToDetach: false }]);
    // Detach wanted from about 30 s on (the force delete); 6 minutes later node-a has long been NotReady.
    expect(started[0]?.atMs).toBeGreaterThan(30_000 + 6 * 60_000);
    expect(started[0]?.atMs).toBeLessThan(31_000 + 6 * 60_000);
    expect(factsOf('volumeAttached', r.facts).map((f) => f.node)).toEqual(['node-a', 'node-b']);
  });
});
