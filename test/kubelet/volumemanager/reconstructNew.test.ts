// KEP-3756's reconstruction (reconstruct_new.go / reconciler_new.go, release-1.28; fix
// new-volume-reconstruction): cases of reconstruct_new_test.go (TestReconstructVolumes,
// TestCleanOrphanVolumes, the first of TestReconstructVolumesMount), and the switch's effect on a failed TearDown.
import { describe, expect, it } from 'vitest';
import { Fixes } from '../../../src/fixes.js';
import type { PodVolumeOnDisk } from '../../../src/kubelet/volumemanager/host.js';
import {
  DeviceMountUncertain,
  VolumeMountUncertain,
} from '../../../src/kubelet/volumemanager/operationexecutor/operationExecutor.js';
import { Harness, makePod, makeSpec } from './fakes.js';

const onDisk = (uid: string, name: string): PodVolumeOnDisk => ({
  podUID: uid,
  podName: name,
  volumeName: 'lun-1',
  plugin: 'fc',
  mode: 'Filesystem',
  mountPath: `/var/lib/kubelet/pods/${uid}/volumes/lun-1`,
});

const NEW = Fixes.all();
const OLD = Fixes.all().with('new-volume-reconstruction', false);

describe('reconstructVolumes (reconstruct_new_test.go TestReconstructVolumes)', () => {
  it('two pods using the same volume, both deleted: both uncertain at once, unmounted only once the desired state is populated', () => {
    const h = new Harness({ fixes: NEW, podsOnDisk: [onDisk('uid-1', 'p1'), onDisk('uid-2', 'p2')] });
    h.sourcesReady = false;
    h.runUntil(1_000);
    const asw = h.vm.actualStateOfWorld;
    // Reconstructed before the desired state is populated, every pod mount uncertain, none certain.
    expect(asw.getMountedVolumes()).toEqual([]);
    expect(asw.getAllMountedVolumes()).toHaveLength(2);
    expect(asw.getPossiblyMountedVolumesForPod('uid-1')).toHaveLength(1);
    expect(asw.getVolumeMountState('lun-1', 'uid-2')).toBe(VolumeMountUncertain);
    expect(asw.getDeviceMountState('lun-1')).toBe(DeviceMountUncertain);
    // node.status settled the device path and the attach-ability, so the states count as synced and the
    // volume is reported in use.
    expect(asw.getAttachedVolumes()[0]).toMatchObject({
      devicePath: '/dev/fake-lun-1',
      pluginIsAttachable: true,
    });
    expect(h.vm.reconcilerStatesHasBeenSynced()).toBe(true);
    expect(h.vm.getVolumesInUse()).toEqual(['lun-1']);
    // readyToUnmount is false until the populator has added pods: nothing is torn down yet.
    expect(h.plugin.count('tearDown')).toBe(0);
    h.sourcesReady = true;
    h.runUntil(4_000);
    expect(h.plugin.calls).toEqual([
      'constructVolumeSpec(lun-1)',
      'constructVolumeSpec(lun-1)',
      'tearDown(lun-1,uid-1)',
      'tearDown(lun-1,uid-2)',
      'unmountDevice(/var/lib/kubelet/plugins/kubernetes.io/fc/lun-1)',
    ]);
    expect(asw.volumeExists('lun-1')).toBe(false);
    expect(h.vm.getVolumesInUse()).toEqual([]);
  });

  it('a volume node.status does not list as attached ends up not attachable: not reported in use', () => {
    const h = new Harness({ fixes: NEW, podsOnDisk: [onDisk('uid-1', 'p1')] });
    h.sourcesReady = false;
    h.volumesAttached = [];
    h.runUntil(1_000);
    // Not in node.status.volumesAttached: attach-ability false after the first pass, synced.
    expect(h.vm.actualStateOfWorld.getAttachedVolumes()[0]?.pluginIsAttachable).toBe(false);
    expect(h.vm.getVolumesInUse()).toEqual([]);
    expect(h.vm.reconcilerStatesHasBeenSynced()).toBe(true);
  });

  it('a failed GET of the node (cut off from the API server) leaves the volume to the next pass, still reported in use', () => {
    const h = new Harness({ fixes: NEW, podsOnDisk: [onDisk('uid-1', 'p1')] });
    h.sourcesReady = false;
    const attached = h.volumesAttached;
    h.volumesAttached = undefined;
    h.runUntil(1_000);
    // Upstream returns on fetchErr: attach-ability and device path stay to be read, the states not synced,
    // so the node status reports nothing new (and never an empty volumesInUse for a mounted volume).
    expect(h.vm.reconcilerStatesHasBeenSynced()).toBe(false);
    expect(h.vm.actualStateOfWorld.getAttachedVolumes()[0]?.devicePath).not.toBe('/dev/fake-lun-1');
    h.volumesAttached = attached;
    h.runUntil(2_000);
    expect(h.vm.actualStateOfWorld.getAttachedVolumes()[0]).toMatchObject({
      devicePath: '/dev/fake-lun-1',
      pluginIsAttachable: true,
    });
    expect(h.vm.reconcilerStatesHasBeenSynced()).toBe(true);
    expect(h.vm.getVolumesInUse()).toEqual(['lun-1']);
  });

  it('a failed reconstruction waits for the populated desired state, then gets one cleanupMounts', () => {
    const h = new Harness({ fixes: NEW, podsOnDisk: [onDisk('uid-1', 'p1')] });
    h.sourcesReady = false;
    h.plugin.failNext('constructVolumeSpec');
    h.runUntil(1_000);
    expect(h.plugin.calls).toEqual(['constructVolumeSpec(lun-1)']);
    expect(h.vm.actualStateOfWorld.getAttachedVolumes()).toEqual([]);
    expect(h.factsOf('volumeReconstruction')).toMatchObject([
      { uid: 'uid-1', ok: false, outcome: 'failedReconstruction' },
    ]);
    h.sourcesReady = true;
    h.runUntil(3_000);
    expect(h.plugin.calls).toEqual(['constructVolumeSpec(lun-1)', 'tearDown(lun-1,uid-1)']);
    expect(h.factsOf('volumeReconstruction')).toMatchObject([
      { outcome: 'failedReconstruction' },
      { uid: 'uid-1', ok: false, outcome: 'cleanupMounts' },
    ]);
  });
});

describe('cleanOrphanVolumes (reconstruct_new_test.go TestCleanOrphanVolumes)', () => {
  it('volume is in DSW and is not cleaned: the pod mounts it again', () => {
    const h = new Harness({ fixes: NEW, podsOnDisk: [onDisk('uid-a', 'a')] });
    h.plugin.failNext('constructVolumeSpec');
    h.addPod(makePod('a', ['lun-1']));
    h.runUntil(3_000);
    expect(h.plugin.count('tearDown')).toBe(0);
    expect(h.plugin.count('setUp')).toBe(1);
    expect(h.vm.getMountedVolumesForPod('uid-a').size).toBe(1);
    expect(h.factsOf('volumeReconstruction').at(-1)).toMatchObject({ outcome: 'skippedDesired' });
  });

  it('volume is not in DSW and is cleaned, once: a failed TearDown is not retried ("cleanup is one shot")', () => {
    const h = new Harness({ fixes: NEW, podsOnDisk: [onDisk('uid-1', 'p1')] });
    h.plugin.failNext('constructVolumeSpec');
    h.plugin.failNext('tearDown');
    h.runUntil(60_000);
    expect(h.plugin.calls).toEqual(['constructVolumeSpec(lun-1)', 'tearDown(lun-1,uid-1)']);
    expect(h.factsOf('volumeTearDown')).toMatchObject([{ uid: 'uid-1', ok: false }]);
  });
});

describe('reconstructed volumes (reconstruct_new_test.go TestReconstructVolumesMount)', () => {
  it('a reconstructed volume a pod wants is mounted again and its mount becomes certain', () => {
    const h = new Harness({ fixes: NEW, podsOnDisk: [onDisk('uid-a', 'a')] });
    h.addPod(makePod('a', ['lun-1']));
    h.runUntil(3_000);
    expect(h.plugin.count('setUp')).toBe(1);
    expect(h.plugin.count('tearDown')).toBe(0);
    expect(h.vm.getMountedVolumesForPod('uid-a').size).toBe(1);
  });
  // Its other case (a reconstructed volume whose SetUp fails stays uncertain, #96635) needs
  // ASW.IsVolumeReconstructed in markVolumeErrorState, which is not ported.
});

describe('the switch, on a TearDown that fails once after a kubelet restart', () => {
  // The pod dir is there but its mount is not (a previous TearDown unmounted it and was cut short).
  // Release-1.23's reconstructVolume fails the mount point check ("is not mounted"), so the volume gets
  // syncStates' cleanupMounts; reconstruct_common.go of 1.28 has no such check (#116134): the volume
  // goes into the actual state as uncertain and the reconciler tears it down.
  const run = (fixes: Fixes): Harness => {
    const h = new Harness({ fixes, podsOnDisk: [onDisk('uid-1', 'p1')] });
    h.notMountPoints.add('/var/lib/kubelet/pods/uid-1/volumes/lun-1');
    h.plugin.failNext('tearDown');
    h.runUntil(60_000);
    return h;
  };

  it('old reconstruction: cleanupMounts tears it down once and never again', () => {
    const h = run(OLD);
    expect(h.plugin.calls).toEqual(['constructVolumeSpec(lun-1)', 'tearDown(lun-1,uid-1)']);
    expect(h.factsOf('volumeTearDown')).toMatchObject([{ ok: false }]);
  });

  it('new reconstruction: the reconciler retries the uncertain mount until the TearDown succeeds', () => {
    const h = run(NEW);
    expect(h.factsOf('volumeTearDown')).toMatchObject([{ ok: false }, { ok: true }]);
    expect(h.vm.actualStateOfWorld.getAllMountedVolumes()).toEqual([]);
    expect(h.vm.podVolumesExist('uid-1')).toBe(false);
  });
});

// #125014 (1.31, fix no-reconstructed-reported-in-use; read in reconciler.go / reconstruct.go of v1.31.12
// against reconciler_new.go / reconstruct_new.go of v1.30.7): 1.28 to 1.30 marked the reconstructed
// volumes reported in use once the populator had added pods, and DSW.MarkVolumesReportedInUse clears every
// volume it is not given: a new pod's volume the node status had already reported lost its flag.
describe('volumesNeedReportedInUse (#125014)', () => {
  const reported = (fixes: Fixes): Map<string, boolean> => {
    const h = new Harness({
      fixes,
      volumes: [makeSpec('lun-1'), makeSpec('lun-2')],
      podsOnDisk: [onDisk('uid-a', 'a')],
      reportInUse: false,
    });
    h.sourcesReady = false;
    h.addPod(makePod('a', ['lun-1']));
    h.addPod(makePod('b', ['lun-2']));
    h.runUntil(500);
    // A node status update listed b's volume (and a's, reported by the kubelet before its restart).
    h.vm.markVolumesAsReportedInUse(['lun-1', 'lun-2']);
    h.sourcesReady = true;
    h.runUntil(1_000);
    return new Map(h.vm.desiredStateOfWorld.getVolumesToMount().map((v) => [v.volumeName, v.reportedInUse]));
  };

  it('1.30: once the populator has added pods the reconciler marks the reconstructed volume and clears the other', () => {
    const r = reported(Fixes.of('1.30'));
    expect(r.get('lun-1')).toBe(true);
    expect(r.get('lun-2')).toBe(false);
  });

  it('1.31: the flags stay as the node status set them', () => {
    const r = reported(Fixes.of('1.31'));
    expect(r.get('lun-1')).toBe(true);
    expect(r.get('lun-2')).toBe(true);
  });
});
