// GenerateUnmountDeviceFunc / GenerateUnmountVolumeFunc / block variants and PR #100183 (fix
// `unmount-device-uncertain`): a failed UnmountDevice, TearDown or unmap leaves the state uncertain.
import { describe, expect, it } from 'vitest';
import { type GoError, GoError as GoErrorClass } from '../../../src/api/errors.js';
import type { VolumeMode } from '../../../src/api/v1.js';
import type { Fact } from '../../../src/facts.js';
import { Fixes } from '../../../src/fixes.js';
import { ActualStateOfWorld } from '../../../src/kubelet/volumemanager/cache/actualStateOfWorld.js';
import {
  DeviceGloballyMounted,
  DeviceMountUncertain,
  DeviceNotMounted,
  VolumeMounted,
  VolumeMountUncertain,
} from '../../../src/kubelet/volumemanager/operationexecutor/operationExecutor.js';
import { OperationGenerator } from '../../../src/kubelet/volumemanager/operationexecutor/operationGenerator.js';
import { type Co, Sim } from '../../../src/sim/index.js';
import { FakePlugin, makeSpec } from './fakes.js';

function setup(fixes: Fixes, mode: VolumeMode = 'Filesystem', deviceOpened = false) {
  const sim = new Sim(1);
  const plugin = new FakePlugin();
  const mgr = { findPluginBySpec: () => plugin, findPluginByName: () => plugin };
  const facts: Fact[] = [];
  const og = new OperationGenerator({
    nodeName: 'node-a',
    fixes,
    volumePluginMgr: mgr,
    host: {
      getVolumesAttached: () => [],
      isDeviceOpened: () => deviceOpened,
      getDeviceBindMountRefs: () => ({ value: [], err: undefined }),
      publish: (f) => facts.push(f),
    },
    clock: sim,
  });
  const asw = new ActualStateOfWorld('node-a', mgr);
  const spec = makeSpec('lun-1', 'fc', mode);
  asw.markVolumeAsAttached('', spec, 'node-a', '/dev/sdb');
  asw.markDeviceAsMounted('lun-1', '/dev/sdb', '/global/lun-1');
  const run = (f: () => Co<GoError | undefined>): GoError | undefined => {
    let result: GoError | undefined;
    sim.spawn(
      'op',
      (function* (): Co {
        result = yield* f();
      })(),
    );
    sim.run({ horizonMs: sim.nowMs + 1000, maxEvents: 1e9 });
    return result;
  };
  const attached = () => asw.getAttachedVolumes()[0]!;
  return { sim, plugin, og, asw, spec, run, attached, facts };
}

describe('GenerateUnmountDeviceFunc', () => {
  for (const mode of ['Filesystem', 'Block'] as const) {
    it(`[${mode}] marks the device uncertain when UnmountDevice fails, with the fix`, () => {
      const t = setup(Fixes.all(), mode);
      t.plugin.failNext('unmountDevice');
      const g = t.og[mode === 'Block' ? 'generateUnmapDeviceFunc' : 'generateUnmountDeviceFunc'](
        t.attached(),
        t.asw,
      );
      expect(g.err).toBeUndefined();
      expect(t.run(g.ops!.operationFunc)).toBeDefined();
      expect(t.asw.getDeviceMountState('lun-1')).toBe(DeviceMountUncertain);
      // The retry succeeds and the device is unmounted.
      const g2 = t.og[mode === 'Block' ? 'generateUnmapDeviceFunc' : 'generateUnmountDeviceFunc'](
        t.attached(),
        t.asw,
      );
      expect(t.run(g2.ops!.operationFunc)).toBeUndefined();
      expect(t.asw.getDeviceMountState('lun-1')).toBe(DeviceNotMounted);
    });

    it(`[${mode}] leaves the device DeviceGloballyMounted when UnmountDevice fails, without the fix`, () => {
      const t = setup(Fixes.all().with('unmount-device-uncertain', false), mode);
      t.plugin.failNext('unmountDevice');
      const g = t.og[mode === 'Block' ? 'generateUnmapDeviceFunc' : 'generateUnmountDeviceFunc'](
        t.attached(),
        t.asw,
      );
      expect(t.run(g.ops!.operationFunc)).toBeDefined();
      expect(t.asw.getDeviceMountState('lun-1')).toBe(DeviceGloballyMounted);
    });
  }

  it('GetDeviceMountPath "does not exist": UnmountDevice goes on with the recorded path and succeeds', () => {
    const t = setup(Fixes.all());
    t.plugin.deviceMountPathGone = true;
    const g = t.og.generateUnmountDeviceFunc(t.attached(), t.asw);
    expect(t.run(g.ops!.operationFunc)).toBeUndefined();
    expect(t.plugin.calls).toContain('unmountDevice(/global/lun-1)');
    expect(t.asw.getDeviceMountState('lun-1')).toBe(DeviceNotMounted);
  });

  it('a device still open after a successful UnmountDevice is uncertain with the fix (PR #107789)', () => {
    for (const [fixes, want] of [
      [Fixes.all(), DeviceMountUncertain],
      [Fixes.none(), DeviceGloballyMounted],
      // The switch is #107789's own, apart from #100183's.
      [Fixes.all().with('unmount-device-open-uncertain', false), DeviceGloballyMounted],
      [Fixes.none().with('unmount-device-open-uncertain', true), DeviceMountUncertain],
    ] as const) {
      const t = setup(fixes, 'Filesystem', true);
      const g = t.og.generateUnmountDeviceFunc(t.attached(), t.asw);
      expect(t.run(g.ops!.operationFunc)?.message).toContain('the device is in use');
      expect(t.plugin.count('unmountDevice')).toBe(1);
      expect(t.asw.getDeviceMountState('lun-1')).toBe(want);
    }
  });
});

describe('GenerateUnmountVolumeFunc', () => {
  const opts = {
    podName: 'uid-a',
    podUID: 'uid-a',
    volumeName: 'lun-1',
    outerVolumeSpecName: 'lun-1',
    volumeGidVolume: '',
    volumeMountState: VolumeMounted,
    podDisplayName: 'a',
  };

  for (const [label, fixes, want] of [
    ['with', Fixes.all(), VolumeMountUncertain],
    ['without', Fixes.none(), VolumeMounted],
  ] as const) {
    it(`a failed TearDown ${label} the fix leaves the pod mount ${want} and publishes ok=false`, () => {
      const t = setup(fixes);
      t.asw.markVolumeAsMounted({ ...opts, volumeSpec: t.spec });
      t.plugin.failNext('tearDown');
      const g = t.og.generateUnmountVolumeFunc(t.asw.getAllMountedVolumes()[0]!, t.asw);
      expect(t.run(g.ops!.operationFunc)).toBeDefined();
      expect(t.asw.getVolumeMountState('lun-1', 'uid-a')).toBe(want);
      expect(t.facts).toEqual([
        {
          kind: 'volumeTearDown',
          uid: 'uid-a',
          pod: 'a',
          volume: 'lun-1',
          ok: false,
          atMs: 5,
          node: 'node-a',
        },
      ]);
      const g2 = t.og.generateUnmountVolumeFunc(t.asw.getAllMountedVolumes()[0]!, t.asw);
      expect(t.run(g2.ops!.operationFunc)).toBeUndefined();
      expect(t.asw.getAllMountedVolumes()).toEqual([]);
      expect(t.facts.at(-1)).toMatchObject({ kind: 'volumeTearDown', ok: true });
    });
  }

  it('[Block] a failed UnmapPodDevice leaves the pod mapping uncertain only with the fix', () => {
    for (const [fixes, want] of [
      [Fixes.all(), VolumeMountUncertain],
      [Fixes.none(), VolumeMounted],
    ] as const) {
      const t = setup(fixes, 'Block');
      t.asw.markVolumeAsMounted({ ...opts, volumeSpec: t.spec });
      t.plugin.failNext('tearDown');
      const g = t.og.generateUnmapVolumeFunc(t.asw.getAllMountedVolumes()[0]!, t.asw);
      expect(t.run(g.ops!.operationFunc)).toBeDefined();
      expect(t.plugin.count('unmapPodDevice')).toBe(1);
      expect(t.asw.getVolumeMountState('lun-1', 'uid-a')).toBe(want);
    }
  });
});

// #122211 (fix reconstructed-device-stays-uncertain, read at v1.31.12): a MountDevice that fails for good
// on a device reconstruction found leaves it uncertain, so UnmountDevice still runs when no pod wants it.
describe('markDeviceErrorState of a reconstructed device (#122211)', () => {
  const volumeToMount = (t: ReturnType<typeof setup>) => ({
    volumeName: 'lun-1',
    podName: 'uid-a',
    volumeSpec: t.spec,
  });
  const reconstructed = (fixes: Fixes) => {
    const t = setup(fixes);
    t.asw.markDeviceAsUncertain('lun-1', '/dev/sdb', '/global/lun-1');
    t.asw.checkAndMarkVolumeAsUncertainViaReconstruction({
      podName: 'uid-a',
      podUID: 'uid-a',
      volumeName: 'lun-1',
      outerVolumeSpecName: 'lun-1',
      volumeGidVolume: '',
      volumeSpec: t.spec,
      volumeMountState: VolumeMountUncertain,
    });
    return t;
  };
  const finalError = new GoErrorClass('rpc error: code = Internal desc = stage failed');

  it('with the fix: the device reconstruction found stays uncertain', () => {
    const t = reconstructed(Fixes.all());
    expect(t.asw.isVolumeDeviceReconstructed('lun-1')).toBe(true);
    t.og.markDeviceErrorState(volumeToMount(t) as never, '/dev/sdb', '/global/lun-1', finalError, t.asw);
    expect(t.asw.getDeviceMountState('lun-1')).toBe(DeviceMountUncertain);
  });

  it('without it (1.25): the device is marked unmounted and its staging forgotten', () => {
    const t = reconstructed(Fixes.all().with('reconstructed-device-stays-uncertain', false));
    t.og.markDeviceErrorState(volumeToMount(t) as never, '/dev/sdb', '/global/lun-1', finalError, t.asw);
    expect(t.asw.getDeviceMountState('lun-1')).toBe(DeviceNotMounted);
  });

  it('a device uncertain for another reason (a timed-out MountDevice) is marked unmounted either way', () => {
    const t = setup(Fixes.all());
    t.asw.markDeviceAsUncertain('lun-1', '/dev/sdb', '/global/lun-1');
    expect(t.asw.isVolumeDeviceReconstructed('lun-1')).toBe(false);
    t.og.markDeviceErrorState(volumeToMount(t) as never, '/dev/sdb', '/global/lun-1', finalError, t.asw);
    expect(t.asw.getDeviceMountState('lun-1')).toBe(DeviceNotMounted);
  });

  it("the volume stays reconstruction's until it leaves the actual state, whatever its pods do", () => {
    const t = reconstructed(Fixes.all());
    t.asw.markVolumeAsMounted({
      podName: 'uid-a',
      podUID: 'uid-a',
      volumeName: 'lun-1',
      outerVolumeSpecName: 'lun-1',
      volumeGidVolume: '',
      volumeSpec: t.spec,
      volumeMountState: VolumeMounted,
    });
    expect(t.asw.isVolumeDeviceReconstructed('lun-1')).toBe(true);
    t.asw.markVolumeAsUnmounted('uid-a', 'lun-1');
    t.asw.markDeviceAsUnmounted('lun-1');
    t.asw.markVolumeAsDetached('lun-1', 'node-a');
    expect(t.asw.isVolumeDeviceReconstructed('lun-1')).toBe(false);
  });
});
