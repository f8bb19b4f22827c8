// A run given a schedule (src/sim/choices.ts) on real scenarios: the empty schedule is the default run,
// fact for fact; a deviation gives another run, the same one every time; a schedule that does not fit
// is reported, not followed.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Fixes } from '../../src/fixes.js';
import { runScenario } from '../../src/run/run.js';
import { loadScenarioFile } from '../../src/scenario/load.js';

const dir = join(import.meta.dirname, '..', '..', 'scenarios');
const load = (name: string) => loadScenarioFile(join(dir, `${name}.yaml`));

describe('runs with a schedule', () => {
  for (const name of ['pod-deleted-before-start', 'csi-reconstruct-fails-contrast', 'static-pod-uid-reuse']) {
    it(`${name}: the empty schedule gives the plain run's facts and end, with fewer events`, () => {
      const scenario = load(name);
      for (const fixes of [Fixes.all(), Fixes.none()]) {
        const plain = runScenario(scenario, { fixes, recordFacts: true, elide: false });
        const elided = runScenario(scenario, { fixes, recordFacts: true });
        const scheduled = runScenario(scenario, { fixes, recordFacts: true, schedule: [] });
        expect(JSON.stringify(scheduled.facts)).toBe(JSON.stringify(plain.facts));
        expect([scheduled.virtualTimeMs, scheduled.outcome]).toEqual([plain.virtualTimeMs, plain.outcome]);
        // Idle rounds alone at their instant are skipped; those at an instant with a real event run.
        expect(scheduled.events).toBeLessThan(plain.events / 4);
        expect(scheduled.events).toBeGreaterThanOrEqual(elided.events);
        expect(scheduled.choices?.points).toBeGreaterThan(0);
        expect(scheduled.choices?.misfit).toBeUndefined();
        expect(plain.choices).toBeUndefined();
      }
    });
  }

  it('a run that records no choice log follows its schedule the same, latencies and misfits included', () => {
    const scenario = load('pod-deleted-before-start');
    const fixes = Fixes.all();
    const base = runScenario(scenario, { fixes, recordFacts: true, schedule: [], collectLatencies: true });
    const log = base.choices?.log;
    if (log === undefined) throw new Error('no log');
    const latency = base.choices?.latency;
    const lp = (latency?.points ?? 0) - 1;
    const schedules = [
      [{ point: 5, pick: 1 }],
      [
        { point: 20, pick: 1 },
        { point: Math.floor(log.points / 2), pick: 1 },
      ],
      [{ latencyPoint: lp, latencyMs: latency?.loMs[lp] ?? 0 }],
      [{ point: log.points + 5, pick: 1 }],
    ];
    for (const schedule of schedules) {
      const recorded = runScenario(scenario, { fixes, recordFacts: true, schedule });
      const bare = runScenario(scenario, { fixes, recordFacts: true, schedule, recordChoices: false });
      expect(JSON.stringify(bare.facts)).toBe(JSON.stringify(recorded.facts));
      expect([bare.events, bare.outcome, bare.violations.length]).toEqual([
        recorded.events,
        recorded.outcome,
        recorded.violations.length,
      ]);
      expect(bare.choices?.misfit).toEqual(recorded.choices?.misfit);
      expect(bare.choices?.log.seq.length).toBe(0);
    }
  });

  it('a deviation is followed: another order of facts, the same on replay', () => {
    const scenario = load('pod-deleted-before-start');
    const fixes = Fixes.all();
    const base = runScenario(scenario, { fixes, recordFacts: true, schedule: [] });
    const log = base.choices?.log;
    if (log === undefined) throw new Error('no log');
    // The first choice point where the event picked instead published a fact at that instant.
    let changed: string | undefined;
    for (let c = 0; c < log.points && changed === undefined; c++) {
      const schedule = [{ point: c, pick: 1 }];
      const a = runScenario(scenario, { fixes, recordFacts: true, schedule });
      if (JSON.stringify(a.facts) === JSON.stringify(base.facts)) continue;
      const b = runScenario(scenario, { fixes, recordFacts: true, schedule });
      expect(JSON.stringify(b.facts)).toBe(JSON.stringify(a.facts));
      expect(a.choices?.misfit).toBeUndefined();
      changed = `${c}`;
    }
    expect(changed).toBeDefined();
  });

  it('a schedule that does not fit: the deviation and why', () => {
    const scenario = load('pod-deleted-before-start');
    const r = runScenario(scenario, { fixes: Fixes.all(), schedule: [{ point: 10_000_000, pick: 1 }] });
    expect(r.choices?.misfit?.position).toBe(0);
    expect(r.choices?.misfit?.reason).toMatch(/^choice point 10000000 is never reached/);
    const wide = runScenario(scenario, { fixes: Fixes.all(), schedule: [{ point: 0, pick: 99 }] });
    expect(wide.choices?.misfit?.reason).toMatch(/^choice point 0 has \d+ ready events/);
    expect(wide.outcome).toBe('stopped');
  });
});
