// The known-open hazard terminal-pod-volume-kept-desired (#75345 / #75458, #52683): after a restart the
// populator adds a terminating pod's volume that the new reconstruction has already let drop out of
// volumesInUse; the controller detaches it, the actual state never gets it, and findAndRemoveDeletedPods
// keeps it desired while the completed pod exists. The marker is published only while the desired state
// keeps such a volume: a keep that ends (the old reconstruction mounts the volume for the finished pod,
// then lets it go) excuses nothing afterwards.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Fact } from '../../src/facts.js';
import { Fixes } from '../../src/fixes.js';
import { HazardTracker } from '../../src/invariants/hazards.js';
import type { Violation } from '../../src/invariants/types.js';
import { runScenario } from '../../src/run/run.js';
import { parseScenarioText } from '../../src/scenario/load.js';

const text = readFileSync(
  join(import.meta.dirname, '..', '..', 'scenarios', 'terminal-pod-volume-kept-desired.yaml'),
  'utf8',
);

const run = (source: string, fixes: Fixes) =>
  runScenario(parseScenarioText(source, 'f.yaml'), { fixes, recordFacts: true });

type Kept = Extract<Fact, { kind: 'terminatedPodVolumeKeptDesired' }>;
const keptFacts = (facts: readonly Fact[] | undefined): Kept[] =>
  (facts ?? []).filter((f): f is Kept => f.kind === 'terminatedPodVolumeKeptDesired');

const kept = (over: Partial<Kept>): Kept => ({
  kind: 'terminatedPodVolumeKeptDesired',
  atMs: 40_000,
  node: 'node-a',
  uid: 'job-1',
  pod: 'job',
  volume: 'lun-1',
  kept: true,
  ...over,
});

const inUse: Violation = {
  invariant: 'volume-in-use-after-unmount',
  atMs: 360_000,
  node: 'node-a',
  pod: 'job',
  uid: null,
  volume: 'lun-1',
  message: '',
  causes: [],
};

describe('terminal-pod-volume-kept-desired', () => {
  it('every fix on: the volume listed for ever is tied to the keep of that pod and volume', () => {
    const r = run(text, Fixes.all());
    const facts = keptFacts(r.facts);
    expect(facts.map((f) => [f.uid, f.volume, f.kept])).toEqual([['job-1', 'lun-1', true]]);
    const listed = r.violations.filter((v) => v.invariant === 'volume-in-use-after-unmount');
    expect(listed).toHaveLength(1);
    expect(listed[0]?.knownOpen).toBe('terminal-pod-volume-kept-desired');
    expect(r.violations).toHaveLength(1);
  });

  it('the old reconstruction keeps the volume in use, mounts it for the finished pod and lets it go', () => {
    const r = run(text, Fixes.all().with('new-volume-reconstruction', false));
    // The keep is taken while the mount is pending, and closed by the removal that follows the mount.
    expect(keptFacts(r.facts).map((f) => f.kept)).toEqual([true, false]);
    expect(r.violations).toEqual([]);
  });

  it('without the restart the pod finishes with its volume mounted: no keep, nothing listed', () => {
    const r = run(text.replace(/ {2}- at: 17600ms\n {4}restartKubelet:[^\n]*\n/, ''), Fixes.all());
    expect(text).toContain('restartKubelet');
    expect(keptFacts(r.facts)).toEqual([]);
    expect(r.violations).toEqual([]);
  });

  it('a keep explains only its own node and volume, and nothing once the populator dropped the volume', () => {
    const t = new HazardTracker(Fixes.all());
    t.onFact(kept({}));
    expect(t.explain(inUse)).toBe('terminal-pod-volume-kept-desired');
    expect(t.explain({ ...inUse, volume: 'lun-2' })).toBeNull();
    expect(t.explain({ ...inUse, node: 'node-b' })).toBeNull();
    // Another invariant is not this hazard's to explain.
    expect(t.explain({ ...inUse, invariant: 'device-reported-unused-while-mounted' })).toBeNull();
    t.onFact(kept({ atMs: 50_000, kept: false }));
    expect(t.explain(inUse)).toBeNull();
  });
});
