import { describe, expect, it } from 'vitest';
import { parseDurationMs, parseSeed, parseSizeBytes } from '../../src/sim/index.js';

describe('units', () => {
  it('parses durations to whole milliseconds', () => {
    expect(parseDurationMs('250ms')).toEqual({ ok: true, value: 250 });
    expect(parseDurationMs('30s')).toEqual({ ok: true, value: 30_000 });
    expect(parseDurationMs('5m')).toEqual({ ok: true, value: 300_000 });
    expect(parseDurationMs('1.5s')).toEqual({ ok: true, value: 1500 });
    for (const bad of ['-1s', '10', 'abc', '1.5ms', '3d', '']) expect(parseDurationMs(bad).ok).toBe(false);
  });

  it('parses sizes with binary suffixes', () => {
    expect(parseSizeBytes('10Gi')).toEqual({ ok: true, value: 10 * 1024 ** 3 });
    expect(parseSizeBytes('512Mi')).toEqual({ ok: true, value: 512 * 1024 ** 2 });
    expect(parseSizeBytes('1Ti')).toEqual({ ok: true, value: 1024 ** 4 });
    expect(parseSizeBytes('10GB').ok).toBe(false);
  });

  it('parses decimal and hex 32-bit seeds', () => {
    expect(parseSeed('7')).toEqual({ ok: true, value: 7 });
    expect(parseSeed('0xdeadBEEF')).toEqual({ ok: true, value: 0xdeadbeef });
    expect(parseSeed('4294967295')).toEqual({ ok: true, value: 4294967295 });
    for (const bad of ['abc', '-1', '4294967296', '0x100000000', '1.5', ''])
      expect(parseSeed(bad).ok).toBe(false);
  });
});
