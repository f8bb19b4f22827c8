// mirror-pod-missing: the planted bug it exists for (syncMirrorPod no longer asks IsMirrorPodOf, so the
// mirror of a static pod's previous version is kept for the next one, whose own mirror is never created)
// fires it in a run that is clean without the bug; and the checker's bounds on synthetic facts.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Fact } from '../../src/facts.js';
import { Fixes } from '../../src/fixes.js';
import { MirrorPodMissing } from '../../src/invariants/index.js';
import { MIRROR_BOUND_MS } from '../../src/invariants/mirrorPodMissing.js';
import type { Violation } from '../../src/invariants/types.js';
import { BasicPodManager } from '../../src/kubelet/pod/podManager.js';
import { runScenario } from '../../src/run/run.js';
import { parseScenarioText } from '../../src/scenario/load.js';

afterEach(() => vi.restoreAllMocks());

const scenario = parseScenarioText(
  `name: static-pod-new-version-mirror
seed: 1
horizon: 6m
cluster:
  nodes: [node-a]
timeline:
  - at: 0s
    createPod: { pod: etcd, node: node-a, containers: 1, static: true, gracePeriod: 30s }
  - at: 20s
    deletePod: { pod: etcd }
  - at: 20s
    createPod: { pod: etcd, node: node-a, containers: 2, static: true, gracePeriod: 30s }
`,
  'static-pod-new-version-mirror.yaml',
);

const fired = (violations: readonly Violation[]) =>
  violations.filter((v) => v.invariant === 'mirror-pod-missing');

describe('mirror-pod-missing', () => {
  it("stays quiet when syncPod replaces the old version's mirror, for every kubelet", () => {
    for (const fixes of [Fixes.all(), Fixes.none(), Fixes.of('1.23'), Fixes.of('1.20')]) {
      expect(fired(runScenario(scenario, { fixes }).violations)).toEqual([]);
    }
  });

  it("fires when syncPod keeps the previous version's mirror pod (planted)", () => {
    vi.spyOn(BasicPodManager.prototype, 'isMirrorPodOf').mockImplementation(() => true);
    const v = fired(runScenario(scenario, { fixes: Fixes.all() }).violations);
    expect(v.map((x) => [x.node, x.pod])).toEqual([['node-a', 'etcd']]);
    expect(v[0]?.message).toMatch(
      /^static pod etcd \(uid \S+\) runs on node-a with no mirror pod in the API server at the end \(360\.00s\): a container running since \S+, no mirror of it ever created, the kubelet up since 0\.00s/,
    );
  });

  const created: Fact = {
    kind: 'apiPodCreated',
    atMs: 0,
    node: 'node-a',
    uid: 's1',
    pod: 'etcd',
    static: true,
    restartPolicy: 'Always',
    containers: ['c1'],
    startDelayMs: 0,
    volumes: [],
    gracePeriodSeconds: 30,
  };
  const kubelet: Fact = { kind: 'kubeletStarted', atMs: 0, node: 'node-a' };
  const started: Fact = {
    kind: 'containerStarted',
    atMs: 2_000,
    node: 'node-a',
    uid: 's1',
    pod: 'etcd',
    container: 'c1',
  };
  const mirror = (atMs: number, op: 'created' | 'deleted'): Fact => ({
    kind: 'mirrorPod',
    atMs,
    node: 'node-a',
    uid: 'm1',
    pod: 'etcd',
    op,
    staticUid: 's1',
  });
  const judge = (facts: readonly Fact[], endMs: number): Violation[] => {
    const c = new MirrorPodMissing();
    const out: Violation[] = [];
    for (const f of facts) if (c.kinds.includes(f.kind)) c.onFact(f);
    c.onEnd(endMs, (v) => out.push(v));
    return out;
  };

  it('judges a running static pod without a mirror for the whole bound', () => {
    expect(judge([kubelet, created, started], 2_000 + MIRROR_BOUND_MS)).toHaveLength(1);
    expect(judge([kubelet, created, started], 2_000 + MIRROR_BOUND_MS - 1)).toEqual([]);
    expect(judge([kubelet, created, started, mirror(3_000, 'created')], 600_000)).toEqual([]);
    // A mirror deleted restarts the clock.
    const gone = [kubelet, created, started, mirror(3_000, 'created'), mirror(100_000, 'deleted')];
    expect(judge(gone, 100_000 + MIRROR_BOUND_MS - 1)).toEqual([]);
    expect(judge(gone, 100_000 + MIRROR_BOUND_MS)).toHaveLength(1);
  });

  it('does not judge a static pod being terminated, one with nothing running, or a node without a kubelet', () => {
    const removed: Fact = {
      kind: 'apiPodDeletionRequested',
      atMs: 5_000,
      node: 'node-a',
      uid: 's1',
      pod: 'etcd',
      gracePeriodSeconds: 30,
    };
    expect(judge([kubelet, created, started, removed], 600_000)).toEqual([]);
    expect(judge([kubelet, created], 600_000)).toEqual([]);
    const stopped: Fact = { kind: 'kubeletStopped', atMs: 5_000, node: 'node-a' };
    expect(judge([kubelet, created, started, stopped], 600_000)).toEqual([]);
  });
});
