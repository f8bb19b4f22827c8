// pod-never-started for a pod that waits for a volume still attached to another node: judged only once
// upstream's attach/detach controller should have freed it (the holder node no longer lists it in use and
// no pod wants it there, or its node is not Ready past maxWaitForUnmountDuration), never for a
// Multi-Attach wait upstream keeps on purpose. Synthetic facts first, then planted controller bugs.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AccessMode } from '../../src/api/v1.js';
import { ActualStateOfWorld } from '../../src/cluster/attachdetach/actualStateOfWorld.js';
import { DesiredStateOfWorld } from '../../src/cluster/attachdetach/desiredStateOfWorld.js';
import type { Fact, FactKind } from '../../src/facts.js';
import { Fixes } from '../../src/fixes.js';
import {
  ATTACH_BOUND_MS,
  PodNeverStarted,
  VOLUME_RELEASE_BOUND_MS,
} from '../../src/invariants/podNeverStarted.js';
import type { Violation } from '../../src/invariants/types.js';
import { runScenario } from '../../src/run/run.js';
import { parseScenarioText } from '../../src/scenario/load.js';

type FactOf<K extends FactKind> = Extract<Fact, { kind: K }>;
type Fields<K extends FactKind> = Omit<FactOf<K>, 'kind' | 'atMs' | 'node'> & { node?: string };

const A = 'node-a';
const B = 'node-b';
const P1 = { pod: 'p1', uid: 'p1-1' } as const;
const P2 = { pod: 'p2', uid: 'p2-1' } as const;

function fact<K extends FactKind>(kind: K, atMs: number, fields: Fields<K>): FactOf<K> {
  return { node: A, ...fields, kind, atMs } as unknown as FactOf<K>;
}

function run(facts: readonly Fact[], endMs: number, accessMode: AccessMode = 'ReadWriteOnce'): Violation[] {
  const checker = new PodNeverStarted({
    faultsActiveAtEnd: () => false,
    volumes: [{ name: 'lun-1', accessMode }],
  });
  const out: Violation[] = [];
  for (const f of [...facts].sort((a, b) => a.atMs - b.atMs)) checker.onFact(f);
  checker.onEnd(endMs, (v) => out.push(v));
  return out;
}

const created = (atMs: number, node: string, p: { pod: string; uid: string }) =>
  fact('apiPodCreated', atMs, {
    ...p,
    node,
    static: false,
    restartPolicy: 'Always',
    containers: ['c1'],
    startDelayMs: 0,
    volumes: ['lun-1'],
    gracePeriodSeconds: 30,
  });

/** p1 on node-a uses lun-1; p2 on node-b wants it from 30 s and gets a Multi-Attach error. */
const story = (): Fact[] => [
  fact('kubeletStarted', 0, {}),
  fact('kubeletStarted', 0, { node: B }),
  created(0, A, P1),
  fact('podAdmitted', 40, P1),
  fact('volumeAttached', 800, { volume: 'lun-1' }),
  fact('nodeVolumesInUse', 10_000, { volumes: ['lun-1'] }),
  fact('volumeSetUp', 11_300, { ...P1, volume: 'lun-1' }),
  fact('containerStarted', 11_700, { ...P1, container: 'c1' }),
  created(30_000, B, P2),
  fact('podAdmitted', 30_040, { ...P2, node: B }),
  fact('multiAttachError', 30_090, {
    node: B,
    volume: 'lun-1',
    attachedTo: [A],
    uids: [P2.uid],
    pods: [P2.pod],
    usedBy: [],
  }),
];

/** node-a's kubelet dies at 20 s (never back); p1 is force-deleted at 25 s. */
const nodeDown = (): Fact[] => [
  ...story(),
  fact('kubeletStopped', 20_000, {}),
  fact('apiPodDeletionRequested', 25_000, { ...P1, gracePeriodSeconds: 0 }),
  fact('apiPodDeleted', 25_000, { ...P1, by: 'user-force' }),
];
const DUE_DOWN = 25_000 + 360_000 + VOLUME_RELEASE_BOUND_MS;

/** p1 deleted at 20 s; node-a's kubelet unmounts and drops lun-1 from volumesInUse at 24 s. */
const unmounted = (): Fact[] => [
  ...story(),
  fact('apiPodDeletionRequested', 20_000, { ...P1, gracePeriodSeconds: 2 }),
  fact('containerExited', 22_000, { ...P1, container: 'c1', exitCode: 0 }),
  fact('apiPodDeleted', 23_000, { ...P1, by: 'kubelet' }),
  fact('nodeVolumesInUse', 24_000, { volumes: [] }),
];
const DUE_UNMOUNTED = 30_040 + VOLUME_RELEASE_BOUND_MS;

describe('pod-never-started: a volume that is never detached', () => {
  it('fires for a pod waiting behind a node that is not Ready, once the force detach is overdue', () => {
    expect(run(nodeDown(), DUE_DOWN - 1)).toEqual([]);
    const v = run(nodeDown(), DUE_DOWN);
    expect(v).toHaveLength(1);
    expect(v[0]).toMatchObject({
      invariant: 'pod-never-started',
      atMs: DUE_DOWN,
      node: B,
      pod: 'p2',
      uid: 'p2-1',
      volume: 'lun-1',
      message:
        'pod p2 (uid p2-1) was admitted at 30.04s and waits for volume lun-1, still attached to node-a ' +
        '(Multi-Attach error since 30.09s): no pod wants it there since 25.00s (p1 left the API server); ' +
        "node-a's kubelet is down since 20.00s (not Ready from 60.00s) and its node status still lists the " +
        'volume in use (since 10.00s), so a force detach was due at 385.00s (maxWaitForUnmountDuration ' +
        '360.00s); no detach ever started. The volume should have been free from 385.00s, but container(s) ' +
        'c1 never started by the end (685.00s, bound 300.00s, not terminating, no fault active)',
    });
    expect(v[0]?.causes.map((f) => f.kind)).toEqual([
      'volumeAttached',
      'nodeVolumesInUse',
      'kubeletStopped',
      'apiPodDeleted',
      'apiPodCreated',
      'podAdmitted',
      'multiAttachError',
    ]);
  });

  it('fires when the holder node no longer lists the volume in use and nothing detaches it', () => {
    expect(run(unmounted(), DUE_UNMOUNTED - 1)).toEqual([]);
    const v = run(unmounted(), DUE_UNMOUNTED);
    expect(v).toHaveLength(1);
    expect(v[0]?.message).toContain(
      "no pod wants it there since 23.00s (p1 left the API server); node-a's node status does not list it " +
        'in volumesInUse (since 24.00s); no detach ever started',
    );
    // A detach that keeps failing is named.
    const failing = [
      ...unmounted(),
      fact('volumeDetachStarted', 24_100, { volume: 'lun-1', forced: false, verifySafeToDetach: true }),
      fact('volumeDetachFailed', 24_130, { volume: 'lun-1', error: 'boom' }),
    ];
    expect(run(failing, DUE_UNMOUNTED)[0]?.message).toContain('the last detach failed at 24.13s: boom');
  });

  it('near-miss: the volume is detached and set up in time', () => {
    const freed = [
      ...nodeDown(),
      fact('volumeDetachStarted', 385_200, { volume: 'lun-1', forced: true, verifySafeToDetach: false }),
      fact('volumeDetached', 385_400, { volume: 'lun-1', forced: true }),
      fact('volumeAttached', 386_700, { node: B, volume: 'lun-1' }),
    ];
    // Attached to node-b but never set up: not this story (nothing holds it elsewhere).
    expect(run(freed, 2_000_000)).toEqual([]);
  });

  it('near-miss: a healthy node keeping the volume in use (#110721: a Multi-Attach wait for ever)', () => {
    const kept = [
      ...story(),
      fact('apiPodDeletionRequested', 20_000, { ...P1, gracePeriodSeconds: 2 }),
      fact('apiPodDeleted', 23_000, { ...P1, by: 'kubelet' }),
    ];
    expect(run(kept, 10_000_000)).toEqual([]);
    // Down for 35 s only at the end: maybe still Ready, not judged.
    expect(run([...kept, fact('kubeletStopped', 9_965_000, {})], 10_000_000)).toEqual([]);
  });

  it('near-miss: the pod on the other node still wants the volume (user error: Multi-Attach for ever)', () => {
    expect(run(story(), 10_000_000)).toEqual([]);
    // Deleted gracefully while its node is down: Terminating for ever, so the volume stays wanted.
    const terminating = [
      ...story(),
      fact('kubeletStopped', 20_000, {}),
      fact('apiPodDeletionRequested', 25_000, { ...P1, gracePeriodSeconds: 30 }),
    ];
    expect(run(terminating, 10_000_000)).toEqual([]);
  });

  it('near-miss: a ReadWriteMany volume (attached here too in time), or a pod that is itself terminating', () => {
    const both = [...nodeDown(), fact('volumeAttached', 31_000, { node: B, volume: 'lun-1' })];
    expect(run(both, 10_000_000, 'ReadWriteMany')).toEqual([]);
    const leaving = [
      ...nodeDown(),
      fact('apiPodDeletionRequested', 500_000, { ...P2, node: B, gracePeriodSeconds: 30 }),
    ];
    expect(run(leaving, 10_000_000)).toEqual([]);
  });

  it('a kubelet that came back and dropped the volume frees it from that moment', () => {
    const back = [
      ...nodeDown(),
      fact('kubeletStarted', 200_000, {}),
      fact('nodeVolumesInUse', 215_000, { volumes: [] }),
    ];
    expect(run(back, 215_000 + VOLUME_RELEASE_BOUND_MS - 1)).toEqual([]);
    expect(run(back, 215_000 + VOLUME_RELEASE_BOUND_MS)).toHaveLength(1);
  });
});

describe('pod-never-started: a volume that is never attached', () => {
  /** p2 on node-b wants lun-1 from 30 s; nothing else holds it. */
  const alone = (): Fact[] => [
    fact('kubeletStarted', 0, { node: B }),
    created(30_000, B, P2),
    fact('podAdmitted', 30_040, { ...P2, node: B }),
  ];
  const DUE = 30_040 + ATTACH_BOUND_MS;

  it('fires once the controller should have attached a volume nothing else holds', () => {
    expect(run(alone(), DUE - 1)).toEqual([]);
    const v = run(alone(), DUE);
    expect(v).toHaveLength(1);
    expect(v[0]).toMatchObject({
      invariant: 'pod-never-started',
      node: B,
      pod: 'p2',
      volume: 'lun-1',
      message:
        'pod p2 (uid p2-1) was admitted at 30.04s and waits for volume lun-1, attached to no node: wanted on ' +
        'node-b since 30.04s, never attached there. The attach/detach controller should have attached it by ' +
        '150.04s, but container(s) c1 never started by the end (150.04s, bound 120.00s, not terminating, no ' +
        'fault active)',
    });
    // ReadWriteMany: attached elsewhere does not excuse it either.
    const elsewhere = [...alone(), fact('volumeAttached', 1_000, { volume: 'lun-1' })];
    expect(run(elsewhere, DUE, 'ReadWriteMany')[0]?.message).toContain('lun-1, not attached to it');
  });

  it('the clock starts at the last detach and at the last want of the volume elsewhere', () => {
    const detached = [
      ...alone(),
      fact('volumeAttached', 1_000, { volume: 'lun-1' }),
      fact('volumeDetached', 50_000, { volume: 'lun-1', forced: false }),
    ];
    expect(run(detached, 50_000 + ATTACH_BOUND_MS - 1)).toEqual([]);
    expect(run(detached, 50_000 + ATTACH_BOUND_MS)[0]?.message).toContain(
      'attached to no node (detached from node-a at 50.00s): wanted on node-b since 50.00s',
    );
    const wantedElsewhere = [
      ...alone(),
      created(0, A, P1),
      fact('apiPodDeleted', 70_000, { ...P1, by: 'user-force' }),
    ];
    expect(run(wantedElsewhere, 70_000 + ATTACH_BOUND_MS - 1)).toEqual([]);
    expect(run(wantedElsewhere, 70_000 + ATTACH_BOUND_MS)).toHaveLength(1);
  });

  it("near-miss: attached here (the mount is the kubelet's), wanted elsewhere, a static pod", () => {
    const here = [...alone(), fact('volumeAttached', 31_000, { node: B, volume: 'lun-1' })];
    expect(run(here, 10_000_000)).toEqual([]);
    // A pod on node-a still wants the ReadWriteOnce volume: the controller may attach it there first.
    expect(run([...alone(), created(0, A, P1)], 10_000_000)).toEqual([]);
    const staticPod = [
      fact('kubeletStarted', 0, { node: B }),
      { ...created(30_000, B, P2), static: true },
      fact('podAdmitted', 30_040, { ...P2, node: B }),
    ];
    expect(run(staticPod, 10_000_000)).toEqual([]);
  });
});

// ---- planted bugs in the controller's port, on whole runs ----

const scenario = (deleteP1: string, horizon: string, extra = ''): string => `name: volume-never-freed
seed: 1
horizon: ${horizon}
cluster:
  nodes: [node-a, node-b]
  volumes:
    - { name: lun-1, plugin: csi, mode: Filesystem, capacity: 10Gi, accessMode: ReadWriteOnce }
timeline:
  - at: 0s
    createPod: { pod: p1, node: node-a, containers: 1, volumes: [lun-1], gracePeriod: 2s }
${extra}  - at: 25s
    ${deleteP1}: { pod: p1 }
  - at: 30s
    createPod: { pod: p2, node: node-b, containers: 1, volumes: [lun-1] }
`;
/** node-a's kubelet dies at 20 s for good; p1 is force-deleted: the controller force-detaches after 6 min. */
const NODE_GONE = scenario(
  'forceDeletePod',
  '15m',
  '  - at: 20s\n    restartKubelet: { node: node-a, downFor: 30m }\n',
);
/** p1 is deleted and node-a unmounts: the controller detaches at once. */
const UNMOUNTED = scenario('deletePod', '8m');

const neverStarted = (text: string): Violation[] =>
  runScenario(parseScenarioText(text, 'planted.yaml'), { fixes: Fixes.all() }).violations.filter(
    (v) => v.invariant === 'pod-never-started',
  );

describe('pod-never-started catches a controller that never frees the volume', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('SetDetachRequestTime restarting the clock on every pass: no force detach from a node that is gone', () => {
    // Unpatched: the force detach comes at 385 s and p2 starts; nothing fires.
    expect(runScenario(parseScenarioText(NODE_GONE, 'ok.yaml'), { fixes: Fixes.all() }).violations).toEqual(
      [],
    );
    // Planted: "If there is no previous detach request, set it to the current time" lost its condition.
    const original = ActualStateOfWorld.prototype.setDetachRequestTime;
    vi.spyOn(ActualStateOfWorld.prototype, 'setDetachRequestTime').mockImplementation(function (
      this: ActualStateOfWorld,
      volumeName: string,
      nodeName: string,
    ) {
      this.resetDetachRequestTime(volumeName, nodeName);
      return original.call(this, volumeName, nodeName);
    });
    const v = neverStarted(NODE_GONE);
    expect(v).toHaveLength(1);
    expect(v[0]).toMatchObject({ node: B, pod: 'p2', volume: 'lun-1' });
    expect(v[0]?.message).toContain('still attached to node-a (Multi-Attach error since');
    expect(v[0]?.message).toContain("node-a's kubelet is down since 20.00s (not Ready from 60.00s)");
    expect(v[0]?.message).toContain('so a force detach was due at 385.00s');
    expect(v[0]?.message).toContain('no detach ever started');
  });

  it('IsPodTerminated without its deletionTimestamp clause: a pod not yet running is never attached', () => {
    const ALONE = `name: volume-never-attached
seed: 1
horizon: 4m
cluster:
  nodes: [node-a]
  volumes:
    - { name: lun-1, plugin: iscsi, mode: Filesystem, capacity: 10Gi }
timeline:
  - at: 0s
    createPod: { pod: db, node: node-a, containers: 1, volumes: [lun-1] }
`;
    expect(neverStarted(ALONE)).toEqual([]);
    // Planted: the controller's desired state takes a pod with no running container for terminated.
    const addPod = DesiredStateOfWorld.prototype.addPod;
    vi.spyOn(DesiredStateOfWorld.prototype, 'addPod').mockImplementation(function (
      this: DesiredStateOfWorld,
      podName,
      pod,
      volumeSpec,
      nodeName,
    ) {
      if (pod.status.containerStatuses.every((c) => c.state !== 'running'))
        return { value: '', err: undefined };
      return addPod.call(this, podName, pod, volumeSpec, nodeName);
    });
    const v = neverStarted(ALONE);
    expect(v).toHaveLength(1);
    expect(v[0]).toMatchObject({ node: A, pod: 'db', volume: 'lun-1' });
    expect(v[0]?.message).toContain('waits for volume lun-1, attached to no node: wanted on node-a since');
  });

  it('VolumeExists ignoring the node: a volume wanted anywhere is never detached', () => {
    expect(runScenario(parseScenarioText(UNMOUNTED, 'ok.yaml'), { fixes: Fixes.all() }).violations).toEqual(
      [],
    );
    vi.spyOn(DesiredStateOfWorld.prototype, 'volumeExists').mockImplementation(function (
      this: DesiredStateOfWorld,
      volumeName: string,
    ) {
      return this.getVolumesToAttach().some((v) => v.volumeName === volumeName) || volumeName === '';
    });
    const v = neverStarted(UNMOUNTED);
    expect(v).toHaveLength(1);
    expect(v[0]?.message).toContain("node-a's node status does not list it in volumesInUse");
    expect(v[0]?.message).toContain('no detach ever started');
  });
});
