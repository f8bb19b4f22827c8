// sandbox-outlived-pod: the planted bug it exists for (killPodWithSyncResult skips the pod's sandboxes, so
// a deleted pod's sandbox stays ready for ever) fires it in runs that are clean without the bug, for the
// fixed, legacy, 1.23 and 1.20 kubelets; and the checker's rules on synthetic facts: the bound counts from
// the latest of the pod's leaving, the sandbox's creation and the kubelet's start, plus the pod's grace.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Fact } from '../../src/facts.js';
import { Fixes } from '../../src/fixes.js';
import { SandboxOutlivedPod } from '../../src/invariants/index.js';
import { SANDBOX_STOP_BOUND_MS } from '../../src/invariants/sandboxOutlivedPod.js';
import type { Violation } from '../../src/invariants/types.js';
import { KubeGenericRuntimeManager } from '../../src/kubelet/kuberuntime/kuberuntimeManager.js';
import { runScenario } from '../../src/run/run.js';
import { parseScenarioText } from '../../src/scenario/load.js';

afterEach(() => vi.restoreAllMocks());

const scenario = parseScenarioText(
  `name: deleted-pods
seed: 1
horizon: 4m
cluster:
  nodes: [node-a]
timeline:
  - at: 0s
    createPod: { pod: web, node: node-a, containers: 2, gracePeriod: 5s }
  - at: 0s
    createPod: { pod: proxy, node: node-a, containers: 1, static: true, gracePeriod: 3s }
  - at: 0s
    createPod: { pod: db, node: node-a, containers: 1 }
  - at: 20s
    deletePod: { pod: web }
  - at: 25s
    deletePod: { pod: proxy }
  - at: 30s
    forceDeletePod: { pod: db }
`,
  'deleted-pods.yaml',
);

const fired = (violations: readonly Violation[]) =>
  violations.filter((v) => v.invariant === 'sandbox-outlived-pod');

describe('sandbox-outlived-pod', () => {
  it('stays quiet when every deleted pod is killed, for every kubelet', () => {
    for (const fixes of [Fixes.all(), Fixes.none(), Fixes.of('1.23'), Fixes.of('1.20')]) {
      const r = runScenario(scenario, { fixes, recordFacts: true });
      expect(fired(r.violations)).toEqual([]);
      // The runtime's ground truth: three sandboxes created, three stopped.
      expect((r.facts ?? []).filter((f) => f.kind === 'sandboxStopped').map((f) => f.pod)).toHaveLength(3);
    }
  });

  it('fires when KillPod leaves the sandboxes running (planted), for every kubelet', () => {
    const killPod = KubeGenericRuntimeManager.prototype.killPod;
    vi.spyOn(KubeGenericRuntimeManager.prototype, 'killPod').mockImplementation(function (
      this: KubeGenericRuntimeManager,
      pod,
      runningPod,
      gracePeriodOverride,
      source,
    ) {
      return killPod.call(this, pod, { ...runningPod, sandboxes: [] }, gracePeriodOverride, source);
    });
    for (const fixes of [Fixes.all(), Fixes.none(), Fixes.of('1.23'), Fixes.of('1.20')]) {
      const v = fired(runScenario(scenario, { fixes }).violations);
      expect(v.map((x) => x.pod).sort()).toEqual(['db', 'proxy', 'web']);
    }
    const v = fired(runScenario(scenario, { fixes: Fixes.all() }).violations);
    expect(v.find((x) => x.pod === 'db')?.message).toMatch(
      /^pod db \(uid db-1\) left the API server at 30\.00s \(force-deleted\), but its sandbox on node-a \(created at [0-9.]+s\) is still ready at the end \(240\.00s; due stopped by 180\.00s, grace 30s, its kubelet up since 0\.00s\)/,
    );
    expect(v.find((x) => x.pod === 'proxy')?.message).toContain('had its static manifest removed at 25.00s');
  });

  const F = { node: 'node-a', uid: 'u1', pod: 'web' } as const;
  const created = (atMs: number, isStatic = false, graceS = 10): Fact => ({
    kind: 'apiPodCreated',
    atMs,
    ...F,
    static: isStatic,
    restartPolicy: 'Always',
    containers: ['c1'],
    startDelayMs: 0,
    volumes: [],
    gracePeriodSeconds: graceS,
  });
  const kubelet = (atMs: number): Fact => ({ kind: 'kubeletStarted', atMs, node: 'node-a' });
  const sandbox = (atMs: number): Fact => ({ kind: 'sandboxCreated', atMs, ...F });
  const stopped = (atMs: number): Fact => ({ kind: 'sandboxStopped', atMs, ...F });
  const deleted = (atMs: number): Fact => ({ kind: 'apiPodDeleted', atMs, ...F, by: 'user-force' });
  const judge = (facts: readonly Fact[], endMs: number): Violation[] => {
    const c = new SandboxOutlivedPod();
    const out: Violation[] = [];
    for (const f of facts) if (c.kinds.includes(f.kind)) c.onFact(f);
    c.onEnd(endMs, (v) => out.push(v));
    return out;
  };

  it('judges a ready sandbox once the pod left, its grace and the bound passed', () => {
    const left = [kubelet(0), created(0), sandbox(200), deleted(20_000)];
    const due = 20_000 + 10_000 + SANDBOX_STOP_BOUND_MS;
    expect(judge(left, due - 1)).toEqual([]);
    expect(judge(left, due)).toHaveLength(1);
    expect(judge([...left, stopped(25_000)], 10 * due)).toEqual([]);
    // A deletion request with a longer grace extends it.
    const longer: Fact = { kind: 'apiPodDeletionRequested', atMs: 19_000, ...F, gracePeriodSeconds: 60 };
    expect(judge([...left, longer], due)).toEqual([]);
    // Still in the API server: not judged.
    expect(judge(left.slice(0, 3), 10 * due)).toEqual([]);
  });

  it('counts from a kubelet restart and a late sandbox; not judged with the kubelet down', () => {
    const base = [kubelet(0), created(0), sandbox(200), deleted(20_000)];
    const restarted: Fact[] = [
      ...base,
      { kind: 'kubeletStopped', atMs: 21_000, node: 'node-a' },
      kubelet(90_000),
    ];
    expect(judge(restarted, 90_000 + 10_000 + SANDBOX_STOP_BOUND_MS - 1)).toEqual([]);
    expect(judge(restarted, 90_000 + 10_000 + SANDBOX_STOP_BOUND_MS)).toHaveLength(1);
    expect(judge(restarted.slice(0, -1), 10_000_000)).toEqual([]);
    // A sandbox created after the pod left (a sync in flight) gets the bound from its creation.
    const late = [kubelet(0), created(0), deleted(20_000), sandbox(40_000)];
    expect(judge(late, 40_000 + 10_000 + SANDBOX_STOP_BOUND_MS - 1)).toEqual([]);
    expect(judge(late, 40_000 + 10_000 + SANDBOX_STOP_BOUND_MS)).toHaveLength(1);
  });

  it('a static pod put back from the same manifest (same UID) is a new lifecycle', () => {
    const removed: Fact = { kind: 'apiPodDeletionRequested', atMs: 20_000, ...F, gracePeriodSeconds: 10 };
    const facts = [kubelet(0), created(0, true), sandbox(200), removed];
    expect(judge(facts, 10_000_000)).toHaveLength(1);
    expect(judge([...facts, stopped(25_000), created(30_000, true), sandbox(30_200)], 10_000_000)).toEqual(
      [],
    );
  });
});
