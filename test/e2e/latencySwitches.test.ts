// The two fix switches that only move a time (src/fuzz/refind.ts NOT_REFINDABLE): their bundled scenarios
// claim no violation either way, so these tests are what fails if a switch stops doing anything. Each runs
// its scenario with every fix on and with the switch off, on the scenario's own seed, and compares the
// moment the observable step happens.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Fact } from '../../src/facts.js';
import { Fixes, type FixId } from '../../src/fixes.js';
import { housekeepingPeriodMs } from '../../src/kubelet/kubelet.js';
import { nodeStatusUpdateFrequencyMs } from '../../src/kubelet/kubeletNodeStatus.js';
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

describe('no-reconstructed-reported-in-use (#125014): reconstructed-reported-in-use-clears-new-volume', () => {
  const name = 'reconstructed-reported-in-use-clears-new-volume';
  const at = (facts: readonly Fact[], pick: (f: Fact) => boolean) => facts.find(pick)?.atMs ?? Number.NaN;
  const mountDevice = (facts: readonly Fact[]) =>
    at(facts, (f) => f.kind === 'mountDevice' && f.volume === 'lun-2' && f.ok);
  const started = (facts: readonly Fact[]) =>
    at(facts, (f) => f.kind === 'containerStarted' && f.pod === 'b');
  const reportedInUse = (facts: readonly Fact[]) =>
    at(facts, (f) => f.kind === 'nodeVolumesInUse' && f.volumes.includes('lun-2'));

  it("pod b's volume waits one more node status round with the switch off, nothing fires", () => {
    const on = run(name, Fixes.all());
    const without = run(name, off('no-reconstructed-reported-in-use'));
    expect(on.violations).toEqual([]);
    expect(without.violations).toEqual([]);
    // Both runs report lun-2 in use at the same node status round, before the reconciler's mark.
    expect(reportedInUse(without.facts)).toBe(reportedInUse(on.facts));
    expect(mountDevice(on.facts)).toBeGreaterThan(reportedInUse(on.facts));
    // With #125014 the verify's retry finds the flag set: MountDevice well within one round of the report.
    expect(mountDevice(on.facts) - reportedInUse(on.facts)).toBeLessThan(nodeStatusUpdateFrequencyMs / 2);
    // Without it the mark cleared the flag: MountDevice, and the container, wait for the next round.
    const delayMs = mountDevice(without.facts) - mountDevice(on.facts);
    expect(delayMs).toBeGreaterThan(nodeStatusUpdateFrequencyMs - 1_000);
    expect(delayMs).toBeLessThanOrEqual(nodeStatusUpdateFrequencyMs);
    expect(mountDevice(without.facts) - reportedInUse(without.facts)).toBeGreaterThan(
      nodeStatusUpdateFrequencyMs,
    );
    expect(started(without.facts) - started(on.facts)).toBe(delayMs);
  });
});
