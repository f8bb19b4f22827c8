// mount-stacked: the planted bug it exists for (attacher.go MountDevice without its IsLikelyNotMountPoint
// check, so a MountDevice repeated on a mounted global path mounts the device again) in a run, and the
// checker on a synthetic fact.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Fixes } from '../../src/fixes.js';
import { MountStacked } from '../../src/invariants/index.js';
import type { Violation } from '../../src/invariants/types.js';
import { runScenario } from '../../src/run/run.js';
import { parseScenarioText } from '../../src/scenario/load.js';
import type { Host } from '../../src/storage/host.js';
import type * as Fc from '../../src/volume/fc.js';

const planted = vi.hoisted(() => ({ skipMountPointCheck: false }));

// iSCSI's attacher calls the shared MountDevice through this module's export (FC's own call is local).
vi.mock('../../src/volume/fc.js', async (importOriginal) => {
  const original = await importOriginal<typeof Fc>();
  return {
    ...original,
    mountDeviceCommon: (
      host: Host,
      ...rest: [Parameters<typeof original.mountDeviceCommon>[1], string, string]
    ) => {
      if (!planted.skipMountPointCheck) return original.mountDeviceCommon(host, ...rest);
      // The check dropped: every path looks like "not a mount point".
      const blind = new Proxy(host, {
        get(target, prop, receiver) {
          if (prop === 'isLikelyNotMountPoint') return () => ({ value: true, err: undefined });
          const v = Reflect.get(target, prop, receiver);
          return typeof v === 'function' ? v.bind(target) : v;
        },
      });
      return original.mountDeviceCommon(blind, ...rest);
    },
  };
});

afterEach(() => {
  planted.skipMountPointCheck = false;
});

describe('mount-stacked', () => {
  it('reports each stacked mount with its path and device', () => {
    const out: Violation[] = [];
    new MountStacked().onFact(
      {
        kind: 'mountStacked',
        atMs: 5_000,
        node: 'node-a',
        volume: 'lun-1',
        path: '/g/lun-1',
        device: '/dev/dm-0',
      },
      (v) => out.push(v),
    );
    expect(out.map((v) => [v.invariant, v.node, v.volume, v.atMs])).toEqual([
      ['mount-stacked', 'node-a', 'lun-1', 5_000],
    ]);
    expect(out[0]?.message).toMatch(
      /mounted \/dev\/dm-0 on \/g\/lun-1 at 5\.00s although \/g\/lun-1 was already a mount point/,
    );
  });

  // After a kubelet restart the reconstructed device is uncertain, so the reconciler runs MountDevice
  // again on a global path that is still mounted: the check makes it a no-op.
  const restart = [
    'name: stacked',
    'seed: 1',
    'horizon: 1m',
    'cluster:',
    '  nodes: [node-a]',
    '  volumes:',
    '    - { name: lun-1, plugin: iscsi, mode: Filesystem, capacity: 10Gi }',
    'timeline:',
    '  - at: 0s',
    '    createPod: { pod: db, node: node-a, containers: 1, volumes: [lun-1] }',
    '  - at: 20s',
    '    restartKubelet: { node: node-a, downFor: 5s }',
  ].join('\n');
  const stacked = () =>
    runScenario(parseScenarioText(restart, 'stacked.yaml'), { fixes: Fixes.all() }).violations.filter(
      (v) => v.invariant === 'mount-stacked',
    );

  it('holds with the port as it is', () => {
    expect(stacked()).toEqual([]);
  });

  it('fires when MountDevice mounts without asking whether the global path is a mount point', () => {
    planted.skipMountPointCheck = true;
    const v = stacked();
    expect(v.map((x) => [x.node, x.volume])).toEqual([['node-a', 'lun-1']]);
  });
});
