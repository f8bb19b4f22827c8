// flowcontrol.Backoff against upstream's own cases (client-go util/flowcontrol/backoff_test.go, release-1.23).
import { describe, expect, it } from 'vitest';
import { Backoff } from '../../../src/kubelet/util/backoff.js';

const STEP = 1000;

function clock(): { now: () => number; step: (ms: number) => void } {
  let t = 1_000_000;
  return {
    now: () => t,
    step: (ms) => {
      t += ms;
    },
  };
}

describe('flowcontrol.Backoff', () => {
  it('TestSlowBackoff: doubles from the initial window up to the maximum', () => {
    const c = clock();
    const b = new Backoff(STEP, 50 * STEP, c.now);
    const seen: number[] = [];
    for (let i = 0; i < 10; i++) {
      c.step(STEP);
      seen.push(b.get('id') / STEP);
      b.next('id', c.now());
    }
    expect(seen).toEqual([0, 1, 2, 4, 8, 16, 32, 50, 50, 50]);
  });

  it('TestBackoffReset: in back-off at the maximum, and no longer after twice the maximum', () => {
    const c = clock();
    const b = new Backoff(STEP, 5 * STEP, c.now);
    for (let i = 0; i <= 5; i++) {
      c.step(STEP);
      b.next('id', c.now());
    }
    expect(b.isInBackOffSince('id', c.now())).toBe(true);
    const lastUpdate = c.now();
    c.step(2 * 5 * STEP + STEP);
    expect(b.isInBackOffSince('id', lastUpdate)).toBe(false);
  });

  it('TestBackoffHighWaterMark: stays at the maximum until the entry expires', () => {
    const c = clock();
    const b = new Backoff(STEP, 5 * STEP, c.now);
    for (let i = 0; i <= 5; i++) {
      c.step(STEP);
      b.next('id', c.now());
    }
    c.step(5 * STEP + STEP);
    b.next('id', c.now());
    expect(b.get('id')).toBe(5 * STEP);
  });

  it('TestBackoffGC: keeps an entry updated within twice the maximum, forgets it after', () => {
    const c = clock();
    const b = new Backoff(STEP, 5 * STEP, c.now);
    for (let i = 0; i <= 5; i++) {
      c.step(STEP);
      b.next('id', c.now());
    }
    c.step(5 * STEP + STEP);
    b.gc();
    expect(b.get('id')).toBe(5 * STEP);
    c.step(5 * STEP + STEP);
    b.gc();
    expect(b.get('id')).toBe(0);
  });

  it("the kubelet's use: a window counted from the exited attempt's FinishedAt, not from now", () => {
    const c = clock();
    const b = new Backoff(10_000, 300_000, c.now);
    expect(b.isInBackOffSince('pod/c', c.now())).toBe(false); // no entry: start at once
    b.next('pod/c', c.now());
    const finishedAt = c.now() + 4_000; // the restarted attempt crashed 4 s later
    c.step(9_000);
    expect(b.isInBackOffSince('pod/c', finishedAt)).toBe(true); // 5 s after the crash
    c.step(5_000);
    expect(b.isInBackOffSince('pod/c', finishedAt)).toBe(false); // 10 s after it
    b.next('pod/c', finishedAt);
    expect(b.get('pod/c')).toBe(20_000);
  });
});
