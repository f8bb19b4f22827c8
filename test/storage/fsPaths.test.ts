// normalize's fast path (a path that is already clean is returned as it is) agrees with the full
// segment-by-segment cleanup on every path.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalize } from '../../src/storage/fs.js';

function reference(path: string): string {
  const parts: string[] = [];
  for (const p of path.split('/')) {
    if (p === '' || p === '.') continue;
    if (p === '..') parts.pop();
    else parts.push(p);
  }
  return `/${parts.join('/')}`;
}

describe('normalize', () => {
  it('is the segment-by-segment cleanup of any path', () => {
    const segment = fc.constantFrom('', '.', '..', 'a', 'b', '.x', 'x.', 'pods', 'vol');
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 8 }), fc.boolean(), (segs, absolute) => {
        const path = (absolute ? '/' : '') + segs.join('/');
        expect(normalize(path)).toBe(reference(path));
      }),
      { numRuns: 2000 },
    );
  });
});
