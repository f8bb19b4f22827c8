// The liveness checks wait while an injected fault is still failing what it targets (it fired and has
// firings left), not while one is merely armed: a fault that never fired changed nothing in the run, so
// a liveness violation of that run is the kubelet's own and must be reported. One fuzz case in five ends
// with such a fault (a procMounts fault for a kubelet that never restarted, a tearDown fault for a pod
// never deleted), whose liveness was unjudged before.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Fixes } from '../../src/fixes.js';
import { firedInvariants, runScenario } from '../../src/run/run.js';
import { StopFaults } from '../../src/runtime/stopFaults.js';
import { loadScenarioFile } from '../../src/scenario/load.js';
import type { Scenario, TimelineEntry } from '../../src/scenario/types.js';
import { HostFaults } from '../../src/storage/faults.js';

const scenario = loadScenarioFile(
  join(import.meta.dirname, '..', '..', 'scenarios', 'static-pod-rapid-updates.yaml'),
);
// 1.23.0-1.23.4: version 3 of the static pod never starts (pod-never-started).
const fixes = Fixes.of('1.23').with('unstarted-static-pod-terminated', false);

/** The scenario with a fault armed at 1 s that nothing in it ever triggers. */
function withIdleFault(action: TimelineEntry['action']): Scenario {
  const entry: TimelineEntry = { atMs: 1_000, line: 0, action };
  return { ...scenario, timeline: [...scenario.timeline, entry].sort((a, b) => a.atMs - b.atMs) };
}

describe('faultsActiveAtEnd: only a fault that fired and has firings left holds the liveness checks', () => {
  it('a kubelet bug that leaves a pod never started is reported though a fault that never fired is armed', () => {
    expect(firedInvariants(runScenario(scenario, { fixes }))).toEqual(['pod-never-started']);
    // /proc/mounts is read only by a kubelet starting up (reconstruction): this one never restarts.
    const armed = withIdleFault({
      kind: 'fault',
      fault: { kind: 'procMounts', node: 'node-a', inconsistentReads: 3 },
    });
    const r = runScenario(armed, { fixes, recordFacts: true });
    expect(r.facts?.some((f) => f.kind === 'actionNoop')).toBe(true);
    expect(firedInvariants(r)).toEqual(['pod-never-started']);
    expect(firedInvariants(runScenario(armed, { fixes: Fixes.all() }))).toEqual([]);
  });

  it('HostFaults and StopFaults: armed is not active; fired with firings left is; spent is not', () => {
    const host = new HostFaults(() => {});
    host.inject({ kind: 'procMounts', inconsistentReads: 2 });
    expect(host.active()).toBe(false);
    expect(host.procMountsInconsistent()).toBe(true);
    expect(host.active()).toBe(true);
    expect(host.procMountsInconsistent()).toBe(true);
    expect(host.active()).toBe(false);
    const stops = new StopFaults();
    stops.inject('u1', { container: null, error: 'Unavailable', remaining: 2, fired: 0, removes: false });
    expect(stops.active()).toBe(false);
    expect(stops.fire('u1', 'c1')?.error).toBe('Unavailable');
    expect(stops.active()).toBe(true);
    stops.fire('u1', 'c1');
    expect(stops.active()).toBe(false);
  });
});
