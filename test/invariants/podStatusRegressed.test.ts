// pod-status-regressed on synthetic facts: what fires (exact fields) and the near-misses that must not.
import { describe, expect, it } from 'vitest';
import type { ContainerStatus } from '../../src/api/v1.js';
import type { Fact, FactKind } from '../../src/facts.js';
import { PodStatusRegressed } from '../../src/invariants/index.js';
import type { Violation } from '../../src/invariants/types.js';

type FactOf<K extends FactKind> = Extract<Fact, { kind: K }>;
type Fields<K extends FactKind> = Omit<FactOf<K>, 'kind' | 'atMs' | 'node'> & { node?: string };

const A = 'node-a';
const WEB = { pod: 'web', uid: 'uid-web' } as const;

function fact<K extends FactKind>(kind: K, atMs: number, fields: Fields<K>): FactOf<K> {
  return { node: A, ...fields, kind, atMs } as unknown as FactOf<K>;
}

function run(facts: readonly Fact[]): Violation[] {
  const out: Violation[] = [];
  const checker = new PodStatusRegressed();
  for (const f of facts) checker.onFact(f, (v) => void out.push(v));
  checker.onEnd();
  return out;
}

const phase = (atMs: number, p: FactOf<'apiPodPhase'>['phase'], reason?: string, uid: string = WEB.uid) =>
  fact('apiPodPhase', atMs, { ...WEB, uid, phase: p, reason, restartable: true });

const running = (name: string): ContainerStatus => ({ name, state: 'running' });
const waiting = (name: string): ContainerStatus => ({ name, state: 'waiting', reason: 'ContainerCreating' });
const terminated = (name: string, exitCode: number): ContainerStatus => ({
  name,
  state: 'terminated',
  reason: 'Completed',
  exitCode,
});
const states = (atMs: number, restartPolicy: string, containers: ContainerStatus[], uid: string = WEB.uid) =>
  fact('apiContainerStates', atMs, { ...WEB, uid, restartPolicy, containers });

describe('pod-status-regressed: phase', () => {
  it('fires when a Failed pod is written Running again', () => {
    const failed = phase(1000, 'Failed', 'Evicted');
    const back = phase(2000, 'Running');
    expect(run([phase(500, 'Running'), failed, back])).toEqual([
      {
        invariant: 'pod-status-regressed',
        atMs: 2000,
        node: A,
        pod: 'web',
        uid: 'uid-web',
        volume: null,
        message:
          'pod web (uid uid-web) was written with phase Running at 2.00s after phase Failed (Evicted) at ' +
          '1.00s: a pod never leaves a terminal phase',
        causes: [failed, back],
      },
    ]);
  });

  it('fires for Succeeded to Failed (no transition out of a terminal phase) and Failed to Pending', () => {
    expect(run([phase(1000, 'Succeeded'), phase(2000, 'Failed', 'Terminated')])).toHaveLength(1);
    expect(run([phase(1000, 'Failed'), phase(2000, 'Pending')])).toHaveLength(1);
  });

  it('does not fire for a reason change within Failed, forward moves, or a new UID of the name', () => {
    expect(
      run([
        phase(100, 'Pending'),
        phase(200, 'Running'),
        phase(300, 'Pending'),
        phase(400, 'Running'),
        phase(1000, 'Failed', 'Evicted'),
        phase(1100, 'Failed', 'Terminated'),
        // The same name created again: another UID, its own lifecycle.
        phase(2000, 'Pending', undefined, 'uid-web-2'),
        phase(2100, 'Running', undefined, 'uid-web-2'),
      ]),
    ).toEqual([]);
  });

  it('forgets a UID once its object is deleted', () => {
    expect(
      run([
        phase(1000, 'Failed'),
        fact('apiPodDeleted', 1500, { ...WEB, by: 'kubelet' }),
        phase(2000, 'Running'),
      ]),
    ).toEqual([]);
  });
});

describe('pod-status-regressed: container states', () => {
  it('fires when a terminated container of a Never pod is written running', () => {
    const before = states(1000, 'Never', [terminated('app', 137), running('side')]);
    const after = states(2000, 'Never', [running('app'), running('side')]);
    expect(run([states(500, 'Never', [running('app'), running('side')]), before, after])).toEqual([
      {
        invariant: 'pod-status-regressed',
        atMs: 2000,
        node: A,
        pod: 'web',
        uid: 'uid-web',
        volume: null,
        message:
          'container app of pod web (uid uid-web, restartPolicy Never) was written running at 2.00s after ' +
          'terminated (exit 137) at 1.00s: a terminated container may not be reported non-terminated',
        causes: [before, after],
      },
    ]);
  });

  it('fires for waiting after terminated, and for OnFailure after exit 0', () => {
    expect(
      run([states(1000, 'Never', [terminated('app', 1)]), states(2000, 'Never', [waiting('app')])]),
    ).toHaveLength(1);
    expect(
      run([states(1000, 'OnFailure', [terminated('app', 0)]), states(2000, 'OnFailure', [running('app')])]),
    ).toHaveLength(1);
  });

  it('remembers a container across a write that does not list it (release-1.20 eviction status)', () => {
    const v = run([
      states(1000, 'Never', [terminated('app', 1)]),
      states(1500, 'Never', []),
      states(2000, 'Never', [running('app')]),
    ]);
    expect(v).toHaveLength(1);
    expect(v[0]?.causes.map((c) => c.atMs)).toEqual([1000, 2000]);
  });

  it('reports one violation per write even when several containers go back', () => {
    expect(
      run([
        states(1000, 'Never', [terminated('a', 137), terminated('b', 137)]),
        states(2000, 'Never', [running('a'), running('b')]),
      ]),
    ).toHaveLength(1);
  });

  it('does not fire for Always, OnFailure after a failure, waiting to running, or another UID', () => {
    expect(
      run([
        states(100, 'Always', [running('app')]),
        states(200, 'Always', [terminated('app', 0)]),
        states(300, 'Always', [running('app')]),
        states(400, 'OnFailure', [terminated('app', 1)], 'uid-job'),
        states(500, 'OnFailure', [waiting('app')], 'uid-job'),
        states(600, 'OnFailure', [running('app')], 'uid-job'),
        states(700, 'Never', [waiting('app')], 'uid-once'),
        states(800, 'Never', [running('app')], 'uid-once'),
        states(900, 'Never', [terminated('app', 1)], 'uid-once'),
        states(950, 'Never', [terminated('app', 137)], 'uid-once'),
        // A new pod of the same name: its own containers.
        states(1000, 'Never', [waiting('app')], 'uid-once-2'),
      ]),
    ).toEqual([]);
  });

  it('forgets a UID once its object is deleted', () => {
    expect(
      run([
        states(1000, 'Never', [terminated('app', 1)]),
        fact('apiPodDeleted', 1500, { ...WEB, by: 'user-force' }),
        states(2000, 'Never', [running('app')]),
      ]),
    ).toEqual([]);
  });

  const delivered = (atMs: number, uid: string = WEB.uid) =>
    fact('podDeletionDelivered', atMs, { ...WEB, uid, gracePeriodSeconds: 30 });
  const started = (atMs: number, uid: string = WEB.uid) =>
    fact('containerStarted', atMs, { ...WEB, uid, container: 'app' });

  it('fires when an Always container of a pod seen deleted goes from terminated back to waiting (GC removed it)', () => {
    const killed = states(2000, 'Always', [terminated('app', 137)]);
    const back = states(70_000, 'Always', [waiting('app')]);
    const out = run([states(100, 'Always', [running('app')]), delivered(1000), killed, back]);
    expect(out).toHaveLength(1);
    expect(out[0]?.atMs).toBe(70_000);
    expect(out[0]?.causes).toEqual([killed, back]);
    expect(out[0]?.message).toContain('in a pod the kubelet had seen marked for deletion');
  });

  it('fires for running again after the deletion with no start of the container since', () => {
    const out = run([
      delivered(1000),
      states(2000, 'Always', [terminated('app', 137)]),
      states(3000, 'Always', [running('app')]),
    ]);
    expect(out.map((v) => v.atMs)).toEqual([3000]);
  });

  it('does not fire for CrashLoopBackOff before the deletion, a start after it, or a terminated write before it', () => {
    expect(
      run([
        // Crash and back-off before any deletion: Always may leave terminated.
        states(100, 'Always', [terminated('app', 1)]),
        states(200, 'Always', [{ name: 'app', state: 'waiting', reason: 'CrashLoopBackOff' }]),
        // Terminated written before the kubelet saw the deletion, then a waiting generated before it.
        states(300, 'Always', [terminated('app', 1)]),
        delivered(400),
        states(500, 'Always', [waiting('app')]),
        // release-1.20's TerminatePod writes terminated over a container that still runs (uid-legacy).
        fact('containerStarted', 410, { ...WEB, uid: 'uid-legacy', container: 'app' }),
        delivered(420, 'uid-legacy'),
        states(430, 'Always', [terminated('app', 0)], 'uid-legacy'),
        states(440, 'Always', [running('app')], 'uid-legacy'),
        // A syncPod in flight when the deletion arrived starts the container again.
        states(600, 'Always', [terminated('app', 1)]),
        started(650),
        states(700, 'Always', [running('app')]),
      ]),
    ).toEqual([]);
  });
});
