import { describe, expect, it } from 'vitest';
import { InconsistentReadError } from '../../src/api/errors.js';
import { getMountRefs } from '../../src/storage/mountUtils.js';
import { mountForPod, World } from './world.js';

describe('Host mount table and devices', () => {
  it('FC: rescan brings two SCSI paths and a dm map; mount, bind, unmount track LUN access', () => {
    const w = new World();
    const spec = w.volume({ name: 'lun-1', plugin: 'fc' });
    const mgr = w.plugins();
    const host = w.host();
    const global = w.run(mountForPod(mgr, spec, 'uid-1')).value;
    expect(global).toBe('/var/lib/kubelet/plugins/kubernetes.io/fc/50060e801049cfd1-lun-0');
    expect(host.deviceResidue('lun-1')).toEqual({ scsiPaths: 2, multipathMaps: 1 });
    expect(host.mounts.at(global)?.device).toBe('/dev/dm-0');
    const podPath = '/var/lib/kubelet/pods/uid-1/volumes/kubernetes.io~fc/lun-1';
    expect(host.mounts.at(podPath)?.kind).toBe('bind');
    expect(getMountRefs(host, podPath).value).toEqual([global]);
    expect(getMountRefs(host, global).value).toEqual([podPath]);
    expect(w.factsOf('lunAccessOpened')).toEqual([
      expect.objectContaining({ node: 'node-a', volume: 'lun-1', readWrite: true }),
    ]);
    expect(host.isDeviceOpened('lun-1')).toBe(true);
    expect(w.san.writers('lun-1')).toEqual(['node-a']);

    const plugin = mgr.findPluginByName('kubernetes.io/fc');
    expect(w.run(plugin.newUnmounter('lun-1', 'uid-1').tearDown()).value).toBeUndefined();
    expect(host.pathExists(podPath)).toBe(false);
    expect(w.factsOf('lunAccessClosed')).toHaveLength(0); // the global mount still holds it
    expect(w.run(plugin.newDetacher().unmountDevice(global)).value).toBeUndefined();
    expect(w.factsOf('lunAccessClosed')).toEqual([expect.objectContaining({ volume: 'lun-1' })]);
    expect(host.deviceResidue('lun-1')).toEqual({ scsiPaths: 0, multipathMaps: 0 });
    expect(host.pathExists(global)).toBe(false);
    expect(host.isDeviceOpened('lun-1')).toBe(false);
    expect(host.deviceResidue('lun-1')).toEqual({ scsiPaths: 0, multipathMaps: 0 });
    expect(w.factsOf('unmountDevice')).toEqual([expect.objectContaining({ volume: 'lun-1', ok: true })]);
    // Each change of the LUN's devices on the node, as the host has them (hostDevices).
    expect(w.factsOf('hostDevices').map((f) => [f.scsiPaths, f.multipathMaps])).toEqual([
      [1, 0],
      [2, 0],
      [2, 1],
      [2, 0],
      [1, 0],
      [0, 0],
    ]);
  });

  it('the first MountDevice formats the LUN; latencies come from the seeded stream', () => {
    const run = (seed: number): number => {
      const w = new World(['node-a'], seed);
      const spec = w.volume({ name: 'lun-1', plugin: 'fc' });
      const took = w.run(mountForPod(w.plugins(), spec, 'uid-1')).tookMs;
      expect(w.san.lun('lun-1')?.filesystem).toBe('ext4');
      return took;
    };
    expect(run(7)).toBe(run(7));
    expect(new Set([run(1), run(2), run(3), run(4)]).size).toBeGreaterThan(1);
  });

  it('ConsistentRead of /proc/mounts gives up after maxListTries inconsistent reads', () => {
    const w = new World();
    const host = w.host();
    host.injectFault({ kind: 'procMounts', inconsistentReads: 2 });
    expect(host.readProcMounts('test read').err).toBeUndefined();
    expect(w.factsOf('procMountsRead')).toMatchObject([
      { purpose: 'test read', attempts: 3, consistent: true },
    ]);
    expect(host.faults.pendingInconsistentReads).toBe(0);
    host.injectFault({ kind: 'procMounts', inconsistentReads: 4 });
    const r = host.readProcMounts();
    expect(r.err).toBeInstanceOf(InconsistentReadError);
    expect(r.err?.message).toContain('after 3 attempts');
    expect(host.faults.active()).toBe(true);
    expect(host.readProcMounts().err).toBeUndefined();
    expect(host.faults.active()).toBe(false);
    expect(w.factsOf('faultInjected').map((f) => f.fault)).toEqual(Array(6).fill('procMounts'));
  });

  it('iSCSI: one session per portal + IQN, shared by volumes, logged out with the last one', () => {
    const w = new World();
    const a = w.volume({ name: 'disk-a', plugin: 'iscsi' });
    const b = w.volume({ name: 'disk-b', plugin: 'iscsi' });
    const mgr = w.plugins();
    const host = w.host();
    const ga = w.run(mountForPod(mgr, a, 'uid-1')).value;
    const gb = w.run(mountForPod(mgr, b, 'uid-2')).value;
    expect(host.devices.sessionList()).toHaveLength(1);
    expect(host.deviceResidue('disk-a')).toEqual({ scsiPaths: 1, multipathMaps: 1 });
    expect(JSON.parse(host.fs.readFile(`${ga}/iscsi.json`))).toMatchObject({ VolName: 'disk-a', Lun: '0' });
    const plugin = mgr.findPluginByName('iscsi');
    for (const [vol, uid, g] of [
      ['disk-a', 'uid-1', ga],
      ['disk-b', 'uid-2', gb],
    ] as const) {
      expect(w.run(plugin.newUnmounter(vol, uid).tearDown()).value).toBeUndefined();
      expect(w.run(plugin.newDetacher().unmountDevice(g)).value).toBeUndefined();
      expect(host.deviceResidue(vol)).toEqual({ scsiPaths: 0, multipathMaps: 0 });
      expect(host.pathExists(g)).toBe(false);
      // The session stays while disk-b's global dir exists (isSessionBusy), and goes with it.
      expect(host.devices.sessionList()).toHaveLength(vol === 'disk-a' ? 1 : 0);
    }
  });

  it('CSI attach unfences and detach fences the node (lunFenced); a fenced node cannot write', () => {
    const w = new World(['node-a']);
    const spec = w.volume({ name: 'pv-1', plugin: 'csi' });
    const mgr = w.plugins();
    const plugin = mgr.findPluginByName('csi');
    expect(w.san.isReachable('pv-1', 'node-a')).toBe(false);
    const noAttach = w.run(plugin.newAttacher().waitForAttach(spec, '', 'uid-1', 3000));
    expect(noAttach.value.err?.message).toContain('attachment timeout');
    w.run(plugin.newAttacher().attach(spec, 'node-a'));
    w.run(mountForPod(mgr, spec, 'uid-1'));
    expect(w.host().writes('pv-1', 'uid-1')).toBe('ok');
    w.run(plugin.newDetacher().detach('pv-1', 'node-a'));
    expect(w.factsOf('lunFenced').map((f) => f.fenced)).toEqual([false, true]);
    expect(w.host().writes('pv-1', 'uid-1')).toBe('ioError');
    expect(w.san.writers('pv-1')).toEqual([]);
  });
});

describe('corruption detection', () => {
  function twoNodes(accessMode: 'ReadWriteOnce' | 'ReadWriteMany') {
    const w = new World(['node-a', 'node-b']);
    const spec = w.volume({ name: 'lun-1', plugin: 'fc', accessMode });
    w.run(mountForPod(w.plugins('node-a'), spec, 'uid-a'));
    return { w, spec };
  }

  it('one read-write node writes cleanly; a second unfenced RW node on an RWO LUN corrupts', () => {
    const { w, spec } = twoNodes('ReadWriteOnce');
    expect(w.host('node-a').writes('lun-1', 'uid-a')).toBe('ok');
    expect(w.san.isCorrupted('lun-1')).toBe(false);
    w.run(mountForPod(w.plugins('node-b'), spec, 'uid-b'));
    expect(w.san.writers('lun-1')).toEqual(['node-a', 'node-b']);
    expect(w.san.isCorrupted('lun-1')).toBe(false); // open, nothing written yet
    expect(w.host('node-b').writes('lun-1', 'uid-b')).toBe('corrupted');
    expect(w.san.isCorrupted('lun-1')).toBe(true);
    expect(w.san.writeLog('lun-1').at(-1)).toMatchObject({ node: 'node-b', otherWriters: ['node-a'] });
  });

  it('ReadWriteMany is not corrupted by two writers', () => {
    const { w, spec } = twoNodes('ReadWriteMany');
    w.run(mountForPod(w.plugins('node-b'), spec, 'uid-b'));
    expect(w.host('node-b').writes('lun-1', 'uid-b')).toBe('ok');
    expect(w.san.isCorrupted('lun-1')).toBe(false);
  });

  it('a read-only second mount is not a writer', () => {
    const { w, spec } = twoNodes('ReadWriteOnce');
    w.run(mountForPod(w.plugins('node-b'), { ...spec, readOnly: true }, 'uid-b'));
    expect(w.factsOf('lunAccessOpened').map((f) => [f.node, f.readWrite])).toEqual([
      ['node-a', true],
      ['node-b', false],
    ]);
    expect(w.host('node-b').writes('lun-1', 'uid-b')).toBe('readOnly');
    expect(w.host('node-a').writes('lun-1', 'uid-a')).toBe('ok');
    expect(w.san.isCorrupted('lun-1')).toBe(false);
  });

  it('publishes each change of a LUN mount as hostMount: the global mount, then the pod bind mount, scoped', () => {
    const w = new World();
    const spec = w.volume({ name: 'lun-1', plugin: 'fc' });
    const mgr = w.plugins();
    const global = w.run(mountForPod(mgr, spec, 'uid-1')).value;
    const podPath = '/var/lib/kubelet/pods/uid-1/volumes/kubernetes.io~fc/lun-1';
    const plugin = mgr.findPluginByName('kubernetes.io/fc');
    w.run(plugin.newUnmounter('lun-1', 'uid-1').tearDown());
    w.run(plugin.newDetacher().unmountDevice(global ?? ''));
    expect(
      w.factsOf('hostMount').map((f) => [f.mounted, f.scope, f.path, f.uid ?? null, f.volume, f.node]),
    ).toEqual([
      [true, 'global', global, null, 'lun-1', 'node-a'],
      [true, 'pod', podPath, 'uid-1', 'lun-1', 'node-a'],
      [false, 'pod', podPath, 'uid-1', 'lun-1', 'node-a'],
      [false, 'global', global, null, 'lun-1', 'node-a'],
    ]);
  });

  it('a pod writing through a bind of a hollow global dir writes to the root disk', () => {
    const w = new World();
    const spec = w.volume({ name: 'lun-1', plugin: 'fc' });
    const mgr = w.plugins();
    const global = mgr.findPluginBySpec(spec).newAttacher().getDeviceMountPath(spec);
    w.host().mkdirAll(global);
    expect(w.run(mgr.findPluginBySpec(spec).newMounter(spec, 'uid-1').setUp()).value).toBeUndefined();
    expect(w.factsOf('bindMountOfUnmountedGlobalPath')).toEqual([
      expect.objectContaining({ uid: 'uid-1', volume: 'lun-1' }),
    ]);
    expect(w.host().writes('lun-1', 'uid-1')).toBe('rootFs');
    expect(w.factsOf('lunAccessOpened')).toHaveLength(0);
    // The mount table has no mount of the LUN for the pod: the bind holds the root disk.
    expect(w.factsOf('hostMount')).toHaveLength(0);
  });
});

describe('CSI NodeStage / NodeUnstage', () => {
  it('afterUnmount: NodeUnstage unmounted, then timed out; the idempotent retry removes the devices', () => {
    const w = new World();
    const spec = w.volume({ name: 'pv-1', plugin: 'csi' });
    const mgr = w.plugins();
    const plugin = mgr.findPluginByName('csi');
    const host = w.host();
    w.run(plugin.newAttacher().attach(spec, 'node-a'));
    const staging = w.run(mountForPod(mgr, spec, 'uid-1')).value;
    expect(staging).toBe('/var/lib/kubelet/plugins/kubernetes.io/csi/pv/pv-1/globalmount');
    expect(w.run(plugin.newUnmounter('pv-1', 'uid-1').tearDown()).value).toBeUndefined();
    host.injectFault({ kind: 'unmountDevice', volume: 'pv-1', stage: 'afterUnmount', times: 1 });
    expect(w.run(plugin.newDetacher().unmountDevice(staging)).value?.message).toContain('DeadlineExceeded');
    expect(host.mounts.at(staging)).toBeUndefined();
    expect(host.deviceResidue('pv-1').scsiPaths).toBe(2);
    expect(w.run(plugin.newDetacher().unmountDevice(staging)).value).toBeUndefined();
    expect(host.deviceResidue('pv-1')).toEqual({ scsiPaths: 0, multipathMaps: 0 });
    expect(host.getVolumesFromPodDir()).toEqual([]);
  });
});
