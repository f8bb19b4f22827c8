// The scenario action deletePvc, the pvc-protection controller and #130335: a claim a pod uses stays,
// being deleted, until the pod object is gone; a kubelet that restarts meanwhile unmounts the running pod's
// volume unless fix dsw-terminating-pvc-protected is on (volume-torn-down-while-running, excused as the
// known-open hazard deleting-pvc-unmounts-running only where the fix is off).
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
  join(import.meta.dirname, '..', '..', 'scenarios', 'terminating-pvc-kubelet-restart.yaml'),
  'utf8',
);
const run = (source: string, fixes: Fixes) =>
  runScenario(parseScenarioText(source, 'p.yaml'), { fixes, recordFacts: true });
const at = (facts: readonly Fact[] | undefined, kind: Fact['kind']) =>
  (facts ?? []).filter((f) => f.kind === kind).map((f) => f.atMs);
const tornDown = (r: ReturnType<typeof run>) =>
  r.violations.map((v) => [v.invariant, v.volume, v.knownOpen ?? null]);

describe('deletePvc and the pvc-protection finalizer', () => {
  it('holds the claim while the pod object exists, and lets it go once the pod is deleted', () => {
    const r = run(text, Fixes.all());
    expect(at(r.facts, 'apiPvcDeletionRequested')).toEqual([20_000]);
    const podGone = at(r.facts, 'apiPodDeleted')[0] ?? 0;
    expect(podGone).toBeGreaterThan(90_000);
    const [removed] = at(r.facts, 'apiPvcFinalizerRemoved');
    expect(removed).toBeGreaterThan(podGone);
    // The controller's watch delay, its live list and its update: well under a second.
    expect((removed ?? 0) - podGone).toBeLessThan(1_000);
    expect(at(r.facts, 'apiPvcDeleted')).toEqual([removed]);
  });

  it('a claim no pod uses goes at once; a second delete and a delete of a gone claim do nothing', () => {
    const free = text
      .replace(/ {2}- at: 0s\n {4}createPod:[^\n]*\n/, '')
      .replace(/ {2}- at: 90s\n {4}deletePod:[^\n]*\n/, '  - at: 21s\n    deletePvc: { volume: data }\n');
    const r = run(free, Fixes.all());
    const [removed] = at(r.facts, 'apiPvcDeleted');
    expect(removed).toBeGreaterThan(20_000);
    expect(removed).toBeLessThan(21_000);
    const noop = (r.facts ?? []).filter((f) => f.kind === 'actionNoop');
    expect(noop.map((f) => (f.kind === 'actionNoop' ? f.reason : ''))).toEqual([
      'the PVC of volume data is already gone',
    ]);
  });

  it('no scenario without deletePvc reads the switch (its run is the same either way)', () => {
    const without = text.replace(/ {2}- at: 20s\n {4}deletePvc:[^\n]*\n/, '');
    expect(without).not.toContain('deletePvc');
    const r = run(without, Fixes.all());
    expect(r.violations).toEqual([]);
    expect(r.fixesRead).not.toContain('dsw-terminating-pvc-protected');
  });
});

describe('#130335: a kubelet restart while the claim terminates', () => {
  it('tears the running pod volume down without the fix, a known-open hazard there', () => {
    for (const fixes of [
      Fixes.all().with('dsw-terminating-pvc-protected', false),
      Fixes.of('1.29'),
      Fixes.of('1.23'),
      Fixes.of('1.20'),
    ]) {
      expect(tornDown(run(text, fixes)), fixes.label()).toEqual([
        ['volume-torn-down-while-running', 'data', 'deleting-pvc-unmounts-running'],
      ]);
    }
  });

  it('keeps the volume with the fix: every fix on, and the presets whose last patch has a pick', () => {
    for (const fixes of [Fixes.all(), Fixes.of('1.31'), Fixes.of('1.30')]) {
      const r = run(text, fixes);
      expect(r.violations, fixes.label()).toEqual([]);
      expect(at(r.facts, 'podVolumeLookupFailed'), fixes.label()).toEqual([]);
    }
  });

  it('the hazard is tied to the pod and volume, closed by the switch, open in 1.20 to 1.29', () => {
    const v: Violation = {
      invariant: 'volume-torn-down-while-running',
      atMs: 35_105,
      node: 'node-a',
      pod: 'db',
      uid: 'db-1',
      volume: 'data',
      message: '',
      causes: [],
    };
    const refused: Fact = {
      kind: 'podVolumeLookupFailed',
      atMs: 35_100,
      node: 'node-a',
      pod: 'db',
      uid: 'db-1',
      volume: 'data',
      error: 'PVC is being deleted',
      cause: 'deleting',
    };
    const open = new HazardTracker(Fixes.of('1.29'));
    open.onFact(refused);
    expect(open.explain(v)).toBe('deleting-pvc-unmounts-running');
    expect(open.explain({ ...v, uid: 'db-2' })).toBeNull();
    // With the fix the path is the port's bug, excused by nothing (nor by #120150's hazard).
    for (const fixes of [Fixes.all(), Fixes.of('1.30')]) {
      const closed = new HazardTracker(fixes);
      closed.onFact(refused);
      expect(closed.explain(v)).toBeNull();
    }
    expect(hazardOpenIn('deleting-pvc-unmounts-running')).toEqual(RELEASE_PRESETS.slice(0, 10));
  });
});
