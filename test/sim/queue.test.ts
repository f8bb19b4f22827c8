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
});
