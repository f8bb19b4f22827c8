// The mountDevice fault where each plugin stages the device (src/volume/stagingFault.ts): it only makes the
// staging take longer and, if asked, answer an error of the kind upstream's plugin would (final for FC and
// iSCSI FormatAndMount; for CSI NodeStageVolume a final Internal, an uncertain Unavailable after the work,
// and DeadlineExceeded, uncertain, at the kubelet's 2 min csiTimeout).
import { describe, expect, it } from 'vitest';
import { UncertainProgressError } from '../../src/api/errors.js';
import type { LunPlugin } from '../../src/storage/san.js';
import { CSI_TIMEOUT_MS } from '../../src/volume/stagingFault.js';
import type { Spec } from '../../src/volume/volume.js';
import { World } from '../storage/world.js';

function staged(plugin: LunPlugin, mode: 'Filesystem' | 'Block' = 'Filesystem') {
  const w = new World();
  const spec: Spec = w.volume({ name: 'lun-1', plugin, mode });
  w.volume({ name: 'lun-2', plugin, mode });
  const mgr = w.plugins('node-a');
  const p = mgr.findPluginBySpec(spec);
  const attacher = p.newAttacher();
  if (plugin === 'csi') w.run(attacher.attach(spec, 'node-a'));
  const dev = w.run(attacher.waitForAttach(spec, '', 'uid-1', 120_000)).value;
  if (dev.err !== undefined) throw new Error(dev.err.message);
  const global = attacher.getDeviceMountPath(spec);
  const host = w.host();
  const mountDevice = () => w.run(attacher.mountDevice(spec, dev.value, global));
  return { w, spec, p, host, global, mountDevice };
}

describe('the mountDevice fault', () => {
  for (const plugin of ['fc', 'iscsi', 'csi'] as const) {
    it(`${plugin}: a delay makes MountDevice take that much longer, once per firing, then it mounts`, () => {
      const base = staged(plugin).mountDevice().tookMs;
      const { host, global, mountDevice, w } = staged(plugin);
      host.injectFault({ kind: 'mountDevice', volume: 'lun-1', delayMs: 60_000, error: null, times: 1 });
      const r = mountDevice();
      expect(r.value).toBeUndefined();
      expect(r.tookMs).toBeGreaterThanOrEqual(60_000);
      expect(r.tookMs).toBeLessThanOrEqual(60_000 + base + 2_000);
      expect(host.mounts.at(global)).toBeDefined();
      expect(w.factsOf('faultInjected')).toMatchObject([
        { fault: 'mountDevice', volume: 'lun-1', delayMs: 60_000, error: undefined },
      ]);
      expect(host.faults.active()).toBe(false);
    });
  }

  it('fires only for its volume, and counts its firings down', () => {
    const { host, mountDevice } = staged('iscsi');
    host.injectFault({ kind: 'mountDevice', volume: 'lun-2', delayMs: 60_000, error: null, times: 1 });
    expect(mountDevice().tookMs).toBeLessThan(60_000);
    expect(host.faults.unfired()).toMatchObject([{ label: 'mountDevice', volume: 'lun-2', remaining: 1 }]);
  });

  for (const plugin of ['fc', 'iscsi'] as const) {
    it(`${plugin}: a final error fails the mount after the delay and removes the global dir; the retry mounts`, () => {
      const { host, global, mountDevice } = staged(plugin);
      host.injectFault({ kind: 'mountDevice', volume: 'lun-1', delayMs: 10_000, error: 'final', times: 1 });
      const r = mountDevice();
      expect(r.value?.message).toContain('mount failed: exit status 32');
      expect(r.value).not.toBeInstanceOf(UncertainProgressError);
      expect(r.tookMs).toBeGreaterThanOrEqual(10_000);
      expect(host.mounts.at(global)).toBeUndefined();
      // MountDevice's os.Remove of the dir it made; iSCSI's holds the disk's iscsi.json (AttachDisk
      // persisted it there), so the Remove fails and the dir stays, as upstream's would.
      if (plugin === 'fc') expect(host.fs.get(global)).toBeUndefined();
      expect(mountDevice().value).toBeUndefined();
      expect(host.mounts.at(global)).toBeDefined();
    });
  }

  it('csi: a final error (Internal) leaves nothing staged and is no uncertain progress', () => {
    const { host, global, mountDevice } = staged('csi');
    host.injectFault({ kind: 'mountDevice', volume: 'lun-1', delayMs: null, error: 'final', times: 1 });
    const r = mountDevice();
    expect(r.value?.message).toContain('code = Internal');
    expect(r.value).not.toBeInstanceOf(UncertainProgressError);
    expect(host.mounts.at(global)).toBeUndefined();
  });

  it('csi: an uncertain error (Unavailable) comes after the driver staged the volume', () => {
    const { host, global, mountDevice } = staged('csi');
    host.injectFault({ kind: 'mountDevice', volume: 'lun-1', delayMs: 5_000, error: 'uncertain', times: 1 });
    const r = mountDevice();
    expect(r.value).toBeInstanceOf(UncertainProgressError);
    expect(r.value?.message).toContain('code = Unavailable');
    expect(host.mounts.at(global)).toBeDefined();
  });

  it('csi: a staging past the 2 min csiTimeout fails with DeadlineExceeded at 2 min, uncertain, nothing staged', () => {
    const { host, global, mountDevice } = staged('csi');
    host.injectFault({ kind: 'mountDevice', volume: 'lun-1', delayMs: 180_000, error: null, times: 1 });
    const r = mountDevice();
    expect(r.tookMs).toBe(CSI_TIMEOUT_MS);
    expect(r.value).toBeInstanceOf(UncertainProgressError);
    expect(r.value?.message).toContain('code = DeadlineExceeded');
    expect(host.mounts.at(global)).toBeUndefined();
    // The next NodeStageVolume (the kubelet's retry) has no fault left and stages.
    expect(mountDevice().value).toBeUndefined();
    expect(host.mounts.at(global)).toBeDefined();
  });

  it('csi Block: SetUpDevice (NodeStageVolume) takes the delay, and runs into the deadline too', () => {
    const slow = staged('csi', 'Block');
    slow.host.injectFault({ kind: 'mountDevice', volume: 'lun-1', delayMs: 30_000, error: null, times: 1 });
    const r = slow.w.run(slow.p.newBlockVolumeMapper(slow.spec, 'uid-1').setUpDevice());
    expect(r.value.err).toBeUndefined();
    expect(r.tookMs).toBeGreaterThanOrEqual(30_000);
    const late = staged('csi', 'Block');
    late.host.injectFault({ kind: 'mountDevice', volume: 'lun-1', delayMs: 130_000, error: null, times: 1 });
    const timedOut = late.w.run(late.p.newBlockVolumeMapper(late.spec, 'uid-1').setUpDevice());
    expect(timedOut.tookMs).toBe(CSI_TIMEOUT_MS);
    expect(timedOut.value.err).toBeInstanceOf(UncertainProgressError);
  });
});
