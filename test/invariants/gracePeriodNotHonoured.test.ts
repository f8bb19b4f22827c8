// grace-period-not-honoured: unit cases from facts, and the bug it exists for planted in the pod worker's
// calculateEffectiveGracePeriod (the spec's terminationGracePeriodSeconds no longer the default when no
// deletion grace or override was given, so a static pod whose manifest is removed is killed in 1 s).
import { describe, expect, it, vi } from 'vitest';
import type { Fact, FactKind } from '../../src/facts.js';
import { Fixes } from '../../src/fixes.js';
import { GracePeriodNotHonoured } from '../../src/invariants/index.js';
import type { Violation } from '../../src/invariants/types.js';
import { runScenario } from '../../src/run/run.js';
import { parseScenarioText } from '../../src/scenario/load.js';

const planted = vi.hoisted(() => ({ on: false }));

vi.mock('../../src/kubelet/podWorkersStatus.js', async (importOriginal) => {
  const m = await importOriginal<typeof import('../../src/kubelet/podWorkersStatus.js')>();
  return {
    ...m,
    calculateEffectiveGracePeriod: (...args: Parameters<typeof m.calculateEffectiveGracePeriod>) => {
      const [status, pod, options, fixes] = args;
      if (!planted.on) return m.calculateEffectiveGracePeriod(status, pod, options, fixes);
      // The planted bug: the spec's grace is forgotten, so "no request" falls through to the 1 s floor.
      const forgetful = { ...pod, spec: { ...pod.spec, terminationGracePeriodSeconds: undefined } };
      return m.calculateEffectiveGracePeriod(status, forgetful, options, fixes);
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
const created = (grace: number, isStatic = false) =>
  fact('apiPodCreated', 0, {
    ...WEB,
    static: isStatic,
    restartPolicy: 'Always',
    containers: ['app'],
    startDelayMs: 0,
    volumes: [],
    gracePeriodSeconds: grace,
  });
const stopping = (atMs: number, grace: number) =>
  fact('containerStopping', atMs, { ...WEB, container: 'app', gracePeriodSeconds: grace });
const exited = (atMs: number, exitCode: number) =>
  fact('containerExited', atMs, { ...WEB, container: 'app', exitCode });

function run(facts: readonly Fact[]): Violation[] {
  const out: Violation[] = [];
  const c = new GracePeriodNotHonoured();
  for (const f of facts) c.onFact(f, (v) => out.push(v));
  return out;
}

describe('grace-period-not-honoured from facts', () => {
  it("fires on a SIGKILL sooner than the deletion's grace after the first SIGTERM", () => {
    const del = fact('apiPodDeletionRequested', 1000, { ...WEB, gracePeriodSeconds: 10 });
    const term = stopping(1100, 2);
    const kill = exited(3100, 137);
    const v = run([created(30), del, term, kill]);
    expect(v).toHaveLength(1);
    expect(v[0]?.message).toBe(
      'container web/app (uid uid-web) was SIGKILLed at 3.10s, 2.00s after its SIGTERM at 1.10s (StopContainer ' +
        'grace 2s), though the shortest grace period asked for the pod is 10s (the deletion at 1.00s)',
    );
    expect(v[0]?.causes).toEqual([created(30), del, term, kill]);
  });

  it('counts the grace from the preStop hook that preceded the SIGTERM (#115835)', () => {
    const del = fact('apiPodDeletionRequested', 1000, { ...WEB, gracePeriodSeconds: 30 });
    const hook = fact('preStopHookStarted', 1050, { ...WEB, container: 'app' });
    // 1.28: the hook took 20 s, StopContainer gets the 10 s left; the SIGKILL comes 30 s after the hook.
    expect(run([created(30), del, hook, stopping(21_090, 10), exited(31_090, 137)])).toEqual([]);
    // Without the hook, 10 s after the SIGTERM is too soon.
    expect(run([created(30), del, stopping(21_090, 10), exited(31_090, 137)])).toHaveLength(1);
    // A hook before the container's restart is not this stop's.
    const again = fact('containerStarted', 2000, { ...WEB, container: 'app' });
    expect(run([created(30), del, hook, again, stopping(21_090, 10), exited(31_090, 137)])).toHaveLength(1);
  });

  it('takes the shortest request: an eviction shortens a deletion, a force delete waives the grace', () => {
    const del = fact('apiPodDeletionRequested', 1000, { ...WEB, gracePeriodSeconds: 30 });
    const evict = fact('podEvictionRequested', 2000, { ...WEB, gracePeriodSeconds: 1 });
    expect(run([created(30), del, stopping(1100, 30), evict, stopping(2100, 1), exited(3100, 137)])).toEqual(
      [],
    );
    const force = fact('apiPodDeleted', 2000, { ...WEB, by: 'user-force' });
    expect(run([created(30), stopping(1100, 1), force, exited(2100, 137)])).toEqual([]);
  });

  it("without a request, the spec's grace is owed; a graceful exit (143) is never judged", () => {
    expect(run([created(30), stopping(1000, 2), exited(3000, 137)])).toHaveLength(1);
    expect(run([created(30), stopping(1000, 2), exited(1500, 143)])).toEqual([]);
    expect(run([created(2), stopping(1000, 2), exited(3000, 137)])).toEqual([]);
  });

  it("a node shutdown asks min(spec, ShutdownGracePeriod's non-critical 20 s)", () => {
    const shutdown = fact('nodeShutdownStarted', 1000, { podGracePeriodSeconds: 20 });
    expect(run([created(60), shutdown, stopping(1100, 20), exited(21100, 137)])).toEqual([]);
    expect(run([created(60), shutdown, stopping(1100, 10), exited(11100, 137)])).toHaveLength(1);
  });

  it('an orphan of a restarted kubelet may be killed in 1 s (HandlePodCleanups), not before', () => {
    const removed = fact('apiPodDeletionRequested', 1000, { ...WEB, gracePeriodSeconds: 30 });
    const restarted = fact('kubeletStarted', 5000, {});
    expect(run([created(30, true), removed, restarted, stopping(7000, 1), exited(8000, 137)])).toEqual([]);
    // The same kill by the kubelet that saw the manifest go: it owed the spec's 30 s.
    expect(run([created(30, true), removed, stopping(7000, 1), exited(8000, 137)])).toHaveLength(1);
  });

  it("an orphan's kill that began before its static pod was put back is judged as the orphan's", () => {
    // podrace fuzz --seed 4, case 8733: the manifest is removed as the kubelet stops; the next kubelet
    // kills the orphaned runtime pod (1 s, so 2 s) and the manifest comes back, same UID, at the instant
    // of the kill's first SIGTERM; the new lifecycle's deletion asks 30 s after that SIGTERM.
    const removed = fact('apiPodDeletionRequested', 2950, { ...WEB, gracePeriodSeconds: 30 });
    const restarted = fact('kubeletStarted', 4050, {});
    const kill = fact('killPodStarted', 6050, {
      ...WEB,
      gracePeriodSeconds: 2,
      source: 'syncTerminatingPod (runtime pod)',
    });
    const again = { ...created(30, true), atMs: 6060 };
    const deletedAgain = fact('apiPodDeletionRequested', 7460, { ...WEB, gracePeriodSeconds: 30 });
    const finished = fact('killPodFinished', 8113, { ...WEB });
    const facts = [created(30, true), removed, restarted, kill, again, stopping(6060, 2), deletedAgain];
    expect(run([...facts, exited(8060, 137), finished])).toEqual([]);
    // A kill the new lifecycle began owes what that lifecycle asked.
    const later = fact('killPodStarted', 7470, {
      ...WEB,
      gracePeriodSeconds: 2,
      source: 'syncTerminatingPod',
    });
    const own = [created(30, true), removed, restarted, kill, finished, again, deletedAgain, later];
    expect(run([...own, stopping(7480, 2), exited(9480, 137)])).toHaveLength(1);
  });

  it("a runtime pod's kill that starts after its static pod was put back is judged as the orphan's", () => {
    // podrace fuzz --seed 4, case 8733 under #113145's queue: the manifest comes back (same UID) before
    // housekeeping's kill of the orphaned runtime pod starts; the worker takes the kill only after the
    // put-back pod was admitted, so killPodStarted comes after the new apiPodCreated.
    const removed = fact('apiPodDeletionRequested', 2950, { ...WEB, gracePeriodSeconds: 30 });
    const restarted = fact('kubeletStarted', 4050, {});
    const again = { ...created(30, true), atMs: 6060 };
    const kill = (source: string) => fact('killPodStarted', 6066, { ...WEB, gracePeriodSeconds: 2, source });
    const deletedAgain = fact('apiPodDeletionRequested', 7460, { ...WEB, gracePeriodSeconds: 30 });
    const end = [stopping(6076, 2), deletedAgain, exited(8076, 137)];
    const orphaned = [created(30, true), removed, restarted, again];
    expect(run([...orphaned, kill('syncTerminatingPod (runtime pod)'), ...end])).toEqual([]);
    // The put-back pod's own kill owes what its lifecycle asked.
    expect(run([...orphaned, kill('syncTerminatingPod'), ...end])).toHaveLength(1);
    // A runtime pod's kill when the previous lifecycle was no orphan (the kubelet saw it leave) is judged.
    const removedLater = fact('apiPodDeletionRequested', 5000, { ...WEB, gracePeriodSeconds: 30 });
    const seen = [created(30, true), restarted, removedLater, again];
    expect(run([...seen, kill('syncTerminatingPod (runtime pod)'), ...end])).toHaveLength(1);
  });

  it('a container still stopping when its static pod is put back keeps its first SIGTERM', () => {
    const del = fact('apiPodDeletionRequested', 1000, { ...WEB, gracePeriodSeconds: 30 });
    const facts = [created(30, true), del, stopping(1100, 30), created(30, true), exited(31100, 137)];
    expect(run(facts)).toEqual([]);
  });
});

describe('grace-period-not-honoured with the bug planted', () => {
  // Three containers: with this seed at least one ignores SIGTERM, so the kill's grace decides its end.
  const scenario = parseScenarioText(
    [
      'name: static-manifest-removed',
      'seed: 3',
      'horizon: 3m',
      'cluster: {nodes: [node-a]}',
      'timeline:',
      '  - at: 0s',
      '    createPod: {pod: etcd, node: node-a, containers: 3, static: true, gracePeriod: 30s}',
      '  - at: 20s',
      '    deletePod: {pod: etcd}',
    ].join('\n'),
    'planted.yaml',
  );
  const fired = () =>
    runScenario(scenario, { fixes: Fixes.all() })
      .violations.map((v) => v.invariant)
      .filter((id) => id === 'grace-period-not-honoured');

  it('fires when calculateEffectiveGracePeriod forgets the spec default, and not otherwise', () => {
    expect(fired()).toEqual([]);
    planted.on = true;
    try {
      expect(fired()).toEqual(['grace-period-not-honoured']);
    } finally {
      planted.on = false;
    }
  });
});
