// Schedules run with elision (src/sim/choices.ts, ParkedLoops.wakeInstant): at an instant where a real
// event is due, every parked round of that instant runs for real, so its events are the plain run's and
// every order of them can be picked; rounds alone at their instant stay virtual. On small synthetic worlds,
// the runs that one deviation can give are the very runs it gives when every round is real.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Schedule } from '../../src/sim/index.js';
import { run, type World, worldArb } from './elisionWorld.js';

/** Every run the schedules with at most one deviation give: their logs, as a sorted set. */
function oneDeviationRuns(w: World, elide: boolean, seed: number): { runs: string[]; schedules: number } {
  const runs = new Set<string>();
  const first = run(w, elide, seed, []);
  runs.add(first.log.join('\n'));
  const log = first.choices?.log;
  if (log === undefined) throw new Error('no choice log');
  let schedules = 1;
  for (let point = 0; point < log.points; point++)
    for (let pick = 1; pick < log.readyCount(point); pick++) {
      const schedule: Schedule = [{ point, pick }];
      const r = run(w, elide, seed, schedule);
      expect(r.choices?.misfit).toBeUndefined();
      runs.add(r.log.join('\n'));
      schedules++;
    }
  return { runs: [...runs].sort(), schedules };
}

const smallWorld = worldArb.map((w) => ({ ...w, horizonMs: Math.min(w.horizonMs, 3000) }));

describe('schedules run with elision', () => {
  it('the default order does what the plain run does, with fewer events', () => {
    fc.assert(
      fc.property(worldArb, fc.integer({ min: 0, max: 0xffff_ffff }), (w, seed) => {
        const plain = run(w, false, seed);
        const scheduled = run(w, true, seed, []);
        expect(scheduled.log).toEqual(plain.log);
        expect(scheduled.events).toBeLessThanOrEqual(plain.events);
      }),
      { numRuns: 200 },
    );
  });

  it('one deviation gives the same runs as with every round real, from fewer choice points', () => {
    let fewer = 0;
    fc.assert(
      fc.property(smallWorld, fc.integer({ min: 0, max: 0xffff_ffff }), (w, seed) => {
        const plain = oneDeviationRuns(w, false, seed);
        const elided = oneDeviationRuns(w, true, seed);
        expect(elided.runs).toEqual(plain.runs);
        if (elided.schedules < plain.schedules) fewer++;
      }),
      { numRuns: 40 },
    );
    // Rounds that meet only each other at an instant are no choice with elision.
    expect(fewer).toBeGreaterThan(10);
  });

  it('a round parked before a write at its instant runs after it when picked so, and sees the write', () => {
    // A 100 ms loop of node 1 reads part 1; a write of that part at 500 ms, the loop's round instant.
    const w: World = {
      loops: [{ periodMs: 100, startMs: 0, domain: 1, readMask: 1 }],
      tickers: [],
      writes: [{ atMs: 500, domain: 1, mask: 1 }],
      deadlineMs: 1e9,
      horizonMs: 1000,
    };
    const both = oneDeviationRuns(w, true, 1);
    // The round at 500 sees the write (write first) or the round at 600 does (round first).
    expect(both.runs.some((l) => l.includes('500 loop0 saw'))).toBe(true);
    expect(both.runs.some((l) => l.includes('600 loop0 saw') && !l.includes('500 loop0 saw'))).toBe(true);
    expect(both.runs).toEqual(oneDeviationRuns(w, false, 1).runs);
  });
});
