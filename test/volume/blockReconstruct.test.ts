// ConstructBlockVolumeSpec (release-1.23): Block volumes are reconstructed from the pod's volumeDevices
// link and the plugin's global map path (FC, iSCSI) or vol_data.json (CSI), never from /proc/mounts,
// so an inconsistent /proc/mounts read cannot fail them (PR #102059 changed only the Filesystem path).
import { describe, expect, it } from 'vitest';
import { Fixes } from '../../src/fixes.js';
import { GiB, World } from '../storage/world.js';

function mappedBlockVolume(plugin: 'fc' | 'iscsi' | 'csi', fixes = Fixes.all()) {
  const w = new World();
  const spec = w.volume({ name: 'raw-1', plugin, mode: 'Block', capacityBytes: 5 * GiB });
  const mgr = w.plugins('node-a', fixes);
  const p = mgr.findPluginBySpec(spec);
  if (plugin === 'csi') w.run(p.newAttacher().attach(spec, 'node-a'));
  w.run(p.newAttacher().waitForAttach(spec, '', 'uid-1', 10_000));
  const mapper = p.newBlockVolumeMapper(spec, 'uid-1');
  w.run(mapper.setUpDevice());
  const mapped = w.run(mapper.mapPodDevice()).value;
  expect(mapped.err).toBeUndefined();
  return { w, p, mapper, mapPath: mapper.getPodDeviceMapPath() };
}

describe('ConstructBlockVolumeSpec', () => {
  for (const plugin of ['fc', 'iscsi', 'csi'] as const) {
    it(`${plugin}: a mapped volume is reconstructed as Block, whatever /proc/mounts says`, () => {
      for (const fixes of [Fixes.all(), Fixes.none()]) {
        const { w, p, mapPath } = mappedBlockVolume(plugin, fixes);
        w.host().injectFault({ kind: 'procMounts', inconsistentReads: 1_000 });
        const r = w.run(p.constructBlockVolumeSpec('uid-1', 'raw-1', mapPath)).value;
        expect(r.err).toBeUndefined();
        expect(r.value).toMatchObject({ name: 'raw-1', plugin, volumeMode: 'Block', capacityBytes: 5 * GiB });
        // The Filesystem path would have read /proc/mounts and failed.
        expect(w.host().faults.pendingInconsistentReads).toBe(1_000);
      }
    });

    it(`${plugin}: the constructVolumeSpec fault (a non-retryable error) fails it too`, () => {
      const { w, p, mapPath } = mappedBlockVolume(plugin);
      w.host().injectFault({ kind: 'constructVolumeSpec', volume: 'raw-1' });
      expect(w.run(p.constructBlockVolumeSpec('uid-1', 'raw-1', mapPath)).value.err).toBeDefined();
    });
  }

  it('fc / iscsi: FindGlobalMapPathUUIDFromPod needs the global map bind mount of that pod', () => {
    for (const plugin of ['fc', 'iscsi'] as const) {
      const { w, p, mapPath } = mappedBlockVolume(plugin);
      // Another pod's UID finds nothing: filepath.Dir("") = "." names no volume.
      expect(w.run(p.constructBlockVolumeSpec('uid-2', 'raw-1', mapPath)).value.err?.message).toMatch(
        /globalPDPath|globalMapPath|malformatted/,
      );
    }
  });

  it('csi: the data dir is written when the mapper is built and read back by name', () => {
    const { w } = mappedBlockVolume('csi');
    expect(
      w
        .host()
        .fs.readFile('/var/lib/kubelet/plugins/kubernetes.io/csi/volumeDevices/raw-1/data/vol_data.json'),
    ).toContain('raw-1');
  });
});
