// podrace explore's search (src/explore/explore.ts): the default order is the first schedule explored,
// schedules come in order of their deviations, limits make it incomplete, and a reordering that the
// footprints call commuting gives the very run it was skipped for.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { explore, mustExplore } from '../../src/explore/explore.js';
import { Fixes } from '../../src/fixes.js';
import { firedInvariants, runScenario } from '../../src/run/run.js';
import { loadScenarioFile } from '../../src/scenario/load.js';

const dir = join(import.meta.dirname, '..', '..', 'scenarios');
const load = (name: string) => loadScenarioFile(join(dir, `${name}.yaml`));
const unlimited = { deadlineMs: Number.POSITIVE_INFINITY, clock: () => 0 };

describe('explore', () => {
  it('the default order is the first schedule explored: its violation is the default run’s', () => {
    const scenario = load('pod-deleted-before-start');
    const fixes = Fixes.none();
    const r = explore(scenario, { fixes, bound: 2, maxSchedules: 10, ...unlimited });
    expect(r.explored).toBe(1);
    expect(r.perDepth).toEqual([1]);
    expect(r.violation?.schedule).toEqual([]);
    const plain = runScenario(scenario, { fixes });
    expect(firedInvariants(plain).length).toBeGreaterThan(0);
    expect(r.violation === undefined ? [] : firedInvariants(r.violation.result)).toEqual(
      firedInvariants(plain),
    );
  });

  it('bound 0 runs the default order alone, and is complete', () => {
    const r = explore(load('pod-deleted-before-start'), {
      fixes: Fixes.all(),
      bound: 0,
      maxSchedules: 10,
      ...unlimited,
    });
    expect([r.explored, r.complete, r.violation]).toEqual([1, true, undefined]);
  });

  it('the schedule budget and the time limit stop it incomplete, deterministically', () => {
    const scenario = load('pod-deleted-before-start');
    const o = { fixes: Fixes.all(), bound: 1, maxSchedules: 4, ...unlimited };
    const a = explore(scenario, o);
    expect([a.explored, a.perDepth, a.complete, a.stoppedBy]).toEqual([4, [1, 3], false, 'max-schedules']);
    const b = explore(scenario, o);
    expect(b.skippedCommuting).toBe(a.skippedCommuting);
    expect(a.skippedCommuting).toBeGreaterThan(0);
    let now = 0;
    const timed = explore(scenario, { ...o, maxSchedules: 100, deadlineMs: 2, clock: () => now++ });
    expect([timed.complete, timed.stoppedBy]).toEqual([false, 'time-limit']);
  });

  for (const name of ['pod-deleted-before-start', 'csi-reconstruct-fails-contrast']) {
    it(`${name}: a reordering judged commuting gives the parent's run, fact for fact`, () => {
      const scenario = load(name);
      const fixes = Fixes.all();
      const parent = runScenario(scenario, { fixes, recordFacts: true, schedule: [] });
      const log = parent.choices?.log;
      if (log === undefined) throw new Error('no log');
      const index = new Map(log.seq.map((s, j) => [s, j]));
      const skipped: [number, number][] = [];
      for (let c = 0; c < log.points; c++)
        for (let i = 1; i < (log.pointReady[c] as number[]).length; i++)
          if (!mustExplore(log, index, c, i)) skipped.push([c, i]);
      expect(skipped.length).toBeGreaterThan(100);
      // Twenty spread over the run (each is a whole run).
      const facts = JSON.stringify(parent.facts);
      for (let k = 0; k < 20; k++) {
        const [point, pick] = skipped[Math.floor((k * skipped.length) / 20)] as [number, number];
        const r = runScenario(scenario, { fixes, recordFacts: true, schedule: [{ point, pick }] });
        expect(JSON.stringify(r.facts), `${point}:${pick}`).toBe(facts);
        expect(r.events).toBe(parent.events);
      }
    });
  }
});
