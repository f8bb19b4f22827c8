// The rules run-to-completion pods (the Job pattern) bring: pod-deleted-without-request,
// container-restarted-against-policy and pod-status-regressed's terminal-pod rule. Synthetic facts: each
// fires exactly, near-misses do not; then planted bugs in the kubelet port (not in the ground truth): a
// small scenario with the ported code as it is (nothing fires) and with one plausible mistake put back
// (the invariant fires), restoring the code afterwards.
import { afterEach, describe, expect, it } from 'vitest';
import type { Pod, PodStatus, RuntimePodStatus } from '../../src/api/v1.js';
import type { Fact, FactKind } from '../../src/facts.js';
import { Fixes } from '../../src/fixes.js';
import {
  ContainerRestartedAgainstPolicy,
  PodDeletedWithoutRequest,
  PodStatusRegressed,
} from '../../src/invariants/index.js';
import type { Checker, Violation } from '../../src/invariants/types.js';
import { KubeGenericRuntimeManager } from '../../src/kubelet/kuberuntime/kuberuntimeManager.js';
import { StatusManager } from '../../src/kubelet/status/statusManager.js';
import { runScenario } from '../../src/run/run.js';
import { parseScenarioText } from '../../src/scenario/load.js';

type FactOf<K extends FactKind> = Extract<Fact, { kind: K }>;
type Fields<K extends FactKind> = Omit<FactOf<K>, 'kind' | 'atMs' | 'node'> & { node?: string };

const A = 'node-a';
const JOB = { pod: 'job', uid: 'uid-job' } as const;

function fact<K extends FactKind>(kind: K, atMs: number, fields: Fields<K>): FactOf<K> {
  return { node: A, ...fields, kind, atMs } as unknown as FactOf<K>;
}

function run(checker: Checker, facts: readonly Fact[]): Violation[] {
  const out: Violation[] = [];
  for (const f of facts) checker.onFact(f, (v) => out.push(v));
  checker.onEnd(600_000, (v) => out.push(v));
  return out;
}

const created = (restartPolicy: string, isStatic = false) =>
  fact('apiPodCreated', 0, {
    ...JOB,
    static: isStatic,
    restartPolicy,
    containers: ['c1'],
    startDelayMs: 0,
    volumes: [],
    gracePeriodSeconds: 30,
  });

describe('pod-deleted-without-request', () => {
  const deleted = (by: 'kubelet' | 'user-force') => fact('apiPodDeleted', 9_000, { ...JOB, by });
  const requested = fact('apiPodDeletionRequested', 5_000, { ...JOB, gracePeriodSeconds: 30 });

  it('fires when the kubelet deletes a pod nobody asked to delete', () => {
    const v = run(new PodDeletedWithoutRequest(), [created('Never'), deleted('kubelet')]);
    expect(v).toHaveLength(1);
    expect(v[0]).toMatchObject({
      invariant: 'pod-deleted-without-request',
      uid: JOB.uid,
      atMs: 9_000,
      node: A,
    });
    expect(v[0]?.causes.map((f) => f.kind)).toEqual(['apiPodCreated', 'apiPodDeleted']);
  });

  it('does not fire after a request, for a force delete, or for another UID of the name', () => {
    expect(run(new PodDeletedWithoutRequest(), [created('Never'), requested, deleted('kubelet')])).toEqual(
      [],
    );
    expect(run(new PodDeletedWithoutRequest(), [created('Never'), requested, deleted('user-force')])).toEqual(
      [],
    );
    // The request was for the old UID; the new UID of the same name is deleted without one.
    const again = { ...created('Never'), uid: 'uid-job-2', atMs: 10_000 };
    const v = run(new PodDeletedWithoutRequest(), [
      created('Never'),
      requested,
      deleted('kubelet'),
      again,
      { ...deleted('kubelet'), uid: 'uid-job-2', atMs: 20_000 },
    ]);
    expect(v.map((x) => x.uid)).toEqual(['uid-job-2']);
  });
});

describe('container-restarted-against-policy', () => {
  const c = { ...JOB, container: 'c1' };
  const attempt = (atMs: number) => [
    fact('containerCreated', atMs, c),
    fact('containerStarted', atMs + 10, c),
  ];
  const exited = (atMs: number, exitCode: number) => fact('containerExited', atMs, { ...c, exitCode });

  it('fires for a start after an own exit under Never, and after exit 0 under OnFailure', () => {
    for (const [policy, code] of [
      ['Never', 1],
      ['Never', 0],
      ['OnFailure', 0],
    ] as const) {
      const v = run(new ContainerRestartedAgainstPolicy(), [
        created(policy),
        ...attempt(100),
        exited(5_000, code),
        ...attempt(6_000),
      ]);
      expect(v, `${policy} ${code}`).toHaveLength(1);
      expect(v[0]).toMatchObject({ invariant: 'container-restarted-against-policy', atMs: 6_010 });
      expect(v[0]?.causes.map((f) => f.kind)).toEqual(['containerExited', 'containerStarted']);
    }
  });

  it('does not fire for Always, OnFailure after a failure, a kill, or once every attempt was removed', () => {
    const ok = (facts: Fact[]) => expect(run(new ContainerRestartedAgainstPolicy(), facts)).toEqual([]);
    ok([created('Always'), ...attempt(100), exited(5_000, 0), ...attempt(6_000)]);
    ok([created('OnFailure'), ...attempt(100), exited(5_000, 2), ...attempt(6_000)]);
    // The kubelet stopped it (a kill ends the lifecycle; a static pod's UID may run again).
    ok([
      created('Never', true),
      ...attempt(100),
      fact('containerStopping', 4_000, { ...c, gracePeriodSeconds: 30 }),
      exited(5_000, 143),
      ...attempt(6_000),
    ]);
    // Stopped before it started: it never ran.
    ok([created('Never'), fact('containerCreated', 100, c), exited(200, 0), ...attempt(6_000)]);
    // Garbage-collected: upstream sees no status and starts it ("all historical containers were GC'd").
    ok([
      created('Never'),
      ...attempt(100),
      exited(5_000, 0),
      fact('containerRemoved', 5_500, c),
      ...attempt(6_000),
    ]);
  });

  it('fires while an older attempt was removed but the exited one is still held', () => {
    const v = run(new ContainerRestartedAgainstPolicy(), [
      created('OnFailure'),
      ...attempt(100),
      exited(1_000, 1),
      ...attempt(2_000),
      exited(5_000, 0),
      fact('containerRemoved', 5_500, c),
      ...attempt(6_000),
    ]);
    expect(v).toHaveLength(1);
  });
});

describe('pod-status-regressed in a terminal pod', () => {
  const states = (atMs: number, state: 'terminated' | 'waiting', restartPolicy = 'Always') =>
    fact('apiContainerStates', atMs, {
      ...JOB,
      restartPolicy,
      containers: [
        state === 'terminated'
          ? { name: 'c1', state, reason: 'Completed', exitCode: 137 }
          : { name: 'c1', state, reason: 'ContainerCreating' },
      ] as never,
    });
  const phase = (atMs: number, p: 'Running' | 'Failed') =>
    fact('apiPodPhase', atMs, { ...JOB, phase: p, restartable: false });

  it('fires for terminated -> waiting once the phase is terminal, whatever the policy', () => {
    const v = run(new PodStatusRegressed(), [
      phase(1_000, 'Failed'),
      states(1_000, 'terminated'),
      states(9_000, 'waiting'),
    ]);
    expect(v).toHaveLength(1);
    expect(v[0]?.message).toMatch(/in a pod of a terminal phase/);
  });

  it('does not fire for an Always pod that is not terminal (a restart)', () => {
    expect(
      run(new PodStatusRegressed(), [
        phase(1_000, 'Running'),
        states(1_000, 'terminated'),
        states(9_000, 'waiting'),
      ]),
    ).toEqual([]);
  });
});

describe('planted bugs', () => {
  const fired = (lines: readonly string[], id: string): string[] =>
    runScenario(parseScenarioText(lines.join('\n'), 'job.yaml'), { fixes: Fixes.all() })
      .violations.filter((v) => v.invariant === id)
      .map((v) => `${v.uid}@${v.atMs}`);
  // With a second container still running the pod is not terminal, so the worker keeps syncing it.
  const job = (policy: string, containers = 1) => [
    'name: job',
    'seed: 1',
    'horizon: 2m',
    'cluster: {nodes: [node-a]}',
    'timeline:',
    '  - at: 0s',
    `    createPod: {pod: job, node: node-a, containers: ${containers}, restartPolicy: ${policy}}`,
    '  - at: 5s',
    '    crashContainer: {pod: job, exitCode: 0}',
  ];

  type CanBeDeleted = (this: StatusManager, pod: Pod, status: { readonly status: PodStatus }) => boolean;
  type SyncPod = KubeGenericRuntimeManager['syncPod'];
  const smProto = StatusManager.prototype as unknown as { canBeDeleted: CanBeDeleted };
  const rtProto = KubeGenericRuntimeManager.prototype as unknown as { syncPod: SyncPod };
  const originalCanBeDeleted = smProto.canBeDeleted;
  const originalSyncPod = rtProto.syncPod;
  afterEach(() => {
    smProto.canBeDeleted = originalCanBeDeleted;
    rtProto.syncPod = originalSyncPod;
  });

  it('pod-deleted-without-request: canBeDeleted without the deletionTimestamp check', () => {
    expect(fired(job('Never'), 'pod-deleted-without-request')).toEqual([]);
    // The mistake: only mirror pods are refused; a finished pod nobody deleted is deleted once reclaimed.
    smProto.canBeDeleted = function (pod, status) {
      if (pod.metadata.annotations['kubernetes.io/config.mirror'] !== undefined) return false;
      return (
        this as unknown as { podDeletionSafety: { podResourcesAreReclaimed(p: Pod, s: PodStatus): boolean } }
      ).podDeletionSafety.podResourcesAreReclaimed(pod, status.status);
    };
    expect(fired(job('Never'), 'pod-deleted-without-request')).toHaveLength(1);
  });

  it('container-restarted-against-policy: the runtime manager syncs with the default restart policy', () => {
    expect(fired(job('OnFailure', 2), 'container-restarted-against-policy')).toEqual([]);
    // The mistake: SyncPod reads a defaulted copy of the spec (restartPolicy Always) instead of the pod's.
    rtProto.syncPod = function (pod: Pod, podStatus: RuntimePodStatus | undefined) {
      return originalSyncPod.call(
        this,
        { ...pod, spec: { ...pod.spec, restartPolicy: 'Always' } },
        podStatus,
      );
    };
    expect(fired(job('OnFailure', 2), 'container-restarted-against-policy')).toHaveLength(1);
  });
});
