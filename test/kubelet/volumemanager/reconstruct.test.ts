// Reconstruction after a kubelet start (reconciler.go syncStates, release-1.23): a volume found in the
// pods directory that no pod wants is reconstructed into the actual state (attached, mounted, device
// mounted), stays in volumesInUse and is cleaned up properly; when ConstructVolumeSpec fails, only the
// pod's UnmountVolume runs and the global mount is left behind (issue #101791).
import { describe, expect, it } from 'vitest';
import { Fixes } from '../../../src/fixes.js';
import type { PodVolumeOnDisk } from '../../../src/kubelet/volumemanager/host.js';
import { DeviceGloballyMounted } from '../../../src/kubelet/volumemanager/operationexecutor/operationExecutor.js';
import { Harness, makePod } from './fakes.js';

/** The old reconstruction (1.27 and earlier); the new one's tests are in reconstructNew.test.ts. */
const OLD = Fixes.all().with('new-volume-reconstruction', false);

const onDisk: PodVolumeOnDisk = {
  podUID: 'uid-old',
  podName: 'old',
  volumeName: 'lun-1',
  plugin: 'fc',
  mode: 'Filesystem',
  mountPath: '/var/lib/kubelet/pods/uid-old/volumes/kubernetes.io~fc/lun-1',
};

describe('syncStates', () => {
  it('runs once, after the populator has added pods', () => {
    const h = new Harness({ fixes: OLD, podsOnDisk: [onDisk] });
    expect(h.vm.reconcilerStatesHasBeenSynced()).toBe(false);
    h.runUntil(99);
    expect(h.vm.reconcilerStatesHasBeenSynced()).toBe(false);
    h.runUntil(2_000);
    expect(h.vm.reconcilerStatesHasBeenSynced()).toBe(true);
    expect(h.plugin.count('constructVolumeSpec')).toBe(1);
  });

  it('success: the volume is in the actual state and volumesInUse, then torn down and unmounted', () => {
    const h = new Harness({ fixes: OLD, podsOnDisk: [onDisk] });
    // Stop right after the reconstruction (the construct call takes 5 ms).
    while (!h.vm.reconcilerStatesHasBeenSynced()) h.runUntil(h.sim.nowMs + 1);
    const asw = h.vm.actualStateOfWorld;
    expect(asw.getDeviceMountState('lun-1')).toBe(DeviceGloballyMounted);
    expect(asw.getAttachedVolumes()[0]).toMatchObject({
      volumeName: 'lun-1',
      devicePath: '/dev/fake-lun-1',
      deviceMountPath: '/var/lib/kubelet/plugins/kubernetes.io/fc/lun-1',
      pluginIsAttachable: true,
    });
    expect(asw.getMountedVolumesForPod('uid-old')).toHaveLength(1);
    expect(h.vm.getVolumesInUse()).toEqual(['lun-1']);
    expect(h.vm.podVolumesExist('uid-old')).toBe(true);
    h.runUntil(h.sim.nowMs + 3_000);
    expect(h.plugin.calls).toEqual([
      'constructVolumeSpec(lun-1)',
      'tearDown(lun-1,uid-old)',
      'unmountDevice(/var/lib/kubelet/plugins/kubernetes.io/fc/lun-1)',
    ]);
    expect(h.factsOf('volumeTearDown')).toMatchObject([
      { uid: 'uid-old', pod: 'old', volume: 'lun-1', ok: true },
    ]);
    expect(h.vm.getVolumesInUse()).toEqual([]);
    expect(asw.volumeExists('lun-1')).toBe(false);
  });

  it('failure with the volume not in the desired state: only UnmountVolume, never reported in use', () => {
    const h = new Harness({ fixes: OLD, podsOnDisk: [onDisk] });
    h.plugin.failNext('constructVolumeSpec');
    h.runUntil(10_000);
    expect(h.plugin.calls).toEqual(['constructVolumeSpec(lun-1)', 'tearDown(lun-1,uid-old)']);
    expect(h.plugin.count('unmountDevice')).toBe(0);
    expect(h.volumesInUseSeen.size).toBe(0);
    expect(h.vm.actualStateOfWorld.getAttachedVolumes()).toEqual([]);
    expect(h.factsOf('volumeTearDown')).toMatchObject([{ uid: 'uid-old', volume: 'lun-1', ok: true }]);
  });

  it('failure with the volume in the desired state: skipped, the pod mounts it again', () => {
    const h = new Harness({ fixes: OLD, podsOnDisk: [{ ...onDisk, podUID: 'uid-a', podName: 'a' }] });
    h.plugin.failNext('constructVolumeSpec');
    h.addPod(makePod('a', ['lun-1']));
    h.runUntil(3_000);
    expect(h.plugin.count('tearDown')).toBe(0);
    expect(h.plugin.count('setUp')).toBe(1);
    expect(h.vm.getMountedVolumesForPod('uid-a').size).toBe(1);
  });

  it('a Block volume goes through ConstructBlockVolumeSpec and is checked by its pod device link', () => {
    const block: PodVolumeOnDisk = {
      ...onDisk,
      mode: 'Block',
      mountPath: '/var/lib/kubelet/pods/uid-old/volumeDevices/kubernetes.io~fc/lun-1',
    };
    const h = new Harness({ fixes: OLD, podsOnDisk: [block] });
    while (!h.vm.reconcilerStatesHasBeenSynced()) h.runUntil(h.sim.nowMs + 1);
    expect(h.plugin.calls).toEqual(['constructBlockVolumeSpec(uid-old,lun-1)']);
    expect(h.vm.actualStateOfWorld.getMountedVolumesForPod('uid-old')).toHaveLength(1);
    expect(h.vm.getVolumesInUse()).toEqual(['lun-1']);

    // Without the link (IsSymlinkExist false) the volume "is not mounted": reconstruction fails.
    const gone = new Harness({ fixes: OLD, podsOnDisk: [block] });
    gone.existingPaths = new Set();
    gone.runUntil(2_000);
    expect(gone.plugin.count('constructBlockVolumeSpec')).toBe(1);
    expect(gone.vm.actualStateOfWorld.getAttachedVolumes()).toEqual([]);
  });

  it('publishes what it did: started, each volume with its outcome, finished', () => {
    const ok = new Harness({ fixes: OLD, podsOnDisk: [onDisk] });
    ok.runUntil(2_000);
    expect(ok.factsOf('reconstructionStarted')).toMatchObject([{ volumeDirs: 1 }]);
    expect(ok.factsOf('volumeReconstruction')).toMatchObject([
      { uid: 'uid-old', volume: 'lun-1', mode: 'Filesystem', ok: true, outcome: 'addedToActualState' },
    ]);
    expect(ok.factsOf('reconstructionFinished')).toMatchObject([{ unreconstructedDevices: [] }]);

    const failed = new Harness({ fixes: OLD, podsOnDisk: [onDisk] });
    failed.plugin.failNext('constructVolumeSpec');
    failed.runUntil(2_000);
    expect(failed.factsOf('volumeReconstruction')).toMatchObject([
      { ok: false, inconsistentRead: false, outcome: 'cleanupMounts' },
    ]);

    const desired = new Harness({ fixes: OLD, podsOnDisk: [{ ...onDisk, podUID: 'uid-a', podName: 'a' }] });
    desired.addPod(makePod('a', ['lun-1']));
    desired.runUntil(2_000);
    expect(desired.factsOf('volumeReconstruction')).toMatchObject([{ ok: true, outcome: 'reportedInUse' }]);
  });
});
