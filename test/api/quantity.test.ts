// resource.ParseQuantity as podrace reads requests and allocatable (src/api/quantity.ts): the grammar of
// quantity.go, its round-up to nano precision, MilliValue / Value rounding up, and the writer's canonical
// forms reading back to the same amounts.
import { describe, expect, it } from 'vitest';
import { formatMemoryBytes, formatMilliCPU, parseQuantity } from '../../src/api/quantity.js';

const ok = (text: string) => {
  const r = parseQuantity(text);
  if (!r.ok) throw new Error(`${text}: ${r.error}`);
  return r.value;
};
const error = (text: string) => {
  const r = parseQuantity(text);
  if (r.ok) throw new Error(`${text} parsed as ${JSON.stringify(r.value)}`);
  return r.error;
};

describe('parseQuantity', () => {
  it('reads decimal, binary and exponent suffixes exactly', () => {
    expect(ok('500m')).toEqual({ milli: 500, value: 1 });
    expect(ok('2')).toEqual({ milli: 2000, value: 2 });
    expect(ok('2.5')).toEqual({ milli: 2500, value: 3 });
    expect(ok('.5')).toEqual({ milli: 500, value: 1 });
    expect(ok('1.')).toEqual({ milli: 1000, value: 1 });
    expect(ok('+1')).toEqual({ milli: 1000, value: 1 });
    expect(ok('0')).toEqual({ milli: 0, value: 0 });
    expect(ok('-0')).toEqual({ milli: 0, value: 0 });
    expect(ok('100k').value).toBe(100_000);
    expect(ok('1G').value).toBe(1_000_000_000);
    expect(ok('1T').value).toBe(1e12);
    expect(error('1E')).toMatch(/too large/); // exa: past what podrace holds exactly
    expect(ok('1e3').value).toBe(1000);
    expect(ok('1E-3').milli).toBe(1);
    expect(ok('128Mi').value).toBe(128 * 1024 * 1024);
    expect(ok('1Gi').value).toBe(1024 ** 3);
    expect(ok('1.5Gi').value).toBe(1610612736);
    expect(ok('1Ti').value).toBe(1024 ** 4);
  });

  it('rounds up as ScaledValue does: 0.1m is 1m, 1n of memory is 1 byte', () => {
    // quantity.go: "0.1m will rounded up to 1m"; MilliValue and Value are ceil(q * 10^-scale).
    expect(ok('0.1m').milli).toBe(1);
    expect(ok('1n')).toEqual({ milli: 1, value: 1 });
    expect(ok('1001m').value).toBe(2);
    expect(ok('0.5').value).toBe(1);
  });

  it('refuses what ParseQuantity refuses, and negative or inexact amounts', () => {
    expect(error('')).toMatch(/expected a quantity/);
    expect(error('1.5cores')).toMatch(/expected a quantity like 500m/);
    expect(error('abc')).toMatch(/expected a quantity/);
    expect(error('.')).toMatch(/expected a quantity/);
    expect(error('+')).toMatch(/expected a quantity/);
    expect(error('1e')).toMatch(/unknown quantity suffix "e"/);
    expect(error('128mi')).toMatch(/unknown quantity suffix "mi"/);
    expect(error('1 Gi')).toMatch(/expected a quantity/);
    expect(error('-1')).toMatch(/greater than or equal to 0/);
    expect(error('-500m')).toMatch(/greater than or equal to 0/);
    expect(error('9Ei')).toMatch(/too large/);
    expect(ok('9007199254740991m').milli).toBe(Number.MAX_SAFE_INTEGER);
    expect(error('9007199254740992m')).toMatch(/too large/);
  });

  it('writes cpu and memory in forms that read back to the same amounts', () => {
    for (const milli of [0, 1, 250, 500, 1000, 1500, 2000, 64_000]) {
      expect(ok(formatMilliCPU(milli)).milli, String(milli)).toBe(milli);
    }
    expect(formatMilliCPU(2000)).toBe('2');
    expect(formatMilliCPU(1500)).toBe('1500m');
    for (const bytes of [0, 1, 1000, 1024, 1536, 128 * 1024 ** 2, 1024 ** 3, 3 * 1024 ** 4]) {
      expect(ok(formatMemoryBytes(bytes)).value, String(bytes)).toBe(bytes);
    }
    expect(formatMemoryBytes(128 * 1024 ** 2)).toBe('128Mi');
    expect(formatMemoryBytes(1536)).toBe('1536');
  });
});
