// grace-period-exceeded: unit cases from facts, and the bug it exists for planted in the runtime manager's
// killContainer (the override replacing what a preStop hook left of the grace, #115817).
import { describe, expect, it } from 'vitest';
import type { Fact, FactKind } from '../../src/facts.js';
import { Fixes } from '../../src/fixes.js';
import { GracePeriodExceeded } from '../../src/invariants/index.js';
import type { Violation } from '../../src/invariants/types.js';
import { runScenario } from '../../src/run/run.js';
import { parseScenarioText } from '../../src/scenario/load.js';

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
const started = fact('containerStarted', 500, { ...WEB, container: 'app' });
const delivered = (atMs: number, grace: number) =>
  fact('podDeletionDelivered', atMs, { ...WEB, gracePeriodSeconds: grace });
const evicted = (atMs: number, grace: number) =>
  fact('podEvictionRequested', atMs, { ...WEB, gracePeriodSeconds: grace });
const dispatched = (atMs: number) => fact('podKillDispatched', atMs, { ...WEB });
const killStarted = (atMs: number, grace: number) =>
  fact('killPodStarted', atMs, { ...WEB, gracePeriodSeconds: grace, source: 'syncTerminatingPod' });
const stopping = (atMs: number, grace: number) =>
  fact('containerStopping', atMs, { ...WEB, container: 'app', gracePeriodSeconds: grace });
const killFinished = (atMs: number) => fact('killPodFinished', atMs, { ...WEB });
const hook = (atMs: number) => fact('preStopHookStarted', atMs, { ...WEB, container: 'app' });

function run(facts: readonly Fact[]): Violation[] {
  const out: Violation[] = [];
  const c = new GracePeriodExceeded();
  for (const f of facts) c.onFact(f, (v) => out.push(v));
  return out;
}

/** A pod kill handed to the pod worker at `atMs`, its StopContainer 10 ms later with `grace`. */
const podKill = (atMs: number, grace: number) => [
  dispatched(atMs),
  killStarted(atMs + 5, grace),
  stopping(atMs + 10, grace),
  killFinished(atMs + 20),
];

describe('grace-period-exceeded from facts', () => {
  it("fires on a StopContainer longer than the eviction's override the pod worker had been asked", () => {
    const del = delivered(1000, 10);
    const ev = evicted(900, 2);
    const facts = [created(30), started, ev, del, ...podKill(1100, 10)];
    const v = run(facts);
    expect(v).toHaveLength(1);
    expect(v[0]?.message).toBe(
      'container web/app (uid uid-web) was told to stop at 1.11s with a grace period of 10s, though the ' +
        'kubelet had been asked for at most 2s (the eviction at 0.90s)',
    );
    expect(v[0]?.causes).toEqual([created(30), del, ev, dispatched(1100), stopping(1110, 10)]);
  });

  it("holds the pod worker's 1 s to killContainer's 2 s minimum, which comes last from 1.28 (#115835)", () => {
    expect(run([created(1), started, delivered(1000, 1), ...podKill(1100, 3)])).toHaveLength(1);
    expect(run([created(1), started, delivered(1000, 1), ...podKill(1100, 2)])).toEqual([]);
    expect(run([created(1), started, delivered(1000, 1), ...podKill(1100, 1)])).toEqual([]);
    // No pod worker kill (release-1.20's podKiller, SyncPod): deletion grace, at least 2 s.
    const noOverride = [killStarted(1105, 2), stopping(1110, 2), killFinished(1120)];
    expect(run([created(1), started, delivered(1000, 1), ...noOverride])).toEqual([]);
  });

  it('judges a kill by the requests that reached the kubelet before the pod worker was handed it', () => {
    // The deletion was asked of the API but not yet delivered: the spec's 30 s stands.
    expect(run([created(30), started, ...podKill(1100, 30), delivered(1200, 5)])).toEqual([]);
    // A shorter deletion delivered while the kill's work waited (GetNewerThan) binds the next kill only.
    const late = [dispatched(1100), delivered(1500, 5), killStarted(2000, 30), stopping(2010, 30)];
    expect(run([created(30), started, ...late])).toEqual([]);
    // At the same instant as the dispatch, it may have reached the pod worker after: not judged.
    expect(run([created(30), started, evicted(1100, 2), ...podKill(1100, 30)])).toEqual([]);
    // An instant earlier, it had.
    expect(run([created(30), started, evicted(1090, 2), ...podKill(1100, 30)])).toHaveLength(1);
  });

  it('an override longer than the spec is lawful; so is the spec after a request of 0 (#115819)', () => {
    expect(run([created(1), started, evicted(1000, 14), ...podKill(1100, 14)])).toEqual([]);
    const zero = [delivered(1000, 5), delivered(1050, 0), ...podKill(1100, 30)];
    expect(run([created(30), started, ...zero])).toEqual([]);
    expect(run([created(30), started, delivered(1000, 5), ...podKill(1100, 30)])).toHaveLength(1);
  });

  it("an orphan (it left its source before the kubelet started) is killed with HandlePodCleanups' 1 s", () => {
    const stop = fact('kubeletStopped', 1000, {});
    const gone = fact('apiPodDeleted', 2000, { ...WEB, by: 'user-force' });
    const start = fact('kubeletStarted', 5000, {});
    expect(run([created(30), started, stop, gone, start, ...podKill(7000, 3)])).toHaveLength(1);
    expect(run([created(30), started, stop, gone, start, ...podKill(7000, 2)])).toEqual([]);
    // The kubelet that saw it go (no restart) kills it with the spec's grace.
    expect(run([created(30), started, gone, ...podKill(7000, 30)])).toEqual([]);
  });

  it("what a kubelet process was asked dies with it; the next one's LIST delivers the deletion again", () => {
    const stop = fact('kubeletStopped', 2000, {});
    const start = fact('kubeletStarted', 3000, {});
    expect(run([created(30), started, evicted(1000, 2), stop, start, ...podKill(4000, 30)])).toEqual([]);
    const relisted = [delivered(1000, 5), stop, start, delivered(3100, 5), ...podKill(4000, 30)];
    expect(run([created(30), started, ...relisted])).toHaveLength(1);
  });

  it('the node shutdown bounds the pods it kills, not one that already left its source', () => {
    const shutdown = fact('nodeShutdownStarted', 1000, { podGracePeriodSeconds: 20 });
    expect(run([created(60), started, shutdown, ...podKill(1100, 60)])).toHaveLength(1);
    expect(run([created(60), started, shutdown, ...podKill(1100, 20)])).toEqual([]);
    const removed = fact('apiPodDeletionRequested', 900, { ...WEB, gracePeriodSeconds: 60 });
    expect(run([created(60, true), started, removed, shutdown, ...podKill(1100, 60)])).toEqual([]);
  });

  it('counts a preStop hook against the grace: what it took is gone, and it may run only within it', () => {
    // The kill starts at 1.1 s, its hook at once, the SIGTERM 20 s later (StopContainer's latency after it).
    const withHook = (grace: number, hookMs: number) => [
      dispatched(1100),
      killStarted(1105, 30),
      hook(1105),
      stopping(1105 + hookMs + 40, grace),
      killFinished(1105 + hookMs + 60),
    ];
    // 1.28: the remainder, 10 s.
    expect(run([created(30), started, delivered(1000, 30), ...withHook(10, 20_000)])).toEqual([]);
    // Before 1.28: the override's whole 30 s after the hook's 20 s (#115817).
    const before = run([created(30), started, delivered(1000, 30), ...withHook(30, 20_000)]);
    expect(before.map((v) => v.message)).toEqual([
      expect.stringContaining('had taken 19s of them (#115817)'),
    ]);
    // A hook under a second leaves the whole seconds as they were; the 2 s minimum still comes last.
    expect(run([created(30), started, delivered(1000, 30), ...withHook(30, 900)])).toEqual([]);
    expect(run([created(2), started, delivered(1000, 2), ...withHook(2, 1_900)])).toEqual([]);
    // Before 1.28 a 5 s eviction's hook ran within the spec's 30 s: it ran past the 5 s asked.
    const evict = run([created(30), started, evicted(1000, 5), ...withHook(5, 20_000)]);
    expect(evict.map((v) => v.message)).toEqual([
      expect.stringContaining('a kill waits for its hook only within'),
    ]);
    // A hook of an earlier kill does not count against this one.
    const stale = [hook(600), ...podKill(1100, 30)];
    expect(run([created(30), started, delivered(1000, 30), ...stale])).toEqual([]);
  });
});

describe('grace-period-exceeded with the bug planted', () => {
  // A pod whose container has a 20 s preStop hook, deleted with its spec's 30 s.
  const scenario = parseScenarioText(
    [
      'name: prestop-twenty-seconds',
      'seed: 3',
      'horizon: 2m',
      'cluster: {nodes: [node-a]}',
      'timeline:',
      '  - at: 0s',
      '    createPod: {pod: web, node: node-a, containers: [{name: app, preStop: 20s}], gracePeriod: 30s}',
      '  - at: 20s',
      '    deletePod: {pod: web}',
    ].join('\n'),
    'planted.yaml',
  );
  const fired = (fixes: Fixes) =>
    runScenario(scenario, { fixes })
      .violations.map((v) => v.invariant)
      .filter((id) => id === 'grace-period-exceeded');

  it('fires when the override replaces what the preStop hook left (#115817), and not otherwise', () => {
    expect(fired(Fixes.all())).toEqual([]);
    // The bug: killContainer's order before #115835, the override last.
    expect(fired(Fixes.all().with('prestop-counts-against-grace', false))).toEqual(['grace-period-exceeded']);
  });
});
