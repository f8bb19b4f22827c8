// The tearDown fault's `delay`: each faulted TearDown hangs that long with the pod's mount in place, then
// fails. A hang past syncTerminatedPod's WaitForUnmount (2 min) is what the slow-teardown fuzz profile
// builds: the fixed kubelet retries syncTerminatedPod and destroys the pod's cgroup only once the
// TearDown has ended (here it fails, and #113563's known-open hazard follows, tied by its marker), while a
// syncTerminatedPod that drops WaitForUnmount's error (planted) destroys it under the mount at once.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Fixes } from '../../src/fixes.js';
import { VolumeManager } from '../../src/kubelet/volumemanager/volumeManager.js';
import { runScenario } from '../../src/run/run.js';
import { parseScenarioText } from '../../src/scenario/load.js';

afterEach(() => vi.restoreAllMocks());

const scenario = parseScenarioText(
  `name: slow-teardown
seed: 1
horizon: 9m
cluster:
  nodes: [node-a]
  volumes:
    - { name: lun-1, plugin: iscsi, mode: Filesystem, capacity: 10Gi }
timeline:
  - at: 0s
    fault: { tearDown: { node: node-a, volume: lun-1, times: 1, delay: 3m } }
  - at: 0s
    createPod: { pod: db, node: node-a, containers: 1, volumes: [lun-1], gracePeriod: 5s }
  - at: 30s
    deletePod: { pod: db }
`,
  'slow-teardown.yaml',
);

// Before #115331 (1.27), whose SyncTerminatedPod waits for podVolumesExist (uncertain mounts included) and
// whose status manager deletes only once SyncTerminatedPod is done: both halves off.
const run = () =>
  runScenario(scenario, {
    fixes: Fixes.all()
      .with('terminated-pod-waits-for-volume-cleanup', false)
      .with('status-deletes-finished-pods', false),
    recordFacts: true,
  });

describe('a tearDown fault with a delay', () => {
  it('hangs the TearDown with the mount in place, then fails it', () => {
    expect(scenario.timeline[0]?.action).toMatchObject({ fault: { kind: 'tearDown', delayMs: 180_000 } });
    const r = run();
    const tearDowns = (r.facts ?? []).flatMap((f) => (f.kind === 'volumeTearDown' ? [f] : []));
    // The pod's TearDown starts once it is terminated (about 35 s) and answers 3 min later.
    expect(tearDowns[0]?.ok).toBe(false);
    expect(tearDowns[0]?.atMs).toBeGreaterThan(30_000 + 180_000);
    expect(tearDowns[1]?.ok).toBe(true);
    const cgroup = (r.facts ?? []).find((f) => f.kind === 'podCgroupDestroyed');
    expect(cgroup?.atMs).toBeGreaterThanOrEqual(tearDowns[0]?.atMs ?? Number.POSITIVE_INFINITY);
    // What fires is #113563's known-open hazard (WaitForUnmount ignores the uncertain mount), nothing else.
    expect(r.violations.map((v) => [v.invariant, v.knownOpen])).toEqual([
      ['pod-cgroup-destroyed-with-volumes', 'wait-for-unmount-ignores-uncertain'],
    ]);
  });

  it("catches a syncTerminatedPod that drops WaitForUnmount's error (planted)", () => {
    const waitForUnmount = VolumeManager.prototype.waitForUnmount;
    vi.spyOn(VolumeManager.prototype, 'waitForUnmount').mockImplementation(function* (
      this: VolumeManager,
      pod,
    ) {
      yield* waitForUnmount.call(this, pod);
      return undefined;
    });
    const r = run();
    const v = r.violations.filter((x) => x.invariant === 'pod-cgroup-destroyed-with-volumes');
    expect(v).toHaveLength(1);
    // Destroyed when the 2 min wait timed out, with the TearDown still hanging: no hazard explains it.
    expect(v[0]?.knownOpen).toBeUndefined();
    expect(v[0]?.atMs).toBeLessThan(30_000 + 180_000);
  });
});
