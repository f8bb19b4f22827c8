// pod-cgroup-destroyed-with-volumes: unit cases on synthetic facts, the planted bug it exists for (the
// kubelet's cgroup cleanup no longer asking whether the pod's volumes exist) in a run, and the known-open
// hazard #113563 (WaitForUnmount ignores uncertain mounts) tied by its marker.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type * as VolumeWiring from '../../src/cluster/volumeWiring.js';
import type { Fact } from '../../src/facts.js';
import { Fixes } from '../../src/fixes.js';
import { PodCgroupDestroyedWithVolumes } from '../../src/invariants/index.js';
import type { Violation } from '../../src/invariants/types.js';
import { runScenario } from '../../src/run/run.js';
import { parseScenarioText } from '../../src/scenario/load.js';

const planted = vi.hoisted(() => ({ volumesNeverExist: false }));

// The planted bug: the kubelet's podVolumesExist (kubelet_volumes.go) answers "no volumes" whatever the
// volume manager and the disk say, so housekeeping's cgroup cleanup goes ahead.
vi.mock('../../src/cluster/volumeWiring.js', async (importOriginal) => {
  const original = await importOriginal<typeof VolumeWiring>();
  return {
    ...original,
    newKubeletVolumeManager: (...args: Parameters<typeof original.newKubeletVolumeManager>) => {
      const vm = original.newKubeletVolumeManager(...args);
      return {
        ...vm,
        podVolumesExist: (uid: string) => !planted.volumesNeverExist && vm.podVolumesExist(uid),
      };
    },
  };
});

afterEach(() => {
  planted.volumesNeverExist = false;
});

const destroyed = (atMs: number, uid = 'db-1'): Fact => ({
  kind: 'podCgroupDestroyed',
  atMs,
  node: 'node-a',
  pod: 'db',
  uid,
});
const setUp: Fact = {
  kind: 'volumeSetUp',
  atMs: 1_000,
  node: 'node-a',
  pod: 'db',
  uid: 'db-1',
  volume: 'lun-1',
};

const run = (
  facts: readonly Fact[],
  mounts: (node: string, uid: string) => readonly string[],
): Violation[] => {
  const c = new PodCgroupDestroyedWithVolumes(mounts);
  const out: Violation[] = [];
  for (const f of facts) if (c.kinds.includes(f.kind)) c.onFact(f, (v) => out.push(v));
  return out;
};

describe('pod-cgroup-destroyed-with-volumes on facts', () => {
  it("fires when the pod's volume is still set up on the node at the destroy", () => {
    const v = run([setUp, destroyed(5_000)], (node, uid) =>
      node === 'node-a' && uid === 'db-1' ? ['lun-1'] : [],
    );
    expect(v.map((x) => [x.invariant, x.uid, x.volume, x.atMs])).toEqual([
      ['pod-cgroup-destroyed-with-volumes', 'db-1', 'lun-1', 5_000],
    ]);
    expect(v[0]?.causes.map((c) => c.kind)).toEqual(['volumeSetUp', 'podCgroupDestroyed']);
  });

  it('holds when nothing of the pod is set up any more', () => {
    expect(run([setUp, destroyed(5_000)], () => [])).toEqual([]);
  });

  it("judges each pod by its own volumes (another pod's mount does not count)", () => {
    expect(run([setUp, destroyed(5_000, 'web-1')], (_n, uid) => (uid === 'db-1' ? ['lun-1'] : []))).toEqual(
      [],
    );
  });
});

const lines = (...timeline: string[]): string =>
  [
    'name: cgroup',
    'seed: 1',
    'horizon: 2m',
    'cluster:',
    '  nodes: [node-a]',
    '  volumes:',
    '    - { name: lun-1, plugin: iscsi, mode: Filesystem, capacity: 10Gi }',
    'timeline:',
    '  - at: 0s',
    '    createPod: { pod: db, node: node-a, containers: 1, volumes: [lun-1], gracePeriod: 5s }',
    ...timeline,
  ].join('\n');

const fired = (text: string, fixes: Fixes) => {
  const r = runScenario(parseScenarioText(text, 'cgroup.yaml'), { fixes });
  return r.violations.filter((v) => v.invariant === 'pod-cgroup-destroyed-with-volumes');
};

describe('pod-cgroup-destroyed-with-volumes in a run', () => {
  // The pod leaves the API while its kubelet is down: the kubelet that starts next has no worker for it
  // (no syncTerminatedPod), so housekeeping's cleanupOrphanedPodCgroups is what decides about its cgroup,
  // and must wait while the orphan's reconstructed volume fails to tear down.
  const orphan = lines(
    '  - at: 30s',
    '    restartKubelet: { node: node-a, downFor: 10s }',
    '  - at: 32s',
    '    forceDeletePod: { pod: db }',
    '  - at: 32s',
    '    fault: { tearDown: { node: node-a, volume: lun-1, times: 40 } }',
  );

  it('holds with the port as it is', () => {
    expect(fired(orphan, Fixes.all())).toEqual([]);
  });

  it("fires when the cgroup cleanup no longer sees the pod's volumes", () => {
    planted.volumesNeverExist = true;
    const v = fired(orphan, Fixes.all());
    expect(v).toHaveLength(1);
    expect(v[0]?.message).toMatch(
      /the cgroup of pod db \(uid db-1\) was destroyed at .* while node-a still has its volume lun-1 set up/,
    );
    expect(v[0]?.knownOpen).toBeUndefined();
  });

  it('#113563: a failed TearDown (uncertain) lets syncTerminatedPod destroy it; the hazard explains it, and only with #100183', () => {
    const failing = lines(
      '  - at: 30s',
      '    fault: { tearDown: { node: node-a, volume: lun-1, times: 2 } }',
      '  - at: 30s',
      '    deletePod: { pod: db }',
    );
    // Before #115331 (1.27), whose SyncTerminatedPod waits for podVolumesExist, uncertain mounts included.
    const v = fired(failing, Fixes.all().with('terminated-pod-waits-for-volume-cleanup', false));
    expect(v.map((x) => x.knownOpen)).toEqual(['wait-for-unmount-ignores-uncertain']);
    expect(
      fired(
        failing,
        Fixes.all()
          .with('terminated-pod-waits-for-volume-cleanup', false)
          .with('unmount-device-uncertain', false),
      ),
    ).toEqual([]);
    expect(fired(failing, Fixes.all())).toEqual([]);
  });
});
