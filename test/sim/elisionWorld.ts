// A small synthetic world for elision's tests (test/sim/elision.test.ts, elidedSchedules.test.ts): polling
// loops that note what they see, tickers with a consumer, deadlines, and writers at random times.
import fc from 'fast-check';
import {
  ChoiceRun,
  type Co,
  IdleLoop,
  type Schedule,
  Sim,
  select,
  sleep,
  Ticker,
} from '../../src/sim/index.js';

export interface World {
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

/**
 * Runs the world; returns what the loops did (time and what they saw) and the event count. With a
 * schedule, the run follows it (src/sim/choices.ts) and `choices` has its choice points.
 */
export function run(
  w: World,
  elide: boolean,
  seed: number,
  schedule?: Schedule,
): { log: string[]; events: number; choices: ChoiceRun | undefined } {
  const sim = new Sim(seed, { elide });
  const choices = schedule === undefined ? undefined : new ChoiceRun(schedule);
  if (choices !== undefined) sim.setChoices(choices);
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
  return { log, events: outcome.events, choices };
}

export const worldArb: fc.Arbitrary<World> = fc.record({
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
