// The kubelet's CRI calls run under runtime-request-timeout (2m default; remote_runtime.go StartContainer:
// getContextWithTimeout(r.timeout)). A start slower than that fails with DeadlineExceeded and containerd
// marks the container exited (128, StartError); before, the fake runtime held the kubelet's call for the
// whole start, so a pod deleted during a 24 min start could not terminate (termination-stuck).
import { describe, expect, it } from 'vitest';
import type { GoError } from '../../src/api/errors.js';
import { Fixes } from '../../src/fixes.js';
import { runScenario } from '../../src/run/run.js';
import { FakeRuntime } from '../../src/runtime/fakeRuntime.js';
import { RUNTIME_REQUEST_TIMEOUT_MS } from '../../src/runtime/runtimeRequestTimeout.js';
import { parseScenarioText } from '../../src/scenario/load.js';
import { type Co, ProcessGroup, Sim } from '../../src/sim/index.js';

const META = { uid: 'u1', name: 'web', namespace: 'default' };

function start(startDelayMs: number): { err: GoError | undefined; atMs: number; runtime: FakeRuntime } {
  const sim = new Sim(1);
  const runtime = new FakeRuntime(sim, sim.rng.fork('runtime'), 'node-a', () => {});
  const out = { err: undefined as GoError | undefined, atMs: -1, runtime };
  sim.spawn(
    'kubelet',
    (function* (): Co {
      yield* runtime.runPodSandbox(META);
      const spec = { name: 'app', startDelayMs };
      const created = yield* runtime.createContainer(META, spec);
      const t0 = sim.nowMs;
      out.err = yield* runtime.startContainer(META, spec, created.value ?? '');
      out.atMs = sim.nowMs - t0;
    })(),
  );
  sim.run({ horizonMs: 3_600_000, maxEvents: 10_000 });
  return out;
}

describe('runtime-request-timeout', () => {
  it('a start within the timeout succeeds after its delay', () => {
    const r = start(90_000);
    expect(r.err).toBeUndefined();
    expect(r.atMs).toBeGreaterThanOrEqual(90_000);
    expect(r.runtime.getPods(false).map((p) => p.containers.map((c) => c.state))).toEqual([['running']]);
  });

  it('a slower start fails with DeadlineExceeded at the timeout and leaves the container exited', () => {
    const r = start(24 * 60_000);
    expect(r.atMs).toBe(RUNTIME_REQUEST_TIMEOUT_MS);
    expect(r.err?.message).toMatch(/DeadlineExceeded/);
    expect(r.runtime.getPods(true).map((p) => p.containers.map((c) => c.state))).toEqual([['exited']]);
  });

  it('a pod deleted during a 24 min start terminates, and one that is not starts after the timeout', () => {
    const scenario = (deleted: boolean) =>
      parseScenarioText(
        [
          'name: slow-start',
          'horizon: 10m',
          'cluster: {nodes: [node-a]}',
          'timeline:',
          '  - at: 0s',
          '    createPod: {pod: web, node: node-a, containers: [{name: slow}, {name: app}]}',
          '  - at: 0s',
          '    fault: {containerStart: {pod: web, delay: 24m}}',
          // At 5 s, once the start is under way: a delete in the same instant as the create reaches the
          // pod worker before it ran, and v1.27's pendingUpdate runs the two as the kill alone.
          ...(deleted ? ['  - at: 5s', '    deletePod: {pod: web}'] : []),
        ].join('\n'),
        'slow.yaml',
      );
    const r = runScenario(scenario(true), { fixes: Fixes.all(), recordFacts: true });
    expect(r.violations).toEqual([]);
    expect(r.facts?.some((f) => f.kind === 'apiPodDeleted')).toBe(true);
    const failed = r.facts?.filter((f) => f.kind === 'containerStartFailed') ?? [];
    expect(failed.map((f) => f.error)).toEqual([
      'rpc error: code = DeadlineExceeded desc = context deadline exceeded',
    ]);
    expect(failed[0]?.atMs).toBeGreaterThanOrEqual(RUNTIME_REQUEST_TIMEOUT_MS);
    // The fault is spent on the attempt that timed out; the next attempt starts.
    const kept = runScenario(scenario(false), { fixes: Fixes.all(), recordFacts: true });
    expect(kept.violations).toEqual([]);
    const started = kept.facts?.filter((f) => f.kind === 'containerStarted').map((f) => f.atMs) ?? [];
    expect(started.length).toBe(2);
    expect(Math.max(...started)).toBeGreaterThan(RUNTIME_REQUEST_TIMEOUT_MS);
  });
});

describe('a StartContainer cut off by a kubelet restart', () => {
  it('the start under way fails Canceled when the kubelet dies: the container is exited and never runs', () => {
    const sim = new Sim(1);
    const facts: string[] = [];
    const runtime = new FakeRuntime(sim, sim.rng.fork('runtime'), 'node-a', (f) => {
      if (f.kind === 'containerStartFailed' || f.kind === 'containerStarted')
        facts.push(`${f.kind} ${f.container}`);
    });
    const group = new ProcessGroup('kubelet/node-a');
    sim.spawn(
      'kubelet',
      (function* (): Co {
        yield* runtime.runPodSandbox(META);
        const spec = { name: 'app', startDelayMs: 5_000 };
        const created = yield* runtime.createContainer(META, spec);
        yield* runtime.startContainer(META, spec, created.value ?? '');
      })(),
      group,
    );
    sim.run({ horizonMs: 2_000, maxEvents: 10_000 });
    expect(runtime.getPods(true).map((p) => p.containers.map((c) => c.state))).toEqual([['created']]);
    // The kubelet process dies (restartKubelet): its goroutines are abandoned, its connection closes.
    group.kill();
    runtime.kubeletGone();
    sim.run({ horizonMs: 60_000, maxEvents: 10_000 });
    expect(runtime.getPods(true).map((p) => p.containers.map((c) => c.state))).toEqual([['exited']]);
    expect(facts).toEqual(['containerStartFailed app']);
  });

  it('in a scenario: a restart during a slow start leaves no container the new kubelet cannot see', () => {
    const s = parseScenarioText(
      [
        'name: cut-off-start',
        'horizon: 2m',
        'cluster: {nodes: [node-a]}',
        'timeline:',
        '  - at: 0s',
        '    createPod: {pod: web, node: node-a, containers: 1}',
        '  - at: 0s',
        '    fault: {containerStart: {pod: web, delay: 20s}}',
        '  - at: 10s',
        '    restartKubelet: {node: node-a, downFor: 1s}',
      ].join('\n'),
      'cut.yaml',
    );
    const r = runScenario(s, { fixes: Fixes.all(), recordFacts: true });
    expect(r.violations).toEqual([]);
    const failed = r.facts?.filter((f) => f.kind === 'containerStartFailed') ?? [];
    expect(failed.map((f) => [f.atMs, f.error])).toEqual([
      [10_000, 'rpc error: code = Canceled desc = context canceled'],
    ]);
    // The restarted kubelet starts the container again.
    expect(r.facts?.filter((f) => f.kind === 'containerStarted').every((f) => f.atMs > 10_000)).toBe(true);
  });
});
