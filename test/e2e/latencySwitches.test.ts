// The two fix switches that only move a time (src/fuzz/refind.ts NOT_REFINDABLE): their bundled scenarios
// claim no violation either way, so these tests are what fails if a switch stops doing anything. Each runs
// its scenario with every fix on and with the switch off, on the scenario's own seed, and compares the
// moment the observable step happens.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Fact } from '../../src/facts.js';
import { Fixes, type FixId } from '../../src/fixes.js';
import { housekeepingPeriodMs } from '../../src/kubelet/kubelet.js';
import { runScenario } from '../../src/run/run.js';
import { bundledScenariosDir } from '../../src/scenario/bundled.js';
import { loadScenarioFile } from '../../src/scenario/load.js';

function run(name: string, fixes: Fixes): { facts: readonly Fact[]; violations: string[] } {
  const scenario = loadScenarioFile(join(bundledScenariosDir(), `${name}.yaml`));
  const r = runScenario(scenario, { fixes, recordFacts: true });
  return { facts: r.facts ?? [], violations: r.violations.map((v) => v.invariant) };
}

const off = (id: FixId): Fixes => Fixes.all().with(id, false);

describe('housekeeping-restart-same-round (#116690): static-pod-uid-reuse-restart-round', () => {
  const name = 'static-pod-uid-reuse-restart-round';
  /** When each lifecycle of the reused UID started its container. */
  const starts = (facts: readonly Fact[]) =>
    facts.filter((f) => f.kind === 'containerStarted' && f.pod === 'proxy').map((f) => f.atMs);
  /** When the pod worker finished the first lifecycle (the terminated worker SyncKnownPods forgets). */
  const finished = (facts: readonly Fact[]) =>
    facts.find((f) => f.kind === 'podWorkerPhase' && f.pod === 'proxy' && f.phase === 'finished')?.atMs;

  /** When the pod worker began the second lifecycle (its sync after the restart). */
  const resynced = (facts: readonly Fact[]) =>
    facts.filter((f) => f.kind === 'podWorkerPhase' && f.pod === 'proxy' && f.phase === 'sync')[1]?.atMs;

  it('the reused UID restarts one housekeeping round (2 s) later with the switch off, nothing fires', () => {
    const on = run(name, Fixes.all());
    const without = run(name, off('housekeeping-restart-same-round'));
    expect(on.violations).toEqual([]);
    expect(without.violations).toEqual([]);
    const [firstOn, againOn] = starts(on.facts);
    const [firstOff, againOff] = starts(without.facts);
    expect(starts(on.facts)).toHaveLength(2);
    expect(starts(without.facts)).toHaveLength(2);
    // The first lifecycle and its end are the same run up to the round that forgets the worker.
    expect(firstOff).toBe(firstOn);
    expect(finished(without.facts)).toBe(finished(on.facts));
    // The new container starts exactly one housekeeping period later without #116690.
    expect((againOff ?? 0) - (againOn ?? 0)).toBe(housekeepingPeriodMs);
    // With it, the pod worker syncs the pod again in the first housekeeping round after the old worker
    // finished (the kubelet started at 0, so rounds fall on multiples of the period): the round that forgets
    // the worker. Without it, in the round after that one.
    const firstRound =
      (Math.floor((finished(on.facts) ?? 0) / housekeepingPeriodMs) + 1) * housekeepingPeriodMs;
    expect(resynced(on.facts)).toBe(firstRound);
    expect(resynced(without.facts)).toBe(firstRound + housekeepingPeriodMs);
  });
});
