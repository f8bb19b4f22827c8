// mirror-pod-deleted-while-running: unit cases on synthetic facts, and the planted bug it exists for
// (deleteOrphanedMirrorPods without its IsPodForMirrorPodTerminatingByFullName guard) in a run.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Fact } from '../../src/facts.js';
import { Fixes } from '../../src/fixes.js';
import { MirrorPodDeletedWhileRunning } from '../../src/invariants/index.js';
import type { Violation } from '../../src/invariants/types.js';
import type * as MirrorPods from '../../src/kubelet/kubeletMirrorPods.js';
import { runScenario } from '../../src/run/run.js';
import { parseScenarioText } from '../../src/scenario/load.js';

const planted = vi.hoisted(() => ({ ignoreTerminating: false }));

vi.mock('../../src/kubelet/kubeletMirrorPods.js', async (importOriginal) => {
  const original = await importOriginal<typeof MirrorPods>();
  return {
    ...original,
    deleteOrphanedMirrorPods: (kl: MirrorPods.MirrorPodHost, keep: (fullname: string) => boolean) =>
      original.deleteOrphanedMirrorPods(kl, planted.ignoreTerminating ? () => false : keep),
  };
});

afterEach(() => {
  planted.ignoreTerminating = false;
});

const S = 'static-etcd-1';
const run = (facts: readonly Fact[]): Violation[] => {
  const c = new MirrorPodDeletedWhileRunning();
  const out: Violation[] = [];
  for (const f of facts) if (c.kinds.includes(f.kind)) c.onFact(f, (v) => out.push(v));
  return out;
};
const started = (atMs: number, container = 'c1', uid = S): Fact => ({
  kind: 'containerStarted',
  atMs,
  node: 'node-a',
  pod: 'etcd',
  uid,
  container,
  staticFullname: 'etcd_default',
});
const exited = (atMs: number, container = 'c1'): Fact => ({
  kind: 'containerExited',
  atMs,
  node: 'node-a',
  pod: 'etcd',
  uid: S,
  container,
  exitCode: 137,
});
const removed = (atMs: number): Fact => ({
  kind: 'apiPodDeletionRequested',
  atMs,
  node: 'node-a',
  pod: 'etcd',
  uid: S,
  gracePeriodSeconds: 30,
});
const mirrorDeleted = (atMs: number, staticUid = S): Fact => ({
  kind: 'mirrorPod',
  op: 'deleted',
  atMs,
  node: 'node-a',
  pod: 'etcd',
  uid: `${staticUid}_mirror1`,
  staticUid,
});
const kubelet = (atMs: number, up: boolean): Fact => ({
  kind: up ? 'kubeletStarted' : 'kubeletStopped',
  atMs,
  node: 'node-a',
});

describe('mirror-pod-deleted-while-running on facts', () => {
  it('fires when the mirror pod goes after the manifest while a container still runs', () => {
    const v = run([kubelet(0, true), started(300), removed(5_000), mirrorDeleted(5_010)]);
    expect(v.map((x) => [x.invariant, x.uid, x.atMs])).toEqual([
      ['mirror-pod-deleted-while-running', S, 5_010],
    ]);
    expect(v[0]?.causes.map((c) => c.kind)).toEqual([
      'containerStarted',
      'apiPodDeletionRequested',
      'mirrorPod',
    ]);
  });

  it('holds once every container has exited', () => {
    expect(
      run([kubelet(0, true), started(300), removed(5_000), exited(35_000), mirrorDeleted(36_000)]),
    ).toEqual([]);
  });

  it('holds while the manifest is on disk (syncPod replaces a mirror pod that differs)', () => {
    expect(run([kubelet(0, true), started(300), mirrorDeleted(5_010)])).toEqual([]);
  });

  it('holds when the same manifest (same UID) was put back before the mirror pod went', () => {
    const readded: Fact = {
      kind: 'apiPodCreated',
      atMs: 6_000,
      node: 'node-a',
      pod: 'etcd',
      uid: S,
      gracePeriodSeconds: 30,
      restartPolicy: 'Always',
      static: true,
      containers: ['c1'],
      startDelayMs: 0,
      volumes: [],
    };
    expect(run([kubelet(0, true), started(300), removed(5_000), readded, mirrorDeleted(6_010)])).toEqual([]);
  });

  it('holds when the manifest went while no kubelet ran (the next process never saw the static pod)', () => {
    expect(
      run([
        kubelet(0, true),
        started(300),
        kubelet(4_000, false),
        removed(5_000),
        kubelet(8_000, true),
        mirrorDeleted(10_000),
      ]),
    ).toEqual([]);
  });

  it('forgets a removal once the kubelet process that saw it stops (the next one starts without the static pod)', () => {
    expect(
      run([
        kubelet(0, true),
        started(300),
        removed(5_000),
        kubelet(6_000, false),
        kubelet(8_000, true),
        mirrorDeleted(10_000),
      ]),
    ).toEqual([]);
  });

  it('ignores another static UID of the same name', () => {
    expect(
      run([kubelet(0, true), started(300), removed(5_000), mirrorDeleted(5_010, 'static-etcd-2')]),
    ).toEqual([]);
  });
});

describe('mirror-pod-deleted-while-running in a run', () => {
  // #98103's shape: the manifest goes, the container ignores SIGTERM for its 30 s grace period, and
  // housekeeping's orphaned mirror pod cleanup runs every 2 s meanwhile.
  const scenario = [
    'name: mirror-orphan-cleanup',
    'seed: 1',
    'horizon: 2m',
    'cluster: {nodes: [node-a]}',
    'timeline:',
    '  - at: 0s',
    '    createPod: {pod: etcd, node: node-a, containers: 1, static: true, gracePeriod: 30s}',
    '  - at: 10s',
    '    deletePod: {pod: etcd}',
  ].join('\n');
  const fires = (): string[] =>
    runScenario(parseScenarioText(scenario, 'mirror.yaml'), { fixes: Fixes.all() })
      .violations.filter((v) => v.invariant === 'mirror-pod-deleted-while-running')
      .map((v) => v.message);

  it('holds with the port as it is: the mirror pod stays until the static pod has terminated', () => {
    expect(fires()).toEqual([]);
  });

  it('fires when deleteOrphanedMirrorPods forgets IsPodForMirrorPodTerminatingByFullName', () => {
    planted.ignoreTerminating = true;
    const messages = fires();
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(
      /deleted mirror pod etcd .* at 1\d\.\d+s while its static pod .* still runs container c1/,
    );
  });
});
