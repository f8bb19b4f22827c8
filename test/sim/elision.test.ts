// The kernel's elision of idle loop rounds on small synthetic worlds: polling loops, tickers with a
// consumer, deadlines and writers at random times. Whatever the configuration, the elided run does the
// same things at the same virtual times as the plain run (every round runs there), with fewer events.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Co, IdleLoop, Sim, select, sleep, Ticker } from '../../src/sim/index.js';

interface World {
  readonly loops: readonly { periodMs: number; startMs: number; domain: number; readMask: number }[];
  readonly tickers: readonly { periodMs: number; startMs: number }[];
  /**
   * Writes at (time, domain, mask): domain 0 is anywhere. A relayed write is a callback that another one
   * schedules at the same instant: its tie may be smaller than the relay's, so the instant's events are
   * not popped in increasing tie order (nor are wake-ups at the current instant).
   */
  readonly writes: readonly { atMs: number; domain: number; mask: number; relay?: boolean }[];
  /**
   * Loop i acts once when the clock passes this plus i * 997 ms (a back-off ending, say): that round must
   * not be skipped, and what it writes wakes the other loops of its node.
   */
  readonly deadlineMs: number;
  readonly horizonMs: number;
}

/** Runs the world; returns what the loops did (time and what they saw) and the event count. */
function run(w: World, elide: boolean, seed: number): { log: string[]; events: number } {
  const sim = new Sim(seed, { elide });
  const log: string[] = [];
  // One counter per (domain, mask bit): a loop sees what its domain and mask cover.
  const state = new Map<string, number>();
  const key = (domain: number, bit: number) => `${domain}/${bit}`;
  const seen = (domain: number, mask: number): number => {
    let v = 0;
    for (const [k, n] of state) {
      const [d, b] = k.split('/').map(Number) as [number, number];
      if ((d === domain || d === 0) && (mask & (1 << b)) !== 0) v += n * (b + 1) * (d + 7);
    }
    return v;
  };
  for (const wr of w.writes) {
    const write = (): void => {
      for (let b = 0; b < 3; b++) {
        if ((wr.mask & (1 << b)) === 0) continue;
        state.set(key(wr.domain, b), (state.get(key(wr.domain, b)) ?? 0) + 1);
      }
    };
    if (!wr.relay) {
      sim.at(wr.atMs, write, wr.domain, wr.mask);
      continue;
    }
    // The relay writes nothing a loop reads; the write is a callback it schedules at its own instant.
    sim.at(wr.atMs, () => sim.at(sim.nowMs, write, wr.domain, wr.mask), 0, 0);
  }
  w.loops.forEach((l, i) => {
    sim.at(l.startMs, () => {
      const loop = new IdleLoop(sim, l.periodMs, { readMask: l.readMask });
      let last = -1;
      let fired = false;
      sim.spawn(
        `loop${i}`,
        (function* (): Co {
          for (;;) {
            loop.begin();
            const v = seen(l.domain, l.readMask);
            if (v !== last) {
              log.push(`${sim.nowMs} loop${i} saw ${v}`);
              last = v;
              sim.noteEffect(); // what it did is an effect: the round is not idle
            }
            // Each loop acts once its deadline passes, and writes what the loops of its node read.
            const deadlineMs = w.deadlineMs + i * 997;
            if (!fired) {
              if (sim.nowMs >= deadlineMs) {
                log.push(`${sim.nowMs} loop${i} deadline`);
                fired = true;
                state.set(key(l.domain, 0), (state.get(key(l.domain, 0)) ?? 0) + 1);
                sim.touch(1);
                sim.noteEffect();
              } else sim.noteDeadline(deadlineMs);
            }
            yield* loop.end();
          }
        })(),
        undefined,
        l.domain,
      ).writeMask = 0;
    });
  });
  w.tickers.forEach((t, i) => {
    sim.at(t.startMs, () => {
      const ticker = new Ticker(sim, `ticker${i}`, t.periodMs, undefined);
      let last = -1;
      sim.spawn(
        `consumer${i}`,
        (function* (): Co {
          for (;;) {
            const r = yield* select([{ recv: ticker.ch }]);
            ticker.begin();
            const v = seen(0, 7);
            if (v !== last) {
              log.push(`${sim.nowMs} consumer${i} tick ${String(r.value)} saw ${v}`);
              last = v;
              sim.noteEffect();
            }
            ticker.handled(r.value as number, 0);
          }
        })(),
      ).writeMask = 0;
    });
  });
  // A plain goroutine that sleeps odd amounts: real events at instants the loops also use.
  sim.spawn(
    'sleeper',
    (function* (): Co {
      for (let n = 1; ; n++) yield* sleep(37 * n);
    })(),
  ).writeMask = 0;
  const outcome = sim.run({ horizonMs: w.horizonMs, maxEvents: 1_000_000 });
  log.push(`end ${outcome.reason} ${outcome.nowMs}`);
  return { log, events: outcome.events };
}

const worldArb: fc.Arbitrary<World> = fc.record({
  loops: fc.array(
    fc.record({
      periodMs: fc.constantFrom(10, 25, 100, 1000),
      // Often on the writes' 100 ms grid: a write at the instant of a round.
      startMs: fc.oneof(
        fc.integer({ min: 0, max: 500 }),
        fc.integer({ min: 0, max: 5 }).map((n) => n * 100),
      ),
      domain: fc.integer({ min: 1, max: 2 }),
      readMask: fc.integer({ min: 1, max: 7 }),
    }),
    { minLength: 1, maxLength: 5 },
  ),
  tickers: fc.array(
    fc.record({
      periodMs: fc.constantFrom(100, 1000, 2000),
      startMs: fc.integer({ min: 0, max: 50 }).map((n) => n * 10),
    }),
    { maxLength: 2 },
  ),
  writes: fc.array(
    fc.record({
      // On round instants often: a write between a tick's fire and its handling must be seen.
      atMs: fc.oneof(
        fc.integer({ min: 0, max: 20_000 }),
        fc.integer({ min: 0, max: 200 }).map((n) => n * 100),
      ),
      domain: fc.integer({ min: 0, max: 2 }),
      mask: fc.integer({ min: 0, max: 7 }),
      relay: fc.boolean(),
    }),
    { maxLength: 30 },
  ),
  deadlineMs: fc.integer({ min: 0, max: 20_000 }),
  horizonMs: fc.integer({ min: 1000, max: 30_000 }),
});

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
