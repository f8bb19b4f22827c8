// A tiny, dependency-free measurement helper for the benches: best of several rounds after a warm-up.
// Wall-clock reads are fine here: this is the bench harness, outside the simulation.
import { performance } from 'node:perf_hooks';

export interface Measurement {
  readonly name: string;
  readonly eventsPerSec: number;
}

const ROUNDS = 7;

export function measure(name: string, body: () => number): Measurement {
  body(); // warm-up: let V8 optimise before timing
  let best = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const start = process.hrtime.bigint();
    const events = body();
    const ns = Number(process.hrtime.bigint() - start);
    best = Math.max(best, (events * 1e9) / ns);
  }
  return { name, eventsPerSec: best };
}

/**
 * Measures several bodies round-robin (each round runs every body once) and keeps each one's best round,
 * so a slow patch of the machine hits all of them alike instead of skewing the ratios.
 */
export function measureAll(bodies: readonly { name: string; body: () => number }[]): Measurement[] {
  for (const b of bodies) b.body(); // warm-up
  const best = bodies.map(() => 0);
  for (let r = 0; r < ROUNDS; r++) {
    bodies.forEach((b, i) => {
      const start = process.hrtime.bigint();
      const events = b.body();
      const ns = Number(process.hrtime.bigint() - start);
      best[i] = Math.max(best[i] ?? 0, (events * 1e9) / ns);
    });
  }
  return bodies.map((b, i) => ({ name: b.name, eventsPerSec: best[i] ?? 0 }));
}

export function tableLines(floor: Measurement, rows: readonly Measurement[]): string[] {
  const fmt = (n: number): string => `${(n / 1e6).toFixed(2)} M/s`;
  const width = Math.max(floor.name.length, ...rows.map((r) => r.name.length)) + 2;
  const out = [`${'benchmark'.padEnd(width)}${'events/s'.padStart(12)}${'ratio vs bare heap'.padStart(22)}`];
  out.push(`${floor.name.padEnd(width)}${fmt(floor.eventsPerSec).padStart(12)}${'1.00x'.padStart(22)}`);
  for (const r of rows) {
    const ratio = floor.eventsPerSec / r.eventsPerSec;
    out.push(
      `${r.name.padEnd(width)}${fmt(r.eventsPerSec).padStart(12)}${`${ratio.toFixed(2)}x`.padStart(22)}`,
    );
  }
  return out;
}

/** One part of the bench: lines for people, and its key in the JSON object. */
export interface BenchSection {
  readonly title: string;
  readonly lines: readonly string[];
  readonly json: unknown;
}

/** The median and the 90th percentile (nearest rank) of some numbers. */
export function percentiles(values: readonly number[]): { median: number; p90: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number): number =>
    sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
  return { median: at(0.5), p90: at(0.9) };
}

/** Wall clock for the bench harness (outside the simulation). */
export const nowMs = (): number => performance.now();
