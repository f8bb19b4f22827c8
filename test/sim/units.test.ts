import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatSeconds } from '../../src/report/timelineModel.js';
import { formatDuration } from '../../src/scenario/write.js';
import { formatDurationMs, parseDurationMs, parseSeed, parseSizeBytes } from '../../src/sim/index.js';

describe('units', () => {
  it('parses durations to whole milliseconds', () => {
    expect(parseDurationMs('250ms')).toEqual({ ok: true, value: 250 });
    expect(parseDurationMs('30s')).toEqual({ ok: true, value: 30_000 });
    expect(parseDurationMs('5m')).toEqual({ ok: true, value: 300_000 });
    expect(parseDurationMs('1.5s')).toEqual({ ok: true, value: 1500 });
    for (const bad of ['-1s', '10', 'abc', '1.5ms', '3d', '']) expect(parseDurationMs(bad).ok).toBe(false);
  });

  it('parses decimals exactly, never through a float', () => {
    // 1.005 * 1000 is 1004.9999999999999 in floating point: these were refused as not whole ms.
    expect(parseDurationMs('1.005s')).toEqual({ ok: true, value: 1005 });
    expect(parseDurationMs('2.002s')).toEqual({ ok: true, value: 2002 });
    expect(parseDurationMs('4.063s')).toEqual({ ok: true, value: 4063 });
    expect(parseDurationMs('0.1m')).toEqual({ ok: true, value: 6000 });
    expect(parseDurationMs('1.0000s')).toEqual({ ok: true, value: 1000 });
    expect(parseDurationMs('0.0001h')).toEqual({ ok: true, value: 360 });
    expect(parseDurationMs('1.0001s').ok).toBe(false);
    expect(parseDurationMs('99999999999999999999s')).toEqual({
      ok: false,
      error: 'duration "99999999999999999999s" is too large',
    });
  });

  it('reads back every duration podrace prints as the same milliseconds', () => {
    const ms = fc.integer({ min: 0, max: 10 * 365 * 24 * 3_600_000 });
    fc.assert(
      fc.property(ms, (n) => {
        for (const text of [formatDurationMs(n), formatDuration(n), formatSeconds(n)]) {
          expect(parseDurationMs(text)).toEqual({ ok: true, value: n });
        }
      }),
      { numRuns: 2000 },
    );
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
