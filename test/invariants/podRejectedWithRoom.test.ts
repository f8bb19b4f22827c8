// pod-rejected-with-room on synthetic facts: which pods hold a node's resources (a container running, or
// admitted and not over), and the near-misses that must not fire.
import { describe, expect, it } from 'vitest';
import type { ResourceList } from '../../src/api/v1.js';
import type { Fact, FactKind } from '../../src/facts.js';
import { PodRejectedWithRoom } from '../../src/invariants/index.js';
import type { Violation } from '../../src/invariants/types.js';

type FactOf<K extends FactKind> = Extract<Fact, { kind: K }>;
type Fields<K extends FactKind> = Omit<FactOf<K>, 'kind' | 'atMs' | 'node'> & { node?: string };

const A = 'node-a';
function fact<K extends FactKind>(kind: K, atMs: number, fields: Fields<K>): FactOf<K> {
  return { node: A, ...fields, kind, atMs } as unknown as FactOf<K>;
}
const ref = (name: string) => ({ pod: name, uid: `${name}-1` });
const created = (atMs: number, name: string, cpuMilli: number, memoryBytes = 0) =>
  fact('apiPodCreated', atMs, {
    ...ref(name),
    static: false,
    restartPolicy: 'Always',
    containers: ['app'],
    startDelayMs: 0,
    volumes: [],
    gracePeriodSeconds: 30,
    requests: { cpuMilli, memoryBytes },
  });
const admitted = (atMs: number, name: string) => fact('podAdmitted', atMs, ref(name));
const rejected = (atMs: number, name: string, reason = 'OutOfcpu') =>
  fact('podRejected', atMs, { ...ref(name), reason, message: "Node didn't have enough resource: cpu" });
const started = (atMs: number, name: string) =>
  fact('containerStarted', atMs, { ...ref(name), container: 'app' });
const exited = (atMs: number, name: string) =>
  fact('containerExited', atMs, { ...ref(name), container: 'app', exitCode: 0 });

function run(
  facts: readonly Fact[],
  allocatable: Readonly<Record<string, ResourceList>> = { [A]: { cpuMilli: 2000, memoryBytes: 1 << 30 } },
): Violation[] {
  const out: Violation[] = [];
  const checker = new PodRejectedWithRoom(allocatable);
  for (const f of facts) checker.onFact(f, (v) => void out.push(v));
  checker.onEnd();
  return out;
}

describe('pod-rejected-with-room', () => {
  it('fires when the pod counted against the rejected one was itself rejected and never ran (#104817)', () => {
    const v = run([
      created(0, 'big', 3000),
      created(0, 'web', 500),
      rejected(50, 'big'),
      rejected(50, 'web'),
    ]);
    expect(v).toHaveLength(1);
    expect(v[0]?.pod).toBe('web');
    expect(v[0]?.message).toContain('request 0m of 2000m cpu');
    expect(v[0]?.message).toContain('big (rejected OutOfcpu at 0.05s, never ran since)');
    expect(v[0]?.causes.map((f) => f.kind)).toEqual(['apiPodCreated', 'podRejected', 'podRejected']);
  });

  it('fires when the pod counted had finished before (#105523): terminated, nothing running', () => {
    const v = run(
      [
        created(0, 'job', 1000),
        admitted(50, 'job'),
        started(300, 'job'),
        exited(5000, 'job'),
        fact('podWorkerPhase', 7000, { ...ref('job'), phase: 'terminated' }),
        created(10_000, 'web', 1000),
        admitted(10_050, 'web'),
        started(10_300, 'web'),
        // The restarted kubelet admits job again (its worker does not know it is over) ...
        admitted(25_000, 'job'),
        // ... and rejects web, whose own container still runs.
        rejected(25_000, 'web'),
      ],
      { [A]: { cpuMilli: 1500, memoryBytes: 1 << 30 } },
    );
    expect(v.map((x) => x.pod)).toEqual(['web']);
  });

  it('does not fire while the counted pod holds: admitted and not over, or a container running', () => {
    // Admitted, not yet started.
    expect(
      run([created(0, 'a', 1500), admitted(10, 'a'), created(20, 'b', 1000), rejected(30, 'b')]),
    ).toEqual([]);
    // Running, although its API phase is already terminal and it was rejected after a restart.
    expect(
      run([
        created(0, 'a', 1500),
        admitted(10, 'a'),
        started(100, 'a'),
        fact('apiPodPhase', 200, { ...ref('a'), phase: 'Failed', restartable: true }),
        rejected(300, 'a', 'NodeAffinity'),
        created(400, 'b', 1000),
        rejected(410, 'b'),
      ]),
    ).toEqual([]);
    // A completed pod whose worker is still terminating it (its API phase not yet terminal).
    expect(
      run([
        created(0, 'a', 1500),
        admitted(10, 'a'),
        started(100, 'a'),
        exited(200, 'a'),
        fact('podWorkerPhase', 210, { ...ref('a'), phase: 'terminating' }),
        created(220, 'b', 1000),
        rejected(230, 'b'),
      ]),
    ).toEqual([]);
  });

  it('does not fire when the pod does not fit beside the holders, for another reason, or without allocatable', () => {
    expect(run([created(0, 'a', 1500), admitted(1, 'a'), created(2, 'b', 600), rejected(3, 'b')])).toEqual(
      [],
    );
    expect(run([created(0, 'big', 3000), rejected(1, 'big')])).toEqual([]);
    expect(
      run([created(0, 'a', 3000), rejected(1, 'a'), created(2, 'b', 500), rejected(3, 'b', 'NodeAffinity')]),
    ).toEqual([]);
    expect(
      run([created(0, 'a', 3000), rejected(1, 'a'), created(2, 'b', 500), rejected(3, 'b')], {}),
    ).toEqual([]);
  });

  it('judges memory too, and a zero request of a resource always fits (#116408)', () => {
    const memory = { [A]: { cpuMilli: 2000, memoryBytes: 1000 } };
    expect(
      run(
        [created(0, 'a', 0, 900), admitted(1, 'a'), created(2, 'b', 0, 200), rejected(3, 'b', 'OutOfmemory')],
        memory,
      ),
    ).toEqual([]);
    // b asks for memory only: the cpu the counted pod held in error is no reason.
    expect(
      run(
        [created(0, 'big', 3000), rejected(1, 'big'), created(2, 'b', 0, 200), rejected(3, 'b')],
        memory,
      ).map((x) => x.pod),
    ).toEqual(['b']);
  });

  it('a deleted pod holds nothing once its containers stopped; a force-deleted one still running holds', () => {
    expect(
      run([
        created(0, 'a', 1500),
        admitted(1, 'a'),
        fact('apiPodDeleted', 5, { ...ref('a'), by: 'kubelet' }),
        created(6, 'b', 1000),
        rejected(7, 'b'),
      ]).map((x) => x.pod),
    ).toEqual(['b']);
    expect(
      run([
        created(0, 'a', 1500),
        admitted(1, 'a'),
        started(2, 'a'),
        fact('apiPodDeleted', 5, { ...ref('a'), by: 'user-force' }),
        created(6, 'b', 1000),
        rejected(7, 'b'),
      ]),
    ).toEqual([]);
  });
});
