// volume-detached-while-in-use: synthetic facts (fires exactly, near-misses stay quiet), then planted
// bugs in the attach/detach controller's port that it must catch on whole runs, and upstream's own
// force detach from a node that is not Ready, which it must leave alone.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ActualStateOfWorld } from '../../src/cluster/attachdetach/actualStateOfWorld.js';
import { OperationGenerator } from '../../src/cluster/attachdetach/operations.js';
import { Reconciler } from '../../src/cluster/attachdetach/reconciler.js';
import type { Fact, FactKind } from '../../src/facts.js';
import { Fixes } from '../../src/fixes.js';
import { VolumeDetachedWhileInUse } from '../../src/invariants/index.js';
import type { Violation } from '../../src/invariants/types.js';
import { runScenario } from '../../src/run/run.js';
import { loadScenarioFile, parseScenarioText } from '../../src/scenario/load.js';

type FactOf<K extends FactKind> = Extract<Fact, { kind: K }>;
type Fields<K extends FactKind> = Omit<FactOf<K>, 'kind' | 'atMs' | 'node'> & { node?: string };

const A = 'node-a';
const B = 'node-b';
const P1 = { pod: 'p1', uid: 'p1-1' } as const;

function fact<K extends FactKind>(kind: K, atMs: number, fields: Fields<K>): FactOf<K> {
  return { node: A, ...fields, kind, atMs } as unknown as FactOf<K>;
}

function run(facts: readonly Fact[]): Violation[] {
  const checker = new VolumeDetachedWhileInUse();
  const out: Violation[] = [];
  for (const f of facts) checker.onFact(f, (v) => out.push(v));
  checker.onEnd();
  return out;
}

/** As the monitor keeps them: the first violation per (volume, node). */
function first(facts: readonly Fact[]): Violation[] {
  const seen = new Set<string>();
  return run(facts).filter((v) => {
    const key = `${v.volume}\u0000${v.node}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

const created = (atMs: number, node = A, p: { pod: string; uid: string } = P1) =>
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
const inUse = (atMs: number, volumes: string[], node = A) =>
  fact('nodeVolumesInUse', atMs, { node, volumes });
const attachedList = (atMs: number, volumes: string[], node = A) =>
  fact('nodeVolumesAttached', atMs, { node, volumes });
const read = (atMs: number, volumesInUse: string[], node = A) =>
  fact('nodeStatusRead', atMs, { node, volumesInUse });
const detachStarted = (atMs: number, forced = false, node = A) =>
  fact('volumeDetachStarted', atMs, { node, volume: 'lun-1', forced, verifySafeToDetach: !forced });
const detached = (atMs: number, forced = false, node = A) =>
  fact('volumeDetached', atMs, { node, volume: 'lun-1', forced });

/** p1 on node-a with lun-1 in use from 10 s, deleted at 20 s; UnmountDevice keeps failing after that. */
const base = (): Fact[] => [
  fact('kubeletStarted', 0, {}),
  fact('kubeletStarted', 0, { node: B }),
  created(0),
  fact('volumeAttached', 800, { volume: 'lun-1' }),
  attachedList(900, ['lun-1']),
  inUse(10_000, ['lun-1']),
  fact('apiPodDeletionRequested', 20_000, { ...P1, gracePeriodSeconds: 2 }),
  fact('apiPodDeleted', 23_000, { ...P1, by: 'kubelet' }),
];

describe('volume-detached-while-in-use', () => {
  it('fires on a detach started for a volume the Ready node lists in use, before the timeout', () => {
    const v = run([
      ...base(),
      attachedList(59_980, []),
      detachStarted(60_000),
      read(60_020, []),
      detached(60_300),
    ]);
    // Judged at each step: taken off volumesAttached, the operation's start, the detach (the monitor
    // keeps the first).
    expect(v.map((x) => x.atMs)).toEqual([59_980, 60_000, 60_300]);
    expect(v[0]).toMatchObject({
      invariant: 'volume-detached-while-in-use',
      atMs: 59_980,
      node: A,
      pod: null,
      uid: null,
      volume: 'lun-1',
      message:
        "the attach/detach controller took volume lun-1 off node-a's volumesAttached to detach it at 59.98s " +
        "while node-a's node status listed it in volumesInUse (since 10.00s), node-a Ready (its kubelet " +
        'running since 0.00s); no pod wanted it there for 39.98s at most when it did (maxWaitForUnmountDuration ' +
        '360.00s not passed): before maxWaitForUnmountDuration the reconciler starts a detach only once the node ' +
        'no longer reports the volume mounted (MountedByNode)',
    });
    expect(v[0]?.causes.map((f) => f.kind)).toEqual([
      'kubeletStarted',
      'volumeAttached',
      'nodeVolumesInUse',
      'nodeVolumesAttached',
    ]);
    expect(v[1]?.message).toContain('started detaching volume lun-1 from node-a at 60.00s');
  });

  it('leaves alone the steps taken while the node carries the out-of-service taint (KEP-2268), and only those', () => {
    const taint = (atMs: number, present: boolean) =>
      fact('nodeTainted', atMs, { taint: 'node.kubernetes.io/out-of-service', effect: 'NoExecute', present });
    const steps = [attachedList(59_980, []), detachStarted(60_000, true), detached(60_300, true)];
    // Upstream's rule: a tainted node's volumes go at once, without MountedByNode or the safe-to-detach
    // check. What the taint costs on a node that still runs is for the ground-truth checkers.
    expect(run([...base(), taint(50_000, true), ...steps])).toEqual([]);
    // The same steps without the taint, with the taint set after them, or removed before them: all fire.
    expect(run([...base(), ...steps]).map((v) => v.atMs)).toEqual([59_980, 60_000, 60_300]);
    expect(run([...base(), ...steps, taint(61_000, true)]).map((v) => v.atMs)).toEqual([
      59_980, 60_000, 60_300,
    ]);
    expect(run([...base(), taint(50_000, true), taint(55_000, false), ...steps]).map((v) => v.atMs)).toEqual([
      59_980, 60_000, 60_300,
    ]);
    // The detach is judged by the taint when its operation started (verifySafeToDetach chosen then).
    expect(
      run([
        ...base(),
        taint(50_000, true),
        attachedList(59_980, []),
        detachStarted(60_000, true),
        taint(60_100, false),
        detached(60_300, true),
      ]),
    ).toEqual([]);
  });

  it('fires at the detach itself when no start was seen (safe-to-detach skipped)', () => {
    const v = run([...base(), detached(60_300)]);
    expect(v).toHaveLength(1);
    expect(v[0]?.message).toBe(
      "the attach/detach controller detached volume lun-1 from node-a at 60.30s while node-a's node status " +
        'listed it in volumesInUse (since 10.00s), node-a Ready (its kubelet running since 0.00s); no pod ' +
        'wanted it there for 40.30s at most when the detach started (maxWaitForUnmountDuration 360.00s not ' +
        'passed): verifyVolumeIsSafeToDetach must refuse it: "volume is still in use by node, according to ' +
        'Node status" (no volumeDetachStarted)',
    );
  });

  it("fires on release-1.23's force detach from a Ready node after the timeout (#106710, before #110721)", () => {
    const v = first([...base(), detachStarted(383_200, true), detached(383_200, true)]);
    expect(v).toHaveLength(1);
    expect(v[0]?.message).toContain('maxWaitForUnmountDuration 360.00s passed');
    expect(v[0]?.message).toContain('only a node that is not Ready may lose a mounted volume (#110721)');
  });

  it('fires on a CSI fence inside the detach operation, judged at the fence', () => {
    // Listed only from 59.5 s: too new for the start, but the operation read it listed and went on.
    const facts = [
      ...base(),
      inUse(25_000, []),
      inUse(59_500, ['lun-1']),
      detachStarted(60_000),
      read(60_020, ['lun-1']),
      fact('lunFenced', 61_000, { volume: 'lun-1', fenced: true }),
      detached(61_000),
    ];
    const v = run(facts);
    expect(v).toHaveLength(2); // the monitor keeps the first per (invariant, volume, node)
    expect(v[0]?.atMs).toBe(61_000);
    expect(v[0]?.message).toContain('fenced volume lun-1 from node-a');
    expect(v[0]?.message).toContain(
      "although node-a's node object, read at 60.02s, listed it in volumesInUse",
    );
  });

  it('fires when the clock started too early: a node not Ready, the volume unwanted for less than 6 min', () => {
    const facts = [
      ...base(),
      fact('kubeletStopped', 100_000, {}),
      detachStarted(200_000, true),
      detached(200_100, true),
    ];
    const v = first(facts);
    expect(v).toHaveLength(1);
    expect(v[0]?.message).toContain('node-a not Ready (its kubelet down since 100.00s)');
    expect(v[0]?.message).toContain('for 180.00s at most');
  });

  it("near-miss: upstream's force detach from a node that is not Ready, past the timeout (#110721)", () => {
    const facts = [
      ...base(),
      fact('kubeletStopped', 100_000, {}),
      attachedList(380_150, []),
      detachStarted(380_200, true),
      detached(380_300, true),
    ];
    expect(run(facts)).toEqual([]);
    // The timeout counts from the deletion request (20 s): at 380.00s it has not passed.
    expect(
      first([
        ...base(),
        fact('kubeletStopped', 100_000, {}),
        detachStarted(380_000, true),
        detached(380_100, true),
      ]),
    ).toHaveLength(1);
  });

  it('with --disable-force-detach-on-timeout (#120344), fires on that same force detach from a node not Ready', () => {
    const facts = [
      ...base(),
      fact('kubeletStopped', 100_000, {}),
      attachedList(380_150, []),
      detachStarted(380_200, true),
      detached(380_300, true),
    ];
    const checker = new VolumeDetachedWhileInUse({ disableForceDetachOnTimeout: true });
    const out: Violation[] = [];
    for (const f of facts) checker.onFact(f, (v) => out.push(v));
    expect(out.length).toBeGreaterThan(0);
    expect(out[0]?.atMs).toBe(380_150);
    expect(out[0]?.message).toContain('node-a not Ready (its kubelet down since 100.00s)');
    expect(out[0]?.message).toContain(
      'maxWaitForUnmountDuration 360.00s passed, but --disable-force-detach-on-timeout is set (#120344)',
    );
  });

  it('near-miss: a detach after the node dropped the volume from volumesInUse, verified by a read', () => {
    const facts = [
      ...base(),
      inUse(25_000, []),
      attachedList(25_150, []),
      detachStarted(25_200),
      read(25_220, []),
      detached(25_400),
    ];
    expect(run(facts)).toEqual([]);
  });

  it('fires on a detach before the timeout that never read the node object (verifyVolumeIsSafeToDetach skipped)', () => {
    const v = run([...base(), inUse(25_000, []), detachStarted(25_200), detached(25_400)]);
    expect(v).toHaveLength(1);
    expect(v[0]?.message).toContain("without reading node-a's node object since the detach started");
    expect(v[0]?.causes.map((f) => f.kind)).toEqual(['volumeDetachStarted', 'volumeDetached']);
    // A read from before the start is not the operation's.
    expect(
      run([...base(), inUse(25_000, []), read(25_100, []), detachStarted(25_200), detached(25_400)]),
    ).toHaveLength(1);
  });

  it('near-miss: a read that listed the volume, then one that did not, before the detach', () => {
    const facts = [
      ...base(),
      inUse(25_000, []),
      detachStarted(25_200),
      read(25_210, []),
      read(25_230, ['lun-1']), // another operation's read of the node, after a new listing
      detached(25_400),
    ];
    expect(run(facts)).toEqual([]);
  });

  it('near-miss: a listing newer than the slack before the detach started (the controller may not have seen it)', () => {
    const facts = [
      ...base(),
      inUse(25_000, []),
      inUse(29_500, ['lun-1']),
      attachedList(29_990, []),
      detachStarted(30_000),
      read(30_020, []),
      detached(30_100),
    ];
    expect(run(facts)).toEqual([]);
    // Listed since 29.00s: a full second before the start, so it counts.
    const older = [
      ...base(),
      inUse(25_000, []),
      inUse(29_000, ['lun-1']),
      attachedList(29_990, []),
      detachStarted(30_000),
      read(30_020, []),
      detached(30_100),
    ];
    expect(first(older)).toHaveLength(1);
  });

  it('fires on a detach started right after an attach whose volume the node listed before it (assumed mounted)', () => {
    const facts = (listedAtMs: number): Fact[] => [
      fact('kubeletStarted', 0, {}),
      created(0),
      inUse(listedAtMs, ['lun-1']),
      fact('apiPodDeletionRequested', 1_400, { ...P1, gracePeriodSeconds: 2 }),
      fact('volumeAttached', 1_500, { volume: 'lun-1' }),
      attachedList(1_600, ['lun-1']),
      attachedList(1_640, []),
      detachStarted(1_650),
      read(1_670, ['lun-1']),
      fact('volumeDetachFailed', 1_670, { volume: 'lun-1', error: 'still in use' }),
    ];
    const v = first(facts(1_300));
    expect(v).toHaveLength(1);
    expect(v[0]?.atMs).toBe(1_640);
    expect(v[0]?.message).toContain('(since 1.30s, before its attach at 1.50s)');
    // Listed less than the informer's delivery before the attach: an update from before it may follow.
    expect(run(facts(1_450))).toEqual([]);
  });

  it("near-miss: the node's Ready state uncertain (kubelet down 30-40 s) past the timeout is not judged", () => {
    const facts = [
      ...base(),
      fact('kubeletStopped', 350_000, {}),
      detachStarted(385_000, true),
      detached(385_100, true),
    ];
    expect(run(facts)).toEqual([]);
    // Down for less than 30 s: surely Ready (the Lease was renewed less than 40 s before).
    const ready = [
      ...base(),
      fact('kubeletStopped', 370_000, {}),
      detachStarted(385_000, true),
      detached(385_100, true),
    ];
    expect(first(ready)).toHaveLength(1);
    // A node that was down long enough to lose Ready inside the window is not surely Ready either.
    const back = [
      ...base(),
      fact('kubeletStopped', 300_000, {}),
      fact('kubeletStarted', 384_500, {}),
      detachStarted(385_000, true),
      detached(385_100, true),
    ];
    expect(run(back)).toEqual([]);
  });

  it('a short desired span does not restart the clock; a long one does', () => {
    const reused = (lifeMs: number): Fact[] => [
      ...base(),
      created(40_000, A, { pod: 'p2', uid: 'p2-1' }),
      fact('apiPodDeleted', 40_000 + lifeMs, { pod: 'p2', uid: 'p2-1', by: 'user-force' }),
      fact('kubeletStopped', 100_000, {}),
      detachStarted(385_000, true),
      detached(385_100, true),
    ];
    // Wanted for 2 s only: the controller may have kept its clock from 20 s, 6 min passed at 385 s.
    expect(run(reused(2_000))).toEqual([]);
    // Wanted for 10 s: the controller reset it; the clock runs from 50 s.
    const v = first(reused(10_000));
    expect(v).toHaveLength(1);
    expect(v[0]?.message).toContain('for 335.00s at most');
  });

  it('fires on a detach of a volume a pod still wants there', () => {
    const facts = [
      fact('kubeletStarted', 0, {}),
      created(0),
      inUse(10_000, ['lun-1']),
      detachStarted(60_000),
      detached(60_100),
    ];
    expect(first(facts)[0]?.message).toContain('a pod still wants it there');
  });

  it('a failed detach operation is no detach, but its start was judged', () => {
    const facts = [
      ...base(),
      detachStarted(60_000),
      read(60_030, ['lun-1']),
      fact('volumeDetachFailed', 60_030, { volume: 'lun-1', error: 'still in use' }),
    ];
    expect(run(facts).map((v) => v.atMs)).toEqual([60_000]);
    // Started after the node dropped the volume: nothing.
    const dropped = [
      ...base(),
      inUse(25_000, []),
      detachStarted(60_000),
      read(60_030, ['lun-1']),
      fact('volumeDetachFailed', 60_030, { volume: 'lun-1', error: 'still in use' }),
    ];
    expect(run(dropped)).toEqual([]);
  });
});

// ---- planted bugs in the controller's port, on whole runs ----

const FORCE_DETACH_HEALTHY = 'scenarios/fc-force-detach-healthy-node.yaml';
const DISABLE_FORCE_DETACH = 'scenarios/csi-partition-disable-force-detach.yaml';

/** p1 keeps lun-1 mounted on node-a (UnmountDevice fails); p1b wants it there 40-100 s; node-a then goes down. */
const TIMER_ACROSS_REUSE = `name: detach-timer-across-reuse
seed: 1
horizon: 10m
cluster:
  nodes: [node-a, node-b]
  volumes:
    - { name: lun-1, plugin: csi, mode: Filesystem, capacity: 10Gi, accessMode: ReadWriteOnce }
timeline:
  - at: 0s
    createPod: { pod: p1, node: node-a, containers: 1, volumes: [lun-1], gracePeriod: 2s }
  - at: 15s
    fault: { unmountDevice: { node: node-a, volume: lun-1, stage: beforeUnmount, times: 1000 } }
  - at: 20s
    deletePod: { pod: p1 }
  - at: 40s
    createPod: { pod: p1b, node: node-a, containers: 1, volumes: [lun-1] }
  - at: 100s
    restartKubelet: { node: node-a, downFor: 30m }
  - at: 100s
    forceDeletePod: { pod: p1b }
`;

/** p1 uses lun-1 on node-a and is deleted at 20 s: an ordinary unmount, then the detach. */
const PLAIN_DELETE = `name: plain-delete
seed: 1
horizon: 2m
cluster:
  nodes: [node-a, node-b]
  volumes:
    - { name: lun-1, plugin: fc, mode: Filesystem, capacity: 10Gi, accessMode: ReadWriteOnce }
timeline:
  - at: 0s
    createPod: { pod: p1, node: node-a, containers: 1, volumes: [lun-1], gracePeriod: 2s }
  - at: 20s
    deletePod: { pod: p1 }
`;

const fired = (text: string | undefined, file: string | undefined): Violation[] => {
  const scenario =
    file !== undefined ? loadScenarioFile(file) : parseScenarioText(text ?? '', 'planted.yaml');
  return runScenario(scenario, { fixes: Fixes.all() }).violations.filter(
    (v) => v.invariant === 'volume-detached-while-in-use',
  );
};

describe('volume-detached-while-in-use catches planted controller bugs', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('a reconciler that no longer resets the detach request time while the volume is wanted again', () => {
    // Unpatched: the clock restarts at p1b's deletion (100 s); the force detach from the node that is not
    // Ready comes at 460 s, upstream's intended behaviour.
    expect(fired(TIMER_ACROSS_REUSE, undefined)).toEqual([]);
    // Planted: attachDesiredVolumes' "touch it to reset detachRequestedTime" dropped, so the clock runs
    // from p1's deletion (22 s) and the force detach comes 78 s early.
    vi.spyOn(ActualStateOfWorld.prototype, 'resetDetachRequestTime').mockImplementation(() => {});
    const v = fired(TIMER_ACROSS_REUSE, undefined);
    expect(v).toHaveLength(1);
    expect(v[0]?.node).toBe(A);
    expect(v[0]?.atMs).toBeLessThan(400_000);
    expect(v[0]?.message).toContain('maxWaitForUnmountDuration 360.00s not passed');
  });

  it('a reconciler that drops --disable-force-detach-on-timeout (#120344)', () => {
    // Unpatched: the #119273 partition with the option set keeps vol-1 attached to node-a: nothing fires.
    expect(fired(undefined, DISABLE_FORCE_DETACH)).toEqual([]);
    // Planted: the reconciler reads the option as unset, so the 6 min timeout force-detaches vol-1 from
    // node-a (not Ready, cut off from the API server) as release-1.29 would.
    const original = (Reconciler.prototype as unknown as { reconcile: () => unknown }).reconcile;
    vi.spyOn(Reconciler.prototype as unknown as { reconcile: () => unknown }, 'reconcile').mockImplementation(
      function (this: { o: object }) {
        this.o = { ...this.o, disableForceDetachOnTimeout: false };
        return original.call(this);
      },
    );
    const v = fired(undefined, DISABLE_FORCE_DETACH);
    expect(v).toHaveLength(1);
    expect(v[0]?.node).toBe(A);
    expect(v[0]?.message).toContain('--disable-force-detach-on-timeout is set (#120344)');
  });

  it("#110721's health check reading every node as not Ready", () => {
    // Unpatched, every fix on: the Ready node keeps its mounted LUN (no detach at all).
    expect(fired(undefined, FORCE_DETACH_HEALTHY)).toEqual([]);
    // Planted: nodeIsHealthy looks for a Ready condition the node informer's objects do not carry, so
    // every node reads as unhealthy and the 6 min timeout force-detaches from a Ready node.
    vi.spyOn(
      Reconciler.prototype as unknown as { nodeIsHealthy: (n: string) => boolean },
      'nodeIsHealthy',
    ).mockImplementation(() => false);
    const v = fired(undefined, FORCE_DETACH_HEALTHY);
    expect(v).toHaveLength(1);
    expect(v[0]?.message).toContain('node-a Ready (its kubelet running since 0.00s)');
  });

  it("fires with release-1.23's reconciler (no-force-detach-healthy-node off), not with #110721", () => {
    const scenario = loadScenarioFile(FORCE_DETACH_HEALTHY);
    const ids = (fixes: Fixes) => runScenario(scenario, { fixes }).violations.map((v) => v.invariant);
    expect(ids(Fixes.all().with('no-force-detach-healthy-node', false))).toContain(
      'volume-detached-while-in-use',
    );
    expect(ids(Fixes.all())).not.toContain('volume-detached-while-in-use');
  });

  it('a detach operation that skips verifyVolumeIsSafeToDetach before the timeout', () => {
    const scenario = parseScenarioText(PLAIN_DELETE, 'planted.yaml');
    const detachedAt = (): number[] =>
      (runScenario(scenario, { fixes: Fixes.all(), recordFacts: true }).facts ?? [])
        .filter((f) => f.kind === 'volumeDetached')
        .map((f) => f.atMs);
    // Unpatched: the operation reads node-a (no longer listing lun-1) and detaches.
    expect(detachedAt()).toHaveLength(1);
    expect(fired(PLAIN_DELETE, undefined)).toEqual([]);
    // Planted: the operation's check returns "safe" without reading the node (a dropped check): the
    // detach is the same, on a node that happens to have unmounted, but nothing verified it.
    vi.spyOn(OperationGenerator.prototype, 'verifyVolumeIsSafeToDetach').mockImplementation(
      // biome-ignore lint/correctness/useYield: the planted check does not block.
      function* () {
        return undefined;
      },
    );
    const v = fired(PLAIN_DELETE, undefined);
    expect(v).toHaveLength(1);
    expect(v[0]?.message).toContain("without reading node-a's node object since the detach started");
  });

  it("processVolumesInUse never believing the node's volumesInUse (every attachment read as unmounted)", () => {
    // Planted: the node informer's volumesInUse is compared with the wrong field, so MountedByNode turns
    // false at the first node update: the reconciler starts detaching lun-1 as soon as p1 is deleted,
    // while node-a still has it mounted and listed (verifyVolumeIsSafeToDetach then refuses, and retries).
    const original = ActualStateOfWorld.prototype.setVolumeMountedByNode;
    vi.spyOn(ActualStateOfWorld.prototype, 'setVolumeMountedByNode').mockImplementation(function (
      this: ActualStateOfWorld,
      volumeName,
      nodeName,
    ) {
      return original.call(this, volumeName, nodeName, false);
    });
    const v = fired(PLAIN_DELETE, undefined);
    expect(v).toHaveLength(1);
    expect(v[0]?.node).toBe(A);
    expect(v[0]?.message).toContain("took volume lun-1 off node-a's volumesAttached to detach it");
    expect(v[0]?.message).toContain('MountedByNode');
  });
});
