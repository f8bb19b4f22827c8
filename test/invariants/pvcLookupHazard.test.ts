// The scenario fault pvcLookup and the known-open hazard it shows, pvc-lookup-error-unmounts-running
// (#120150): the populator cannot read a pod's PVC after a kubelet restart, leaves the volume out of the
// desired state, and the reconciler unmounts the reconstructed volume under the running pod. The populator
// publishes podVolumeLookupFailed only there, and the marker goes when the volume is set up again, so a
// teardown of a running pod's volume any other way (a bug of the port) stays unexplained.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Fact } from '../../src/facts.js';
import { Fixes, RELEASE_PRESETS } from '../../src/fixes.js';
import { HazardTracker, hazardOpenIn } from '../../src/invariants/hazards.js';
import type { Violation } from '../../src/invariants/types.js';
import { runScenario } from '../../src/run/run.js';
import { parseScenarioText } from '../../src/scenario/load.js';

const text = readFileSync(
  join(import.meta.dirname, '..', '..', 'scenarios', 'pvc-lookup-error-after-restart.yaml'),
  'utf8',
);
const run = (source: string, fixes: Fixes) =>
  runScenario(parseScenarioText(source, 'p.yaml'), { fixes, recordFacts: true });
const kinds = (facts: readonly Fact[] | undefined, kind: Fact['kind']) =>
  (facts ?? []).filter((f) => f.kind === kind).map((f) => f.atMs);

const tornDown: Violation = {
  invariant: 'volume-torn-down-while-running',
  atMs: 35_205,
  node: 'node-a',
  pod: 'db',
  uid: 'db-1',
  volume: 'data',
  message: '',
  causes: [],
};
const lookupFailed: Fact = {
  kind: 'podVolumeLookupFailed',
  atMs: 35_100,
  node: 'node-a',
  pod: 'db',
  uid: 'db-1',
  volume: 'data',
  error: 'failed to fetch PVC from API server: timeout',
  cause: 'fetch',
};

describe('pvcLookup and pvc-lookup-error-unmounts-running (#120150)', () => {
  it('a restart while the PVC cannot be read tears the running pod volume down, under every preset', () => {
    for (const fixes of [Fixes.all(), Fixes.of('1.23'), Fixes.of('1.20')]) {
      const r = run(text, fixes);
      expect(r.violations.map((v) => [v.invariant, v.volume, v.knownOpen ?? null])).toEqual([
        ['volume-torn-down-while-running', 'data', 'pvc-lookup-error-unmounts-running'],
      ]);
    }
  });

  it('without the fault the restart keeps the volume; with it at the start, the pod mounts once it reads the PVC', () => {
    const clean = run(text.replace(/ {2}- at: 30s\n {4}fault:[^\n]*\n/, ''), Fixes.all());
    expect(text).toContain('pvcLookup');
    expect(clean.violations).toEqual([]);
    // The fault before the pod exists: SyncPod's WaitForAttachAndMount reprocesses the pod at each sync
    // (upstream marks a pod it processed before as processed even when a volume failed), then it mounts.
    const early = text.replace('at: 30s\n    fault', 'at: 0s\n    fault').replace('times: 100', 'times: 5');
    const r = run(early, Fixes.all());
    const failed = kinds(r.facts, 'podVolumeLookupFailed');
    expect(failed).toHaveLength(5);
    expect(failed.slice(1).every((t, i) => t - (failed[i] ?? 0) >= 1_000)).toBe(true);
    expect(kinds(r.facts, 'volumeSetUp')[0]).toBeGreaterThan(failed[4] ?? 0);
    expect(r.violations).toEqual([]);
  });

  it('explains only that pod and volume, until the volume is set up for it again; open in every release', () => {
    const t = new HazardTracker(Fixes.all());
    expect(t.explain(tornDown)).toBeNull();
    t.onFact(lookupFailed);
    expect(t.explain(tornDown)).toBe('pvc-lookup-error-unmounts-running');
    expect(t.explain({ ...tornDown, uid: 'db-2' })).toBeNull();
    expect(t.explain({ ...tornDown, volume: 'other' })).toBeNull();
    expect(t.explain({ ...tornDown, invariant: 'multi-node-mount' })).toBeNull();
    t.onFact({ kind: 'volumeSetUp', atMs: 40_000, node: 'node-a', pod: 'db', uid: 'db-1', volume: 'data' });
    expect(t.explain({ ...tornDown, atMs: 50_000 })).toBeNull();
    expect(hazardOpenIn('pvc-lookup-error-unmounts-running')).toEqual([...RELEASE_PRESETS]);
  });
});
