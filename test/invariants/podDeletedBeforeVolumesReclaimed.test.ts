// pod-deleted-before-volumes-reclaimed: unit cases from facts, and the bug it exists for planted in the
// kubelet's PodResourcesAreReclaimed (the podVolumesExist check dropped, as a refactor might).
import { describe, expect, it, vi } from 'vitest';
import type { Fact, FactKind } from '../../src/facts.js';
import { Fixes } from '../../src/fixes.js';
import { PodDeletedBeforeVolumesReclaimed } from '../../src/invariants/index.js';
import type { Violation } from '../../src/invariants/types.js';
import { runScenario } from '../../src/run/run.js';
import { parseScenarioText } from '../../src/scenario/load.js';

const planted = vi.hoisted(() => ({ on: false }));

vi.mock('../../src/kubelet/kubeletPods.js', async (importOriginal) => {
  const m = await importOriginal<typeof import('../../src/kubelet/kubeletPods.js')>();
  return {
    ...m,
    podResourcesAreReclaimed: (...args: Parameters<typeof m.podResourcesAreReclaimed>) => {
      const [kl, pod, status] = args;
      if (!planted.on) return m.podResourcesAreReclaimed(kl, pod, status);
      // The planted bug: the volume check is gone (the kubelet asks a volume manager that says "none").
      const forgetful = Object.create(kl, {
        volumeManager: { value: { ...kl.volumeManager, podVolumesExist: () => false } },
      }) as typeof kl;
      return m.podResourcesAreReclaimed(forgetful, pod, status);
    },
  };
});

type FactOf<K extends FactKind> = Extract<Fact, { kind: K }>;
const A = 'node-a';
function fact<K extends FactKind>(
  kind: K,
  atMs: number,
  fields: Omit<FactOf<K>, 'kind' | 'atMs' | 'node'>,
): FactOf<K> {
  return { node: A, ...fields, kind, atMs } as unknown as FactOf<K>;
}
const WEB = { pod: 'web', uid: 'uid-web' } as const;

function run(facts: readonly Fact[], mounts: Record<string, readonly string[]>): Violation[] {
  const out: Violation[] = [];
  const c = new PodDeletedBeforeVolumesReclaimed((node, uid) => mounts[`${node}/${uid}`] ?? []);
  for (const f of facts) c.onFact(f, (v) => out.push(v));
  return out;
}

describe('pod-deleted-before-volumes-reclaimed from facts', () => {
  const req = fact('apiPodDeletionRequested', 1000, { ...WEB, gracePeriodSeconds: 5 });
  const setUp = fact('volumeSetUp', 500, { ...WEB, volume: 'lun-1' });
  const deleted = fact('apiPodDeleted', 7000, { ...WEB, by: 'kubelet' });

  it('fires when the kubelet deletes a pod whose volume is still set up on its node', () => {
    const v = run([setUp, req, deleted], { 'node-a/uid-web': ['lun-1'] });
    expect(v).toHaveLength(1);
    expect(v[0]).toMatchObject({ node: A, uid: 'uid-web', volume: 'lun-1' });
    expect(v[0]?.message).toBe(
      'the kubelet finalised the API deletion of pod web (uid uid-web) at 7.00s while node-a still has its ' +
        'volume lun-1 set up (PodResourcesAreReclaimed: podVolumesExist)',
    );
    expect(v[0]?.causes).toEqual([setUp, req, deleted]);
  });

  it("does not judge a user's force delete, or a pod whose volumes are gone", () => {
    const forced = fact('apiPodDeleted', 7000, { ...WEB, by: 'user-force' });
    expect(run([setUp, forced], { 'node-a/uid-web': ['lun-1'] })).toEqual([]);
    expect(run([setUp, req, deleted], {})).toEqual([]);
  });
});

describe('pod-deleted-before-volumes-reclaimed with the bug planted', () => {
  const scenario = parseScenarioText(
    [
      'name: delete-pod-with-volume',
      'horizon: 3m',
      'cluster:',
      '  nodes: [node-a]',
      '  volumes: [{name: lun-1, plugin: fc, mode: Filesystem, capacity: 10Gi}]',
      'timeline:',
      '  - at: 0s',
      '    createPod: {pod: web, node: node-a, containers: 1, volumes: [lun-1], gracePeriod: 2s}',
      '  - at: 20s',
      '    deletePod: {pod: web}',
      // TearDown fails for 2 minutes: the pod's mount stays while the status manager syncs its status.
      '  - at: 20s',
      '    fault: {tearDown: {node: node-a, volume: lun-1, times: 8}}',
    ].join('\n'),
    'planted.yaml',
  );
  const fired = () =>
    // Before #115331 (1.27): its SyncTerminatedPod waits for podVolumesExist, so the final delete waits too,
    // and its status manager no longer asks PodResourcesAreReclaimed at all: both halves off.
    runScenario(scenario, {
      fixes: Fixes.all()
        .with('terminated-pod-waits-for-volume-cleanup', false)
        .with('status-deletes-finished-pods', false),
    })
      .violations.map((v) => v.invariant)
      .filter((id) => id === 'pod-deleted-before-volumes-reclaimed');

  it('fires when PodResourcesAreReclaimed skips podVolumesExist, and not otherwise', () => {
    expect(fired()).toEqual([]);
    planted.on = true;
    try {
      expect(fired()).toEqual(['pod-deleted-before-volumes-reclaimed']);
    } finally {
      planted.on = false;
    }
  });
});
