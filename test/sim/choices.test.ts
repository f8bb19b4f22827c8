import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ChoiceLog,
  ChoiceRun,
  dependent,
  EventQueue,
  FP_HOOKED,
  FP_READER,
  FP_STALE,
  FP_WRITER,
  type InstantEntries,
  type Schedule,
  Sim,
  select,
  sleep,
  type Target,
  Ticker,
} from '../../src/sim/index.js';

/** Three callbacks at one instant, two at a later one: the order they fire in under `schedule`. */
function order(schedule: Schedule | undefined): { fired: string[]; run: ChoiceRun | undefined } {
  const sim = new Sim(7);
  const run = schedule === undefined ? undefined : new ChoiceRun(schedule);
  if (run !== undefined) sim.setChoices(run);
  const fired: string[] = [];
  for (const name of ['a', 'b', 'c']) sim.at(5, () => fired.push(name), 1);
  for (const name of ['d', 'e']) sim.at(9, () => fired.push(name), 2);
  sim.run({ horizonMs: 100, maxEvents: 100 });
  return { fired, run };
}

describe('schedules of same-instant events', () => {
  it('the empty schedule is the default order, with one choice point per pop that had a choice', () => {
    const plain = order(undefined).fired;
    const { fired, run } = order([]);
    expect(fired).toEqual(plain);
    // 3 ready, then 2, then 1 (no choice); 2 ready, then 1.
    expect(run?.points).toBe(3);
    expect([0, 1, 2].map((c) => run?.log.readyCount(c))).toEqual([3, 2, 2]);
    expect(run?.misfit).toBeUndefined();
  });

  it('a deviation pops the picked ready event first, then the default order resumes', () => {
    const plain = order(undefined).fired;
    const [x, y, z, d, e] = plain;
    expect(order([{ point: 0, pick: 2 }]).fired).toEqual([z, x, y, d, e]);
    expect(order([{ point: 1, pick: 1 }]).fired).toEqual([x, z, y, d, e]);
    expect(
      order([
        { point: 0, pick: 1 },
        { point: 2, pick: 1 },
      ]).fired,
    ).toEqual([y, x, z, e, d]);
  });

  it('a schedule that does not fit names the deviation: a pick out of range, a point never reached', () => {
    const wide = order([{ point: 0, pick: 3 }]).run;
    expect(wide?.misfit).toEqual({
      position: 0,
      reason: 'choice point 0 has 3 ready events (picks 0..2), not 3',
    });
    const far = order([
      { point: 1, pick: 1 },
      { point: 9, pick: 1 },
    ]).run;
    expect(far?.misfit?.position).toBe(1);
    expect(far?.misfit?.reason).toMatch(/choice point 9 is never reached \(the run has 3 choice points\)/);
  });

  it('a stale wake-up is no choice: it does nothing wherever it runs', () => {
    const sim = new Sim(3);
    const run = new ChoiceRun([]);
    sim.setChoices(run);
    const ch = sim.chan<number>(1);
    const got: unknown[] = [];
    // Woken at 2 by the send: its select's timeout at 5 stays queued, stale.
    sim.spawn(
      'receiver',
      (function* () {
        got.push((yield* select([{ recv: ch as never }], 5)).index);
        yield* sleep(100);
      })(),
    );
    sim.at(2, () => ch.trySend(1));
    sim.at(5, () => got.push('callback'));
    sim.run({ horizonMs: 10, maxEvents: 20 });
    expect(got).toEqual([0, 'callback']);
    // Only the instant 0 (the spawn alone) and 2 (the callback, then the woken receiver) and 5 (the stale
    // timeout and the callback): no instant had two events that do something at one pop.
    expect(run.points).toBe(0);
    expect(run.log.kind.filter((k) => k === FP_STALE)).toHaveLength(1);
  });

  it('two sends that could each wake one select touch its wait: they do not commute, and their order decides its case', () => {
    function caseTaken(schedule: Schedule): { got: unknown[]; run: ChoiceRun } {
      const sim = new Sim(5);
      const run = new ChoiceRun(schedule);
      sim.setChoices(run);
      const a = sim.chan<number>(1, 'a');
      const b = sim.chan<number>(1, 'b');
      const got: unknown[] = [];
      sim.spawn(
        'receiver',
        (function* () {
          got.push((yield* select([{ recv: a as never }, { recv: b as never }])).index);
        })(),
      );
      // Two nodes' events, neither touching what nodes share: by their masks alone they would commute.
      sim.at(5, () => a.trySend(1), 1);
      sim.at(5, () => b.trySend(2), 2);
      sim.run({ horizonMs: 10, maxEvents: 20 });
      return { got, run };
    }
    const plain = caseTaken([]);
    const log = plain.run.log;
    // The two sends: the events at 5 that were due before the instant (the receiver's wake is pushed in it).
    const sends = log.timeMs.flatMap((t, j) => (t === 5 && log.pusher[j] === -1 ? [j] : []));
    expect(sends).toHaveLength(2);
    expect(dependent(log, sends[0] as number, sends[1] as number)).toBe(true);
    const other = caseTaken([{ point: 0, pick: 1 }]);
    expect(other.got).toHaveLength(1);
    expect(other.got).not.toEqual(plain.got);
  });

  it('a schedule run may skip idle rounds: the same callbacks in the same order, elided or not', () => {
    for (const elide of [false, true]) {
      const sim = new Sim(7, { elide });
      const run = new ChoiceRun([{ point: 0, pick: 2 }]);
      sim.setChoices(run);
      const fired: string[] = [];
      for (const name of ['a', 'b', 'c']) sim.at(5, () => fired.push(name), 1);
      sim.run({ horizonMs: 100, maxEvents: 100 });
      expect([fired.length, run.points, run.misfit]).toEqual([3, 2, undefined]);
    }
  });

  it('a schedule must list its choice points in increasing order', () => {
    expect(
      () =>
        new ChoiceRun([
          { point: 4, pick: 1 },
          { point: 4, pick: 2 },
        ]),
    ).toThrow(/increasing/);
  });
});

describe('footprints', () => {
  /** Rows of [kind, domain, mask, shared, reads]: a writer reads everything unless it says. */
  function log(
    rows: [kind: number, domain: number, mask: number, shared: number, reads?: number][],
  ): ChoiceLog {
    const l = new ChoiceLog();
    for (const [k, d, m, s, r] of rows) {
      l.touchStart.push(0);
      l.readStart.push(0);
      l.kind.push(k);
      l.domain.push(d);
      l.mask.push(m);
      l.shared.push(s);
      l.reads.push(k === FP_WRITER ? (r ?? 0xffff) : 0);
    }
    return l;
  }

  it('commute: a stale wake-up with anything, two idle rounds, readers and writers of different parts', () => {
    const l = log([
      [FP_STALE, 0, 0, 0],
      [FP_READER, 1, 4, 0],
      [FP_READER, 1, 0xffff, 0],
      [FP_WRITER, 1, 8, 1],
      [FP_WRITER, 2, 0xffff, 1],
      [FP_WRITER, 2, 0xffff, 0],
    ]);
    expect(dependent(l, 0, 4)).toBe(false);
    expect(dependent(l, 1, 2)).toBe(false);
    expect(dependent(l, 1, 3)).toBe(false); // reads the runtime, writes volumes
    expect(dependent(l, 1, 4)).toBe(false); // another node
    expect(dependent(l, 3, 5)).toBe(false); // other nodes, only one touched the API server
  });

  it('conflict: a writer of what an idle round reads, writers of one node, two writers of shared objects', () => {
    const l = log([
      [FP_READER, 1, 8, 0],
      [FP_WRITER, 1, 8, 0],
      [FP_WRITER, 1, 2, 0],
      [FP_WRITER, 2, 2, 1],
      [FP_WRITER, 1, 2, 1],
      [FP_WRITER, 0, 1, 0],
      [FP_READER, 3, 8, 0],
    ]);
    expect(dependent(l, 0, 1)).toBe(true);
    expect(dependent(l, 1, 2)).toBe(true);
    expect(dependent(l, 3, 4)).toBe(true);
    expect(dependent(l, 5, 3)).toBe(true); // domain 0 is every node
    expect(dependent(l, 5, 6)).toBe(false); // it writes pods; the round reads volumes
  });

  it("one step that handles two ticks idly reads what both handlings read, and writes what the second's hook moves", () => {
    // syncLoop's select: a tick of syncCh (reads the work queue) and, in the same step, housekeeping's
    // (reads everything; its hook moves the runtime cache's time). Recorded as a reader of the queue
    // alone, the step would commute with writers that housekeeping's handling reads.
    const sim = new Sim(11);
    const run = new ChoiceRun([]);
    sim.setChoices(run);
    const handled = new Map<number, number[]>();
    sim.spawn(
      'consumer',
      (function* () {
        const a = new Ticker(sim, 'a', 10, undefined, undefined, 0x10);
        const b = new Ticker(sim, 'b', 10, undefined, () => {}, 0xffff, 0x20000);
        for (;;) {
          const r = yield* select([{ recv: a.ch as never }, { recv: b.ch as never }]);
          const t = r.index === 0 ? a : b;
          t.begin();
          t.handled(r.value as number, 0);
          handled.set(sim.events - 1, [...(handled.get(sim.events - 1) ?? []), r.index]);
        }
      })(),
      undefined,
      1,
    );
    sim.run({ horizonMs: 400, maxEvents: 10_000 });
    const l = run.log;
    let both = 0;
    for (const [j, cases] of handled) {
      if (cases.length < 2) continue;
      both++;
      expect(l.kind[j]).toBe(FP_HOOKED);
      expect(l.mask[j]).toBe(0x20000);
      expect((l.reads[j] as number) & 0xffff).toBe(0xffff);
    }
    expect(both).toBeGreaterThan(0);
  });

  it("draws outside a goroutine take a stream's next number: two callbacks drawing from one stream do not commute", () => {
    const sim = new Sim(5);
    const run = new ChoiceRun([]);
    sim.setChoices(run);
    const a = sim.rng.fork('a');
    const b = sim.rng.fork('b');
    // Three callbacks that change and read nothing of their node: two draw from stream a, one from b.
    for (const stream of [a, a, b])
      sim.at(
        5,
        () => {
          sim.writesOnly(0);
          sim.readsOnly(0);
          stream.int(1, 100);
        },
        1,
      );
    sim.run({ horizonMs: 10, maxEvents: 10 });
    const l = run.log;
    expect(l.seq.length).toBe(3);
    // Which two drew from a depends on the tie order: find them by their touched stream.
    const ids = [0, 1, 2].map((j) =>
      l.touches.slice(l.touchStart[j] as number, l.touchStart[j + 1] as number),
    );
    const same: [number, number][] = [];
    const other: [number, number][] = [];
    for (let x = 0; x < 3; x++)
      for (let y = x + 1; y < 3; y++) (ids[x]?.[0] === ids[y]?.[0] ? same : other).push([x, y]);
    expect([same.length, other.length]).toEqual([1, 2]);
    for (const [x, y] of same) expect(dependent(l, x, y)).toBe(true);
    for (const [x, y] of other) expect(dependent(l, x, y)).toBe(false);
  });

  it('a footprint write mask narrows what a goroutine is recorded to write; a touch still adds to it', () => {
    const sim = new Sim(9);
    const run = new ChoiceRun([]);
    sim.setChoices(run);
    const p = sim.spawn(
      'manager',
      (function* () {
        yield* sleep(5); // writes only its own state
        sim.noteEffect();
        yield* sleep(5); // drops a status
        sim.noteEffect();
        sim.touch(2);
      })(),
      undefined,
      1,
    );
    p.writeMask = 2; // what elision sees
    p.footprintWriteMask = 0;
    sim.run({ horizonMs: 100, maxEvents: 100 });
    const l = run.log;
    expect(l.seq.length).toBe(3);
    expect([l.kind[1], l.mask[1]]).toEqual([FP_WRITER, 0]);
    expect([l.kind[2], l.mask[2]]).toEqual([FP_WRITER, 2]);
  });

  it('two writers of one node commute only if neither writes what the other reads or writes', () => {
    const l = log([
      [FP_WRITER, 1, 0, 1, 0], // the Lease renewal: reads and writes nothing of the node, calls the API
      [FP_WRITER, 1, 4, 0], // a PLEG relist: writes the runtime cache, reads everything
      [FP_WRITER, 1, 2, 0, 4], // writes statuses, reads the runtime
      [FP_WRITER, 1, 8, 0, 1], // writes volumes, reads pods
      [FP_WRITER, 1, 2, 1], // writes statuses, calls the API
      [FP_WRITER, 0, 2, 0, 0], // anywhere: writes statuses of every node, reads nothing
      [FP_WRITER, 0, 0, 1, 0], // an API pod's create (a timeline entry): only the API server
    ]);
    expect(dependent(l, 0, 1)).toBe(false);
    expect(dependent(l, 0, 4)).toBe(true); // both called the API server
    expect(dependent(l, 1, 2)).toBe(true); // statuses read the runtime PLEG wrote
    expect(dependent(l, 2, 3)).toBe(false); // neither reads nor writes what the other writes
    expect(dependent(l, 2, 4)).toBe(true); // both write statuses
    expect(dependent(l, 3, 1)).toBe(true); // PLEG reads everything, volumes included
    expect(dependent(l, 5, 2)).toBe(true); // domain 0 is every node: both write its statuses
    expect(dependent(l, 5, 1)).toBe(true); // PLEG reads the statuses it writes there
    expect(dependent(l, 5, 3)).toBe(false); // volumes and pods: neither is written by the other
    expect(dependent(l, 6, 1)).toBe(false); // an API write and a relist
    expect(dependent(l, 6, 4)).toBe(true); // both called the API server
  });
});

describe('EventQueue.collectAt and popSeq', () => {
  it('collect the earliest instant in pop order, and popSeq takes any of them out', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 3 })), {
          minLength: 1,
          maxLength: 60,
        }),
        fc.nat(),
        (entries, pickSeed) => {
          const q = new EventQueue(2);
          const target: Target = { fire: () => {} };
          entries.forEach(([t, k], i) => {
            q.push(t, k, target, i);
          });
          const out: InstantEntries = { tie: [], seq: [], arg: [], target: [], stack: [] };
          const t0 = Math.min(...entries.map(([t]) => t));
          const n = q.collectAt(t0, out);
          const expected = entries
            .map(([t, k], i) => ({ t, k, i }))
            .filter((e) => e.t === t0)
            .sort((a, b) => a.k - b.k || a.i - b.i)
            .map((e) => e.i);
          expect(out.arg.slice(0, n)).toEqual(expected);
          const pick = expected[pickSeed % expected.length] as number;
          q.popSeq(pick);
          expect(q.poppedArg).toBe(pick);
          const rest: number[] = [];
          while (q.size > 0) {
            q.pop();
            rest.push(q.poppedArg);
          }
          const all = entries
            .map(([t, k], i) => ({ t, k, i }))
            .sort((a, b) => a.t - b.t || a.k - b.k || a.i - b.i)
            .map((e) => e.i)
            .filter((i) => i !== pick);
          expect(rest).toEqual(all);
        },
      ),
    );
  });
});
