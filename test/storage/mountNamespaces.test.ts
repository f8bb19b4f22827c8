// Containers' mount namespaces: a container copies the pod's volume mounts when it is created and keeps
// the filesystem and the device open until its process exits. TearDown and UnmountDevice on the host do
// not end the node's access to the LUN meanwhile, and flushing the multipath map fails (map in use).
// A Block volume is a device node in the container's /dev: it is open only once the process runs.
import { describe, expect, it } from 'vitest';
import { Fixes } from '../../src/fixes.js';
import { mountForPod, World } from './world.js';

function podWithContainer(fixes = Fixes.all()) {
  const w = new World();
  const spec = w.volume({ name: 'lun-1', plugin: 'fc' });
  const mgr = w.plugins('node-a', fixes);
  const host = w.host();
  const global = w.run(mountForPod(mgr, spec, 'uid-1')).value;
  host.createNamespace('uid-1/c1/1', 'uid-1');
  const plugin = mgr.findPluginByName('kubernetes.io/fc');
  return { w, host, global, plugin };
}

describe('container mount namespaces', () => {
  it('keep the LUN open read-write after the host tore the pod mount and the global mount down', () => {
    const { w, host, global, plugin } = podWithContainer(Fixes.all().with('fc-unmount-retry', false));
    expect(w.run(plugin.newUnmounter('lun-1', 'uid-1').tearDown()).value).toBeUndefined();
    const err = w.run(plugin.newDetacher().unmountDevice(global)).value;
    // The umount went through, then `multipath -f` found the map in use.
    expect(host.mounts.at(global)).toBeUndefined();
    expect(err?.message).toContain('map in use');
    expect(host.isDeviceOpened('lun-1')).toBe(true);
    expect(w.factsOf('lunAccessClosed')).toEqual([]);
    expect(w.san.writers('lun-1')).toEqual(['node-a']);
    // The container exits: the namespace goes, and with it the node's access.
    host.destroyNamespace('uid-1/c1/1');
    expect(host.isDeviceOpened('lun-1')).toBe(false);
    expect(w.factsOf('lunAccessClosed')).toEqual([expect.objectContaining({ volume: 'lun-1' })]);
  });

  it('fc-unmount-retry keeps flushing every 10 s until the container is gone, then cleans up', () => {
    const { w, host, global, plugin } = podWithContainer();
    w.run(plugin.newUnmounter('lun-1', 'uid-1').tearDown());
    w.sim.at(w.sim.nowMs + 25_000, () => host.destroyNamespace('uid-1/c1/1'));
    const r = w.run(plugin.newDetacher().unmountDevice(global));
    expect(r.value).toBeUndefined();
    expect(r.tookMs).toBeGreaterThanOrEqual(25_000);
    expect(r.tookMs).toBeLessThan(45_000);
    expect(host.deviceResidue('lun-1')).toEqual({ scsiPaths: 0, multipathMaps: 0 });
  });

  it('a container created before the volume was set up holds nothing', () => {
    const w = new World();
    const spec = w.volume({ name: 'lun-1', plugin: 'fc' });
    const host = w.host();
    host.createNamespace('uid-1/c1/1', 'uid-1');
    const global = w.run(mountForPod(w.plugins(), spec, 'uid-1')).value;
    const plugin = w.plugins().findPluginByName('kubernetes.io/fc');
    w.run(plugin.newUnmounter('lun-1', 'uid-1').tearDown());
    expect(w.run(plugin.newDetacher().unmountDevice(global)).value).toBeUndefined();
    expect(host.isDeviceOpened('lun-1')).toBe(false);
  });

  it('a namespace reaches the LUN only while the node has a path to it', () => {
    const { w, host } = podWithContainer();
    expect(w.factsOf('lunAccessClosed')).toEqual([]);
    for (const p of host.devices.scsiPathsOf('lun-1')) host.deleteScsiDevice(p.path);
    expect(w.factsOf('lunAccessClosed')).toEqual([]); // the global mount still holds it on the host
    host.unmount('/var/lib/kubelet/pods/uid-1/volumes/kubernetes.io~fc/lun-1');
    host.unmount('/var/lib/kubelet/plugins/kubernetes.io/fc/50060e801049cfd1-lun-0');
    expect(w.factsOf('lunAccessClosed')).toEqual([expect.objectContaining({ volume: 'lun-1' })]);
  });

  it('DeviceOpened sees the holding namespace through the device path; an empty path is no device', () => {
    const { host } = podWithContainer();
    host.unmount('/var/lib/kubelet/pods/uid-1/volumes/kubernetes.io~fc/lun-1');
    host.unmount('/var/lib/kubelet/plugins/kubernetes.io/fc/50060e801049cfd1-lun-0');
    expect(host.deviceOpened('/dev/dm-0')).toBe(true);
    // A reconstructed FC / iSCSI volume has no device path (node status gives none): not checked.
    expect(host.deviceOpened('')).toBe(false);
    expect(host.deviceOpened('/dev/dm-9')).toBe(false);
    host.destroyNamespace('uid-1/c1/1');
    expect(host.deviceOpened('/dev/dm-0')).toBe(false);
  });

  it('a Block device is held by the running process, not by the created container', () => {
    const w = new World();
    const spec = w.volume({ name: 'lun-1', plugin: 'fc', mode: 'Block' });
    const host = w.host();
    const plugin = w.plugins().findPluginBySpec(spec);
    expect(w.run(plugin.newAttacher().waitForAttach(spec, '', 'uid-1', 120_000)).value.err).toBeUndefined();
    const mapper = plugin.newBlockVolumeMapper(spec, 'uid-1');
    expect(w.run(mapper.setUpDevice()).value.err).toBeUndefined();
    expect(w.run(mapper.mapPodDevice()).value.err).toBeUndefined();
    host.createNamespace('uid-1/c1/1', 'uid-1');
    // Created, not started (a kubelet stopped before StartContainer): a device node opens nothing.
    expect(host.heldByContainer('lun-1')).toBe(false);
    host.startNamespace('uid-1/c1/1');
    expect(host.heldByContainer('lun-1')).toBe(true);
    // The kubelet unmaps the pod's device: the running process still has it open, until it exits.
    expect(w.run(plugin.newBlockVolumeUnmapper('lun-1', 'uid-1').unmapPodDevice()).value).toBeUndefined();
    expect(host.heldByContainer('lun-1')).toBe(true);
    host.destroyNamespace('uid-1/c1/1');
    expect(host.heldByContainer('lun-1')).toBe(false);
  });
});
