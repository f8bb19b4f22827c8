// Reconciler tests after pkg/kubelet/volumemanager/reconciler/reconciler_test.go (release-1.23):
// mount with controller attach/detach, Test_UncertainDeviceGlobalMounts, and PR #100183's race: a new
// pod arriving after a failed UnmountDevice gets MountDevice again only with fix `unmount-device-uncertain`.
import { describe, expect, it } from 'vitest';
import { Fixes } from '../../../src/fixes.js';
import {
  DeviceGloballyMounted,
  DeviceMountUncertain,
  DeviceNotMounted,
} from '../../../src/kubelet/volumemanager/operationexecutor/operationExecutor.js';
import type { Co } from '../../../src/sim/index.js';
import { Harness, makePod, makeSpec } from './fakes.js';

/** Deletes the pod the way the kubelet would: gone from the pod manager, runtime removable. */
function deletePod(h: Harness, uid: string): void {
  h.pods.delete(uid);
  h.runtimeRemovable.add(uid);
}

describe('reconciler: mount and unmount with controller attach/detach', () => {
  it('waits for volumesInUse to be reported, verifies the attachment, then WaitForAttach, MountDevice, SetUp', () => {
    const h = new Harness({ reportInUse: false });
    const pod = h.addPod(makePod('a', ['lun-1']));
    h.runUntil(2_000);
    // Not reported in use yet: no VerifyControllerAttachedVolume, nothing attached.
    expect(h.vm.actualStateOfWorld.volumeExists('lun-1')).toBe(false);
    expect(h.vm.getVolumesInUse()).toEqual(['lun-1']);
    h.vm.markVolumesAsReportedInUse(['lun-1']);
    h.runUntil(3_000);
    expect(h.plugin.calls).toEqual(['waitForAttach(lun-1)', 'mountDevice(lun-1)', 'setUp(lun-1,uid-a)']);
    expect(h.vm.getMountedVolumesForPod('uid-a').get('lun-1')?.volumeName).toBe('lun-1');
    expect(h.vm.podVolumesExist('uid-a')).toBe(true);
    expect(h.factsOf('volumeSetUp')).toMatchObject([
      { uid: 'uid-a', pod: 'a', volume: 'lun-1', node: 'node-a' },
    ]);
    expect(h.vm.actualStateOfWorld.getAttachedVolumes()[0]?.devicePath).toBe('/dev/fake-lun-1');
    // WaitForAttachAndMount returns at once now.
    let result: unknown = 'pending';
    h.sim.spawn(
      'waiter',
      (function* (): Co {
        result = yield* h.vm.waitForAttachAndMount(pod);
      })(),
    );
    h.runUntil(3_001);
    expect(result).toBeUndefined();

    deletePod(h, 'uid-a');
    let unmountResult: unknown = 'pending';
    h.sim.spawn(
      'unmount-waiter',
      (function* (): Co {
        unmountResult = yield* h.vm.waitForUnmount(pod);
      })(),
    );
    h.runUntil(5_000);
    expect(unmountResult).toBeUndefined();
    expect(h.plugin.calls.slice(3)).toEqual([
      'tearDown(lun-1,uid-a)',
      'unmountDevice(/var/lib/kubelet/plugins/kubernetes.io/fc/lun-1)',
    ]);
    expect(h.factsOf('volumeTearDown')).toMatchObject([
      { uid: 'uid-a', pod: 'a', volume: 'lun-1', ok: true },
    ]);
    // MarkVolumeAsDetached: the volume leaves the actual state and volumesInUse.
    expect(h.vm.actualStateOfWorld.volumeExists('lun-1')).toBe(false);
    expect(h.vm.getVolumesInUse()).toEqual([]);
    expect(h.vm.podVolumesExist('uid-a')).toBe(false);
  });

  it('WaitForAttachAndMount times out after 2 min 3 s when the volume is never attached', () => {
    const h = new Harness();
    h.volumesAttached = [];
    const pod = h.addPod(makePod('a', ['lun-1']));
    let result: { message: string } | undefined | 'pending' = 'pending';
    let doneAt = -1;
    h.sim.spawn(
      'waiter',
      (function* (): Co {
        result = yield* h.vm.waitForAttachAndMount(pod);
        doneAt = h.sim.nowMs;
      })(),
    );
    h.runUntil(200_000);
    expect(doneAt).toBe(123_000);
    expect((result as unknown as { message: string }).message).toBe(
      'unmounted volumes=[lun-1], unattached volumes=[lun-1]: timed out waiting for the condition',
    );
  });
});

describe('reconciler: Block mode', () => {
  it('maps (WaitForAttach, SetUpDevice, MapPodDevice) and unmaps (UnmapPodDevice, TearDownDevice)', () => {
    const h = new Harness({ volumes: [makeSpec('lun-b', 'fc', 'Block')] });
    h.addPod(makePod('a', ['lun-b']));
    h.runUntil(2_000);
    expect(h.plugin.calls).toEqual([
      'waitForAttach(lun-b)',
      'setUpDevice(lun-b)',
      'mapPodDevice(lun-b,uid-a)',
    ]);
    expect(h.vm.getMountedVolumesForPod('uid-a').get('lun-b')?.blockVolumeMapper).toBeDefined();
    expect(h.vm.actualStateOfWorld.getAttachedVolumes()[0]?.deviceMountPath).toBe(
      '/var/lib/kubelet/plugins/kubernetes.io/fc/volumeDevices/lun-b',
    );
    expect(h.factsOf('volumeSetUp')).toMatchObject([{ uid: 'uid-a', volume: 'lun-b' }]);
    deletePod(h, 'uid-a');
    h.runUntil(4_000);
    expect(h.plugin.calls.slice(3)).toEqual(['unmapPodDevice(lun-b,uid-a)', 'tearDownDevice(lun-b)']);
    expect(h.factsOf('volumeTearDown')).toMatchObject([{ uid: 'uid-a', volume: 'lun-b', ok: true }]);
    expect(h.vm.getVolumesInUse()).toEqual([]);
  });
});

describe('Test_UncertainDeviceGlobalMounts', () => {
  for (const [name, uncertain, want, unmountDeviceCalls] of [
    ['timed out MountDevice leaves the device uncertain', true, DeviceMountUncertain, 1],
    ['failed MountDevice leaves the device not mounted', false, DeviceNotMounted, 0],
  ] as const) {
    it(name, () => {
      const h = new Harness();
      h.plugin.failNext('mountDevice', 1_000, uncertain);
      h.addPod(makePod('a', ['lun-1']));
      h.runUntil(3_000);
      expect(h.plugin.count('mountDevice')).toBeGreaterThan(1);
      expect(h.vm.actualStateOfWorld.getDeviceMountState('lun-1')).toBe(want);
      deletePod(h, 'uid-a');
      h.runUntil(10_000);
      expect(h.plugin.count('unmountDevice')).toBe(unmountDeviceCalls);
      expect(h.vm.actualStateOfWorld.volumeExists('lun-1')).toBe(false);
    });
  }
});

describe('PR #100183: a new pod after a failed UnmountDevice', () => {
  function race(fixes: Fixes): Harness {
    const h = new Harness({ fixes });
    h.addPod(makePod('a', ['lun-1']));
    h.runUntil(2_000);
    expect(h.plugin.count('mountDevice')).toBe(1);
    h.plugin.failNext('unmountDevice');
    deletePod(h, 'uid-a');
    while (h.plugin.count('unmountDevice') === 0 || h.vm.operationExecutor.isOperationPending('lun-1', '')) {
      h.runUntil(h.sim.nowMs + 1);
    }
    // Pod b wants the same volume within the backoff window, so UnmountDevice is not retried.
    h.addPod(makePod('b', ['lun-1']));
    h.runUntil(h.sim.nowMs + 3_000);
    expect(h.plugin.count('unmountDevice')).toBe(1);
    expect(h.plugin.calls.filter((c) => c === 'setUp(lun-1,uid-b)')).toHaveLength(1);
    expect(h.vm.getMountedVolumesForPod('uid-b').size).toBe(1);
    expect(h.vm.actualStateOfWorld.getDeviceMountState('lun-1')).toBe(DeviceGloballyMounted);
    return h;
  }

  it('with the fix: the device is uncertain, so MountDevice runs again before SetUp', () => {
    const h = race(Fixes.all());
    expect(h.plugin.count('mountDevice')).toBe(2);
    const calls = h.plugin.calls;
    expect(calls.lastIndexOf('mountDevice(lun-1)')).toBeLessThan(calls.indexOf('setUp(lun-1,uid-b)'));
  });

  it('without the fix: the device stays GloballyMounted and MountDevice is skipped', () => {
    const h = race(Fixes.all().with('unmount-device-uncertain', false));
    expect(h.plugin.count('mountDevice')).toBe(1);
  });
});
