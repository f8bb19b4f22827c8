// The kubelet's node status and node Lease (src/kubelet/kubeletNodeStatus.ts, kubelet_node_status.go and
// the node lease controller of release-1.23): volumesInUse is patched when it changes, an unchanged
// status every nodeStatusReportFrequency, and liveness is the Lease, renewed every 10 s and read by no
// node watcher. Elided and plain runs renew the Lease at the same times.
import { describe, expect, it } from 'vitest';
import { World } from '../../src/cluster/world.js';
import type { Fact } from '../../src/facts.js';
import { Fixes } from '../../src/fixes.js';
import { parseScenarioText } from '../../src/scenario/load.js';

function world(timeline: string, horizon: string, elide: boolean): World {
  const scenario = parseScenarioText(
    `name: probe\nseed: 3\nhorizon: ${horizon}\ncluster:\n  nodes: [node-a, node-b]\n  volumes:\n` +
      `    - {name: lun-1, plugin: fc, capacity: 10Gi}\ntimeline:\n${timeline === '' ? '  []\n' : timeline}`,
    'probe.yaml',
  );
  return new World({ scenario, seed: 3, fixes: Fixes.all(), elide });
}

/** node-a's volumesInUse patches (their times and lists) over the run, and what node watchers saw. */
function patches(timeline: string, horizon: string, horizonMs: number, elide = true) {
  const w = world(timeline, horizon, elide);
  const reports: { atMs: number; volumes: readonly string[] }[] = [];
  w.bus.subscribe((f: Fact) => {
    if (f.kind === 'nodeVolumesInUse' && f.node === 'node-a')
      reports.push({ atMs: f.atMs, volumes: f.volumes });
  });
  let deliveries = 0;
  w.api.watchNodes(
    'probe',
    (_type, node) => {
      if (node.metadata.name === 'node-a') deliveries++;
    },
    () => {},
  );
  w.start();
  w.sim.run({ horizonMs, maxEvents: 1_000_000 });
  return { reports, deliveries };
}

describe('node status', () => {
  it('is patched when volumesInUse changes, not every 10 s', () => {
    const timeline =
      '  - at: 5s\n    createPod: {pod: p1, node: node-a, containers: 1, volumes: [lun-1], gracePeriod: 2s}\n' +
      '  - at: 60s\n    deletePod: {pod: p1}\n';
    for (const elide of [true, false]) {
      const { reports, deliveries } = patches(timeline, '3m', 180_000, elide);
      // The first report of the kubelet (lastStatusReportTime is zero), lun-1 in use, then not.
      expect(reports.map((r) => r.volumes)).toEqual([[], ['lun-1'], []]);
      expect(reports[0]?.atMs).toBeLessThan(1_000);
      // lun-1 enters the desired state soon after 5 s; the next 10 s round reports it.
      expect(reports[1]?.atMs).toBeGreaterThan(5_000);
      expect(reports[1]?.atMs).toBeLessThan(30_000);
      expect(reports[2]?.atMs).toBeGreaterThan(60_000);
      // The watch sees the registration, these patches and the controller's volumesAttached patches
      // (attach, detach), nothing else: no heartbeat on the node object.
      expect(deliveries).toBe(1 + reports.length + 2);
    }
  });

  it('an unchanged status is patched again once node-status-report-frequency (5 min) has passed', () => {
    for (const elide of [true, false]) {
      const { reports } = patches('', '7m', 420_000, elide);
      expect(reports.map((r) => r.volumes)).toEqual([[], []]);
      const gapMs = (reports[1]?.atMs ?? 0) - (reports[0]?.atMs ?? 0);
      // Rounds every 10 s after each round ends (a patch's round trip slides the next one).
      expect(gapMs).toBeGreaterThanOrEqual(300_000);
      expect(gapMs).toBeLessThan(310_100);
    }
  });
});

describe('node Lease', () => {
  /** node-a's Lease renewTime as events at these times read it (a real event sees every skipped round). */
  function renewTimes(timeline: string, atMs: readonly number[], elide: boolean): (number | undefined)[] {
    const w = world(timeline, '4m', elide);
    const seen: (number | undefined)[] = [];
    for (const t of atMs) w.sim.at(t, () => seen.push(w.api.nodeLeaseRenewTimeMs('node-a')));
    w.start();
    w.sim.run({ horizonMs: 240_000, maxEvents: 1_000_000 });
    return seen;
  }

  it('is renewed every 10 s while the kubelet runs, and not while it is down; elided as plain', () => {
    const timeline = '  - at: 100s\n    restartKubelet: {node: node-a, downFor: 60s}\n';
    const at = [95_000, 150_000, 200_000, 235_000];
    const plain = renewTimes(timeline, at, false);
    expect(renewTimes(timeline, at, true)).toEqual(plain);
    const [running = Number.NaN, down = Number.NaN, back = Number.NaN, later = Number.NaN] = plain;
    expect(95_000 - running).toBeLessThanOrEqual(10_000);
    // Down from 100 s: the last renewal is from before, so 50 s later the node is NotReady (40 s grace).
    expect(down).toBeLessThanOrEqual(100_000);
    expect(150_000 - down).toBeGreaterThan(40_000);
    // Back at about 160 s: renewed from its start on.
    expect(back).toBeGreaterThanOrEqual(160_000);
    expect(200_000 - back).toBeLessThanOrEqual(10_000);
    expect(235_000 - later).toBeLessThanOrEqual(10_000);
  });
});
