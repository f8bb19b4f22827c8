// volume-detached-while-in-use: synthetic facts (fires exactly, near-misses stay quiet), then planted
// bugs in the attach/detach controller's port that it must catch on whole runs, and upstream's own
// force detach from a node that is not Ready, which it must leave alone.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ActualStateOfWorld } from '../../src/cluster/attachdetach/actualStateOfWorld.js';
import { Reconciler } from '../../src/cluster/attachdetach/reconciler.js';
import type { Fact, FactKind } from '../../src/facts.js';
import { Fixes } from '../../src/fixes.js';
import { VolumeDetachedWhileInUse } from '../../src/invariants/index.js';
import type { Violation } from '../../src/invariants/types.js';
import { loadScenarioFile, parseScenarioText } from '../../src/scenario/load.js';
import { runScenario } from '../../src/scenario/run.js';

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
  inUse(10_000, ['lun-1']),
  fact('apiPodDeletionRequested', 20_000, { ...P1, gracePeriodSeconds: 2 }),
  fact('apiPodDeleted', 23_000, { ...P1, by: 'kubelet' }),
];

describe('volume-detached-while-in-use', () => {
  it('fires on a detach of a volume the Ready node lists in use, before the timeout (safe-to-detach skipped)', () => {
    const start = detachStarted(60_000);
    const done = detached(60_300);
    const v = run([...base(), start, done]);
    expect(v).toHaveLength(1);
    expect(v[0]).toMatchObject({
      invariant: 'volume-detached-while-in-use',
      atMs: 60_300,
      node: A,
      pod: null,
      uid: null,
      volume: 'lun-1',
      message:
        "the attach/detach controller detached volume lun-1 from node-a at 60.30s while node-a's node status " +
        'listed it in volumesInUse (since 10.00s), node-a Ready (its kubelet running since 0.00s); no pod ' +
        'wanted it there for 40.00s at most when the detach started (maxWaitForUnmountDuration 360.00s not ' +
        'passed): verifyVolumeIsSafeToDetach must refuse it: "volume is still in use by node, according to ' +
        'Node status" (the controller started it at 60.00s)',
    });
    expect(v[0]?.causes.map((f) => f.kind)).toEqual([
      'kubeletStarted',
      'nodeVolumesInUse',
      'volumeDetachStarted',
      'volumeDetached',
    ]);
  });

  it("fires on release-1.23's force detach from a Ready node after the timeout (#106710, before #110721)", () => {
    const v = run([...base(), detachStarted(383_200, true), detached(383_200, true)]);
    expect(v).toHaveLength(1);
    expect(v[0]?.message).toContain('maxWaitForUnmountDuration 360.00s passed');
    expect(v[0]?.message).toContain('only a node that is not Ready may lose a mounted volume (#110721)');
  });

  it('fires on a CSI fence inside the detach operation, judged at the fence', () => {
    const facts = [
      ...base(),
      detachStarted(60_000),
      fact('lunFenced', 61_000, { volume: 'lun-1', fenced: true }),
      detached(61_000),
    ];
    const v = run(facts);
    expect(v).toHaveLength(2); // the monitor keeps the first per (invariant, volume, node)
    expect(v[0]?.atMs).toBe(61_000);
    expect(v[0]?.message).toContain('fenced volume lun-1 from node-a');
  });

  it('fires when the clock started too early: a node not Ready, the volume unwanted for less than 6 min', () => {
    const facts = [
      ...base(),
      fact('kubeletStopped', 100_000, {}),
      detachStarted(200_000, true),
      detached(200_100, true),
    ];
    const v = run(facts);
    expect(v).toHaveLength(1);
    expect(v[0]?.message).toContain('node-a not Ready (its kubelet down since 100.00s)');
    expect(v[0]?.message).toContain('for 180.00s at most');
  });

  it("near-miss: upstream's force detach from a node that is not Ready, past the timeout (#110721)", () => {
    const facts = [
      ...base(),
      fact('kubeletStopped', 100_000, {}),
      detachStarted(380_200, true),
      detached(380_300, true),
    ];
    expect(run(facts)).toEqual([]);
    // The timeout counts from the deletion request (20 s): at 380.00s it has not passed.
    expect(
      run([
        ...base(),
        fact('kubeletStopped', 100_000, {}),
        detachStarted(380_000, true),
        detached(380_100, true),
      ]),
    ).toHaveLength(1);
  });

  it('near-miss: a detach after the node dropped the volume from volumesInUse', () => {
    expect(run([...base(), inUse(25_000, []), detachStarted(25_200), detached(25_400)])).toEqual([]);
  });

  it('near-miss: a listing newer than the slack before the detach started (the controller may not have seen it)', () => {
    const facts = [
      ...base(),
      inUse(25_000, []),
      inUse(29_500, ['lun-1']),
      detachStarted(30_000),
      detached(30_100),
    ];
    expect(run(facts)).toEqual([]);
    // Listed since 29.00s: a full second before the start, so it counts.
    const older = [
      ...base(),
      inUse(25_000, []),
      inUse(29_000, ['lun-1']),
      detachStarted(30_000),
      detached(30_100),
    ];
    expect(run(older)).toHaveLength(1);
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
    expect(run(ready)).toHaveLength(1);
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
    const v = run(reused(10_000));
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
    expect(run(facts)[0]?.message).toContain('a pod still wants it there');
  });

  it('near-miss: a failed detach operation is no detach', () => {
    const facts = [
      ...base(),
      detachStarted(60_000),
      fact('volumeDetachFailed', 60_030, { volume: 'lun-1', error: 'still in use' }),
    ];
    expect(run(facts)).toEqual([]);
  });
});

// ---- planted bugs in the controller's port, on whole runs ----

const FORCE_DETACH_HEALTHY = 'scenarios/fc-force-detach-healthy-node.yaml';

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
});
