// The known-open hazard force-delete-full-grace (#115819's force-deletion half, 1.22 to 1.30): a force
// deletion's deletionGracePeriodSeconds of 0 reaches a pod worker that had settled on a shorter grace,
// and calculateEffectiveGracePeriod falls back to the spec's. The pod worker publishes gracePeriodFellBack
// only there, so a kill made longer any other way (a bug of the port) stays unexplained. #124063 (1.31,
// switch immediate-eviction-grace) closes it: the deletion's 0 counts as overridden and becomes 1 s.
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
  join(import.meta.dirname, '..', '..', 'scenarios', 'force-deleted-pod-kill-error-grace.yaml'),
  'utf8',
);
const run = (source: string, fixes: Fixes) =>
  runScenario(parseScenarioText(source, 'f.yaml'), { fixes, recordFacts: true });

type FellBack = Extract<Fact, { kind: 'gracePeriodFellBack' }>;
const fellBack = (facts: readonly Fact[] | undefined): FellBack[] =>
  (facts ?? []).filter((f): f is FellBack => f.kind === 'gracePeriodFellBack');

const fellBackFact = (cause: FellBack['cause']): FellBack => ({
  kind: 'gracePeriodFellBack',
  atMs: 14_026,
  node: 'node-a',
  uid: 'web-1',
  pod: 'web',
  fromSeconds: 5,
  toSeconds: 60,
  cause,
});

const increased: Violation = {
  invariant: 'grace-period-increased',
  atMs: 14_100,
  node: 'node-a',
  pod: 'web',
  uid: 'web-1',
  volume: null,
  message: '',
  causes: [],
};

describe('force-delete-full-grace', () => {
  it('1.30: the 60 s kill after the failed 5 s ones is tied to the fallback of that pod', () => {
    const r = run(text, Fixes.of('1.30'));
    expect(fellBack(r.facts).map((f) => [f.uid, f.fromSeconds, f.toSeconds, f.cause])).toEqual([
      ['web-1', 5, 60, 'deletion'],
    ]);
    expect(r.violations.map((v) => [v.invariant, v.knownOpen])).toEqual([
      ['grace-period-increased', 'force-delete-full-grace'],
    ]);
  });

  it("every fix on (#124063, v1.31.12): the deletion's 0 becomes 1 s, nothing falls back, the last kill is shorter", () => {
    const r = run(text, Fixes.all());
    expect(fellBack(r.facts)).toEqual([]);
    const grants = (r.facts ?? []).flatMap((f) =>
      f.kind === 'killPodStarted' && f.uid === 'web-1' ? [f.gracePeriodSeconds] : [],
    );
    expect(grants[0]).toBe(5);
    // The pod worker's 1 s, raised to killContainer's 2 s minimum (applied last since #115835).
    expect(grants.at(-1)).toBe(2);
    expect(r.violations).toEqual([]);
  });

  it('without the runtime outage the 5 s kill is under way when the status falls back: no longer kill runs', () => {
    const r = run(text.replace(/ {2}- at: 12s\n {4}fault:[^\n]*\n/, ''), Fixes.of('1.30'));
    expect(text).toContain('stopContainer');
    expect(fellBack(r.facts).map((f) => [f.fromSeconds, f.toSeconds])).toEqual([[5, 60]]);
    expect(r.violations).toEqual([]);
  });

  it('is open from 1.22 (the #102344 pod worker) to 1.30: release-1.20 has no such fallback, 1.31 has #124063', () => {
    expect(hazardOpenIn('force-delete-full-grace')).toEqual(
      RELEASE_PRESETS.slice(RELEASE_PRESETS.indexOf('1.22'), RELEASE_PRESETS.indexOf('1.31')),
    );
  });

  it('explains only the fallen-back UID, only grace-period-increased, and nothing without the fact', () => {
    const t = new HazardTracker(Fixes.of('1.30'));
    expect(t.explain(increased)).toBeNull();
    t.onFact(fellBackFact('deletion'));
    expect(t.explain(increased)).toBe('force-delete-full-grace');
    expect(t.explain({ ...increased, uid: 'web-2' })).toBeNull();
    expect(t.explain({ ...increased, invariant: 'grace-period-exceeded' })).toBeNull();
    // An eviction's 0 is the other hazard's (hard-eviction-full-grace), not this one.
    const t2 = new HazardTracker(Fixes.of('1.30'));
    t2.onFact(fellBackFact('override'));
    expect(t2.explain(increased)).toBeNull();
  });
});
