import { describe, expect, it } from 'vitest';
import { codeUnitOrder } from '../../src/sim/index.js';

describe('codeUnitOrder', () => {
  it('orders by UTF-16 code unit, where localeCompare would not', () => {
    // Upper case before lower case, and a non-ASCII letter after every ASCII one: an ICU collation
    // (localeCompare) puts 'a' before 'B' and 'é' before 'f', and may differ between machines.
    const words = ['pod-b', 'Pod-a', 'é', 'f', 'pod-a', 'B', 'a'];
    expect([...words].sort(codeUnitOrder)).toEqual(['B', 'Pod-a', 'a', 'f', 'pod-a', 'pod-b', 'é']);
    expect([...words].sort(codeUnitOrder)).toEqual([...words].sort());
  });

  it('is a consistent comparator: antisymmetric and zero only for equal strings', () => {
    expect(codeUnitOrder('uid-1', 'uid-1')).toBe(0);
    expect(codeUnitOrder('uid-1', 'uid-10')).toBe(-1);
    expect(codeUnitOrder('uid-10', 'uid-1')).toBe(1);
  });
});
