import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventQueue, type Target } from '../../src/sim/index.js';

describe('EventQueue', () => {
  it('pops in (time, tie, sequence) order, whatever the push order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 50 }), fc.integer({ min: 0, max: 3 })), {
          maxLength: 300,
        }),
        (entries) => {
          const q = new EventQueue(2); // tiny, so growth is exercised
          const fired: number[] = [];
          const target: Target = {
            fire: (arg) => {
              fired.push(arg);
            },
          };
          entries.forEach(([t, k], i) => {
            q.push(t, k, target, i);
          });
          while (q.size > 0) q.pop().fire(q.poppedArg);
          const expected = entries
            .map(([t, k], i) => ({ t, k, i }))
            .sort((a, b) => a.t - b.t || a.k - b.k || a.i - b.i)
            .map((e) => e.i);
          expect(fired).toEqual(expected);
        },
      ),
    );
  });

  it('remove takes out exactly one pending event and keeps the order of the rest', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 50 }), fc.integer({ min: 0, max: 3 })), {
          minLength: 1,
          maxLength: 200,
        }),
        fc.array(fc.nat(), { maxLength: 20 }),
        (entries, picks) => {
          const q = new EventQueue(2);
          const fired: number[] = [];
          const target: Target = { fire: (arg) => void fired.push(arg) };
          entries.forEach(([t, k], i) => {
            q.push(t, k, target, i);
          });
          const removed = new Set<number>();
          for (const p of picks) {
            const i = p % entries.length;
            expect(q.remove(target, i)).toBe(!removed.has(i));
            removed.add(i);
          }
          expect(q.size).toBe(entries.length - removed.size);
          while (q.size > 0) q.pop().fire(q.poppedArg);
          const expected = entries
            .map(([t, k], i) => ({ t, k, i }))
            .filter((e) => !removed.has(e.i))
            .sort((a, b) => a.t - b.t || a.k - b.k || a.i - b.i)
            .map((e) => e.i);
          expect(fired).toEqual(expected);
        },
      ),
    );
  });

  it('interleaved pushes, pops and removes at and after the current instant keep the order (lane and heap)', () => {
    type Op =
      | { kind: 'push'; delayMs: number; tie: number }
      | { kind: 'pop' }
      | { kind: 'remove'; pick: number };
    const op: fc.Arbitrary<Op> = fc.oneof(
      // Mostly same-instant pushes with few distinct ties, so the lane fills past its bound and ties collide.
      fc.record({
        kind: fc.constant('push' as const),
        delayMs: fc.constantFrom(0, 0, 0, 1, 7),
        tie: fc.integer({ min: 0, max: 5 }),
      }),
      fc.record({ kind: fc.constant('pop' as const) }),
      fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 400 }), (ops) => {
        const q = new EventQueue(2);
        const target: Target = { fire: () => {} };
        // The model: pending entries as (time, tie, seq, id), the least popped by a sort.
        const model: { t: number; k: number; s: number; id: number }[] = [];
        let nowMs = 0;
        let seq = 0;
        const popModel = (): number => {
          model.sort((a, b) => a.t - b.t || a.k - b.k || a.s - b.s);
          const e = model.shift();
          if (e === undefined) throw new Error('model empty');
          nowMs = e.t;
          return e.id;
        };
        for (const o of ops) {
          if (o.kind === 'push') {
            const id = seq++;
            q.push(nowMs + o.delayMs, o.tie, target, id);
            model.push({ t: nowMs + o.delayMs, k: o.tie, s: id, id });
          } else if (o.kind === 'pop') {
            if (model.length === 0) continue;
            const want = popModel();
            expect(q.pop()).toBe(target);
            expect(q.poppedArg).toBe(want);
            expect(q.poppedTimeMs).toBe(nowMs);
          } else if (model.length > 0) {
            const e = model.splice(o.pick % model.length, 1)[0];
            if (e !== undefined) expect(q.remove(target, e.id)).toBe(true);
          }
          expect(q.size).toBe(model.length);
          if (model.length > 0) {
            const least = [...model].sort((a, b) => a.t - b.t || a.k - b.k || a.s - b.s)[0];
            expect(q.peekTimeMs()).toBe(least?.t);
            expect(q.nextTimeMs()).toBe(least?.t);
            expect(q.peekTie()).toBe(least?.k);
          } else expect(q.nextTimeMs()).toBe(Number.POSITIVE_INFINITY);
        }
        while (model.length > 0) {
          const want = popModel();
          q.pop();
          expect(q.poppedArg).toBe(want);
        }
        expect(q.size).toBe(0);
        expect(q.nextTimeMs()).toBe(Number.POSITIVE_INFINITY);
      }),
      { numRuns: 300 },
    );
  });
});
