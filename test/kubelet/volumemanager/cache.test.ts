// Ports of pkg/kubelet/volumemanager/cache/actual_state_of_world_test.go (device and uncertain states)
// and of nestedpendingoperations_test.go / exponential backoff, release-1.23.
import { describe, expect, it } from 'vitest';
import { GoError } from '../../../src/api/errors.js';
import {
  type ActualStateOfWorld,
  deviceMayBeMounted,
} from '../../../src/kubelet/volumemanager/cache/actualStateOfWorld.js';
import { DesiredStateOfWorld } from '../../../src/kubelet/volumemanager/cache/desiredStateOfWorld.js';
import {
  DeviceMountUncertain,
  DeviceNotMounted,
  VolumeMounted,
  VolumeMountUncertain,
} from '../../../src/kubelet/volumemanager/operationexecutor/operationExecutor.js';
import { type Co, Sim, sleep } from '../../../src/sim/index.js';
import { maxDurationBeforeRetryMs } from '../../../src/volume/util/exponentialBackoff.js';
import {
  isAlreadyExists,
  NestedPendingOperations,
} from '../../../src/volume/util/nestedPendingOperations.js';
import { FakePlugin, makePod, makeSpec, newASW, podMountOpts } from './fakes.js';

function attachedOf(asw: ActualStateOfWorld, name: string) {
  return asw.getAttachedVolumes().find((v) => v.volumeName === name);
}

describe('ActualStateOfWorld device mount states', () => {
  it('Test_MarkDeviceAsMounted_Positive_NewVolume: attached volumes start DeviceNotMounted', () => {
    const asw = newASW();
    expect(asw.markVolumeAsAttached('', makeSpec('lun-1'), 'node-a', '/dev/sdb')).toBeUndefined();
    const av = attachedOf(asw, 'lun-1');
    expect(av?.deviceMountState).toBe(DeviceNotMounted);
    expect(av?.devicePath).toBe('/dev/sdb');
    expect(av && deviceMayBeMounted(av)).toBe(false);
    expect(asw.markDeviceAsMounted('lun-1', '/dev/sdb', '/global/lun-1')).toBeUndefined();
    expect(asw.getGloballyMountedVolumes().map((v) => v.volumeName)).toEqual(['lun-1']);
    expect(attachedOf(asw, 'lun-1')?.deviceMountPath).toBe('/global/lun-1');
  });

  it('MarkDeviceAsUncertain: the device may still be mounted, and it is not globally mounted', () => {
    const asw = newASW();
    asw.markVolumeAsAttached('', makeSpec('lun-1'), 'node-a', '/dev/sdb');
    asw.markDeviceAsMounted('lun-1', '/dev/sdb', '/global/lun-1');
    expect(asw.markDeviceAsUncertain('lun-1', '/dev/sdb', '/global/lun-1')).toBeUndefined();
    expect(asw.getDeviceMountState('lun-1')).toBe(DeviceMountUncertain);
    const av = attachedOf(asw, 'lun-1');
    expect(av && deviceMayBeMounted(av)).toBe(true);
    expect(asw.getGloballyMountedVolumes()).toEqual([]);
    // Unmounted volumes (no pod) still list it, so unmountDetachDevices retries UnmountDevice.
    expect(asw.getUnmountedVolumes().map((v) => [v.volumeName, v.deviceMountState])).toEqual([
      ['lun-1', DeviceMountUncertain],
    ]);
    asw.markDeviceAsUnmounted('lun-1');
    expect(asw.getDeviceMountState('lun-1')).toBe(DeviceNotMounted);
    const after = attachedOf(asw, 'lun-1');
    expect(after && deviceMayBeMounted(after)).toBe(false);
    expect(after?.devicePath).toBe('/dev/sdb');
  });

  it('marking a device of an unknown volume is an error; unknown volumes are DeviceNotMounted', () => {
    const asw = newASW();
    expect(asw.markDeviceAsUncertain('nope', '', '')).toBeInstanceOf(GoError);
    expect(asw.getDeviceMountState('nope')).toBe(DeviceNotMounted);
    expect(asw.podExistsInVolume('uid-a', 'nope').err).toBeInstanceOf(GoError);
  });

  it('TestUncertainVolumeMounts: uncertain pod mounts are "possibly" mounted only', () => {
    const asw = newASW();
    asw.markVolumeAsAttached('', makeSpec('lun-1'), 'node-a', '');
    const opts = podMountOpts(VolumeMounted);
    expect(asw.markVolumeMountAsUncertain(opts)).toBeUndefined();
    expect(asw.getMountedVolumesForPod('uid-a')).toEqual([]);
    expect(asw.getPossiblyMountedVolumesForPod('uid-a')).toHaveLength(1);
    expect(asw.getAllMountedVolumes()).toHaveLength(1);
    expect(asw.getMountedVolumes()).toHaveLength(0);
    expect(asw.podExistsInVolume('uid-a', 'lun-1').exists).toBe(false);
    expect(asw.podRemovedFromVolume('uid-a', 'lun-1')).toBe(false);
    expect(asw.getVolumeMountState('lun-1', 'uid-a')).toBe(VolumeMountUncertain);
    asw.markVolumeAsMounted(opts);
    expect(asw.getMountedVolumesForPod('uid-a')).toHaveLength(1);
    expect(asw.podExistsInVolume('uid-a', 'lun-1').exists).toBe(true);
    // A volume with a pod cannot be deleted; without one it can.
    expect(asw.deleteVolume('lun-1')).toBeInstanceOf(GoError);
    asw.markVolumeAsUnmounted('uid-a', 'lun-1');
    expect(asw.podRemovedFromVolume('uid-a', 'lun-1')).toBe(true);
    asw.markVolumeAsDetached('lun-1', 'node-a');
    expect(asw.volumeExists('lun-1')).toBe(false);
  });
});

describe('DesiredStateOfWorld', () => {
  it('reportedInUse follows MarkVolumesReportedInUse; the volume goes with its last pod', () => {
    const plugin = new FakePlugin();
    const dsw = new DesiredStateOfWorld({ findPluginBySpec: () => plugin, findPluginByName: () => plugin });
    const a = makePod('a', ['lun-1']);
    const b = makePod('b', ['lun-1']);
    dsw.addPodToVolume('uid-a', a, makeSpec('lun-1'), 'lun-1', '');
    dsw.addPodToVolume('uid-b', b, makeSpec('lun-1'), 'lun-1', '');
    expect(dsw.getVolumesToMount().map((v) => [v.podName, v.reportedInUse, v.pluginIsAttachable])).toEqual([
      ['uid-a', false, true],
      ['uid-b', false, true],
    ]);
    dsw.markVolumesReportedInUse(['lun-1']);
    expect(dsw.getVolumesToMount().every((v) => v.reportedInUse)).toBe(true);
    dsw.deletePodFromVolume('uid-a', 'lun-1');
    expect(dsw.volumeExists('lun-1')).toBe(true);
    dsw.deletePodFromVolume('uid-b', 'lun-1');
    expect(dsw.volumeExists('lun-1')).toBe(false);
  });
});

describe('NestedPendingOperations', () => {
  function op(name: string, ms: number, err?: GoError) {
    return {
      operationName: name,
      *operationFunc(): Co<GoError | undefined> {
        yield* sleep(ms);
        return err;
      },
    };
  }

  it('serialises (volume, "") against every pod key of the same volume, not other volumes', () => {
    const sim = new Sim(1);
    const g = new NestedPendingOperations(sim, undefined);
    expect(g.run('v1', '', '', op('volume_mount', 10))).toBeUndefined();
    expect(isAlreadyExists(g.run('v1', 'pod-a', '', op('volume_unmount', 10)))).toBe(true);
    expect(g.run('v2', 'pod-a', '', op('volume_unmount', 10))).toBeUndefined();
    expect(g.isOperationPending('v1', '', '')).toBe(true);
    sim.run({ horizonMs: 20, maxEvents: 1e9 });
    expect(g.isOperationPending('v1', '', '')).toBe(false);
    expect(g.size).toBe(0);
  });

  it('per-pod keys of the same volume run in parallel', () => {
    const sim = new Sim(1);
    const g = new NestedPendingOperations(sim, undefined);
    expect(g.run('v1', 'pod-a', '', op('volume_unmount', 10))).toBeUndefined();
    expect(g.run('v1', 'pod-b', '', op('volume_unmount', 10))).toBeUndefined();
    expect(g.isOperationPending('v1', '', '')).toBe(true);
  });

  it('backs off 500 ms after a failure, doubling up to 2 min 2 s', () => {
    const sim = new Sim(1);
    const g = new NestedPendingOperations(sim, undefined);
    const failing = () => op('unmount_device', 0, new GoError('boom'));
    const waits: number[] = [];
    let lastStart = 0;
    expect(g.run('v1', '', '', failing())).toBeUndefined();
    const tick = () => {
      // An idle run does not move the clock: schedule a no-op one millisecond later.
      sim.after(1, () => {});
      sim.run({ horizonMs: sim.nowMs + 1, maxEvents: 1e9 });
    };
    for (let tries = 0; tries < 12; ) {
      tick();
      if (g.run('v1', '', '', failing()) === undefined) {
        waits.push(sim.nowMs - lastStart);
        lastStart = sim.nowMs;
        tries++;
      }
    }
    // The retry is refused while now - lastError <= duration: the first allowed try is 1 ms later.
    expect(waits.slice(0, 5)).toEqual([501, 1001, 2001, 4001, 8001]);
    expect(waits.at(-1)).toBe(maxDurationBeforeRetryMs + 1);
    // A different operation name resets the backoff.
    tick();
    expect(g.run('v1', '', '', op('volume_mount', 0))).toBeUndefined();
  });
});
