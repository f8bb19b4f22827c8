import { describe, expect, it } from 'vitest';
import { InconsistentReadError } from '../../src/api/errors.js';
import { Fixes } from '../../src/fixes.js';
import { FsErrorGo, fail } from '../../src/storage/host.js';
import { mountForPod, World } from '../storage/world.js';

const podPath = '/var/lib/kubelet/pods/uid-1/volumes/kubernetes.io~fc/lun-1';

function mounted(fixes: Fixes) {
  const w = new World();
  const spec = w.volume({ name: 'lun-1', plugin: 'fc' });
  const mgr = w.plugins('node-a', fixes);
  const global = w.run(mountForPod(mgr, spec, 'uid-1')).value;
  const plugin = mgr.findPluginByName('fc');
  return { w, spec, mgr, global, plugin, host: w.host() };
}

describe('FC UnmountDevice with a busy multipath flush (S8, PR #101862)', () => {
  it('with fc-unmount-retry: retries DetachDisk every 10 s and succeeds at ~20 s, nothing leaks', () => {
    const { w, global, plugin, host } = mounted(Fixes.all());
    w.run(plugin.newUnmounter('lun-1', 'uid-1').tearDown());
    host.injectFault({ kind: 'unmountDevice', volume: 'lun-1', stage: 'multipathFlushBusy', times: 2 });
    const r = w.run(plugin.newDetacher().unmountDevice(global));
    expect(r.value).toBeUndefined();
    expect(r.tookMs).toBeGreaterThanOrEqual(20_000);
    expect(r.tookMs).toBeLessThan(21_000);
    expect(host.deviceResidue('lun-1')).toEqual({ scsiPaths: 0, multipathMaps: 0 });
    expect(w.factsOf('faultInjected').map((f) => f.fault)).toEqual([
      'unmountDevice/multipathFlushBusy',
      'unmountDevice/multipathFlushBusy',
    ]);
  });

  it('without it: the first call fails after unmounting; the retry finds devName "" and leaks the map and paths', () => {
    const { w, global, plugin, host } = mounted(Fixes.all().with('fc-unmount-retry', false));
    w.run(plugin.newUnmounter('lun-1', 'uid-1').tearDown());
    host.injectFault({ kind: 'unmountDevice', volume: 'lun-1', stage: 'multipathFlushBusy', times: 2 });
    const first = w.run(plugin.newDetacher().unmountDevice(global));
    expect(first.value?.message).toContain('failed to flush multipath device /dev/dm-0');
    expect(first.tookMs).toBeLessThan(10_000);
    expect(host.mounts.at(global)).toBeUndefined(); // the global path is already unmounted
    const retry = w.run(plugin.newDetacher().unmountDevice(global));
    expect(retry.value).toBeUndefined();
    expect(host.deviceResidue('lun-1')).toEqual({ scsiPaths: 2, multipathMaps: 1 });
    expect(w.factsOf('unmountDevice').map((f) => f.ok)).toEqual([false, true]);
    expect(host.isDeviceOpened('lun-1')).toBe(false);
  });

  it('with the fix, a flush that stays busy fails after the 2 min poll and the retry leaks (documented)', () => {
    const { w, global, plugin, host } = mounted(Fixes.all());
    w.run(plugin.newUnmounter('lun-1', 'uid-1').tearDown());
    host.injectFault({ kind: 'unmountDevice', volume: 'lun-1', stage: 'multipathFlushBusy', times: 1000 });
    const first = w.run(plugin.newDetacher().unmountDevice(global));
    expect(first.value?.message).toContain('fc: failed to detach disk: /dev/dm-0');
    expect(first.tookMs).toBeGreaterThanOrEqual(120_000);
    expect(first.tookMs).toBeLessThan(125_000);
    expect(w.run(plugin.newDetacher().unmountDevice(global)).value).toBeUndefined();
    expect(host.deviceResidue('lun-1').multipathMaps).toBe(1);
  });
});

describe('FC UnmountDevice fault stages', () => {
  it('beforeUnmount fails with nothing changed; the retry cleans up', () => {
    const { w, global, plugin, host } = mounted(Fixes.all());
    w.run(plugin.newUnmounter('lun-1', 'uid-1').tearDown());
    host.injectFault({ kind: 'unmountDevice', volume: 'lun-1', stage: 'beforeUnmount', times: 1 });
    expect(w.run(plugin.newDetacher().unmountDevice(global)).value?.message).toContain('target is busy');
    expect(host.mounts.at(global)).toBeDefined();
    expect(w.run(plugin.newDetacher().unmountDevice(global)).value).toBeUndefined();
    expect(host.deviceResidue('lun-1')).toEqual({ scsiPaths: 0, multipathMaps: 0 });
  });

  it('afterUnmount: the global path is gone, then DetachDisk fails (retried with the fix)', () => {
    for (const retry of [true, false]) {
      const { w, global, plugin, host } = mounted(Fixes.all().with('fc-unmount-retry', retry));
      w.run(plugin.newUnmounter('lun-1', 'uid-1').tearDown());
      host.injectFault({ kind: 'unmountDevice', volume: 'lun-1', stage: 'afterUnmount', times: 1 });
      const r = w.run(plugin.newDetacher().unmountDevice(global));
      expect(host.pathExists(global)).toBe(false);
      if (retry) {
        expect(r.value).toBeUndefined();
        expect(r.tookMs).toBeGreaterThanOrEqual(10_000);
        expect(host.deviceResidue('lun-1').scsiPaths).toBe(0);
      } else {
        expect(r.value?.message).toContain('fc: failed to detach disk');
        expect(host.deviceResidue('lun-1').scsiPaths).toBe(2);
      }
    }
  });

  it('deviceStillOpen: a host process holds the map through the first flush; the 10 s retry flushes it', () => {
    const { w, global, plugin, host } = mounted(Fixes.all());
    w.run(plugin.newUnmounter('lun-1', 'uid-1').tearDown());
    host.injectFault({ kind: 'unmountDevice', volume: 'lun-1', stage: 'deviceStillOpen', times: 1 });
    const r = w.run(plugin.newDetacher().unmountDevice(global));
    expect(r.value).toBeUndefined();
    expect(r.tookMs).toBeGreaterThanOrEqual(10_000); // DEVICE_HOLD_MS (5 s) outlasts the first attempt only
    expect(host.deviceResidue('lun-1')).toEqual({ scsiPaths: 0, multipathMaps: 0 });
  });

  it('deviceStillOpen without fc-unmount-retry: the flush error fails UnmountDevice and its retry leaks', () => {
    const { w, global, plugin, host } = mounted(Fixes.all().with('fc-unmount-retry', false));
    w.run(plugin.newUnmounter('lun-1', 'uid-1').tearDown());
    host.injectFault({ kind: 'unmountDevice', volume: 'lun-1', stage: 'deviceStillOpen', times: 1 });
    expect(w.run(plugin.newDetacher().unmountDevice(global)).value?.message).toContain('map in use');
    expect(host.isDeviceOpened('lun-1')).toBe(true);
    // The retry lets the holder go, finds the global path unmounted (devName "") and detaches nothing.
    expect(w.run(plugin.newDetacher().unmountDevice(global)).value).toBeUndefined();
    expect(host.isDeviceOpened('lun-1')).toBe(false);
    expect(host.deviceResidue('lun-1')).toEqual({ scsiPaths: 2, multipathMaps: 1 });
  });

  it('SetUp bind-mounts a global path that is not mounted without checking (upstream diskSetUp)', () => {
    const { w, global, plugin, spec } = mounted(Fixes.all());
    w.run(plugin.newUnmounter('lun-1', 'uid-1').tearDown());
    expect(w.run(plugin.newDetacher().unmountDevice(global)).value).toBeUndefined();
    // MountDevice skipped: SetUp alone. The global dir is gone, so the bind fails, but it was tried.
    const err = w.run(plugin.newMounter(spec, 'uid-2').setUp()).value;
    expect(err?.message).toContain('does not exist');
    expect(w.factsOf('bindMountOfUnmountedGlobalPath')).toEqual([
      expect.objectContaining({ uid: 'uid-2', volume: 'lun-1', node: 'node-a' }),
    ]);
  });

  it('the tearDown fault fails TearDown with the bind mount left in place', () => {
    const { w, plugin, host } = mounted(Fixes.all());
    host.injectFault({ kind: 'tearDown', volume: 'lun-1', times: 1 });
    expect(w.run(plugin.newUnmounter('lun-1', 'uid-1').tearDown()).value?.message).toContain(
      'target is busy',
    );
    expect(host.mounts.at(podPath)).toBeDefined();
    expect(w.run(plugin.newUnmounter('lun-1', 'uid-1').tearDown()).value).toBeUndefined();
    expect(host.mounts.at(podPath)).toBeUndefined();
  });
});

describe('FC ConstructVolumeSpec (PR #102059)', () => {
  it('3 inconsistent /proc/mounts reads: fails without the fix, succeeds 10 ms later with it', () => {
    for (const fix of [false, true]) {
      const { w, plugin, host } = mounted(Fixes.all().with('reconstruct-reliable-mount-refs', fix));
      host.injectFault({ kind: 'procMounts', inconsistentReads: 3 });
      const r = w.run(plugin.constructVolumeSpec('lun-1', podPath));
      if (fix) {
        expect(r.value.err).toBeUndefined();
        expect(r.value.value).toMatchObject({ name: 'lun-1', plugin: 'fc', volumeMode: 'Filesystem' });
        expect(r.tookMs).toBe(10);
      } else {
        expect(r.value.err).toBeInstanceOf(InconsistentReadError);
        expect(r.tookMs).toBe(0);
      }
    }
  });

  it('inconsistent reads beyond a minute fail even with the fix', () => {
    const { w, plugin, host } = mounted(Fixes.all());
    host.injectFault({ kind: 'procMounts', inconsistentReads: 1_000_000 });
    const r = w.run(plugin.constructVolumeSpec('lun-1', podPath));
    expect(r.value.err).toBeInstanceOf(InconsistentReadError);
    expect(r.tookMs).toBeGreaterThanOrEqual(60_000);
  });

  it('the constructVolumeSpec fault is a non-retryable error with and without the fix (#101791)', () => {
    for (const fix of [false, true]) {
      const { w, plugin, host } = mounted(Fixes.all().with('reconstruct-reliable-mount-refs', fix));
      host.injectFault({ kind: 'constructVolumeSpec', volume: 'lun-1' });
      const r = w.run(plugin.constructVolumeSpec('lun-1', podPath));
      expect(r.value.err).toBeDefined();
      expect(r.value.err).not.toBeInstanceOf(InconsistentReadError);
      expect(r.tookMs).toBe(0);
      expect(w.factsOf('faultInjected')).toEqual([expect.objectContaining({ fault: 'constructVolumeSpec' })]);
    }
  });

  it('a pod dir that is not a bind of the global mount cannot be reconstructed', () => {
    const { w, plugin } = mounted(Fixes.all());
    w.run(plugin.newUnmounter('lun-1', 'uid-1').tearDown());
    w.host().mkdirAll(podPath);
    expect(w.run(plugin.constructVolumeSpec('lun-1', podPath)).value.err?.message).toContain(
      "couldn't fetch globalPDPath",
    );
  });
});

describe('FC Block volumes', () => {
  it('maps per pod under the global map path and tears the device down with DetachBlockFCDisk', () => {
    const w = new World();
    const spec = w.volume({ name: 'blk-1', plugin: 'fc', mode: 'Block' });
    const mgr = w.plugins();
    const plugin = mgr.findPluginBySpec(spec);
    const host = w.host();
    expect(w.run(plugin.newAttacher().waitForAttach(spec, '', 'uid-1', 0)).value.value).toBe('/dev/dm-0');
    const mapper = plugin.newBlockVolumeMapper(spec, 'uid-1');
    expect(w.run(mapper.setUpDevice()).value.err).toBeUndefined();
    const pub = w.run(mapper.mapPodDevice()).value;
    expect(pub.value).toBe('/var/lib/kubelet/pods/uid-1/volumeDevices/kubernetes.io~fc/blk-1');
    const globalMap = mapper.getGlobalMapPath(spec);
    expect(globalMap).toBe('/var/lib/kubelet/plugins/kubernetes.io/fc/volumeDevices/50060e801049cfd1-lun-0');
    expect(host.mounts.at(`${globalMap}/uid-1`)?.kind).toBe('blockMap');
    expect(w.factsOf('lunAccessOpened')).toEqual([
      expect.objectContaining({ volume: 'blk-1', readWrite: true }),
    ]);
    expect(host.writes('blk-1', 'uid-1')).toBe('ok');
    expect(host.getVolumesFromPodDir()).toEqual([
      expect.objectContaining({ podUID: 'uid-1', volumeName: 'blk-1', plugin: 'fc', mode: 'Block' }),
    ]);

    const unmapper = plugin.newBlockVolumeUnmapper('blk-1', 'uid-1');
    expect(w.run(unmapper.unmapPodDevice()).value).toBeUndefined();
    expect(w.factsOf('lunAccessClosed')).toHaveLength(1);
    expect(w.run(unmapper.tearDownDevice(globalMap, '/dev/dm-0')).value).toBeUndefined();
    expect(host.deviceResidue('blk-1')).toEqual({ scsiPaths: 0, multipathMaps: 0 });
    expect(host.pathExists(globalMap)).toBe(false);
    expect(w.factsOf('unmountDevice')).toEqual([expect.objectContaining({ volume: 'blk-1', ok: true })]);
    // The pod's reference on the global map is the Block volume's mount of the pod (hostMount podMap).
    expect(w.factsOf('hostMount').map((f) => [f.mounted, f.scope, f.uid, f.path])).toEqual([
      [true, 'podMap', 'uid-1', `${globalMap}/uid-1`],
      [false, 'podMap', 'uid-1', `${globalMap}/uid-1`],
    ]);
  });

  it('MountDevice creates the global dir only when it is missing; any other stat error fails it', () => {
    const w = new World();
    const spec = w.volume({ name: 'lun-1', plugin: 'fc' });
    const host = w.host();
    const attacher = w.plugins().findPluginBySpec(spec).newAttacher();
    const dev = w.run(attacher.waitForAttach(spec, '', 'uid-1', 10_000)).value;
    const path = attacher.getDeviceMountPath(spec);
    const stat = host.isLikelyNotMountPoint.bind(host);
    host.isLikelyNotMountPoint = () => fail(new FsErrorGo('EBUSY', `lstat ${path}: input/output error`));
    expect(w.run(attacher.mountDevice(spec, dev.value ?? '', path)).value?.message).toContain(
      'input/output error',
    );
    expect(host.pathExists(path)).toBe(false);
    host.isLikelyNotMountPoint = stat;
    expect(w.run(attacher.mountDevice(spec, dev.value ?? '', path)).value).toBeUndefined();
    expect(host.mounts.at(path)?.lun).toBe('lun-1');
  });
});
