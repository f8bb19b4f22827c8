// volume-in-use-after-unmount: the planted bug it exists for (the kubelet's reconciler no longer marks a
// volume detached in its actual state after UnmountDevice, so GetVolumesInUse keeps listing it and the
// attach/detach controller can never detach it from the healthy node) fires it in a run that is clean
// without the bug; and the checker's bounds on synthetic facts.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Fact } from '../../src/facts.js';
import { Fixes } from '../../src/fixes.js';
import { VolumeInUseAfterUnmount } from '../../src/invariants/index.js';
import type { Violation } from '../../src/invariants/types.js';
import { IN_USE_RELEASE_BOUND_MS } from '../../src/invariants/volumeInUseAfterUnmount.js';
import { ActualStateOfWorld } from '../../src/kubelet/volumemanager/cache/actualStateOfWorld.js';
import { runScenario } from '../../src/run/run.js';
import { parseScenarioText } from '../../src/scenario/load.js';

afterEach(() => vi.restoreAllMocks());

const scenario = parseScenarioText(
  `name: in-use-dropped-after-unmount
seed: 1
horizon: 6m
cluster:
  nodes: [node-a]
  volumes:
    - { name: lun-1, plugin: iscsi, mode: Filesystem, capacity: 10Gi }
    - { name: raw-1, plugin: fc, mode: Block, capacity: 10Gi }
timeline:
  - at: 0s
    createPod: { pod: web, node: node-a, containers: 1, volumes: [lun-1, raw-1] }
  - at: 30s
    deletePod: { pod: web }
`,
  'in-use-dropped-after-unmount.yaml',
);

const fired = (violations: readonly Violation[]) =>
  violations.filter((v) => v.invariant === 'volume-in-use-after-unmount');

describe('volume-in-use-after-unmount', () => {
  it('stays quiet when the kubelet drops the volumes it unmounted, for every kubelet', () => {
    for (const fixes of [Fixes.all(), Fixes.none(), Fixes.of('1.23')]) {
      expect(fired(runScenario(scenario, { fixes }).violations)).toEqual([]);
    }
  });

  it('fires when the reconciler never marks an unmounted volume detached (planted)', () => {
    vi.spyOn(ActualStateOfWorld.prototype, 'markVolumeAsDetached').mockImplementation(() => undefined);
    const v = fired(runScenario(scenario, { fixes: Fixes.all() }).violations);
    expect(v.map((x) => [x.node, x.volume, x.pod])).toEqual([
      ['node-a', 'lun-1', 'web'],
      ['node-a', 'raw-1', 'web'],
    ]);
    expect(v[0]?.message).toMatch(
      /^node-a's status still lists volume lun-1 in volumesInUse at the end \(360\.00s\), listed since \S+, although the node unmounted the last of it \(\S+\) at \S+, its last pod there, web \(uid web-1\), left at \S+ and its kubelet has run since 0\.00s/,
    );
  });

  const listed = (atMs: number, volumes: string[]): Fact => ({
    kind: 'nodeVolumesInUse',
    atMs,
    node: 'node-a',
    volumes,
  });
  const mount = (atMs: number, mounted: boolean, path = '/g/lun-1'): Fact => ({
    kind: 'hostMount',
    atMs,
    node: 'node-a',
    volume: 'lun-1',
    path,
    mounted,
    scope: 'global',
  });
  const started: Fact = { kind: 'kubeletStarted', atMs: 0, node: 'node-a' };
  const judge = (facts: readonly Fact[], endMs: number, faultsActive = false): Violation[] => {
    const c = new VolumeInUseAfterUnmount({ faultsActiveAtEnd: () => faultsActive });
    const out: Violation[] = [];
    for (const f of facts) if (c.kinds.includes(f.kind)) c.onFact(f);
    c.onEnd(endMs, (v) => out.push(v));
    return out;
  };

  it('judges a listing that outlives every mount of the volume by the bound, while the kubelet runs', () => {
    const facts = [started, listed(5_000, ['lun-1']), mount(4_000, true), mount(20_000, false)];
    expect(judge(facts, 20_000 + IN_USE_RELEASE_BOUND_MS)).toHaveLength(1);
    expect(judge(facts, 20_000 + IN_USE_RELEASE_BOUND_MS - 1)).toEqual([]);
    expect(judge(facts, 20_000 + IN_USE_RELEASE_BOUND_MS, true)).toEqual([]);
    // Dropped from the status, a path still mounted, or a kubelet that is down: not judged.
    expect(judge([...facts, listed(30_000, [])], 20_000 + IN_USE_RELEASE_BOUND_MS)).toEqual([]);
    expect(judge([...facts, mount(21_000, true, '/p/u1/lun-1')], 300_000)).toEqual([]);
    const stopped: Fact = { kind: 'kubeletStopped', atMs: 25_000, node: 'node-a' };
    expect(judge([...facts, stopped], 300_000)).toEqual([]);
    // The bound counts from the kubelet's (re)start.
    const restarted: Fact = { kind: 'kubeletStarted', atMs: 60_000, node: 'node-a' };
    expect(judge([...facts, stopped, restarted], 60_000 + IN_USE_RELEASE_BOUND_MS - 1)).toEqual([]);
    expect(judge([...facts, stopped, restarted], 60_000 + IN_USE_RELEASE_BOUND_MS)).toHaveLength(1);
  });
});
