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
});
