// The crash-loop back-off end to end (kuberuntime_manager.go doBackOff, flowcontrol.Backoff): a container
// whose start failed after a 60 s delay is the newest attempt, so the pod container deletor keeps it (it
// sorts by CreatedAt, pod_container_deletor.go; by StartedAt it would delete it, never having started,
// and the next sync would go by an older exit and restart at once) and the next start waits out the
// 10 s window counted from its FinishedAt.
import { describe, expect, it } from 'vitest';
import type { Fact } from '../../src/facts.js';
import { Fixes } from '../../src/fixes.js';
import { runScenario } from '../../src/run/run.js';
import { parseScenarioText } from '../../src/scenario/load.js';

const SCENARIO = [
  'name: crash-loop-back-off',
  'seed: 0',
  'horizon: 3m',
  'cluster:',
  '  nodes: [n0]',
  'timeline:',
  '  - at: 0s',
  '    createPod: { pod: web, node: n0, containers: 1 }',
  '  - at: 1500ms',
  '    fault: { containerStart: { pod: web, delay: 60s, error: "StartError" } }',
  '  - at: 1500ms',
  '    crashContainer: { pod: web, container: c1, exitCode: 1 }',
].join('\n');

describe('crash-loop back-off', () => {
  it("waits out the window from the newest attempt's end, though that attempt never started", () => {
    const r = runScenario(parseScenarioText(SCENARIO, 'backoff.yaml'), {
      fixes: Fixes.all(),
      recordFacts: true,
    });
    const web = (r.facts ?? []).filter((f: Fact) => 'uid' in f && f.uid === 'web-1');
    const failed = web.find((f) => f.kind === 'containerStartFailed');
    expect(failed).toBeDefined();
    const failedAtMs = failed?.atMs ?? 0;
    const next = web.find((f) => f.kind === 'containerCreated' && f.atMs > failedAtMs);
    expect(next).toBeDefined();
    expect((next?.atMs ?? 0) - failedAtMs).toBeGreaterThanOrEqual(10_000);
    expect(r.violations).toEqual([]);
  });
});
