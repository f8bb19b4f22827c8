// Seeded randomness for the whole simulation (seedrandom's alea). Streams are forked by name from the
// root seed, not from the parent's position, so a component that draws more numbers shifts no other
// component's numbers.
import seedrandom from 'seedrandom';
import { AssertionError, assert } from './assert.js';

export type RngState = seedrandom.State.Alea;

/** How many numbers the streams of one root have drawn: a loop round that drew one was not idle. */
export interface DrawCounter {
  n: number;
}

export class Rng {
  private readonly prng: seedrandom.StatefulPRNG<seedrandom.State.Alea>;

  constructor(
    readonly seedText: string,
    state?: RngState,
    /** Shared by every stream forked from the same root. */
    readonly draws: DrawCounter = { n: 0 },
  ) {
    this.prng =
      state === undefined
        ? seedrandom.alea(seedText, { state: true })
        : seedrandom.alea('', { state: { ...state } });
  }

  static fromSeed(seed: number): Rng {
    if (!(Number.isInteger(seed) && seed >= 0 && seed <= 0xffff_ffff))
      throw new AssertionError(`seed must be a uint32, got ${seed}`);
    return new Rng(`podrace:${seed >>> 0}`);
  }

  /** An independent stream named `name` under this one (`rng.fork('node-a/runtime')`). */
  fork(name: string): Rng {
    return new Rng(`${this.seedText}/${name}`, undefined, this.draws);
  }

  /** A float in [0, 1). */
  next(): number {
    this.draws.n++;
    return this.prng();
  }

  uint32(): number {
    this.draws.n++;
    return this.prng.int32() >>> 0;
  }

  /** An integer in [lo, hi], both ends included. */
  int(lo: number, hi: number): number {
    if (!(Number.isInteger(lo) && Number.isInteger(hi) && lo <= hi))
      throw new AssertionError(`bad int range [${lo}, ${hi}]`);
    this.draws.n++;
    return lo + Math.floor(this.prng() * (hi - lo + 1));
  }

  chance(probability: number): boolean {
    this.draws.n++;
    return this.prng() < probability;
  }

  pick<T>(items: readonly T[]): T {
    assert(items.length > 0, 'pick from an empty list');
    this.draws.n++;
    return items[Math.floor(this.prng() * items.length)] as T;
  }

  /**
   * wait.Jitter(duration, maxFactor) from k8s.io/apimachinery: duration + rand * maxFactor * duration,
   * rounded to whole virtual milliseconds.
   */
  jitterMs(durationMs: number, maxFactor: number): number {
    const factor = maxFactor <= 0 ? 1 : maxFactor;
    this.draws.n++;
    return durationMs + Math.floor(this.prng() * factor * durationMs);
  }

  /** A copy of the stream's position; `new Rng(seedText, state)` resumes from it. */
  state(): RngState {
    return this.prng.state();
  }
}
