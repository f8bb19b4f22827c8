// pod-phase-not-terminal: the planted bug it exists for (the status manager drops a Failed phase, so a
// Never pod whose container failed stays Running in the API server for ever) fires it in a run that is
// clean without the bug; and the checker's rules on synthetic facts: OnFailure waits for exit 0, a start
// failure ends a Never container, a kill or a deletion request excuses the pod.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { PodStatus } from '../../src/api/v1.js';
import type { Fact } from '../../src/facts.js';
import { Fixes } from '../../src/fixes.js';
import { PodPhaseNotTerminal } from '../../src/invariants/index.js';
import { POD_PHASE_BOUND_MS } from '../../src/invariants/podPhaseNotTerminal.js';
import type { Violation } from '../../src/invariants/types.js';
import { StatusManager } from '../../src/kubelet/status/statusManager.js';
import { runScenario } from '../../src/run/run.js';
import { parseScenarioText } from '../../src/scenario/load.js';

afterEach(() => vi.restoreAllMocks());

const scenario = parseScenarioText(
  `name: never-pod-fails
seed: 1
horizon: 4m
cluster:
  nodes: [node-a]
timeline:
  - at: 0s
    createPod: { pod: job, node: node-a, containers: 1, restartPolicy: Never }
  - at: 20s
    crashContainer: { pod: job, exitCode: 3 }
`,
  'never-pod-fails.yaml',
);

const fired = (violations: readonly Violation[]) =>
  violations.filter((v) => v.invariant === 'pod-phase-not-terminal');

describe('pod-phase-not-terminal', () => {
  it('stays quiet when the failed pod is reported Failed, for every kubelet', () => {
    for (const fixes of [Fixes.all(), Fixes.none(), Fixes.of('1.23')]) {
      expect(fired(runScenario(scenario, { fixes }).violations)).toEqual([]);
    }
  });

  it('fires when the status manager drops the Failed phase (planted)', () => {
    const setPodStatus = StatusManager.prototype.setPodStatus;
    vi.spyOn(StatusManager.prototype, 'setPodStatus').mockImplementation(function (
      this: StatusManager,
      pod,
      status: PodStatus,
    ) {
      setPodStatus.call(this, pod, status.phase === 'Failed' ? { ...status, phase: 'Running' } : status);
    });
    // Without #115331's TerminatePod, which from 1.27 marks a pod it finishes Failed whatever it was told.
    const fixes = Fixes.all().with('status-deletes-finished-pods', false);
    const v = fired(runScenario(scenario, { fixes }).violations);
    expect(v.map((x) => [x.node, x.pod])).toEqual([['node-a', 'job']]);
    expect(v[0]?.message).toMatch(
      /^pod job \(uid job-1, restartPolicy Never\) has had every container ended for good since 20\.00s \(exit codes c1=3\) but the API server still shows no Failed or Succeeded phase at the end \(240\.00s\)/,
    );
  });

  const created = (restartPolicy: string): Fact => ({
    kind: 'apiPodCreated',
    atMs: 0,
    node: 'node-a',
    uid: 'u1',
    pod: 'job',
    static: false,
    restartPolicy,
    containers: ['a', 'b'],
    startDelayMs: 0,
    volumes: [],
    gracePeriodSeconds: 30,
  });
  const kubelet: Fact = { kind: 'kubeletStarted', atMs: 0, node: 'node-a' };
  const exited = (atMs: number, container: string, exitCode: number): Fact => ({
    kind: 'containerExited',
    atMs,
    node: 'node-a',
    uid: 'u1',
    pod: 'job',
    container,
    exitCode,
  });
  const judge = (facts: readonly Fact[], endMs: number): Violation[] => {
    const c = new PodPhaseNotTerminal();
    const out: Violation[] = [];
    for (const f of facts) if (c.kinds.includes(f.kind)) c.onFact(f);
    c.onEnd(endMs, (v) => out.push(v));
    return out;
  };

  it('judges a pod once every container ended for good by its restart policy', () => {
    const never = [kubelet, created('Never'), exited(5_000, 'a', 0), exited(9_000, 'b', 1)];
    expect(judge(never, 9_000 + POD_PHASE_BOUND_MS)).toHaveLength(1);
    expect(judge(never, 9_000 + POD_PHASE_BOUND_MS - 1)).toEqual([]);
    expect(judge(never.slice(0, 3), 600_000)).toEqual([]); // b still runs
    const phase: Fact = {
      kind: 'apiPodPhase',
      atMs: 10_000,
      node: '',
      uid: 'u1',
      pod: 'job',
      phase: 'Failed',
      restartable: false,
    };
    expect(judge([...never, phase], 600_000)).toEqual([]);
    // OnFailure restarts b (exit 1): not done; once b exits 0 it is.
    const onFailure = [kubelet, created('OnFailure'), exited(5_000, 'a', 0), exited(9_000, 'b', 1)];
    expect(judge(onFailure, 600_000)).toEqual([]);
    expect(judge([...onFailure, exited(30_000, 'b', 0)], 30_000 + POD_PHASE_BOUND_MS)).toHaveLength(1);
    expect(
      judge([kubelet, created('Always'), exited(5_000, 'a', 0), exited(9_000, 'b', 0)], 600_000),
    ).toEqual([]);
  });

  it('does not judge a pod the kubelet stopped, one asked to go, or a node without a kubelet', () => {
    const never = [kubelet, created('Never'), exited(5_000, 'a', 0), exited(9_000, 'b', 1)];
    const stopping: Fact = {
      kind: 'containerStopping',
      atMs: 4_000,
      node: 'node-a',
      uid: 'u1',
      pod: 'job',
      container: 'b',
      gracePeriodSeconds: 30,
    };
    expect(judge([...never, stopping], 600_000)).toEqual([]);
    const deleting: Fact = {
      kind: 'apiPodDeletionRequested',
      atMs: 10_000,
      node: '',
      uid: 'u1',
      pod: 'job',
      gracePeriodSeconds: 30,
    };
    expect(judge([...never, deleting], 600_000)).toEqual([]);
    const stopped: Fact = { kind: 'kubeletStopped', atMs: 10_000, node: 'node-a' };
    expect(judge([...never, stopped], 600_000)).toEqual([]);
  });
});
