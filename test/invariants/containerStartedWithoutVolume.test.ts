// container-started-without-volume: the planted bug it exists for (syncPod no longer waits in
// WaitForAttachAndMount, so the runtime starts the containers while the volume is still being attached
// and mounted) fires it in a run that is clean without the bug; and the checker on synthetic facts,
// including upstream's own exception (no wait for a pod whose termination was requested).
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Fact } from '../../src/facts.js';
import { Fixes } from '../../src/fixes.js';
import { ContainerStartedWithoutVolume } from '../../src/invariants/index.js';
import type { Violation } from '../../src/invariants/types.js';
import { VolumeManager } from '../../src/kubelet/volumemanager/volumeManager.js';
import { runScenario } from '../../src/run/run.js';
import { parseScenarioText } from '../../src/scenario/load.js';
import type { Co } from '../../src/sim/index.js';

afterEach(() => vi.restoreAllMocks());

const scenario = parseScenarioText(
  `name: start-waits-for-volume
seed: 1
horizon: 3m
cluster:
  nodes: [node-a]
  volumes:
    - { name: lun-1, plugin: iscsi, mode: Filesystem, capacity: 10Gi }
    - { name: raw-1, plugin: fc, mode: Block, capacity: 10Gi }
timeline:
  - at: 0s
    createPod: { pod: web, node: node-a, containers: 2, volumes: [lun-1, raw-1] }
`,
  'start-waits-for-volume.yaml',
);

const fired = (violations: readonly Violation[]) =>
  violations.filter((v) => v.invariant === 'container-started-without-volume');

describe('container-started-without-volume', () => {
  it('stays quiet when syncPod waits for the volumes, for every kubelet', () => {
    for (const fixes of [Fixes.all(), Fixes.none(), Fixes.of('1.23')]) {
      expect(fired(runScenario(scenario, { fixes }).violations)).toEqual([]);
    }
  });

  it('fires when syncPod starts the containers without waiting for attach and mount (planted)', () => {
    vi.spyOn(VolumeManager.prototype, 'waitForAttachAndMount').mockImplementation(
      // biome-ignore lint/correctness/useYield: the planted wait returns at once, never blocking.
      function* (): Co<undefined> {
        return undefined;
      },
    );
    for (const fixes of [Fixes.all(), Fixes.none()]) {
      const v = fired(runScenario(scenario, { fixes }).violations);
      expect(v.map((x) => [x.pod, x.node, x.volume])).toEqual([['web', 'node-a', 'lun-1']]);
      expect(v[0]?.message).toMatch(
        /^container web\/c\d started at \S+ on node-a although its volume lun-1 was never set up there for pod web \(uid web-1\)/,
      );
      expect(v[0]?.causes.map((c) => c.kind)).toEqual(['apiPodCreated', 'containerStarted']);
    }
  });

  const created: Fact = {
    kind: 'apiPodCreated',
    atMs: 0,
    node: 'node-a',
    uid: 'u1',
    pod: 'web',
    static: false,
    restartPolicy: 'Always',
    containers: ['c1'],
    startDelayMs: 0,
    volumes: ['lun-1'],
    gracePeriodSeconds: 30,
  };
  const started = (atMs: number, node = 'node-a'): Fact => ({
    kind: 'containerStarted',
    atMs,
    node,
    uid: 'u1',
    pod: 'web',
    container: 'c1',
  });
  const setUp = (atMs: number, node = 'node-a', uid = 'u1'): Fact => ({
    kind: 'volumeSetUp',
    atMs,
    node,
    uid,
    pod: 'web',
    volume: 'lun-1',
  });
  const judge = (facts: readonly Fact[]): Violation[] => {
    const c = new ContainerStartedWithoutVolume();
    const out: Violation[] = [];
    for (const f of facts) if (c.kinds.includes(f.kind)) c.onFact(f, (v) => out.push(v));
    return out;
  };

  it('judges the volume of this pod UID on this node only', () => {
    expect(judge([created, setUp(1_000), started(2_000)])).toEqual([]);
    expect(judge([created, started(2_000)])).toHaveLength(1);
    // Set up on another node, or for another UID, does not count.
    expect(judge([created, setUp(1_000, 'node-b'), started(2_000)])).toHaveLength(1);
    expect(judge([created, setUp(1_000, 'node-a', 'u0'), started(2_000)])).toHaveLength(1);
  });

  it("keeps upstream's exception: no wait once the pod's termination was requested", () => {
    const requested: Fact = {
      kind: 'podTerminationRequested',
      atMs: 1_000,
      node: 'node-a',
      uid: 'u1',
      pod: 'web',
      reason: 'deleted',
    };
    expect(judge([created, requested, started(2_000)])).toEqual([]);
    const shutdown: Fact = {
      kind: 'nodeShutdownStarted',
      atMs: 1_000,
      node: 'node-a',
      podGracePeriodSeconds: 20,
    };
    expect(judge([created, shutdown, started(2_000)])).toEqual([]);
    // A static pod's UID put back starts a new lifecycle: judged again.
    expect(judge([created, requested, { ...created, atMs: 1_500 }, started(2_000)])).toHaveLength(1);
  });
});
