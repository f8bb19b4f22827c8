import { describe, expect, it } from 'vitest';
import { InconsistentReadError } from '../../src/api/errors.js';
import { Fixes } from '../../src/fixes.js';
import { mountForPod, World } from '../storage/world.js';

function mounted(fixes: Fixes = Fixes.all()) {
  const w = new World();
  const spec = w.volume({ name: 'disk-1', plugin: 'iscsi' });
  const mgr = w.plugins('node-a', fixes);
  const global = w.run(mountForPod(mgr, spec, 'uid-1')).value;
  const plugin = mgr.findPluginByName('iscsi');
  w.run(plugin.newUnmounter('disk-1', 'uid-1').tearDown());
  return { w, spec, mgr, global, plugin, host: w.host() };
}

describe('iSCSI UnmountDevice retry is idempotent (S9)', () => {
  it('global path is the iface dir with portal, IQN and LUN', () => {
    const { global } = mounted();
    expect(global).toBe(
      '/var/lib/kubelet/plugins/kubernetes.io/iscsi/iface-default/10.0.0.10:3260-iqn.2021-06.io.podrace:storage-lun-0',
    );
  });

  it('fails at Unmount (EBUSY) with nothing changed; the retry does the whole clean-up', () => {
    const { w, global, plugin, host } = mounted();
    host.injectFault({ kind: 'unmountDevice', volume: 'disk-1', stage: 'beforeUnmount', times: 1 });
    expect(w.run(plugin.newDetacher().unmountDevice(global)).value?.message).toContain('target is busy');
    expect(host.mounts.at(global)).toBeDefined();
    expect(host.devices.sessionList()).toHaveLength(1);
    expect(w.run(plugin.newDetacher().unmountDevice(global)).value).toBeUndefined();
    expect(host.pathExists(global)).toBe(false);
    expect(host.devices.sessionList()).toHaveLength(0);
    expect(host.deviceResidue('disk-1')).toEqual({ scsiPaths: 0, multipathMaps: 0 });
  });

  it('fails at iscsiadm --logout after unmounting; the dir stays, so the retry logs out', () => {
    for (const fixes of [Fixes.all(), Fixes.none()]) {
      const { w, global, plugin, host } = mounted(fixes);
      host.injectFault({ kind: 'unmountDevice', volume: 'disk-1', stage: 'afterUnmount', times: 1 });
      const first = w.run(plugin.newDetacher().unmountDevice(global)).value;
      expect(first?.message).toContain('failed to finish detachISCSIDisk');
      expect(host.mounts.at(global)).toBeUndefined();
      expect(host.pathExists(global)).toBe(true); // removed only after complete success
      expect(host.devices.sessionList()).toHaveLength(1);
      expect(w.run(plugin.newDetacher().unmountDevice(global)).value).toBeUndefined();
      expect(host.pathExists(global)).toBe(false);
      expect(host.devices.sessionList()).toHaveLength(0);
      expect(w.factsOf('unmountDevice').map((f) => f.ok)).toEqual([false, true]);
      expect(host.deviceResidue('lun-1')).toEqual({ scsiPaths: 0, multipathMaps: 0 });
    }
  });

  it('a busy multipath flush falls through: disks are deleted and multipathd drops the empty map', () => {
    const { w, global, plugin, host } = mounted();
    host.injectFault({ kind: 'unmountDevice', volume: 'disk-1', stage: 'multipathFlushBusy', times: 1 });
    expect(w.run(plugin.newDetacher().unmountDevice(global)).value).toBeUndefined();
    expect(host.deviceResidue('disk-1')).toEqual({ scsiPaths: 0, multipathMaps: 0 });
  });

  it('after a failed logout the hollow global dir is what a skipped MountDevice would bind', () => {
    const { w, global, plugin, host, spec } = mounted();
    host.injectFault({ kind: 'unmountDevice', volume: 'disk-1', stage: 'afterUnmount', times: 1 });
    w.run(plugin.newDetacher().unmountDevice(global));
    expect(w.run(plugin.newMounter(spec, 'uid-2').setUp()).value).toBeUndefined();
    expect(w.factsOf('bindMountOfUnmountedGlobalPath')).toHaveLength(1);
    expect(host.writes('disk-1', 'uid-2')).toBe('rootFs');
  });
});

describe('iSCSI ConstructVolumeSpec', () => {
  it('parses portal, IQN and LUN back from the global mount; retries inconsistent reads with the fix', () => {
    for (const fix of [true, false]) {
      const w = new World();
      const spec = w.volume({ name: 'disk-1', plugin: 'iscsi' });
      const mgr = w.plugins('node-a', Fixes.all().with('reconstruct-reliable-mount-refs', fix));
      w.run(mountForPod(mgr, spec, 'uid-1'));
      const podPath = '/var/lib/kubelet/pods/uid-1/volumes/kubernetes.io~iscsi/disk-1';
      w.host().injectFault({ kind: 'procMounts', inconsistentReads: 3 });
      const r = w.run(mgr.findPluginByName('iscsi').constructVolumeSpec('disk-1', podPath)).value;
      if (fix) expect(r.value).toMatchObject({ name: 'disk-1', plugin: 'iscsi' });
      else expect(r.err).toBeInstanceOf(InconsistentReadError);
    }
  });
});
