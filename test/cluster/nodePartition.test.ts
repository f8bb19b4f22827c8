// The nodePartition fault and upstream #119273 (known-open hazard force-detach-unhealthy-node): a node cut
// off from the API server loses Ready while its kubelet and pod go on, the attach/detach controller
// force-detaches its CSI volume after maxWaitForUnmountDuration, the relist after the heal brings the old
// pod's REMOVE with the new pod's ADD, and the kubelet skips MountDevice over the dead global mount.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../src/api/v1.js';
import { APIServer } from '../../src/cluster/apiServer.js';
import type { Fact } from '../../src/facts.js';
import { Fixes } from '../../src/fixes.js';
import { HazardTracker } from '../../src/invariants/hazards.js';
import type { Violation } from '../../src/invariants/types.js';
import { runScenario } from '../../src/run/run.js';
import { parseScenarioText } from '../../src/scenario/load.js';
import { type Co, Sim } from '../../src/sim/index.js';

const text = readFileSync(
  join(import.meta.dirname, '..', '..', 'scenarios', 'csi-partition-force-detach-reattach.yaml'),
  'utf8',
);
const run = (source: string, fixes: Fixes) =>
  runScenario(parseScenarioText(source, 'p.yaml'), { fixes, recordFacts: true });
const ofKind = <K extends Fact['kind']>(facts: readonly Fact[] | undefined, kind: K) =>
  (facts ?? []).filter((f): f is Extract<Fact, { kind: K }> => f.kind === kind);

function pod(uid: string): Pod {
  return {
    metadata: { uid, name: uid, namespace: 'default', annotations: {} },
    spec: { nodeName: 'node-a', containers: [{ name: 'c1' }], volumes: [], restartPolicy: 'Always' },
    status: { phase: 'Pending', containerStatuses: [] },
  };
}

describe('APIServer partition', () => {
  it('cuts the kubelet off: requests fail, the Lease is not renewed, the watch is silent until a relist after the heal', () => {
    const sim = new Sim(1);
    const api = new APIServer(sim, sim.rng.fork('apiserver'), () => {});
    api.addNode('node-a');
    const client = api.client('node-a');
    const seen: string[] = [];
    api.watchNode(
      'node-a',
      (type, p) => seen.push(`${sim.nowMs < 100_000 ? 'during' : 'after'} ${type} ${p.metadata.uid}`),
      (pods) =>
        seen.push(
          `LIST ${pods.map((p) => p.metadata.uid).join(',')} at ${sim.nowMs >= 100_000 ? 'heal' : 'start'}`,
        ),
    );
    const results: string[] = [];
    sim.at(1_000, () => api.createPod(pod('p1')));
    sim.at(10_000, () => api.partitionNode('node-a', 90_000));
    sim.at(20_000, () => {
      api.forceDeletePod('p1');
      api.createPod(pod('p2'));
      client.renewLease('node-a', 20_000);
      results.push(`getNode ${client.getNode('node-a') === undefined ? 'failed' : 'ok'}`);
      sim.spawn(
        'patch',
        (function* (): Co<void> {
          const n = yield* client.patchNodeStatus('node-a', []);
          results.push(`patch ${n === undefined ? 'failed' : 'ok'}`);
        })(),
      );
    });
    sim.run({ horizonMs: 200_000, maxEvents: 10_000 });
    expect(results).toEqual(['getNode failed', 'patch failed']);
    // The last renewal that reached the server is from before the partition (registration at 0 here).
    expect(api.nodeLeaseRenewTimeMs('node-a')).toBe(0);
    expect(seen[0]).toBe('LIST  at start');
    expect(seen[1]).toBe('during ADDED p1');
    // Nothing of p1's deletion or p2's creation while cut off; the relist after the heal has p2, not p1.
    expect(seen.slice(2)).toEqual(['LIST p2 at heal']);
  });

  it("each heal of one node draws its own relist back-off from the node's stream", () => {
    const sim = new Sim(1);
    const api = new APIServer(sim, sim.rng.fork('apiserver'), () => {});
    api.addNode('node-a');
    const lists: number[] = [];
    api.watchNode(
      'node-a',
      () => {},
      () => lists.push(sim.nowMs),
    );
    sim.at(10_000, () => api.partitionNode('node-a', 90_000));
    sim.at(200_000, () => api.partitionNode('node-a', 90_000));
    sim.run({ horizonMs: 400_000, maxEvents: 10_000 });
    expect(lists).toHaveLength(3);
    const [, first = 0, second = 0] = lists;
    // A stream forked anew at each heal gives both heals the same back-off (52.38 s and 52.34 s after
    // them, the rest being the LIST's own latency); the node's one stream gives two draws.
    expect(Math.abs(first - 100_000 - (second - 290_000))).toBeGreaterThan(1_000);
  });
});

describe('csi-partition-force-detach-reattach (#119273)', () => {
  it('force-detaches the partitioned node and the re-attach skips MountDevice, under every preset', () => {
    for (const fixes of [Fixes.all(), Fixes.of('1.23'), Fixes.of('1.20'), Fixes.of('1.31')]) {
      const r = run(text, fixes);
      expect(r.violations.map((v) => [v.invariant, v.volume, v.knownOpen ?? null])).toEqual([
        ['device-released-while-open', 'vol-1', 'force-detach-unhealthy-node'],
        ['mount-device-skipped-after-failure', 'vol-1', 'force-detach-unhealthy-node'],
      ]);
    }
  });

  it('the relist carries the old pod REMOVE and the new pod ADD together; no MountDevice for the new pod', () => {
    const r = run(text, Fixes.all());
    const healed = ofKind(r.facts, 'nodePartitionHealed')[0]?.atMs ?? 0;
    expect(healed).toBe(810_000);
    const removed = ofKind(r.facts, 'podTerminationRequested').find((f) => f.uid === 'p1-1');
    const admitted = ofKind(r.facts, 'podAdmitted').find((f) => f.uid === 'p1-2');
    expect(removed?.atMs).toBeGreaterThan(healed);
    expect(admitted?.atMs).toBe(removed?.atMs);
    expect(ofKind(r.facts, 'mountDevice').filter((f) => f.atMs > healed)).toEqual([]);
    // The node was not Ready when the controller force-detached it: volume-detached-while-in-use is quiet.
    expect(ofKind(r.facts, 'forceDetachUnhealthyNode').map((f) => f.atMs)).toHaveLength(1);
  });

  it('without the partition nothing fires: the kubelet sees the deletion, unmounts, and reports the volume unused', () => {
    const clean = run(text.replace(/ {2}- at: 30s\n {4}fault:[^\n]*\n/, ''), Fixes.all());
    expect(text).toContain('nodePartition');
    expect(clean.violations).toEqual([]);
  });

  it('the loader refuses a partition of 0s with file, line and field', () => {
    expect(() => parseScenarioText(text.replace('duration: 13m', 'duration: 0s'), 'p.yaml')).toThrow(
      /p\.yaml:\d+:\d+: timeline\[1\]\.fault\.nodePartition\.duration: expected a duration more than 0s/,
    );
  });
});

describe('hazard force-detach-unhealthy-node ties only the fence of that forced detach', () => {
  const marker: Fact = { kind: 'forceDetachUnhealthyNode', atMs: 720_000, node: 'node-a', volume: 'vol-1' };
  const released = (atMs: number, node = 'node-a'): Violation => ({
    invariant: 'device-released-while-open',
    atMs,
    node,
    pod: null,
    uid: 'p1-1',
    volume: 'vol-1',
    message: '',
    causes: [
      {
        kind: 'deviceReleased',
        atMs,
        node,
        volume: 'vol-1',
        action: 'fence',
        device: '',
        holders: 2,
        mounts: 2,
        pods: ['p1-1'],
        hostProcess: false,
      },
    ],
  });
  it('explains its own fence, not a later one, another node, or a release without the marker', () => {
    const t = new HazardTracker(Fixes.all());
    expect(t.explain(released(720_200))).toBeNull();
    t.onFact(marker);
    expect(t.explain(released(720_200))).toBe('force-detach-unhealthy-node');
    expect(t.explain(released(730_000))).toBeNull();
    expect(t.explain(released(720_200, 'node-b'))).toBeNull();
  });
});
