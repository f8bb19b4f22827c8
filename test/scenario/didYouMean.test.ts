// "did you mean" over up to 25,000 names: the banded distance agrees with the full optimal string alignment
// distance wherever it matters (at most the limit), and a hint over many long names returns promptly.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boundedDistance, didYouMean } from '../../src/scenario/didYouMean.js';

/** The full table, as a reference. */
function osa(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  const d = Array.from({ length: x.length + 1 }, (_, i) =>
    Array.from({ length: y.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => d[i]?.[j] ?? 0;
  for (let i = 1; i <= x.length; i++) {
    for (let j = 1; j <= y.length; j++) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1])
        best = Math.min(best, at(i - 2, j - 2) + 1);
      (d[i] as number[])[j] = best;
    }
  }
  return at(x.length, y.length);
}

describe('did you mean', () => {
  it('the banded distance equals the full one up to the limit, and exceeds the limit otherwise', () => {
    const word = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'A', '-'), maxLength: 12 });
    fc.assert(
      fc.property(word, word, fc.integer({ min: 0, max: 4 }), (a, b, limit) => {
        const full = osa(a, b);
        const banded = boundedDistance(a, b, limit);
        if (full <= limit) expect(banded).toBe(full);
        else expect(banded).toBeGreaterThan(limit);
      }),
      { numRuns: 2000 },
    );
  });

  it('suggests the nearest name among 25,000 long ones', () => {
    const names = Array.from({ length: 25_000 }, (_, i) => `${'x'.repeat(240)}-${i}`);
    expect(didYouMean(`${'x'.repeat(240)}_24680`, names)).toBe(` (did you mean "${'x'.repeat(240)}-24680"?)`);
    expect(didYouMean('node-c', ['node-a', 'node-b'])).toBe(' (did you mean "node-a"?)');
    expect(didYouMean('zzz', ['node-a'])).toBe('');
  });
});
