// pod-never-started judges "attached here" from ground truth: a fence of the node's path (lunFenced
// fenced=true) ends the attachment even when the controller publishes no volumeDetached, as after a CSI
// Detach that failed once ControllerUnpublishVolume had acted (#120571): without #120595 the controller
// reports the volume attached again and a pod wanting it on the node is never attached. Synthetic facts
// first (the planted bug: the checker believing the controller), then the run.
import { describe, expect, it } from 'vitest';
import type { Fact, FactKind } from '../../src/facts.js';
import { Fixes } from '../../src/fixes.js';
import { ATTACH_BOUND_MS, PodNeverStarted } from '../../src/invariants/podNeverStarted.js';
import type { Violation } from '../../src/invariants/types.js';
import { runScenario } from '../../src/run/run.js';
import { parseScenarioText } from '../../src/scenario/load.js';

type FactOf<K extends FactKind> = Extract<Fact, { kind: K }>;
type Fields<K extends FactKind> = Omit<FactOf<K>, 'kind' | 'atMs' | 'node'> & { node?: string };

const A = 'node-a';
const P1 = { pod: 'p1', uid: 'p1-1' } as const;
const P2 = { pod: 'p2', uid: 'p2-1' } as const;
const ERR = 'rpc error: code = DeadlineExceeded desc = context deadline exceeded';

function fact<K extends FactKind>(kind: K, atMs: number, fields: Fields<K>): FactOf<K> {
  return { node: A, ...fields, kind, atMs } as unknown as FactOf<K>;
}

function run(facts: readonly Fact[], endMs: number): Violation[] {
  const checker = new PodNeverStarted({
    faultsActiveAtEnd: () => false,
    volumes: [{ name: 'vol-1', accessMode: 'ReadWriteOnce' }],
  });
  const out: Violation[] = [];
  for (const f of [...facts].sort((a, b) => a.atMs - b.atMs)) checker.onFact(f);
  checker.onEnd(endMs, (v) => out.push(v));
  return out;
}

const created = (atMs: number, p: { pod: string; uid: string }) =>
  fact('apiPodCreated', atMs, {
    ...p,
    static: false,
    restartPolicy: 'Always',
    containers: ['c1'],
    startDelayMs: 0,
    volumes: ['vol-1'],
    gracePeriodSeconds: 30,
  });

/**
 * p1 on node-a used vol-1 and is gone; the controller's detach starts at 20.2 s; p2 on node-a wants vol-1
 * from 20.5 s; at 21.3 s the unpublish fences node-a's path and the detach fails; nothing attaches again.
 */
const failedAfterFence = (): Fact[] => [
  fact('kubeletStarted', 0, {}),
  created(0, P1),
  fact('podAdmitted', 40, P1),
  fact('lunFenced', 800, { volume: 'vol-1', fenced: false }),
  fact('volumeAttached', 800, { volume: 'vol-1' }),
  fact('volumeSetUp', 11_300, { ...P1, volume: 'vol-1' }),
  fact('containerStarted', 11_700, { ...P1, container: 'c1' }),
  fact('apiPodDeletionRequested', 15_000, { ...P1, gracePeriodSeconds: 2 }),
  fact('volumeTearDown', 15_600, { ...P1, volume: 'vol-1', ok: true }),
  fact('apiPodDeleted', 16_000, { ...P1, by: 'kubelet' }),
  fact('volumeDetachStarted', 20_176, { volume: 'vol-1', forced: false, verifySafeToDetach: true }),
  created(20_500, P2),
  fact('podAdmitted', 20_557, P2),
  fact('lunFenced', 21_307, { volume: 'vol-1', fenced: true }),
  fact('volumeDetachFailed', 21_307, { volume: 'vol-1', error: ERR }),
];
const DUE = 21_307 + ATTACH_BOUND_MS;

describe('pod-never-started: a fence ends the attachment', () => {
  it('fires for a pod waiting on a node whose path was fenced by a detach that then failed', () => {
    expect(run(failedAfterFence(), DUE - 1)).toEqual([]);
    const v = run(failedAfterFence(), DUE);
    expect(v).toHaveLength(1);
    expect(v[0]).toMatchObject({ invariant: 'pod-never-started', node: A, pod: 'p2', volume: 'vol-1' });
    expect(v[0]?.message).toContain(
      "waits for volume vol-1, attached to no node (node-a's path to it fenced at 21.31s; the controller's " +
        `detach from node-a failed at 21.31s: ${ERR}): wanted on node-a since 21.31s, never attached there`,
    );
    expect(v[0]?.causes.map((f) => f.kind)).toEqual(
      expect.arrayContaining(['lunFenced', 'volumeDetachFailed', 'apiPodCreated']),
    );
  });

  it('near-miss: the controller attaches it again (unfence, volumeAttached), or the path was never fenced', () => {
    const reattached = [
      ...failedAfterFence(),
      fact('lunFenced', 22_805, { volume: 'vol-1', fenced: false }),
      fact('volumeAttached', 22_805, { volume: 'vol-1' }),
    ];
    // Attached here: what p2 waits for is the kubelet's mount, not the controller.
    expect(run(reattached, DUE + 600_000)).toEqual([]);
    // beforeDetach: the unpublish failed before it fenced anything, the volume is still attached here.
    const notFenced = failedAfterFence().filter((f) => !(f.kind === 'lunFenced' && f.fenced));
    expect(run(notFenced, DUE + 600_000)).toEqual([]);
  });
});

const SCENARIO = `name: fence-then-detach-error
seed: 1
horizon: 4m
cluster:
  nodes: [node-a]
  volumes:
    - { name: vol-1, plugin: csi, mode: Filesystem, capacity: 10Gi }
timeline:
  - at: 0s
    createPod: { pod: db1, node: node-a, containers: 1, volumes: [vol-1], gracePeriod: 2s }
  - at: 15s
    fault: { detach: { node: node-a, volume: vol-1 } }
  - at: 15s
    deletePod: { pod: db1 }
  - at: 20500ms
    createPod: { pod: db2, node: node-a, containers: 1, volumes: [vol-1] }
`;

describe('pod-never-started in a run: a CSI detach that fails after the fence', () => {
  const violations = (fixes: Fixes): readonly Violation[] =>
    runScenario(parseScenarioText(SCENARIO, 'fence.yaml'), { fixes }).violations;

  it('fires without #120595 (the controller reports the volume attached again), not with it', () => {
    const v = violations(Fixes.all().with('detach-error-uncertain', false));
    expect(v.map((x) => [x.invariant, x.pod, x.volume])).toEqual([['pod-never-started', 'db2', 'vol-1']]);
    expect(v[0]?.message).toContain("node-a's path to it fenced at");
    expect(violations(Fixes.all())).toEqual([]);
  });
});
