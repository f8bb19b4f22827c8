import { describe, expect, it } from 'vitest';
import { MetricsError } from '../../src/api/errors.js';
import type { Fact } from '../../src/facts.js';
import { Fixes } from '../../src/fixes.js';
import { VolumeStatCalculator } from '../../src/kubelet/stats/volumeStatCalculator.js';
import { callEmbeddedProvider, isNotSupported, MetricsBlock, MetricsNil } from '../../src/volume/metrics.js';
import type { BlockVolumeMapper, MetricsProvider } from '../../src/volume/volume.js';
import { GiB, World } from '../storage/world.js';

function blockPod(fixes: Fixes, plugin: 'fc' | 'iscsi' | 'csi' = 'fc') {
  const w = new World();
  const spec = w.volume({ name: 'blk-1', plugin, mode: 'Block', capacityBytes: 7 * GiB });
  const mgr = w.plugins('node-a', fixes);
  const p = mgr.findPluginBySpec(spec);
  if (plugin === 'csi') w.run(p.newAttacher().attach(spec, 'node-a'));
  w.run(p.newAttacher().waitForAttach(spec, '', 'uid-1', 10_000));
  const mapper = p.newBlockVolumeMapper(spec, 'uid-1');
  w.run(mapper.setUpDevice());
  w.run(mapper.mapPodDevice());
  return { w, mapper };
}

function calculator(
  w: World,
  fixes: Fixes,
  block: Map<string, BlockVolumeMapper>,
  fs = new Map<string, MetricsProvider>(),
) {
  const facts: Fact[] = [];
  const calc = new VolumeStatCalculator({
    sim: w.sim,
    node: 'node-a',
    podUID: 'uid-1',
    statsProvider: { listVolumesForPod: () => fs, listBlockVolumesForPod: () => block },
    jitterPeriodMs: 60_000,
    fixes,
    publish: (f) => facts.push(f),
    rng: w.sim.rng.fork('node-a/stats'),
  });
  return { calc, facts };
}

describe('metrics providers', () => {
  it('MetricsNil does not support metrics', () => {
    const w = new World();
    const nil = new MetricsNil();
    expect(nil.supportsMetrics()).toBe(false);
    const r = w.run(nil.getMetrics()).value;
    expect(r.err).toBeInstanceOf(MetricsError);
    expect(isNotSupported(r.err)).toBe(true);
  });

  it('MetricsBlock: NoPathDefined without a device, capacity = LUN size via seek-end', () => {
    const { w, mapper } = blockPod(Fixes.all());
    const none = w.run(new MetricsBlock(w.host(), '').getMetrics()).value.err;
    expect(none).toBeInstanceOf(MetricsError);
    expect((none as MetricsError).code).toBe('NoPathDefined');
    // fcDiskMapper: GetMetrics is the shallower embedded MetricsProvider (MetricsBlock since #101587),
    // SupportsMetrics is fcDisk's MetricsNil (false): the calculator never asks it.
    expect(mapper.supportsMetrics()).toBe(false);
    expect(w.run(mapper.getMetrics()).value.value).toEqual({ capacityBytes: 7 * GiB });
    expect(w.run(new MetricsBlock(w.host(), '/dev/dm-0').getMetrics()).value.value).toEqual({
      capacityBytes: 7 * GiB,
    });
    expect(w.run(new MetricsBlock(w.host(), '/dev/nope').getMetrics()).value.err?.message).toContain(
      'unable to open device',
    );
  });

  it('iSCSI mappers get MetricsBlock too with the fix', () => {
    const { w, mapper } = blockPod(Fixes.all(), 'iscsi');
    expect(mapper.supportsMetrics()).toBe(true);
    expect(w.run(mapper.getMetrics()).value.value).toEqual({ capacityBytes: 7 * GiB });
  });
});

describe('volume_stat_calculator: Block volumes (#97972) and the SupportsMetrics gate (#101587)', () => {
  it('with block-metrics: block volumes report capacity and nothing panics', () => {
    const fixes = Fixes.all();
    const { w, mapper } = blockPod(fixes, 'iscsi');
    const { calc, facts } = calculator(
      w,
      fixes,
      new Map([['blk-1', mapper]]),
      new Map([['nil', new MetricsNil()]]),
    );
    w.run(calc.calcAndStoreStats());
    expect(facts).toEqual([]);
    expect(calc.getLatest()).toEqual({ persistentVolumes: [{ name: 'blk-1', capacityBytes: 7 * GiB }] });
  });

  it('FC block volumes are skipped with #101587 and answer NotSupported without it (fcDisk embeds MetricsNil)', () => {
    for (const fix of [true, false]) {
      const fixes = Fixes.all().with('block-metrics', fix);
      const { w, mapper } = blockPod(fixes, 'fc');
      if (!fix) expect(isNotSupported(w.run(mapper.getMetrics()).value.err)).toBe(true);
      const { calc, facts } = calculator(w, fixes, new Map([['blk-1', mapper]]));
      w.run(calc.calcAndStoreStats());
      expect(facts).toEqual([]);
      expect(calc.getLatest()).toEqual({ persistentVolumes: [] });
    }
  });

  it("without it: the iSCSI mapper's unset embedded provider is a panic, published as kubeletPanic", () => {
    for (const plugin of ['iscsi'] as const) {
      const fixes = Fixes.all().with('block-metrics', false);
      const { w, mapper } = blockPod(fixes, plugin);
      const { calc, facts } = calculator(w, fixes, new Map([['blk-1', mapper]]));
      w.run(calc.calcAndStoreStats());
      expect(facts).toEqual([
        expect.objectContaining({
          kind: 'kubeletPanic',
          node: 'node-a',
          component: 'volume_stat_calculator',
        }),
      ]);
      expect(calc.panicked).toBe(true);
      expect(calc.getLatest()).toBeUndefined();
    }
  });

  it('the gate itself: a mapper without metrics (unset provider) is skipped only with the fix', () => {
    for (const fix of [true, false]) {
      const fixes = Fixes.all().with('block-metrics', fix);
      const w = new World();
      const unset: BlockVolumeMapper = {
        supportsMetrics: () => false,
        getMetrics: () => callEmbeddedProvider(undefined),
        getGlobalMapPath: () => '',
        getPodDeviceMapPath: () => '',
        setUpDevice: () => callEmbeddedProvider(undefined) as never,
        mapPodDevice: () => callEmbeddedProvider(undefined) as never,
      };
      const { calc, facts } = calculator(w, fixes, new Map([['local-1', unset]]));
      w.run(calc.calcAndStoreStats());
      expect(facts.map((f) => f.kind)).toEqual(fix ? [] : ['kubeletPanic']);
    }
  });

  it('without #97972 (fix block-volume-stats) no Block volume is asked at all: no panic', () => {
    const fixes = Fixes.all().with('block-metrics', false).with('block-volume-stats', false);
    const { w, mapper } = blockPod(fixes, 'iscsi');
    const { calc, facts } = calculator(w, fixes, new Map([['blk-1', mapper]]));
    w.run(calc.calcAndStoreStats());
    expect(facts).toEqual([]);
    expect(calc.panicked).toBe(false);
  });

  it('without #101587, CSI block volumes (real metrics) do not panic', () => {
    const fixes = Fixes.all().with('block-metrics', false);
    const { w, mapper } = blockPod(fixes, 'csi');
    const { calc, facts } = calculator(w, fixes, new Map([['blk-1', mapper]]));
    w.run(calc.calcAndStoreStats());
    expect(facts).toEqual([]);
    expect(calc.getLatest()?.persistentVolumes).toEqual([{ name: 'blk-1', capacityBytes: 7 * GiB }]);
  });

  it('the background loop stops after a panic and runs periodically otherwise', () => {
    const fixes = Fixes.all();
    const { w, mapper } = blockPod(fixes, 'iscsi');
    const { calc } = calculator(w, fixes, new Map([['blk-1', mapper]]));
    calc.startOnce();
    w.sim.run({ horizonMs: w.sim.nowMs + 300_000, maxEvents: 10_000 });
    expect(calc.getLatest()?.persistentVolumes).toHaveLength(1);
    calc.stopOnce();
    w.sim.run({ horizonMs: w.sim.nowMs + 300_000, maxEvents: 10_000 });
  });
});
