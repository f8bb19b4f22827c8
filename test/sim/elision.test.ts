// The kernel's elision of idle loop rounds on small synthetic worlds: polling loops, tickers with a
// consumer, deadlines and writers at random times. Whatever the configuration, the elided run does the
// same things at the same virtual times as the plain run (every round runs there), with fewer events.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Co, IdleLoop, Sim, select, Ticker } from '../../src/sim/index.js';
import { run, type World, worldArb } from './elisionWorld.js';

describe('elision of idle loop rounds', () => {
  it('does the same things at the same times as the plain run, with fewer events', () => {
    fc.assert(
      fc.property(worldArb, fc.integer({ min: 0, max: 0xffff_ffff }), (w, seed) => {
        const plain = run(w, false, seed);
        const elided = run(w, true, seed);
        expect(elided.log).toEqual(plain.log);
        expect(elided.events).toBeLessThanOrEqual(plain.events);
      }),
      { numRuns: 300 },
    );
  });

  it('skips the rounds of an idle loop: a 10 ms loop over 10 s costs a handful of events', () => {
    const w: World = {
      loops: [{ periodMs: 10, startMs: 0, domain: 1, readMask: 1 }],
      tickers: [],
      writes: [{ atMs: 5000, domain: 1, mask: 1 }],
      deadlineMs: 8000,
      horizonMs: 10_000,
    };
    const plain = run(w, false, 1);
    const elided = run(w, true, 1);
    expect(elided.log).toEqual(plain.log);
    expect(plain.log).toContain('5010 loop0 saw 8');
    expect(plain.log).toContain('8000 loop0 deadline');
    expect(plain.log).toContain('8010 loop0 saw 16');
    // The sleeper's events stay (about 23 of them); the loop's 1000 rounds do not.
    expect(plain.events).toBeGreaterThan(1000);
    expect(elided.events).toBeLessThan(60);
  });

  it('a change in another node, or in a part the loop does not read, does not wake it', () => {
    const w: World = {
      loops: [{ periodMs: 10, startMs: 0, domain: 1, readMask: 1 }],
      tickers: [],
      writes: [
        { atMs: 3000, domain: 2, mask: 7 },
        { atMs: 4000, domain: 1, mask: 6 },
      ],
      deadlineMs: 1e9,
      horizonMs: 10_000,
    };
    const elided = run(w, true, 1);
    const wokenOnce = run({ ...w, writes: [{ atMs: 3000, domain: 1, mask: 1 }] }, true, 1);
    expect(elided.events).toBeLessThan(wokenOnce.events);
  });

  it('an idle ticker and its consumer are skipped as a pair, and a tick is still seen after a write', () => {
    const w: World = {
      loops: [{ periodMs: 1000, startMs: 0, domain: 1, readMask: 1 }],
      tickers: [{ periodMs: 100, startMs: 0 }],
      writes: [{ atMs: 5050, domain: 0, mask: 7 }],
      deadlineMs: 1e9,
      horizonMs: 10_000,
    };
    const plain = run(w, false, 3);
    const elided = run(w, true, 3);
    expect(elided.log).toEqual(plain.log);
    expect(plain.log.some((l) => l.startsWith('5100 consumer0 tick 5100'))).toBe(true);
    expect(elided.events * 5).toBeLessThan(plain.events);
  });

  it('a tick handled idle after a message in the same step does not hide what the message changed', () => {
    // The consumer gets a message (it changes state, no effect) and, in the same step, a buffered tick
    // that it handles idle: the step changed something, so the parked loop must still see it at once.
    const runOnce = (elide: boolean, seed: number): string[] => {
      const sim = new Sim(seed, { elide });
      const log: string[] = [];
      let state = 0;
      const loop = new IdleLoop(sim, 10);
      let seen = -1;
      sim.spawn(
        'loop',
        (function* (): Co {
          for (;;) {
            loop.begin();
            if (state !== seen) {
              log.push(`${sim.nowMs} loop saw ${state}`);
              seen = state;
              sim.noteEffect();
            }
            yield* loop.end();
          }
        })(),
      ).writeMask = 0;
      const ticker = new Ticker(sim, 'ticker', 100, undefined);
      const msgs = sim.chan<number>(4, 'msgs');
      sim.spawn(
        'consumer',
        (function* (): Co {
          for (;;) {
            const r = yield* select([{ recv: ticker.ch }, { recv: msgs }]);
            if (r.index === 1) {
              state++; // a change with no effect: only the step's judgement can tell
              continue;
            }
            ticker.begin();
            ticker.handled(r.value as number, 0);
          }
        })(),
      );
      for (const t of [1000, 2000, 3000, 4000, 5000]) sim.at(t, () => msgs.trySend(t));
      sim.run({ horizonMs: 6000, maxEvents: 100_000 });
      return log;
    };
    for (let seed = 0; seed < 40; seed++) expect(runOnce(true, seed)).toEqual(runOnce(false, seed));
  });
});
