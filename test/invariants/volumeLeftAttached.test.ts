// volume-left-attached: the planted bug it exists for (the attach/detach controller never takes a deleted
// pod's volume out of its desired state of world, so the reconciler never detaches it) fires it in a run
// that is clean without the bug; and the checker's bounds on synthetic facts: a volume the node still lists
// in volumesInUse, a pod that still wants it, a static pod's volume and a free span shorter than the
// bound are not judged.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DesiredStateOfWorld } from '../../src/cluster/attachdetach/desiredStateOfWorld.js';
import type { Fact } from '../../src/facts.js';
import { Fixes } from '../../src/fixes.js';
import { VolumeLeftAttached } from '../../src/invariants/index.js';
import type { Violation } from '../../src/invariants/types.js';
import { DETACH_BOUND_MS } from '../../src/invariants/volumeLeftAttached.js';
import { runScenario } from '../../src/run/run.js';
import { parseScenarioText } from '../../src/scenario/load.js';

afterEach(() => vi.restoreAllMocks());

const scenario = parseScenarioText(
  `name: detach-after-delete
seed: 1
horizon: 6m
cluster:
  nodes: [node-a]
  volumes:
    - { name: lun-1, plugin: iscsi, mode: Filesystem, capacity: 10Gi }
timeline:
  - at: 0s
    createPod: { pod: web, node: node-a, containers: 1, volumes: [lun-1] }
  - at: 30s
    deletePod: { pod: web }
`,
  'detach-after-delete.yaml',
);

const fired = (violations: readonly Violation[]) =>
  violations.filter((v) => v.invariant === 'volume-left-attached');

describe('volume-left-attached', () => {
  it('stays quiet when the controller detaches the volume of a deleted pod, for every kubelet', () => {
    for (const fixes of [Fixes.all(), Fixes.none(), Fixes.of('1.23')]) {
      expect(fired(runScenario(scenario, { fixes }).violations)).toEqual([]);
    }
  });

  it("fires when the controller keeps a deleted pod's volume in its desired state (planted)", () => {
    vi.spyOn(DesiredStateOfWorld.prototype, 'deletePod').mockImplementation(() => undefined);
    const v = fired(runScenario(scenario, { fixes: Fixes.all() }).violations);
    expect(v.map((x) => [x.node, x.volume, x.pod])).toEqual([['node-a', 'lun-1', 'web']]);
    expect(v[0]?.message).toMatch(
      /^volume lun-1 is still attached to node-a at the end \(360\.00s\), attached at \S+; its last pod there, web \(uid web-1\), left at \S+, and the node's status has not listed it in volumesInUse since \S+: the attach\/detach controller detaches such a volume within 180\.00s$/,
    );
  });

  const created = (atMs: number, extra: Partial<{ static: boolean; uid: string }> = {}): Fact => ({
    kind: 'apiPodCreated',
    atMs,
    node: 'node-a',
    uid: extra.uid ?? 'u1',
    pod: 'web',
    static: extra.static ?? false,
    restartPolicy: 'Always',
    containers: ['c1'],
    startDelayMs: 0,
    volumes: ['lun-1'],
    gracePeriodSeconds: 30,
  });
  const attached: Fact = { kind: 'volumeAttached', atMs: 1_000, node: 'node-a', volume: 'lun-1' };
  const deleted = (atMs: number, uid = 'u1'): Fact => ({
    kind: 'apiPodDeleted',
    atMs,
    node: 'node-a',
    uid,
    pod: 'web',
    by: 'kubelet',
  });
  const inUse = (atMs: number, volumes: string[]): Fact => ({
    kind: 'nodeVolumesInUse',
    atMs,
    node: 'node-a',
    volumes,
  });
  const judge = (facts: readonly Fact[], endMs: number, faultsActive = false): Violation[] => {
    const c = new VolumeLeftAttached({ faultsActiveAtEnd: () => faultsActive });
    const out: Violation[] = [];
    for (const f of facts) if (c.kinds.includes(f.kind)) c.onFact(f);
    c.onEnd(endMs, (v) => out.push(v));
    return out;
  };

  it('judges only a volume free for the whole bound', () => {
    const facts = [created(0), attached, inUse(5_000, ['lun-1']), deleted(20_000), inUse(30_000, [])];
    expect(judge(facts, 30_000 + DETACH_BOUND_MS)).toHaveLength(1);
    expect(judge(facts, 30_000 + DETACH_BOUND_MS - 1)).toEqual([]);
    expect(judge(facts, 30_000 + DETACH_BOUND_MS, true)).toEqual([]);
    // Detached: nothing to judge.
    const detached: Fact = {
      kind: 'volumeDetached',
      atMs: 40_000,
      node: 'node-a',
      volume: 'lun-1',
      forced: false,
    };
    expect(judge([...facts, detached], 30_000 + DETACH_BOUND_MS)).toEqual([]);
  });

  it('does not judge a volume the node still lists, a pod still wants, or a static pod used', () => {
    const end = 10 * 60_000;
    expect(judge([created(0), attached, inUse(5_000, ['lun-1']), deleted(20_000)], end)).toEqual([]);
    expect(judge([created(0), attached, inUse(5_000, [])], end)).toEqual([]);
    expect(judge([created(0, { static: true, uid: 's1' }), attached, inUse(5_000, [])], end)).toEqual([]);
  });
});
