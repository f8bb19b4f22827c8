import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AssertionError,
  ChoiceRun,
  CLOSED,
  type Co,
  DEFAULT_CASE,
  ProcessGroup,
  Rng,
  type Schedule,
  SELECT_DEFAULT,
  SELECT_TIMEOUT,
  Sim,
  select,
  sleep,
  sleepCtx,
} from '../../src/sim/index.js';

const bounds = { horizonMs: 1_000_000, maxEvents: 1_000_000 };

/** Three goroutines that each log at the same instants: the order is the interleaving. */
function interleaving(seed: number): string {
  const sim = new Sim(seed);
  const log: string[] = [];
  for (const name of ['a', 'b', 'c', 'd']) {
    sim.spawn(
      name,
      (function* (): Co {
        for (let i = 0; i < 3; i++) {
          log.push(`${name}${i}@${sim.nowMs}`);
          yield* sleep(10);
        }
      })(),
    );
  }
  sim.run(bounds);
  return log.join(' ');
}

describe('kernel ordering', () => {
  it('the same seed gives the same interleaving', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffff_ffff }), (seed) => {
        const first = interleaving(seed);
        const second = interleaving(seed);
        return first === second;
      }),
    );
  });

  it('different seeds reach different interleavings of same-time events', () => {
    const seen = new Set<string>();
    for (let seed = 0; seed < 64; seed++) seen.add(interleaving(seed));
    expect(seen.size).toBeGreaterThan(20);
  });

  it('virtual time only moves forward and events at one instant keep time', () => {
    const sim = new Sim(1);
    const times: number[] = [];
    sim.at(30, () => times.push(sim.nowMs));
    sim.at(10, () => times.push(sim.nowMs));
    sim.at(10, () => sim.after(5, () => times.push(sim.nowMs)));
    sim.run(bounds);
    expect(times).toEqual([10, 15, 30]);
  });

  it('atOrdered keeps call order ahead of seeded events of the same instant', () => {
    for (let seed = 0; seed < 20; seed++) {
      const sim = new Sim(seed);
      const log: string[] = [];
      sim.at(5, () => log.push('x'));
      sim.atOrdered(5, () => log.push('1'));
      sim.atOrdered(5, () => log.push('2'));
      sim.atOrdered(5, () => log.push('3'));
      sim.run(bounds);
      expect(log).toEqual(['1', '2', '3', 'x']);
    }
  });

  it('refuses to schedule in the past', () => {
    const sim = new Sim(1);
    sim.at(10, () => sim.at(5, () => {}));
    expect(() => sim.run(bounds)).toThrow(AssertionError);
  });
});

describe('channels', () => {
  it('an unbuffered channel is a rendezvous: the sender blocks until a receiver takes the value', () => {
    const sim = new Sim(3);
    const ch = sim.chan<number>(0);
    const log: string[] = [];
    sim.spawn(
      'sender',
      (function* (): Co {
        yield* ch.send(1);
        log.push(`sent@${sim.nowMs}`);
      })(),
    );
    sim.spawn(
      'receiver',
      (function* (): Co {
        yield* sleep(100);
        const v = yield* ch.recv();
        log.push(`got ${String(v)}@${sim.nowMs}`);
      })(),
    );
    sim.run(bounds);
    expect(log.sort()).toEqual(['got 1@100', 'sent@100']);
  });

  it('blocked senders are served first come, first served, however sends and receives interleave', () => {
    // Senders block one per millisecond while receivers take batches of random sizes: the wait queue
    // (a ring, src/sim/waitq.ts) grows, wraps around and empties many times, and must stay FIFO.
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 1, maxLength: 30 }), (batches) => {
        const sim = new Sim(1);
        const ch = sim.chan<number>(0);
        const senders = batches.reduce((a, b) => a + b, 0);
        for (let i = 0; i < senders; i++) {
          sim.spawn(
            `sender${i}`,
            (function* (): Co {
              yield* sleep(i);
              yield* ch.send(i);
            })(),
          );
        }
        const got: number[] = [];
        sim.spawn(
          'receiver',
          (function* (): Co {
            for (const n of batches) {
              yield* sleep(3);
              for (let k = 0; k < n; k++) got.push((yield* ch.recv()) as number);
            }
          })(),
        );
        sim.run(bounds);
        expect(got).toEqual(Array.from({ length: senders }, (_, i) => i));
      }),
      { numRuns: 200 },
    );
  });

  it('capacity 1 holds one value: the second send blocks, as the pod worker channel does', () => {
    const sim = new Sim(4);
    const ch = sim.chan<string>(1);
    const log: string[] = [];
    sim.spawn(
      'sender',
      (function* (): Co {
        yield* ch.send('first');
        log.push(`first@${sim.nowMs}`);
        yield* ch.send('second');
        log.push(`second@${sim.nowMs}`);
      })(),
    );
    sim.spawn(
      'receiver',
      (function* (): Co {
        yield* sleep(50);
        log.push(`recv ${String(yield* ch.recv())}@${sim.nowMs}`);
        log.push(`recv ${String(yield* ch.recv())}@${sim.nowMs}`);
      })(),
    );
    sim.run(bounds);
    expect(log[0]).toBe('first@0');
    expect(log).toContain('second@50');
    expect(log).toContain('recv first@50');
    expect(log).toContain('recv second@50');
    expect(ch.trySend('x')).toBe(true);
    expect(ch.trySend('y')).toBe(false);
  });

  it('close wakes every receiver with CLOSED, keeps buffered values first, and a second close panics', () => {
    const sim = new Sim(5);
    const ch = sim.chan<number>(2);
    const got: unknown[] = [];
    for (const name of ['r1', 'r2']) {
      sim.spawn(
        name,
        (function* (): Co {
          for (;;) {
            const v = yield* ch.recv();
            got.push(v);
            if (v === CLOSED) return;
          }
        })(),
      );
    }
    sim.at(10, () => {
      expect(ch.trySend(7)).toBe(true);
      ch.close();
    });
    sim.run(bounds);
    expect(got.filter((v) => v === 7)).toHaveLength(1);
    expect(got.filter((v) => v === CLOSED)).toHaveLength(2);
    expect(() => ch.close()).toThrow(AssertionError);
  });

  it('select picks among ready cases by the seed, times out, and honours default', () => {
    const picks = new Set<number>();
    for (let seed = 0; seed < 32; seed++) {
      const sim = new Sim(seed);
      const a = sim.chan<string>(1);
      const b = sim.chan<string>(1);
      a.trySend('a');
      b.trySend('b');
      sim.spawn(
        's',
        (function* (): Co {
          const r = yield* select([{ recv: a }, { recv: b }]);
          picks.add(r.index);
        })(),
      );
      sim.run(bounds);
    }
    expect([...picks].sort()).toEqual([0, 1]);

    const sim = new Sim(9);
    const never = sim.chan<number>(0);
    const results: number[] = [];
    sim.spawn(
      't',
      (function* (): Co {
        results.push((yield* select([{ recv: never }], DEFAULT_CASE)).index);
        results.push((yield* select([{ recv: never }], 250)).index);
        results.push(sim.nowMs);
      })(),
    );
    sim.run(bounds);
    expect(results).toEqual([SELECT_DEFAULT, SELECT_TIMEOUT, 250]);
  });

  it('a quiet channel polled by a select with a timeout keeps a bounded wait queue, and a late send still lands', () => {
    const sim = new Sim(5);
    const quiet = sim.chan<number>(0);
    let timeouts = 0;
    let got: number | undefined;
    let queuedBeforeSend = -1;
    sim.spawn(
      'poller',
      (function* (): Co {
        for (;;) {
          const r = yield* select([{ recv: quiet }], 10);
          if (r.index === SELECT_TIMEOUT) timeouts++;
          else {
            got = r.value as number;
            return;
          }
        }
      })(),
    );
    sim.spawn(
      'late',
      (function* (): Co {
        yield* sleep(1_000_005);
        queuedBeforeSend = (quiet as unknown as { recvq: unknown[] }).recvq.length;
        yield* quiet.send(42);
      })(),
    );
    sim.run({ horizonMs: 2_000_000, maxEvents: 1_000_000 });
    expect(timeouts).toBe(100_000);
    expect(got).toBe(42);
    // 10^5 selects ended by their timeout: their dead waiters do not pile up in the channel.
    expect(queuedBeforeSend).toBeGreaterThan(0);
    expect(queuedBeforeSend).toBeLessThan(200);
  });

  it('a select that fires on one channel is not woken again by its other cases or its timeout', () => {
    const sim = new Sim(11);
    const a = sim.chan<number>(0);
    const b = sim.chan<number>(0);
    const log: string[] = [];
    sim.spawn(
      'sel',
      (function* (): Co {
        const r = yield* select([{ recv: a }, { recv: b }], 1000);
        log.push(`case ${r.index} value ${String(r.value)} @${sim.nowMs}`);
        yield* sleep(5000);
        log.push(`done@${sim.nowMs}`);
      })(),
    );
    sim.at(10, () => expect(a.trySend(1)).toBe(true));
    sim.at(20, () => expect(b.trySend(2)).toBe(false)); // nobody waits on b any more
    sim.run(bounds);
    expect(log).toEqual(['case 0 value 1 @10', 'done@5010']);
  });
});

describe('cancellation, groups and bounds', () => {
  it('a sleeping coroutine observes a context cancel at the cancel instant', () => {
    const sim = new Sim(12);
    const ctx = sim.context();
    const log: string[] = [];
    sim.spawn(
      'w',
      (function* (): Co {
        const completed = yield* sleepCtx(30_000, ctx);
        log.push(`${completed}@${sim.nowMs}`);
        log.push(`${yield* sleepCtx(10, ctx)}@${sim.nowMs}`);
      })(),
    );
    sim.at(1234, () => ctx.cancel());
    sim.run(bounds);
    expect(log).toEqual(['false@1234', 'false@1234']);
    expect(ctx.canceled).toBe(true);
  });

  it('killing a group stops its goroutines wherever they block, and leaves others running', () => {
    const sim = new Sim(13);
    const kubelet = new ProcessGroup('kubelet');
    const ch = sim.chan<number>(0);
    let ticks = 0;
    let received = 0;
    sim.spawn(
      'ticker',
      (function* (): Co {
        for (;;) {
          ticks++;
          yield* sleep(100);
        }
      })(),
      kubelet,
    );
    sim.spawn(
      'waiter',
      (function* (): Co {
        yield* ch.recv();
        received++;
      })(),
      kubelet,
    );
    let outsider = 0;
    sim.spawn(
      'outsider',
      (function* (): Co {
        for (let i = 0; i < 10; i++) {
          outsider++;
          yield* sleep(100);
        }
      })(),
    );
    sim.at(450, () => kubelet.kill());
    sim.at(500, () => expect(ch.trySend(1)).toBe(false));
    sim.run(bounds);
    expect(ticks).toBe(5);
    expect(received).toBe(0);
    expect(outsider).toBe(10);
    expect(kubelet.members.size).toBe(0);
  });

  it('stops at the horizon and at the event budget, and says which bound it hit', () => {
    const forever = (sim: Sim) =>
      sim.spawn(
        'loop',
        (function* (): Co {
          for (;;) yield* sleep(10);
        })(),
      );
    const a = new Sim(1);
    forever(a);
    expect(a.run({ horizonMs: 1000, maxEvents: 1_000_000 })).toEqual({
      reason: 'horizon',
      events: 101,
      nowMs: 1000,
    });
    const b = new Sim(1);
    forever(b);
    expect(b.run({ horizonMs: 1_000_000, maxEvents: 50 })).toMatchObject({
      reason: 'max-events',
      events: 50,
    });
    const c = new Sim(1);
    expect(c.run({ horizonMs: 10, maxEvents: 10 })).toEqual({ reason: 'idle', events: 0, nowMs: 0 });
  });

  it('a coroutine that never blocks is an internal error, not a hang', () => {
    const sim = new Sim(1);
    const ch = sim.chan<number>(1);
    sim.spawn(
      'spin',
      (function* (): Co {
        for (;;) {
          yield* ch.send(1);
          yield* ch.recv();
        }
      })(),
    );
    expect(() => sim.run(bounds)).toThrow(/without blocking/);
  });

  it('a receive loop on a closed channel never reaches the kernel, and is still caught', () => {
    // Receives that do not block complete inside the coroutine (src/sim/chan.ts RecvOp): the step bound
    // must count them too, or this loop would spin forever.
    const sim = new Sim(1);
    const ch = sim.chan<number>(0);
    ch.close();
    sim.spawn(
      'drain',
      (function* (): Co {
        for (;;) yield* ch.recv();
      })(),
    );
    expect(() => sim.run(bounds)).toThrow(/drain ran 100000 effects without blocking/);
  });
});

describe('rng streams', () => {
  it('a draw in one stream changes no other stream', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffff_ffff }), fc.nat(50), (seed, extra) => {
        const quiet = Rng.fromSeed(seed);
        const noisy = Rng.fromSeed(seed);
        const a1 = quiet.fork('node-a/runtime');
        const b1 = quiet.fork('node-b/runtime');
        const a2 = noisy.fork('node-a/runtime');
        for (let i = 0; i < extra; i++) a2.next();
        noisy.next();
        const b2 = noisy.fork('node-b/runtime');
        for (let i = 0; i < 10; i++) if (b1.uint32() !== b2.uint32()) return false;
        return a1.seedText === a2.seedText;
      }),
    );
  });

  it('saves and restores its position', () => {
    const r = Rng.fromSeed(42).fork('x');
    r.next();
    const saved = r.state();
    const expected = [r.next(), r.next(), r.int(1, 6)];
    const resumed = new Rng(r.seedText, saved);
    expect([resumed.next(), resumed.next(), resumed.int(1, 6)]).toEqual(expected);
  });

  it("a goroutine's draws are its own: run in the other order, two goroutines keep their numbers", () => {
    /** Two goroutines due at one instant draw from one stream, twice each; `schedule` picks who goes first. */
    function drawsOf(schedule: Schedule): Record<string, number[]> {
      const sim = new Sim(11);
      sim.setChoices(new ChoiceRun(schedule));
      const stream = sim.rng.fork('node-a/runtime');
      const got: Record<string, number[]> = { a: [], b: [] };
      for (const name of ['a', 'b'])
        sim.spawn(
          name,
          (function* (): Co {
            got[name]?.push(stream.latencyMs(50, 5000, 'x'));
            yield* sleep(10);
            got[name]?.push(stream.int(0, 1_000_000));
          })(),
        );
      sim.run(bounds);
      return got;
    }
    const first = drawsOf([]);
    const other = drawsOf([{ point: 0, pick: 1 }]);
    expect(other).toEqual(first);
    expect(first['a']).not.toEqual(first['b']);
    // A goroutine spawned again under its name (a retried operation) draws new numbers, not its first run's.
    const sim = new Sim(11);
    const stream = sim.rng.fork('node-a/runtime');
    const runs: number[] = [];
    const retry = (): Co =>
      (function* (): Co {
        runs.push(stream.int(0, 1_000_000));
        yield* sleep(1);
      })();
    sim.spawn('volume-op', retry());
    sim.at(5, () => sim.spawn('volume-op', retry()));
    sim.run(bounds);
    expect(runs).toHaveLength(2);
    expect(runs[0]).not.toBe(runs[1]);
  });

  it('jitter stays within [d, d*(1+f)]', () => {
    const r = Rng.fromSeed(7);
    for (let i = 0; i < 1000; i++) {
      const j = r.jitterMs(10_000, 0.5);
      expect(j).toBeGreaterThanOrEqual(10_000);
      expect(j).toBeLessThanOrEqual(15_000);
    }
  });
});
