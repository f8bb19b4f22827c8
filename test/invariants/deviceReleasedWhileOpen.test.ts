// device-released-while-open: the checker on synthetic facts (fires exactly, near-misses), the host and
// SAN publishing the ground truth it reads, the hazard that excuses iSCSI's own fall-through, and a
// planted bug: an FC DetachDisk that goes on deleting the disks after `multipath -f` failed (as iSCSI's
// deleteDevices does) fires the invariant, the ported one does not.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { GoError } from '../../src/api/errors.js';
import type { Fact, FactKind } from '../../src/facts.js';
import { Fixes } from '../../src/fixes.js';
import { HazardTracker } from '../../src/invariants/hazards.js';
import { DeviceReleasedWhileOpen } from '../../src/invariants/index.js';
import type { Violation } from '../../src/invariants/types.js';
import { runScenario } from '../../src/run/run.js';
import { parseScenarioText } from '../../src/scenario/load.js';
import { type Co, sleep } from '../../src/sim/index.js';
import type { Host } from '../../src/storage/host.js';
import { mountForPod, World } from '../storage/world.js';

// ---- the planted bug: FC DetachDisk with iSCSI's "Fall through -- keep deleting the block devices" ----

const planted = vi.hoisted(() => ({ on: false }));

vi.mock('../../src/volume/fcUtil.js', async (importOriginal) => {
  const orig = await importOriginal<typeof import('../../src/volume/fcUtil.js')>();
  /**
   * fcUtil.DetachDisk as a developer might port it from iscsi_util.go deleteDevices: a failed
   * `multipath -f` is logged and the slaves are deleted anyway. Upstream fc_util.go returns the error.
   */
  function* fallThroughDetachDisk(host: Host, volume: string, devicePath: string): Co<GoError | undefined> {
    const dstPath = host.devices.evalSymlinks(devicePath);
    if (dstPath === undefined || host.faults.unmountDevice(volume, 'afterUnmount')) {
      return new GoError(`lstat ${devicePath}: no such file or directory`);
    }
    let devices: string[];
    if (dstPath.startsWith('/dev/dm-')) {
      devices = host.devices.findSlaveDevicesOnMultipath(dstPath);
      yield* sleep(host.latency('multipathFlush'));
      const busy = host.faults.unmountDevice(volume, 'multipathFlushBusy') || host.isDevicePathOpen(dstPath);
      if (!busy) host.devices.removeMap(dstPath);
      // BUG: no `return err` here.
    } else {
      devices = [dstPath];
    }
    for (const device of devices) {
      yield* sleep(host.latency('scsiDelete'));
      host.deleteScsiDevice(device);
    }
    return undefined;
  }
  return {
    ...orig,
    detachDisk: (host: Host, volume: string, devicePath: string) =>
      planted.on
        ? fallThroughDetachDisk(host, volume, devicePath)
        : orig.detachDisk(host, volume, devicePath),
  };
});

afterEach(() => {
  planted.on = false;
});

// ---- synthetic facts ----

type FactOf<K extends FactKind> = Extract<Fact, { kind: K }>;
type Fields<K extends FactKind> = Omit<FactOf<K>, 'kind' | 'atMs' | 'node'> & { node?: string };

function fact<K extends FactKind>(kind: K, atMs: number, fields: Fields<K>): FactOf<K> {
  return { node: 'node-a', ...fields, kind, atMs } as unknown as FactOf<K>;
}

const released = (atMs: number, over: Partial<Fields<'deviceReleased'>> = {}): FactOf<'deviceReleased'> => {
  const f = {
    volume: 'lun-1',
    action: 'scsiDelete' as const,
    device: '/dev/sdb',
    mounts: 0,
    pods: [] as string[],
    hostProcess: false,
    ...over,
  };
  return fact('deviceReleased', atMs, {
    ...f,
    holders: f.mounts + f.pods.length + (f.hostProcess ? 1 : 0),
  });
};

function run(facts: readonly Fact[]): Violation[] {
  const c = new DeviceReleasedWhileOpen();
  const out: Violation[] = [];
  for (const f of facts) if (c.kinds.includes(f.kind)) c.onFact(f, (v) => void out.push(v));
  return out;
}

describe('device-released-while-open (synthetic facts)', () => {
  it('fires on a SCSI path deleted under a running container, with the UnmountDevice history as causes', () => {
    const flush = fact('multipathFlushFailed', 17_300, {
      volume: 'lun-1',
      device: '/dev/dm-0',
      fellThrough: true,
    });
    const other = fact('unmountDevice', 17_350, { volume: 'lun-2', ok: true });
    const del = released(17_400, { pods: ['uid-db'] });
    expect(run([flush, other, del])).toEqual([
      {
        invariant: 'device-released-while-open',
        atMs: 17_400,
        node: 'node-a',
        pod: null,
        uid: 'uid-db',
        volume: 'lun-1',
        message:
          'node-a deleted SCSI path /dev/sdb of lun-1 at 17.40s while running container(s) of pod uid-db held its device open',
        causes: [flush, del],
      },
    ]);
  });

  it('fires on a logout under a host process and on a fence under a mount', () => {
    const logout = released(20_000, { action: 'logout', device: '10.0.0.10:3260', hostProcess: true });
    const fence = released(30_000, {
      action: 'fence',
      device: '',
      volume: 'lun-2',
      mounts: 1,
      node: 'node-b',
    });
    expect(run([logout, fence]).map((v) => [v.node, v.volume, v.uid, v.message])).toEqual([
      [
        'node-a',
        'lun-1',
        null,
        'node-a logged out of the iSCSI session of lun-1 (portal 10.0.0.10:3260) at 20.00s while a host process held its device open',
      ],
      [
        'node-b',
        'lun-2',
        null,
        'node-b was fenced from lun-2 at 30.00s while 1 mount(s) held its device open',
      ],
    ]);
  });

  it('does not fire for a release nothing holds, nor for the facts around it', () => {
    expect(
      run([
        fact('multipathFlushFailed', 100, { volume: 'lun-1', device: '/dev/dm-0', fellThrough: true }),
        fact('unmountDevice', 200, { volume: 'lun-1', ok: true }),
        released(150),
        released(160, { action: 'logout', device: '10.0.0.10:3260' }),
        released(170, { action: 'fence', device: '' }),
      ]),
    ).toEqual([]);
  });
});

describe('deviceReleased: the ground truth', () => {
  it('counts the mounts, the running containers and a host process at the moment of the release', () => {
    const w = new World();
    const spec = w.volume({ name: 'lun-1', plugin: 'fc' });
    const host = w.host();
    w.run(mountForPod(w.plugins(), spec, 'uid-1'));
    host.createNamespace('uid-1/c1/1', 'uid-1');
    host.holdDevice('lun-1');
    const [first, second] = host.devices.scsiPathsOf('lun-1');
    host.deleteScsiDevice(first?.path ?? '');
    host.destroyNamespace('uid-1/c1/1');
    host.releaseDevice('lun-1');
    host.unmount('/var/lib/kubelet/pods/uid-1/volumes/kubernetes.io~fc/lun-1');
    host.unmount('/var/lib/kubelet/plugins/kubernetes.io/fc/50060e801049cfd1-lun-0');
    host.deleteScsiDevice(second?.path ?? '');
    host.deleteScsiDevice(second?.path ?? ''); // already gone: nothing released
    expect(
      w
        .factsOf('deviceReleased')
        .map((f) => [f.action, f.device, f.holders, f.mounts, f.pods, f.hostProcess]),
    ).toEqual([
      ['scsiDelete', first?.path, 4, 2, ['uid-1'], true],
      ['scsiDelete', second?.path, 0, 0, [], false],
    ]);
  });

  it('a CSI detach fences the node and reports what held the device there', () => {
    const w = new World(['node-a', 'node-b']);
    w.volume({ name: 'lun-1', plugin: 'csi' });
    const host = w.host('node-a');
    w.host('node-b');
    w.san.attach('lun-1', 'node-a');
    w.san.attach('lun-1', 'node-b');
    host.holdDevice('lun-1');
    w.san.detach('lun-1', 'node-a');
    w.san.detach('lun-1', 'node-b');
    expect(w.factsOf('deviceReleased').map((f) => [f.node, f.action, f.holders, f.hostProcess])).toEqual([
      ['node-a', 'fence', 1, true],
      ['node-b', 'fence', 0, false],
    ]);
  });
});

describe('hazard iscsi-detach-ignores-open-device', () => {
  const violation = (over: Partial<FactOf<'deviceReleased'>> = {}, v: Partial<Violation> = {}): Violation => {
    const r = { ...released(17_400, { hostProcess: true }), ...over };
    return {
      invariant: 'device-released-while-open',
      atMs: r.atMs,
      node: r.node,
      pod: null,
      uid: r.pods[0] ?? null,
      volume: r.volume,
      message: '',
      causes: [r],
      ...v,
    };
  };
  const tracker = (...facts: Fact[]): HazardTracker => {
    const t = new HazardTracker();
    for (const f of facts) t.onFact(f);
    return t;
  };
  const fellThrough = (fell: boolean): Fact =>
    fact('multipathFlushFailed', 17_300, { volume: 'lun-1', device: '/dev/dm-0', fellThrough: fell });

  it("explains a release under a host process alone after iSCSI's fall-through or its Block logout", () => {
    expect(tracker(fellThrough(true)).explain(violation())).toBe('iscsi-detach-ignores-open-device');
    const logout = fact('iscsiLogout', 17_400, { volume: 'lun-1', block: true });
    expect(tracker(logout).explain(violation({ action: 'logout' }))).toBe('iscsi-detach-ignores-open-device');
  });

  it('never explains a mount or a container holder, a flush that returned, a Filesystem logout, or another volume', () => {
    const t = tracker(fellThrough(true), fact('iscsiLogout', 17_000, { volume: 'lun-1', block: false }));
    expect(t.explain(violation({ hostProcess: true, pods: ['uid-db'], holders: 2 }))).toBeNull();
    expect(t.explain(violation({ hostProcess: true, mounts: 1, holders: 2 }))).toBeNull();
    expect(t.explain(violation({ volume: 'lun-2' }))).toBeNull();
    expect(t.explain(violation({}, { atMs: 17_000 }))).toBeNull();
    expect(tracker(fellThrough(false)).explain(violation())).toBeNull();
    expect(
      tracker(fact('iscsiLogout', 17_000, { volume: 'lun-1', block: false })).explain(violation()),
    ).toBeNull();
  });
});

// ---- the planted bug, in a run ----

const FC_DEVICE_OPEN = [
  'name: fc-device-open-during-unmount',
  'seed: 1',
  'horizon: 2m',
  'cluster:',
  '  nodes: [node-a]',
  '  volumes:',
  '    - { name: lun-1, plugin: fc, mode: Filesystem, capacity: 10Gi }',
  'timeline:',
  '  - at: 0s',
  '    createPod: { pod: db1, node: node-a, containers: 1, volumes: [lun-1], gracePeriod: 2s }',
  '  - at: 15s',
  '    fault: { unmountDevice: { node: node-a, volume: lun-1, stage: STAGE, times: 1 } }',
  '  - at: 15s',
  '    deletePod: { pod: db1 }',
].join('\n');

function runFc(stage: 'deviceStillOpen' | 'multipathFlushBusy', fixes = Fixes.all()) {
  const scenario = parseScenarioText(FC_DEVICE_OPEN.replace('STAGE', stage), 'fc-device-open.yaml');
  return runScenario(scenario, { fixes }).violations;
}

describe('planted bug: FC DetachDisk deletes the disks after a failed multipath flush', () => {
  it('the ported FC plugin waits for the probe to close the map: nothing released under it', () => {
    expect(runFc('deviceStillOpen')).toEqual([]);
    expect(runFc('deviceStillOpen', Fixes.none()).map((v) => v.invariant)).not.toContain(
      'device-released-while-open',
    );
  });

  it('with the fall-through, the disks go under the probe: the invariant fires, excused by no hazard', () => {
    planted.on = true;
    const fired = runFc('deviceStillOpen').filter((v) => v.invariant === 'device-released-while-open');
    expect(fired.map((v) => [v.node, v.volume, v.knownOpen])).toEqual([['node-a', 'lun-1', undefined]]);
    expect(fired[0]?.message).toMatch(/deleted SCSI path \/dev\/sd\w+ of lun-1 .* while a host process held/);
  });

  it('with the fall-through but a busy flush nobody holds open (multipathFlushBusy), nothing is released under a holder', () => {
    planted.on = true;
    expect(runFc('multipathFlushBusy').map((v) => v.invariant)).not.toContain('device-released-while-open');
  });
});

describe('hazards of a forgotten volume explain only the controller fence', () => {
  // failed-reconstruction-left-to-terminating-pod and one-shot-reconstruction-gap leave a volume in
  // neither state of the world: the kubelet never tears it down, only the attach/detach controller's
  // detach takes the device. A logout or SCSI delete under the volume is the kubelet's own (planted in
  // mutation as vm-unmap-device-refs-off-by-one: UnmapDevice tolerating one pod's reference).
  const violation = (action: 'fence' | 'logout' | 'scsiDelete'): Violation => {
    const r = released(83_000, { action, mounts: 1 });
    return {
      invariant: 'device-released-while-open',
      atMs: r.atMs,
      node: r.node,
      pod: null,
      uid: null,
      volume: r.volume,
      message: '',
      causes: [r],
    };
  };
  const tracker = (...facts: Fact[]): HazardTracker => {
    const t = new HazardTracker();
    for (const f of facts) t.onFact(f);
    return t;
  };
  const failedReconstruction: Fact[] = [
    fact('faultInjected', 1_000, { fault: 'constructVolumeSpec', volume: 'lun-1' }),
    fact('volumeReconstruction', 2_000, {
      uid: 'uid-db',
      pod: 'db',
      volume: 'lun-1',
      mode: 'Block',
      ok: false,
      inconsistentRead: false,
      outcome: 'skippedDesired',
      podKnown: true,
      podTerminating: false,
    }),
  ];
  const finished = (devices: string[], maps: { uid: string; volume: string }[]): Fact =>
    fact('reconstructionFinished', 2_000, {
      unreconstructedDevices: devices,
      unreconstructedPodMaps: maps,
      podDirVolumes: [],
    });

  it('a failed reconstruction left to a terminating pod: the fence yes, the kubelet logout or delete no', () => {
    const t = tracker(...failedReconstruction);
    expect(t.explain(violation('fence'))).toBe('failed-reconstruction-left-to-terminating-pod');
    expect(t.explain(violation('logout'))).toBeNull();
    expect(t.explain(violation('scsiDelete'))).toBeNull();
  });

  it("#101791's cleanupMounts: the fence yes, the kubelet's SCSI delete under the pod's stale bind mount no", () => {
    const cleanup = tracker(failedReconstruction[0] as Fact, {
      ...(failedReconstruction[1] as FactOf<'volumeReconstruction'>),
      mode: 'Filesystem',
      outcome: 'cleanupMounts',
      podKnown: false,
    });
    expect(cleanup.explain(violation('fence'))).toBe('reconstruction-fails-other-error');
    expect(cleanup.explain(violation('scsiDelete'))).toBeNull();
    expect(cleanup.explain(violation('logout'))).toBeNull();
  });

  it("#85476's gap: a device nobody reconstructed may be fenced; a pod's stale map reference only stalls termination", () => {
    const device = tracker(finished(['lun-1'], []));
    expect(device.explain(violation('fence'))).toBe('one-shot-reconstruction-gap');
    expect(device.explain(violation('logout'))).toBeNull();
    const map = tracker(finished([], [{ uid: 'uid-db', volume: 'lun-1' }]));
    expect(map.explain(violation('fence'))).toBeNull();
    const stuck: Violation = {
      ...violation('fence'),
      invariant: 'termination-stuck',
      uid: 'uid-db',
      causes: [],
    };
    expect(map.explain(stuck)).toBe('one-shot-reconstruction-gap');
  });
});
