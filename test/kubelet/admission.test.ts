// Kubelet admission (src/kubelet/admission.ts, lifecycle/predicate.ts) and the two upstream fixes about
// rejected and terminal pods across a kubelet restart: #118497 (rejected-pod-deletion-after-restart) and
// #126343 (terminal-pod-not-readmitted), with #115331's status manager (status-deletes-finished-pods),
// whose podIsFinished gate made the first one a 1.27 regression.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Pod, RuntimePod } from '../../src/api/v1.js';
import type { Fact } from '../../src/facts.js';
import { Fixes, type KubeletName } from '../../src/fixes.js';
import { filterTerminalPodsToDelete } from '../../src/kubelet/admission.js';
import type { KubeClient } from '../../src/kubelet/kubeClient.js';
import { PredicateAdmitHandler, podMatchesNodeSelector } from '../../src/kubelet/lifecycle/predicate.js';
import { StatusManager } from '../../src/kubelet/status/statusManager.js';
import type { PodWorkerState } from '../../src/kubelet/types.js';
import { runScenario } from '../../src/run/run.js';
import { bundledScenariosDir } from '../../src/scenario/bundled.js';
import { loadScenarioFile, parseScenarioText } from '../../src/scenario/load.js';
import { stripSourcePositions } from '../../src/scenario/types.js';
import { scenarioToYaml } from '../../src/scenario/write.js';
import { ProcessGroup, Sim } from '../../src/sim/index.js';

function pod(uid: string, over: Partial<Pod['spec']> = {}, status: Partial<Pod['status']> = {}): Pod {
  return {
    metadata: { uid, name: uid, namespace: 'default', annotations: {} },
    spec: { nodeName: 'node-a', containers: [{ name: 'c1' }], volumes: [], restartPolicy: 'Always', ...over },
    status: { phase: 'Pending', containerStatuses: [], ...status },
  };
}

describe('the predicate admit handler (NodeAffinity on spec.nodeSelector)', () => {
  it('admits a pod whose selector the node labels satisfy, and one without a selector', () => {
    expect(podMatchesNodeSelector(pod('a'), {})).toBe(true);
    expect(
      podMatchesNodeSelector(pod('a', { nodeSelector: { pool: 'blue' } }), { pool: 'blue', x: '1' }),
    ).toBe(true);
    expect(podMatchesNodeSelector(pod('a', { nodeSelector: { pool: 'blue' } }), { pool: 'green' })).toBe(
      false,
    );
    expect(podMatchesNodeSelector(pod('a', { nodeSelector: { pool: '' } }), {})).toBe(false);
  });

  it("rejects with upstream's reason and PredicateFailureError text", () => {
    let labels: Record<string, string> = { pool: 'blue' };
    const h = new PredicateAdmitHandler(
      () => labels,
      undefined,
      () => true,
    );
    const p = pod('a', { nodeSelector: { pool: 'blue' } });
    expect(h.admit({ pod: p, otherPods: [] }).admit).toBe(true);
    // The labels are read at admission time: a kubelet restarted with other --node-labels.
    labels = { pool: 'green' };
    expect(h.admit({ pod: p, otherPods: [] })).toEqual({
      admit: false,
      reason: 'NodeAffinity',
      message: 'Predicate NodeAffinity failed',
    });
  });
});

describe('filterTerminalPodsToDelete (#118497)', () => {
  const deleted = (uid: string, phase: 'Failed' | 'Running' | 'Succeeded'): Pod => ({
    ...pod(uid, {}, { phase }),
    metadata: { ...pod(uid).metadata, deletionTimestamp: 1 },
  });
  const runtimePod = (id: string): RuntimePod =>
    ({ id, name: id, namespace: 'default', containers: [], sandboxes: [] }) as unknown as RuntimePod;

  it('keeps deleted terminal pods that no worker knows and the runtime does not run, in UID order', () => {
    const working = new Map<string, PodWorkerState>([['known', 'TerminatedPod']]);
    const pods = [
      deleted('z', 'Failed'),
      deleted('a', 'Succeeded'),
      deleted('running', 'Running'), // non-terminal: maybe a Pending pod not yet with a worker
      pod('live', {}, { phase: 'Failed' }), // no deletionTimestamp
      deleted('known', 'Failed'), // the workers drive it
      deleted('orphan', 'Failed'), // its containers run: the orphan loop kills it
    ];
    const out = filterTerminalPodsToDelete(pods, [runtimePod('orphan')], working);
    expect(out.map((p) => p.metadata.uid)).toEqual(['a', 'z']);
  });
});

describe('StatusManager: #115331 (status-deletes-finished-pods) and needsReconcile', () => {
  function world(apiPod: () => Pod, finishedOnly: boolean) {
    const sim = new Sim(1);
    const calls: string[] = [];
    const unused = (): never => {
      throw new Error('unexpected API call');
    };
    const client: KubeClient = {
      // biome-ignore lint/correctness/useYield: a fake API answering at once
      getPod: function* () {
        return apiPod();
      },
      // biome-ignore lint/correctness/useYield: a fake API answering at once
      patchPodStatus: function* (uid, status) {
        calls.push(`patch ${uid} ${status.phase}`);
        return undefined;
      },
      // biome-ignore lint/correctness/useYield: a fake API answering at once
      deletePod: function* (_ns, _name, uid) {
        calls.push(`delete ${uid}`);
        return undefined;
      },
      getNode: unused,
      patchNodeStatus: unused,
      renewLease: unused,
      getVolumesAttached: unused,
      createMirrorPod: unused,
      deleteMirrorPod: unused,
    };
    const sm = new StatusManager(
      sim,
      new ProcessGroup('kubelet'),
      client,
      { getPodByUID: () => apiPod() },
      {
        podResourcesAreReclaimed: () => true,
        podCouldHaveRunningContainers: () => false,
        deletesFinishedPodsOnly: () => finishedOnly,
      },
    );
    sm.start();
    return { sim, sm, calls };
  }
  const deleting = (phase: 'Failed' | 'Running'): Pod => ({
    ...pod('u1', {}, { phase }),
    metadata: { ...pod('u1').metadata, deletionTimestamp: 1 },
  });

  it('before #115331 a reclaimed deleted pod is deleted at its first sync; after it only once TerminatePod ran', () => {
    const before = world(() => deleting('Failed'), false);
    before.sm.setPodStatus(deleting('Failed'), { phase: 'Failed', containerStatuses: [] });
    before.sim.run({ horizonMs: 5_000, maxEvents: 10_000 });
    expect(before.calls).toEqual(['patch u1 Failed', 'delete u1']);

    const after = world(() => deleting('Failed'), true);
    after.sm.setPodStatus(deleting('Failed'), { phase: 'Failed', containerStatuses: [] });
    after.sim.run({ horizonMs: 25_000, maxEvents: 10_000 });
    expect(after.calls).toEqual(['patch u1 Failed']);
    after.sm.terminatePod(deleting('Failed'));
    after.sim.run({ horizonMs: 30_000, maxEvents: 10_000 });
    expect(after.calls).toEqual(['patch u1 Failed', 'patch u1 Failed', 'delete u1']);
  });

  it('TerminatePod marks a Running pod Failed with #115331, keeps its phase without it', () => {
    for (const [finishedOnly, phase] of [
      [true, 'Failed'],
      [false, 'Running'],
    ] as const) {
      const { sm } = world(() => deleting('Running'), finishedOnly);
      sm.terminatePod(deleting('Running'));
      expect(sm.getPodStatus('u1')?.phase, String(finishedOnly)).toBe(phase);
    }
  });

  it('podIsFinished stays set: a later status without it still lets the pod be deleted', () => {
    const { sim, sm, calls } = world(() => deleting('Failed'), true);
    sm.terminatePod(deleting('Failed'));
    sm.setPodStatus(deleting('Failed'), { phase: 'Failed', reason: 'x', containerStatuses: [] });
    sim.run({ horizonMs: 5_000, maxEvents: 10_000 });
    expect(calls.at(-1)).toBe('delete u1');
  });

  it('needsReconcile sends a cached status again while the API (as the pod manager saw it) differs', () => {
    // The API keeps reporting Pending (its watch never caught up): every 10 s batch patches again.
    const { sim, sm, calls } = world(() => pod('u1'), true);
    sm.setPodStatus(pod('u1'), { phase: 'Failed', containerStatuses: [] });
    sim.run({ horizonMs: 25_000, maxEvents: 10_000 });
    expect(calls).toEqual(['patch u1 Failed', 'patch u1 Failed', 'patch u1 Failed']);
  });
});

describe('scenario format: node labels and nodeSelector', () => {
  const text = `
name: labels
cluster:
  nodes:
    - {name: node-a, labels: {zone: z1, pool: blue}}
    - node-b
timeline:
  - at: 0s
    createPod: {pod: web, node: node-a, containers: 1, nodeSelector: {pool: blue}}
  - at: 5s
    restartKubelet: {node: node-a, downFor: 1s, labels: {}}
  - at: 9s
    restartKubelet: {node: node-b, downFor: 1s}
`;

  it('keeps labels with their keys sorted, an empty restart label set, and round-trips', () => {
    const s = parseScenarioText(text, 'labels.yaml');
    expect(s.nodeLabels).toEqual({ 'node-a': { pool: 'blue', zone: 'z1' } });
    expect(Object.keys(s.nodeLabels?.['node-a'] ?? {})).toEqual(['pool', 'zone']);
    const [create, restartA, restartB] = s.timeline.map((e) => e.action);
    expect(create?.kind === 'createPod' && create.nodeSelector).toEqual({ pool: 'blue' });
    expect(restartA?.kind === 'restartKubelet' && restartA.labels).toEqual({});
    expect(restartB?.kind === 'restartKubelet' && restartB.labels).toBeUndefined();
    const again = parseScenarioText(scenarioToYaml(s), 'again.yaml');
    expect(stripSourcePositions(again)).toEqual(stripSourcePositions(s));
  });

  it('refuses a malformed label key or value and a number, at its position', () => {
    const bad = (labels: string) =>
      `name: bad\ncluster:\n  nodes:\n    - {name: node-a, labels: ${labels}}\ntimeline: []\n`;
    expect(() => parseScenarioText(bad('{"-pool": blue}'), 'b.yaml')).toThrow(
      /^b\.yaml:4:\d+: cluster\.nodes\[0\]\.labels.*expected a label key/,
    );
    expect(() => parseScenarioText(bad('{pool: "blue green"}'), 'b.yaml')).toThrow(/expected a label value/);
    expect(() => parseScenarioText(bad('{zone: 1}'), 'b.yaml')).toThrow(/quote numbers and booleans/);
  });
});

describe('the bundled scenarios, switch on and off', () => {
  const bundled = (name: string) => loadScenarioFile(join(bundledScenariosDir(), `${name}.yaml`));
  const run = (name: string, kubelet: KubeletName, off: readonly string[] = []) => {
    let fixes = Fixes.of(kubelet);
    for (const id of off) fixes = fixes.with(id as Parameters<Fixes['with']>[0], false);
    const r = runScenario(bundled(name), { fixes, recordFacts: true });
    return { violations: r.violations.map((v) => v.invariant), facts: (r.facts ?? []) as readonly Fact[] };
  };
  const kinds = (facts: readonly Fact[], kind: Fact['kind']) => facts.filter((f) => f.kind === kind);

  it('#118497: the pod rejected after the restart is deleted by the kubelet; without it, never', () => {
    const on = run('rejected-pod-deleted-during-restart', '1.27');
    expect(on.violations).toEqual([]);
    expect(kinds(on.facts, 'podRejected')).toHaveLength(1);
    expect(kinds(on.facts, 'podAdmitted')).toHaveLength(0);
    expect(kinds(on.facts, 'apiPodDeleted').map((f) => f.kind === 'apiPodDeleted' && f.by)).toEqual([
      'kubelet',
    ]);
    const off = run('rejected-pod-deleted-during-restart', '1.27', ['rejected-pod-deletion-after-restart']);
    expect(off.violations).toEqual(['termination-stuck']);
    expect(kinds(off.facts, 'apiPodDeleted')).toHaveLength(0);
    // The phase is written: the pod is Failed and Terminating, and no worker ever heard of it.
    expect(
      kinds(off.facts, 'apiPodPhase').map((f) => f.kind === 'apiPodPhase' && [f.phase, f.reason]),
    ).toEqual([['Failed', 'NodeAffinity']]);
    // Without #115331's gate too (1.26's status manager) the reclaimed pod is deleted anyway.
    const old = run('rejected-pod-deleted-during-restart', '1.27', [
      'rejected-pod-deletion-after-restart',
      'status-deletes-finished-pods',
    ]);
    expect(old.violations).toEqual([]);
  });

  it('#126343: a completed pod is not admitted again after a restart; without it, it is rejected Failed', () => {
    const on = run('completed-pod-readmitted-after-restart', '1.28');
    expect(on.violations).toEqual([]);
    expect(kinds(on.facts, 'podRejected')).toHaveLength(0);
    const off = run('completed-pod-readmitted-after-restart', '1.28', ['terminal-pod-not-readmitted']);
    expect(off.violations).toEqual(['pod-status-regressed']);
    expect(kinds(off.facts, 'podRejected').map((f) => f.kind === 'podRejected' && f.message)).toEqual([
      'Predicate NodeAffinity failed',
    ]);
    // Release-1.20 ran admission only for a pod that was not terminated (podIsTerminated).
    expect(kinds(run('completed-pod-readmitted-after-restart', '1.20').facts, 'podRejected')).toHaveLength(0);
  });

  it('a pod whose selector never matched is rejected in every release and never runs', () => {
    const text = `
name: never-admitted
horizon: 1m
cluster:
  nodes: [{name: node-a, labels: {pool: blue}}]
timeline:
  - at: 5s
    createPod: {pod: web, node: node-a, containers: 1, nodeSelector: {pool: green}}
`;
    for (const kubelet of ['1.20', '1.23', '1.31'] as const) {
      const r = runScenario(parseScenarioText(text, 'n.yaml'), {
        fixes: Fixes.of(kubelet),
        recordFacts: true,
      });
      const facts = r.facts ?? [];
      expect(
        r.violations.map((v) => v.invariant),
        kubelet,
      ).toEqual([]);
      expect(
        facts.some((f) => f.kind === 'containerStarted'),
        kubelet,
      ).toBe(false);
      expect(
        facts.some((f) => f.kind === 'podRejected'),
        kubelet,
      ).toBe(true);
    }
  });
});
