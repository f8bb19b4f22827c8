// pod-never-started, fed with facts as a run publishes them: the pattern it exists for (a static pod
// update that never starts, #107733 without #107900) and the near-misses that must stay quiet.
import { describe, expect, it } from 'vitest';
import { World } from '../../src/cluster/world.js';
import type { Fact, FactKind } from '../../src/facts.js';
import { Fixes } from '../../src/fixes.js';
import {
  POD_START_BOUND_MS,
  PodNeverStarted,
  START_ERROR_ALLOWANCE_MS,
} from '../../src/invariants/podNeverStarted.js';
import type { Checker, Violation } from '../../src/invariants/types.js';
import { runScenario } from '../../src/run/run.js';
import { parseScenarioText } from '../../src/scenario/load.js';
import { park } from '../../src/sim/index.js';

type FactOf<K extends FactKind> = Extract<Fact, { kind: K }>;
type Fields<K extends FactKind> = Omit<FactOf<K>, 'kind' | 'atMs' | 'node'> & { node?: string };

const A = 'node-a';

function fact<K extends FactKind>(kind: K, atMs: number, fields: Fields<K>): FactOf<K> {
  return { node: A, ...fields, kind, atMs } as unknown as FactOf<K>;
}

function run(facts: readonly Fact[], endMs: number, faults = false): Violation[] {
  const checker: Checker = new PodNeverStarted({ faultsActiveAtEnd: () => faults });
  const out: Violation[] = [];
  for (const f of [...facts].sort((a, b) => a.atMs - b.atMs)) checker.onFact(f, (v) => out.push(v));
  checker.onEnd(endMs, (v) => out.push(v));
  return out;
}

const pod = (name: string, uid: string) => ({ pod: name, uid });
function created(
  atMs: number,
  p: { pod: string; uid: string },
  o: {
    static?: boolean;
    containers?: string[];
    volumes?: string[];
    startDelayMs?: number;
    policy?: string;
  } = {},
): FactOf<'apiPodCreated'> {
  return fact('apiPodCreated', atMs, {
    ...p,
    static: o.static ?? false,
    restartPolicy: o.policy ?? 'Always',
    containers: o.containers ?? ['c1'],
    startDelayMs: o.startDelayMs ?? 0,
    volumes: o.volumes ?? [],
    gracePeriodSeconds: 30,
  });
}
const admitted = (atMs: number, p: { pod: string; uid: string }) => fact('podAdmitted', atMs, p);
const started = (atMs: number, p: { pod: string; uid: string }, container = 'c1') =>
  fact('containerStarted', atMs, { ...p, container });
const exited = (atMs: number, p: { pod: string; uid: string }, container = 'c1', exitCode = 137) =>
  fact('containerExited', atMs, { ...p, container, exitCode });
const phase = (
  atMs: number,
  p: { pod: string; uid: string },
  ph: 'sync' | 'terminating' | 'terminated' | 'finished',
) => fact('podWorkerPhase', atMs, { ...p, phase: ph });

// ---- the rapid static pod update of #107733 (what #107900 fixed) ----
const ETCD_A = pod('etcd', 'static-etcd-a');
const ETCD_B = pod('etcd', 'static-etcd-b');
const ETCD_C = pod('etcd', 'static-etcd-c');
const rapidUpdate = (cStarts: boolean, aFinishes = true): Fact[] => [
  fact('kubeletStarted', 0, {}),
  created(0, ETCD_A, { static: true }),
  admitted(50, ETCD_A),
  phase(60, ETCD_A, 'sync'),
  started(400, ETCD_A),
  // The manifest is edited twice in a row: B replaces A, C replaces B before B could start.
  fact('apiPodDeletionRequested', 10_000, { ...ETCD_A, gracePeriodSeconds: 30 }),
  created(10_000, ETCD_B, { static: true }),
  admitted(10_050, ETCD_B),
  fact('podTerminationRequested', 10_050, { ...ETCD_A, reason: 'removed by the kubelet' }),
  fact('apiPodDeletionRequested', 10_500, { ...ETCD_B, gracePeriodSeconds: 30 }),
  created(10_500, ETCD_C, { static: true }),
  admitted(10_550, ETCD_C),
  fact('podTerminationRequested', 10_550, { ...ETCD_B, reason: 'removed by the kubelet' }),
  phase(11_000, ETCD_A, 'terminating'),
  exited(40_000, ETCD_A),
  fact('podTerminated', 40_000, { ...ETCD_A, reason: 'syncTerminatingPod completed' }),
  ...(aFinishes ? [phase(41_000, ETCD_A, 'terminated'), phase(41_000, ETCD_A, 'finished')] : []),
  // B was terminated before it started and (without #107900) blocks C's turn for ever.
  ...(cStarts ? [phase(52_000, ETCD_C, 'sync'), started(52_400, ETCD_C)] : []),
];

describe('pod-never-started', () => {
  it('fires for the newest static pod of a rapid update that never starts (#107733 without #107900)', () => {
    const facts = rapidUpdate(false);
    const v = run(facts, 240_000);
    expect(v).toHaveLength(1);
    expect(v[0]).toMatchObject({
      invariant: 'pod-never-started',
      atMs: 240_000,
      node: A,
      pod: 'etcd',
      uid: 'static-etcd-c',
      volume: null,
      message:
        'static pod etcd (uid static-etcd-c) was admitted at 10.55s and could start from 41.00s, but ' +
        'container(s) c1 never started by the end (240.00s, bound 120.00s, not terminating, no fault active)',
    });
    // The causes are C's own lifecycle facts.
    expect(v[0]?.causes.map((f) => f.kind)).toEqual(['apiPodCreated', 'podAdmitted']);
  });

  it('near-miss: the same update where the newest pod starts once its predecessor finished', () => {
    expect(run(rapidUpdate(true), 240_000)).toEqual([]);
  });

  it('near-miss: a static pod waiting while its predecessor still holds the name is not judged', () => {
    expect(run(rapidUpdate(false, false), 600_000)).toEqual([]);
  });

  it('the clock starts when the predecessor finished: not judged before that plus the bound', () => {
    expect(run(rapidUpdate(false), 41_000 + POD_START_BOUND_MS - 1)).toEqual([]);
    expect(run(rapidUpdate(false), 41_000 + POD_START_BOUND_MS)).toHaveLength(1);
  });

  const WEB = pod('web', 'web-1');
  const lonely = (extra: Fact[] = []): Fact[] => [
    fact('kubeletStarted', 0, {}),
    created(1000, WEB, { containers: ['c1', 'c2'] }),
    admitted(1030, WEB),
    started(1400, WEB, 'c1'),
    ...extra,
  ];

  it('fires when one container of an admitted pod never starts', () => {
    const v = run(lonely(), 200_000);
    expect(v).toHaveLength(1);
    expect(v[0]?.message).toContain('container(s) c2 never started');
  });

  it('near-miss: containers that started and then exited did start (restartPolicy Never, a crash)', () => {
    expect(run(lonely([started(1500, WEB, 'c2'), exited(3000, WEB, 'c2', 1)]), 200_000)).toEqual([]);
  });

  it('near-miss: under restartPolicy Never a container whose start failed is never started again', () => {
    const failedStart = (policy: string): Fact[] => [
      fact('kubeletStarted', 0, {}),
      created(1000, WEB, { containers: ['c1', 'c2'], policy }),
      admitted(1030, WEB),
      started(1400, WEB, 'c1'),
      fact('containerStartFailed', 1500, { ...WEB, container: 'c2', error: 'RunContainerError' }),
    ];
    // ShouldContainerBeRestarted: a dead container of a Never pod stays dead (found with seed 11, case 1124
    // of the round-trip generator, every fix on).
    expect(run(failedStart('Never'), 10_000_000)).toEqual([]);
    // Under Always and OnFailure the kubelet starts it again, so it is still judged.
    expect(run(failedStart('Always'), 10_000_000)).toHaveLength(1);
    expect(run(failedStart('OnFailure'), 10_000_000)).toHaveLength(1);
  });

  it('near-miss: a pod terminating (deleted, evicted, terminal, node shut down) is not judged', () => {
    const ends: Fact[] = [
      fact('apiPodDeletionRequested', 150_000, { ...WEB, gracePeriodSeconds: 30 }),
      fact('podTerminationRequested', 2000, { ...WEB, reason: 'evicted by the kubelet' }),
      fact('apiPodPhase', 2000, { ...WEB, phase: 'Failed', restartable: true }),
      fact('nodeShutdownStarted', 2000, { podGracePeriodSeconds: 20 }),
    ];
    for (const end of ends) expect(run(lonely([end]), 200_000), end.kind).toEqual([]);
  });

  it('near-miss: not admitted by the kubelet running at the end (down, or restarted and not yet re-admitted)', () => {
    expect(run(lonely([fact('kubeletStopped', 5000, {})]), 200_000)).toEqual([]);
    const restarted = [fact('kubeletStopped', 5000, {}), fact('kubeletStarted', 190_000, {})];
    expect(run(lonely(restarted), 200_000)).toEqual([]);
    // Re-admitted after the restart: the clock runs from the new admission.
    const readmitted = [...restarted, admitted(190_050, WEB)];
    expect(run(lonely(readmitted), 190_050 + POD_START_BOUND_MS - 1)).toEqual([]);
    expect(run(lonely(readmitted), 190_050 + POD_START_BOUND_MS)).toHaveLength(1);
  });

  it('near-miss: created too close to the end, or its start delays not yet over', () => {
    expect(run(lonely(), 1030 + POD_START_BOUND_MS - 1)).toEqual([]);
    const slow = [
      fact('kubeletStarted', 0, {}),
      created(0, WEB, { startDelayMs: 60_000 }),
      admitted(30, WEB),
    ];
    expect(run(slow, 30 + POD_START_BOUND_MS + 59_999)).toEqual([]);
    expect(run(slow, 30 + POD_START_BOUND_MS + 60_000)).toHaveLength(1);
  });

  it('near-miss: not judged while a storage fault is still active at the end', () => {
    expect(run(lonely(), 200_000, true)).toEqual([]);
  });

  it('a containerStart fault moves the clock by its delay, and a failed start allows the crash-loop back-off', () => {
    const delayed = lonely([
      fact('faultInjected', 2000, { fault: 'containerStart', pod: 'web', delayMs: 50_000 }),
    ]);
    expect(run(delayed, 52_000 + POD_START_BOUND_MS - 1)).toEqual([]);
    expect(run(delayed, 52_000 + POD_START_BOUND_MS)).toHaveLength(1);
    const failing = lonely([
      fact('faultInjected', 2000, {
        fault: 'containerStart',
        pod: 'web',
        delayMs: 0,
        error: 'RunContainerError',
      }),
    ]);
    const due = 2000 + POD_START_BOUND_MS + START_ERROR_ALLOWANCE_MS;
    expect(run(failing, due - 1)).toEqual([]);
    expect(run(failing, due)).toHaveLength(1);
  });

  it('near-miss: a pod waiting for its volumes is judged only from the moment they are all set up', () => {
    const DB = pod('db', 'db-1');
    const facts: Fact[] = [
      fact('kubeletStarted', 0, {}),
      created(0, DB, { volumes: ['lun-1', 'lun-2'] }),
      admitted(30, DB),
      // Both attached by the controller: what is left is the kubelet's own mount (no clock yet).
      fact('volumeAttached', 1000, { volume: 'lun-1' }),
      fact('volumeAttached', 1000, { volume: 'lun-2' }),
      fact('volumeSetUp', 5000, { ...DB, volume: 'lun-1' }),
    ];
    expect(run(facts, 600_000)).toEqual([]);
    const both = [...facts, fact('volumeSetUp', 400_000, { ...DB, volume: 'lun-2' })];
    expect(run(both, 400_000 + POD_START_BOUND_MS - 1)).toEqual([]);
    expect(run(both, 400_000 + POD_START_BOUND_MS)).toHaveLength(1);
  });

  it('a static pod put back with its old UID waits for the old lifecycle, then must start', () => {
    const PROXY = pod('proxy', 'static-proxy-1');
    const facts: Fact[] = [
      fact('kubeletStarted', 0, {}),
      created(0, PROXY, { static: true }),
      admitted(20, PROXY),
      started(300, PROXY),
      fact('apiPodDeletionRequested', 8000, { ...PROXY, gracePeriodSeconds: 10 }),
      fact('podTerminationRequested', 8030, { ...PROXY, reason: 'removed by the kubelet' }),
      created(9000, PROXY, { static: true }),
      admitted(9030, PROXY),
      exited(18_000, PROXY),
      phase(19_000, PROXY, 'finished'),
    ];
    // The old container started before the re-creation does not count for the new lifecycle.
    expect(run(facts, 19_000 + POD_START_BOUND_MS - 1)).toEqual([]);
    expect(run(facts, 19_000 + POD_START_BOUND_MS)).toHaveLength(1);
    expect(run([...facts, phase(21_000, PROXY, 'sync'), started(21_300, PROXY)], 600_000)).toEqual([]);
    // While the old worker has not finished, the new lifecycle is not judged.
    expect(run(facts.slice(0, -1), 600_000)).toEqual([]);
  });

  it('near-miss: a Never static pod put back with its old UID does not rerun a container whose start failed', () => {
    // The runtime holds the failed attempt (exited 128): ShouldContainerBeRestarted leaves it dead in the
    // new lifecycle too (found with seed 2, case 886, every fix on).
    const JOB = pod('job', 'static-job-1');
    const facts: Fact[] = [
      fact('kubeletStarted', 0, {}),
      created(0, JOB, { static: true, containers: ['c1', 'c2'], policy: 'Never' }),
      admitted(20, JOB),
      fact('containerStartFailed', 300, { ...JOB, container: 'c1', error: 'context canceled' }),
      fact('apiPodDeletionRequested', 1000, { ...JOB, gracePeriodSeconds: 2 }),
      fact('podTerminationRequested', 1010, { ...JOB, reason: 'removed by the kubelet' }),
      phase(2000, JOB, 'finished'),
      created(3700, JOB, { static: true, containers: ['c1', 'c2'], policy: 'Never' }),
      phase(6580, JOB, 'sync'),
      started(6700, JOB, 'c2'),
    ];
    expect(run(facts, 800_000)).toEqual([]);
  });
});

describe('pod-never-started on whole runs', () => {
  function world(timeline: string, fixes: Fixes, horizon = '4m'): World {
    const scenario = parseScenarioText(
      `name: probe\nseed: 3\nhorizon: ${horizon}\ncluster:\n  nodes: [node-a]\ntimeline:\n${timeline}`,
      'probe.yaml',
    );
    return new World({ scenario, seed: 3, fixes });
  }

  function violations(w: World, horizonMs = 240_000): Violation[] {
    const checker: Checker = new PodNeverStarted({ faultsActiveAtEnd: () => w.faultsActive() });
    const out: Violation[] = [];
    w.bus.subscribe((f) => checker.onFact(f, (v) => out.push(v)));
    w.start();
    const outcome = w.sim.run({ horizonMs, maxEvents: 2_000_000 });
    checker.onEnd(outcome.nowMs, (v) => out.push(v));
    return out;
  }

  const rapid =
    '  - at: 0s\n    createPod: {pod: etcd, node: node-a, containers: 1, static: true, gracePeriod: 30s}\n' +
    '  - at: 10s\n    deletePod: {pod: etcd}\n' +
    '  - at: 10s\n    createPod: {pod: etcd, node: node-a, containers: 2, static: true, gracePeriod: 30s}\n' +
    '  - at: 10500ms\n    deletePod: {pod: etcd}\n' +
    '  - at: 10500ms\n    createPod: {pod: etcd, node: node-a, containers: 3, static: true, gracePeriod: 30s}\n';

  for (const kubelet of ['fixed', 'legacy', '1.22'] as const) {
    it(`a rapid static pod update: the newest version starts (--kubelet ${kubelet}), so nothing fires`, () => {
      const w = world(rapid, Fixes.of(kubelet));
      const started: string[] = [];
      w.bus.subscribe((f) => {
        if (f.kind === 'containerStarted') started.push(f.container);
      });
      expect(violations(w)).toEqual([]);
      expect(started).toContain('c3');
    });
  }

  it('fires for a pod whose container start never returns (a hung CRI call), and not once it is deleted', () => {
    const timeline =
      '  - at: 0s\n    createPod: {pod: web, node: node-a, containers: 1}\n' +
      '  - at: 0s\n    createPod: {pod: db, node: node-a, containers: 1}\n';
    const hang = (w: World): void => {
      const runtime = w.nodeOf('node-a').host.runtime;
      const start = runtime.startContainer.bind(runtime);
      runtime.startContainer = function* (meta, spec, id) {
        if (meta.name === 'web') yield* park();
        return yield* start(meta, spec, id);
      };
    };
    const hung = world(timeline, Fixes.all());
    hang(hung);
    const v = violations(hung);
    expect(v.map((x) => [x.invariant, x.pod])).toEqual([['pod-never-started', 'web']]);
    const deleted = world(`${timeline}  - at: 60s\n    deletePod: {pod: web}\n`, Fixes.all());
    hang(deleted);
    expect(violations(deleted)).toEqual([]);
  });
});

describe('pod-never-started with --disable-force-detach-on-timeout (#120344)', () => {
  /** p1 keeps vol-1 on node-a, whose kubelet dies at 30 s for good; p1 is force-deleted, p2 on node-b wants vol-1. */
  const stuck = (option: boolean): string => `name: stuck-on-dead-node
seed: 3
horizon: 20m
cluster:
  nodes: [node-a, node-b]
${option ? '  controllerManager: { disableForceDetachOnTimeout: true }\n' : ''}  volumes:
    - { name: vol-1, plugin: csi, capacity: 10Gi }
timeline:
  - at: 0s
    createPod: { pod: p1, node: node-a, containers: 1, volumes: [vol-1] }
  - at: 30s
    restartKubelet: { node: node-a, downFor: 30m }
  - at: 1m
    forceDeletePod: { pod: p1 }
  - at: 1m
    createPod: { pod: p2, node: node-b, containers: 1, volumes: [vol-1] }
`;
  const p2Started = (r: ReturnType<typeof runScenario>): boolean =>
    (r.facts ?? []).some((f) => f.kind === 'containerStarted' && f.pod === 'p2');

  it('without it, the controller force-detaches vol-1 from the dead node after 6 min and p2 starts', () => {
    const r = runScenario(parseScenarioText(stuck(false), 'stuck.yaml'), {
      fixes: Fixes.all(),
      recordFacts: true,
    });
    expect(p2Started(r)).toBe(true);
    expect(r.violations.filter((v) => v.invariant === 'pod-never-started')).toEqual([]);
  });

  it('with it, vol-1 stays on the node that lists it in use and p2 waits for ever, as upstream: not judged', () => {
    const r = runScenario(parseScenarioText(stuck(true), 'stuck.yaml'), {
      fixes: Fixes.of('1.31'),
      recordFacts: true,
    });
    expect(p2Started(r)).toBe(false);
    expect(r.violations.map((v) => v.invariant)).toEqual([]);
    // Without the option the checker would expect the force detach and blame the wait on the controller.
    const checker: Checker = new PodNeverStarted({ faultsActiveAtEnd: () => false });
    const out: Violation[] = [];
    for (const f of r.facts ?? []) checker.onFact(f, (v) => out.push(v));
    checker.onEnd(r.virtualTimeMs, (v) => out.push(v));
    expect(out.map((v) => [v.invariant, v.pod])).toEqual([['pod-never-started', 'p2']]);
    expect(out[0]?.message).toContain('so a force detach was due at');
  });
});
