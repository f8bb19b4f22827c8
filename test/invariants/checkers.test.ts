// Each invariant: a fact sequence that must fire (exact fields) and near-misses that must not.
import { describe, expect, it } from 'vitest';
import type { Fact, FactKind } from '../../src/facts.js';
import {
  ConcurrentKill,
  ContainerStartedAfterTerminated,
  DeviceLeakedAfterUnmount,
  DeviceReportedUnusedWhileMounted,
  GracePeriodIncreased,
  KubeletPanic,
  MountDeviceSkippedAfterFailure,
  MultiNodeMount,
  NodeShutdownMarkedFailed,
  PodDeletedWhileRunning,
  StaticPodOverlap,
  TerminationStuck,
  VolumeTornDownWhileRunning,
} from '../../src/invariants/index.js';
import type { Checker, Violation } from '../../src/invariants/types.js';

type FactOf<K extends FactKind> = Extract<Fact, { kind: K }>;
type Fields<K extends FactKind> = Omit<FactOf<K>, 'kind' | 'atMs' | 'node'> & { node?: string };

const A = 'node-a';
const B = 'node-b';
const WEB = { pod: 'web', uid: 'uid-web' } as const;

/** A fact of `kind` at `atMs` on node-a unless `node` is given. */
function fact<K extends FactKind>(kind: K, atMs: number, fields: Fields<K>): FactOf<K> {
  return { node: A, ...fields, kind, atMs } as unknown as FactOf<K>;
}

function run(checker: Checker, facts: readonly Fact[], endMs?: number): Violation[] {
  const out: Violation[] = [];
  const report = (v: Violation): void => {
    out.push(v);
  };
  for (const f of facts) checker.onFact(f, report);
  if (endMs !== undefined) checker.onEnd(endMs, report);
  return out;
}

describe('container-started-after-terminated', () => {
  it('fires when a container starts after podTerminated on the same node', () => {
    const req = fact('podTerminationRequested', 100, { ...WEB, reason: 'deletion' });
    const term = fact('podTerminated', 1200, { ...WEB, reason: 'dispatchWork TerminatePod' });
    const start = fact('containerStarted', 1520, { ...WEB, container: 'app' });
    expect(run(new ContainerStartedAfterTerminated(), [req, term, start])).toEqual([
      {
        invariant: 'container-started-after-terminated',
        atMs: 1520,
        node: A,
        pod: 'web',
        uid: 'uid-web',
        volume: null,
        message:
          'container web/app started at 1.52s after the kubelet treated pod web (uid uid-web) as terminated ' +
          'at 1.20s (podTerminated: dispatchWork TerminatePod)',
        causes: [req, term, start],
      },
    ]);
  });

  it('does not fire for a restart after a crash, another node or another uid', () => {
    const facts: Fact[] = [
      fact('containerStarted', 100, { ...WEB, container: 'app' }),
      fact('containerExited', 200, { ...WEB, container: 'app', exitCode: 1 }),
      fact('containerStarted', 300, { ...WEB, container: 'app' }),
      fact('podTerminated', 400, { ...WEB, node: B, reason: 'x' }),
      fact('podTerminated', 400, { pod: 'db', uid: 'uid-db', reason: 'x' }),
      fact('containerStarted', 500, { ...WEB, container: 'app' }),
    ];
    expect(run(new ContainerStartedAfterTerminated(), facts)).toEqual([]);
  });
});

describe('volume-torn-down-while-running', () => {
  it('fires when a volume is torn down (even failing) while a container runs', () => {
    const setUp = fact('volumeSetUp', 100, { ...WEB, volume: 'lun-1' });
    const start = fact('containerStarted', 200, { ...WEB, container: 'app' });
    const td = fact('volumeTearDown', 300, { ...WEB, volume: 'lun-1', ok: false });
    const [v, ...rest] = run(new VolumeTornDownWhileRunning(), [setUp, start, td]);
    expect(rest).toEqual([]);
    expect(v).toMatchObject({
      invariant: 'volume-torn-down-while-running',
      atMs: 300,
      node: A,
      pod: 'web',
      uid: 'uid-web',
      volume: 'lun-1',
      causes: [setUp, start, td],
    });
    expect(v?.message).toBe(
      'volume lun-1 of pod web (uid uid-web) torn down at 0.30s (failed) while container web/app ' +
        '(started at 0.20s) is still running',
    );
  });

  it('fires when a container starts after its volume was torn down and not set up again', () => {
    const setUp = fact('volumeSetUp', 100, { ...WEB, volume: 'lun-1' });
    const td = fact('volumeTearDown', 300, { ...WEB, volume: 'lun-1', ok: true });
    const start = fact('containerStarted', 400, { ...WEB, container: 'app' });
    const [v, ...rest] = run(new VolumeTornDownWhileRunning(), [setUp, td, start]);
    expect(rest).toEqual([]);
    expect(v).toMatchObject({
      atMs: 400,
      node: A,
      uid: 'uid-web',
      volume: 'lun-1',
      causes: [setUp, td, start],
    });
    expect(v?.message).toContain('container web/app started at 0.40s without its volume lun-1');
  });

  it('does not fire after the container exited, or when the volume was set up again', () => {
    const exitedFirst: Fact[] = [
      fact('volumeSetUp', 100, { ...WEB, volume: 'lun-1' }),
      fact('containerStarted', 200, { ...WEB, container: 'app' }),
      fact('containerExited', 250, { ...WEB, container: 'app', exitCode: 0 }),
      fact('volumeTearDown', 300, { ...WEB, volume: 'lun-1', ok: true }),
    ];
    expect(run(new VolumeTornDownWhileRunning(), exitedFirst)).toEqual([]);
    const setUpAgain: Fact[] = [
      fact('volumeSetUp', 100, { ...WEB, volume: 'lun-1' }),
      fact('volumeTearDown', 300, { ...WEB, volume: 'lun-1', ok: true }),
      fact('volumeSetUp', 350, { ...WEB, volume: 'lun-1' }),
      fact('containerStarted', 400, { ...WEB, container: 'app' }),
      // another pod's container on the node is not this pod's
      fact('volumeTearDown', 500, { pod: 'db', uid: 'uid-db', volume: 'lun-2', ok: true }),
    ];
    expect(run(new VolumeTornDownWhileRunning(), setUpAgain)).toEqual([]);
  });
});

describe('pod-deleted-while-running', () => {
  it('fires when the kubelet finalises the deletion while a container runs', () => {
    const start = fact('containerStarted', 100, { ...WEB, container: 'app' });
    const req = fact('apiPodDeletionRequested', 200, { ...WEB, node: '', gracePeriodSeconds: 30 });
    const del = fact('apiPodDeleted', 300, { ...WEB, node: '', by: 'kubelet' });
    const [v, ...rest] = run(new PodDeletedWhileRunning(), [start, req, del]);
    expect(rest).toEqual([]);
    expect(v).toMatchObject({
      invariant: 'pod-deleted-while-running',
      atMs: 300,
      node: A,
      pod: 'web',
      uid: 'uid-web',
      volume: null,
      causes: [start, req, del],
    });
    expect(v?.message).toBe(
      'the kubelet finalised the API deletion of pod web (uid uid-web) at 0.30s while container web/app ' +
        '(started at 0.10s on node-a) is still running',
    );
  });

  it('fires when a container starts after the kubelet finalised the deletion', () => {
    const del = fact('apiPodDeleted', 300, { ...WEB, node: '', by: 'kubelet' });
    const start = fact('containerStarted', 520, { ...WEB, node: B, container: 'app' });
    expect(run(new PodDeletedWhileRunning(), [del, start])).toMatchObject([
      { atMs: 520, node: B, uid: 'uid-web', causes: [del, start] },
    ]);
  });

  it("does not fire for a user's force delete or after the containers exited", () => {
    const force: Fact[] = [
      fact('containerStarted', 100, { ...WEB, container: 'app' }),
      fact('apiPodDeleted', 300, { ...WEB, node: '', by: 'user-force' }),
      fact('containerStarted', 400, { ...WEB, container: 'sidecar' }),
    ];
    expect(run(new PodDeletedWhileRunning(), force)).toEqual([]);
    const clean: Fact[] = [
      fact('containerStarted', 100, { ...WEB, container: 'app' }),
      fact('containerExited', 200, { ...WEB, container: 'app', exitCode: 137 }),
      fact('apiPodDeleted', 300, { ...WEB, node: '', by: 'kubelet' }),
    ];
    expect(run(new PodDeletedWhileRunning(), clean)).toEqual([]);
  });
});

describe('static-pod-overlap', () => {
  const OLD = { pod: 'etcd', uid: 'uid-old', staticFullname: 'etcd_kube-system' } as const;
  const NEW = { pod: 'etcd', uid: 'uid-new', staticFullname: 'etcd_kube-system' } as const;

  it('fires when a second UID of the same fullname starts while the first runs', () => {
    const a = fact('containerStarted', 100, { ...OLD, container: 'etcd' });
    const b = fact('containerStarted', 900, { ...NEW, container: 'etcd' });
    const [v, ...rest] = run(new StaticPodOverlap(), [a, b]);
    expect(rest).toEqual([]);
    expect(v).toMatchObject({
      invariant: 'static-pod-overlap',
      atMs: 900,
      node: A,
      pod: 'etcd',
      uid: 'uid-new',
      volume: null,
      causes: [a, b],
    });
    expect(v?.message).toContain('static pod etcd_kube-system (uid uid-new) started container etcd at 0.90s');
    expect(v?.message).toContain('uid uid-old');
  });

  it('does not fire when the old UID stopped first, on another node, or for a restart of the same UID', () => {
    const facts: Fact[] = [
      fact('containerStarted', 100, { ...OLD, container: 'etcd' }),
      fact('containerStarted', 150, { ...OLD, container: 'etcd' }),
      fact('containerStarted', 200, { ...NEW, node: B, container: 'etcd' }),
      fact('containerExited', 300, { pod: 'etcd', uid: 'uid-old', container: 'etcd', exitCode: 0 }),
      fact('containerStarted', 900, { ...NEW, container: 'etcd' }),
      fact('containerStarted', 950, { pod: 'web', uid: 'uid-web', container: 'etcd' }),
    ];
    expect(run(new StaticPodOverlap(), facts)).toEqual([]);
  });
});

describe('multi-node-mount', () => {
  const RWO = [{ name: 'lun-1', accessMode: 'ReadWriteOnce' as const }];

  it('fires once when a ReadWriteOnce LUN is open read-write on two unfenced nodes', () => {
    const a = fact('lunAccessOpened', 100, { volume: 'lun-1', readWrite: true });
    const b = fact('lunAccessOpened', 500, { node: B, volume: 'lun-1', readWrite: true });
    const c = fact('lunAccessOpened', 600, { node: 'node-c', volume: 'lun-1', readWrite: true });
    const [v, ...rest] = run(new MultiNodeMount(RWO), [a, b, c]);
    expect(rest).toEqual([]);
    expect(v).toEqual({
      invariant: 'multi-node-mount',
      atMs: 500,
      node: B,
      pod: null,
      uid: null,
      volume: 'lun-1',
      message:
        'ReadWriteOnce volume lun-1 is writable from node-a (opened read-write at 0.10s) and node-b ' +
        '(opened read-write at 0.50s) at once, neither fenced: data corruption',
      causes: [a, b],
    });
  });

  it('does not fire while one node is fenced, and fires when the fence is lifted', () => {
    const a = fact('lunAccessOpened', 100, { volume: 'lun-1', readWrite: true });
    const fence = fact('lunFenced', 200, { volume: 'lun-1', fenced: true });
    const b = fact('lunAccessOpened', 500, { node: B, volume: 'lun-1', readWrite: true });
    expect(run(new MultiNodeMount(RWO), [a, fence, b])).toEqual([]);
    const lift = fact('lunFenced', 800, { volume: 'lun-1', fenced: false });
    expect(run(new MultiNodeMount(RWO), [a, fence, b, lift])).toMatchObject([
      { atMs: 800, node: A, volume: 'lun-1', causes: [a, fence, b, lift] },
    ]);
  });

  it('does not fire for ReadWriteMany, read-only opens, or sequential use', () => {
    const rwx = [{ name: 'lun-1', accessMode: 'ReadWriteMany' as const }];
    const both: Fact[] = [
      fact('lunAccessOpened', 100, { volume: 'lun-1', readWrite: true }),
      fact('lunAccessOpened', 500, { node: B, volume: 'lun-1', readWrite: true }),
    ];
    expect(run(new MultiNodeMount(rwx), both)).toEqual([]);
    const ro: Fact[] = [
      fact('lunAccessOpened', 100, { volume: 'lun-1', readWrite: true }),
      fact('lunAccessOpened', 500, { node: B, volume: 'lun-1', readWrite: false }),
    ];
    expect(run(new MultiNodeMount(RWO), ro)).toEqual([]);
    const sequential: Fact[] = [
      fact('lunAccessOpened', 100, { volume: 'lun-1', readWrite: true }),
      fact('lunAccessClosed', 400, { volume: 'lun-1' }),
      fact('lunAccessOpened', 500, { node: B, volume: 'lun-1', readWrite: true }),
    ];
    expect(run(new MultiNodeMount(RWO), sequential)).toEqual([]);
  });
});

describe('device-reported-unused-while-mounted', () => {
  it('fires when volumesInUse omits a volume whose device is open on the node', () => {
    const open = fact('lunAccessOpened', 100, { volume: 'lun-1', readWrite: true });
    const restart = fact('kubeletStarted', 2000, {});
    const inUse = fact('nodeVolumesInUse', 3000, { volumes: ['lun-2'] });
    const [v, ...rest] = run(new DeviceReportedUnusedWhileMounted(), [open, restart, inUse]);
    expect(rest).toEqual([]);
    expect(v).toEqual({
      invariant: 'device-reported-unused-while-mounted',
      atMs: 3000,
      node: A,
      pod: null,
      uid: null,
      volume: 'lun-1',
      message:
        'node-a reported volumesInUse [lun-2] at 3.00s without lun-1, whose device is still read-write ' +
        'mounted or mapped there (since 0.10s)',
      causes: [open, restart, inUse],
    });
  });

  it('does not fire when the volume is listed, was closed, or is open on another node', () => {
    const facts: Fact[] = [
      fact('lunAccessOpened', 100, { volume: 'lun-1', readWrite: true }),
      fact('nodeVolumesInUse', 200, { volumes: ['lun-1'] }),
      fact('lunAccessOpened', 250, { node: B, volume: 'lun-2', readWrite: true }),
      fact('lunAccessClosed', 300, { volume: 'lun-1' }),
      fact('nodeVolumesInUse', 400, { volumes: [] }),
    ];
    expect(run(new DeviceReportedUnusedWhileMounted(), facts)).toEqual([]);
  });
});

describe('mount-device-skipped-after-failure', () => {
  it('fires on a bind mount of an unmounted global path', () => {
    const unmount = fact('unmountDevice', 100, { volume: 'lun-1', ok: false });
    const bind = fact('bindMountOfUnmountedGlobalPath', 300, { ...WEB, volume: 'lun-1' });
    expect(run(new MountDeviceSkippedAfterFailure(), [unmount, bind])).toEqual([
      {
        invariant: 'mount-device-skipped-after-failure',
        atMs: 300,
        node: A,
        pod: 'web',
        uid: 'uid-web',
        volume: 'lun-1',
        message:
          'SetUp of volume lun-1 for pod web (uid uid-web) on node-a at 0.30s bind-mounted a global path ' +
          'that is not mounted (MountDevice skipped after UnmountDevice failed at 0.10s)',
        causes: [unmount, bind],
      },
    ]);
  });

  it('does not fire when MountDevice ran again after the failure', () => {
    const facts: Fact[] = [
      fact('unmountDevice', 100, { volume: 'lun-1', ok: false }),
      fact('mountDevice', 200, { volume: 'lun-1', ok: true }),
      fact('volumeSetUp', 300, { ...WEB, volume: 'lun-1' }),
    ];
    expect(run(new MountDeviceSkippedAfterFailure(), facts)).toEqual([]);
  });
});

describe('device-leaked-after-unmount', () => {
  it('fires when SCSI paths remain as the kubelet marks the device unmounted', () => {
    const unmount = fact('unmountDevice', 100, { volume: 'lun-1', ok: true });
    const residue = fact('deviceResidue', 100, {
      volume: 'lun-1',
      scsiPaths: 2,
      multipathMaps: 1,
      mounts: 0,
      pods: [],
      hostProcess: false,
      devicePathIsDevice: true,
    });
    expect(run(new DeviceLeakedAfterUnmount(), [unmount, residue])).toEqual([
      {
        invariant: 'device-leaked-after-unmount',
        atMs: 100,
        node: A,
        pod: null,
        uid: null,
        volume: 'lun-1',
        message:
          'UnmountDevice of lun-1 on node-a reported success but at 0.10s 2 SCSI path(s) and 1 multipath ' +
          'map(s) of the LUN remain',
        causes: [unmount, residue],
      },
    ]);
  });

  it('does not fire for a multipath map left without paths: it reaches no LUN', () => {
    const mapOnly = fact('deviceResidue', 100, {
      volume: 'lun-1',
      scsiPaths: 0,
      multipathMaps: 1,
      mounts: 0,
      pods: [],
      hostProcess: false,
      devicePathIsDevice: true,
    });
    expect(run(new DeviceLeakedAfterUnmount(), [mapOnly])).toEqual([]);
  });

  it('does not fire for a clean residue report', () => {
    const facts: Fact[] = [
      fact('unmountDevice', 100, { volume: 'lun-1', ok: true }),
      fact('deviceResidue', 100, {
        volume: 'lun-1',
        scsiPaths: 0,
        multipathMaps: 0,
        mounts: 0,
        pods: [],
        hostProcess: false,
        devicePathIsDevice: true,
      }),
    ];
    expect(run(new DeviceLeakedAfterUnmount(), facts)).toEqual([]);
  });
});

describe('kubelet-panic', () => {
  it('fires on every kubeletPanic', () => {
    const panic = fact('kubeletPanic', 10_000, {
      component: 'stats',
      message: 'GetMetrics on unset MetricsProvider\n(nil)',
    });
    expect(run(new KubeletPanic(), [panic])).toEqual([
      {
        invariant: 'kubelet-panic',
        atMs: 10_000,
        node: A,
        pod: null,
        uid: null,
        volume: null,
        message: 'kubelet on node-a panicked at 10.00s in stats: GetMetrics on unset MetricsProvider (nil)',
        causes: [panic],
      },
    ]);
  });

  it('does not fire for a kubelet restart', () => {
    expect(run(new KubeletPanic(), [fact('kubeletStopped', 1, {}), fact('kubeletStarted', 2, {})])).toEqual(
      [],
    );
  });
});

describe('node-shutdown-marked-failed', () => {
  it('fires when a restartable pod on the shutting-down node is marked Failed', () => {
    const shutdown = fact('nodeShutdownStarted', 1000, { podGracePeriodSeconds: 20 });
    const phase = fact('apiPodPhase', 1500, {
      ...WEB,
      phase: 'Failed',
      reason: 'Shutdown',
      restartable: true,
    });
    expect(run(new NodeShutdownMarkedFailed(), [shutdown, phase])).toEqual([
      {
        invariant: 'node-shutdown-marked-failed',
        atMs: 1500,
        node: A,
        pod: 'web',
        uid: 'uid-web',
        volume: null,
        message:
          'graceful shutdown of node-a (started at 1.00s) marked restartable pod web (uid uid-web) Failed ' +
          'at 1.50s (reason Shutdown)',
        causes: [shutdown, phase],
      },
    ]);
  });

  it('does not fire before the shutdown, on another node, for a non-restartable pod or Succeeded', () => {
    const facts: Fact[] = [
      fact('apiPodPhase', 500, { ...WEB, phase: 'Failed', restartable: true }),
      fact('nodeShutdownStarted', 1000, { podGracePeriodSeconds: 20 }),
      fact('apiPodPhase', 1100, { ...WEB, node: B, phase: 'Failed', restartable: true }),
      fact('apiPodPhase', 1200, { ...WEB, phase: 'Failed', restartable: false }),
      fact('apiPodPhase', 1300, { ...WEB, phase: 'Succeeded', restartable: true }),
    ];
    expect(run(new NodeShutdownMarkedFailed(), facts)).toEqual([]);
  });
});

describe('concurrent-kill and grace-period-increased', () => {
  it('concurrent-kill fires when a second kill starts before the first returned', () => {
    const k1 = fact('killPodStarted', 100, { ...WEB, gracePeriodSeconds: 1, source: 'eviction' });
    const k2 = fact('killPodStarted', 400, { ...WEB, gracePeriodSeconds: 1, source: 'podKiller' });
    expect(run(new ConcurrentKill(), [k1, k2])).toEqual([
      {
        invariant: 'concurrent-kill',
        atMs: 400,
        node: A,
        pod: 'web',
        uid: 'uid-web',
        volume: null,
        message:
          'a kill of pod web (uid uid-web) started at 0.40s (podKiller, grace 1s) while the kill started at ' +
          '0.10s (eviction, grace 1s) has not returned',
        causes: [k1, k2],
      },
    ]);
    // equal grace: not an increase
    expect(run(new GracePeriodIncreased(), [k1, k2])).toEqual([]);
  });

  it('a kill after the first finished with a larger grace is grace-period-increased, not concurrent-kill', () => {
    const k1 = fact('killPodStarted', 100, { ...WEB, gracePeriodSeconds: 1, source: 'eviction' });
    const done = fact('killPodFinished', 1200, { ...WEB });
    const k2 = fact('killPodStarted', 2000, { ...WEB, gracePeriodSeconds: 30, source: 'housekeeping' });
    expect(run(new ConcurrentKill(), [k1, done, k2])).toEqual([]);
    expect(run(new GracePeriodIncreased(), [k1, done, k2])).toEqual([
      {
        invariant: 'grace-period-increased',
        atMs: 2000,
        node: A,
        pod: 'web',
        uid: 'uid-web',
        volume: null,
        message:
          'a kill of pod web (uid uid-web) started at 2.00s with grace period 30s (housekeeping), longer ' +
          'than the 1s an earlier kill already used at 0.10s (eviction)',
        causes: [k1, k2],
      },
    ]);
  });

  it('grace-period-increased ignores shrinking grace, other UIDs, and an override of 0 before any kill', () => {
    const facts: Fact[] = [
      // #115819: a deletion with grace 0 becomes the spec's 30 s before any kill started
      fact('apiPodDeletionRequested', 50, { ...WEB, node: '', gracePeriodSeconds: 0 }),
      fact('killPodStarted', 100, { ...WEB, gracePeriodSeconds: 30, source: 'deletion' }),
      fact('killPodStarted', 200, { ...WEB, gracePeriodSeconds: 2, source: 'eviction' }),
      fact('killPodStarted', 300, { pod: 'db', uid: 'uid-db', gracePeriodSeconds: 60, source: 'deletion' }),
    ];
    expect(run(new GracePeriodIncreased(), facts)).toEqual([]);
  });
});

describe('termination-stuck', () => {
  const BUDGET = 120_000;
  const stuck = (): Fact[] => [
    fact('apiPodCreated', 0, {
      ...WEB,
      node: '',
      static: false,
      restartPolicy: 'Always',
      containers: ['c1'],
      startDelayMs: 0,
      volumes: [],
      gracePeriodSeconds: 30,
    }),
    fact('volumeSetUp', 100, { ...WEB, volume: 'lun-1' }),
    fact('containerStarted', 200, { ...WEB, container: 'app' }),
    fact('apiPodDeletionRequested', 1000, { ...WEB, node: '', gracePeriodSeconds: 30 }),
    fact('killPodStarted', 1100, { ...WEB, gracePeriodSeconds: 30, source: 'deletion' }),
    fact('containerExited', 2000, { ...WEB, container: 'app', exitCode: 0 }),
    fact('killPodFinished', 2000, { ...WEB }),
    fact('volumeTearDown', 3000, { ...WEB, volume: 'lun-1', ok: false }),
  ];
  const checker = (faults = false): TerminationStuck =>
    new TerminationStuck({ faultsActiveAtEnd: () => faults, terminationBudgetMs: BUDGET });

  it('fires at the end when a deleted pod kept a volume and its API object past grace + budget', () => {
    const facts = stuck();
    const end = 1000 + 30_000 + BUDGET;
    const [v, ...rest] = run(checker(), facts, end);
    expect(rest).toEqual([]);
    expect(v).toMatchObject({
      invariant: 'termination-stuck',
      atMs: end,
      node: A,
      pod: 'web',
      uid: 'uid-web',
      volume: null,
    });
    expect(v?.message).toBe(
      'pod web (uid uid-web) was deleted at 1.00s (grace 30s) but termination has not finished by the end ' +
        '(151.00s, no fault active): volume(s) lun-1 not torn down; API object not deleted',
    );
    expect(v?.causes[0]).toBe(facts[1]); // the volumeSetUp still outstanding
    expect(v?.causes).toContain(facts[3]); // the deletion request
    expect(v?.causes.at(-1)).toBe(facts[7]);
    expect(v?.causes.length).toBeLessThanOrEqual(8);
  });

  it('reports containers still running', () => {
    const facts: Fact[] = [
      fact('containerStarted', 200, { ...WEB, container: 'app' }),
      fact('apiPodDeletionRequested', 1000, { ...WEB, node: '', gracePeriodSeconds: 0 }),
      fact('apiPodDeleted', 1500, { ...WEB, node: '', by: 'user-force' }),
    ];
    expect(run(checker(), facts, 1000 + BUDGET)[0]?.message).toContain('container(s) app still running');
  });

  it('does not fire within the budget, with an active fault, or once termination finished', () => {
    expect(run(checker(), stuck(), 1000 + 30_000 + BUDGET - 1)).toEqual([]);
    expect(run(checker(true), stuck(), 10_000_000)).toEqual([]);
    const done: Fact[] = [
      ...stuck(),
      fact('volumeTearDown', 4000, { ...WEB, volume: 'lun-1', ok: true }),
      fact('apiPodDeleted', 4100, { ...WEB, node: '', by: 'kubelet' }),
      // the same name again gets a new UID, not deleted: not stuck
      fact('apiPodCreated', 5000, {
        pod: 'web',
        uid: 'uid-web-2',
        node: '',
        static: false,
        restartPolicy: 'Always',
        containers: ['c1'],
        startDelayMs: 0,
        volumes: [],
        gracePeriodSeconds: 30,
      }),
      fact('containerStarted', 5200, { pod: 'web', uid: 'uid-web-2', container: 'app' }),
    ];
    expect(run(checker(), done, 10_000_000)).toEqual([]);
  });

  it('gives a kill with a longer grace than the API its own time (#115819), but no more', () => {
    // A force delete (grace 0) that the kubelet kills with the spec's 3600 s, as upstream does.
    const forced: Fact[] = [
      fact('containerStarted', 200, { ...WEB, container: 'app' }),
      fact('apiPodDeletionRequested', 1000, { ...WEB, node: '', gracePeriodSeconds: 0 }),
      fact('apiPodDeleted', 1000, { ...WEB, node: '', by: 'user-force' }),
      fact('killPodStarted', 71_000, { ...WEB, gracePeriodSeconds: 3600, source: 'syncTerminatingPod' }),
    ];
    const killDue = 71_000 + 3_600_000;
    expect(run(checker(), forced, killDue + BUDGET - 1)).toEqual([]);
    expect(run(checker(), forced, killDue + BUDGET)[0]?.message).toContain('container(s) app still running');
    // Once the kill returned, what is left has the budget from then, however long the grace was.
    const finished: Fact[] = [
      ...forced,
      fact('containerExited', 90_000, { ...WEB, container: 'app', exitCode: 143 }),
      fact('killPodFinished', 90_000, { ...WEB }),
      fact('volumeSetUp', 100, { ...WEB, volume: 'lun-1' }),
    ];
    expect(run(checker(), finished, 90_000 + BUDGET - 1)).toEqual([]);
    expect(run(checker(), finished, 90_000 + BUDGET)[0]?.message).toContain('volume(s) lun-1 not torn down');
  });

  it('does not judge a node whose kubelet is down at the end, and times one that came back from its start', () => {
    // A static pod's manifest removed while its kubelet is down (the round-trip generator, seed 14, case
    // 2649): nothing on the node can terminate it until a kubelet runs there again.
    const down: Fact[] = [
      fact('kubeletStarted', 0, {}),
      fact('containerStarted', 200, { ...WEB, container: 'app' }),
      fact('kubeletStopped', 500, {}),
      fact('apiPodDeletionRequested', 1000, { ...WEB, node: '', gracePeriodSeconds: 30 }),
    ];
    expect(run(checker(), down, 10_000_000)).toEqual([]);
    const back = [...down, fact('kubeletStarted', 600_000, {})];
    expect(run(checker(), back, 600_000 + 30_000 + BUDGET - 1)).toEqual([]);
    expect(run(checker(), back, 600_000 + 30_000 + BUDGET)).toHaveLength(1);
  });

  it('does not require an API deletion for a static pod', () => {
    const S = { pod: 'etcd', uid: 'uid-etcd' } as const;
    const facts: Fact[] = [
      fact('apiPodCreated', 0, {
        ...S,
        static: true,
        restartPolicy: 'Always',
        containers: ['c1'],
        startDelayMs: 0,
        volumes: [],
        gracePeriodSeconds: 30,
      }),
      fact('containerStarted', 100, { ...S, container: 'etcd', staticFullname: 'etcd_kube-system' }),
      fact('apiPodDeletionRequested', 1000, { ...S, gracePeriodSeconds: 30 }),
      fact('containerExited', 2000, { ...S, container: 'etcd', exitCode: 0 }),
    ];
    expect(run(checker(), facts, 10_000_000)).toEqual([]);
  });
});
