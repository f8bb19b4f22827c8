// Seeded randomness for the whole simulation (seedrandom's alea). Streams are forked by name from the
// root seed, not from the parent's position, so a component that draws more numbers shifts no other
// component's numbers.
import seedrandom from 'seedrandom';
import { AssertionError, assert } from './assert.js';

/**
 * alea's state (seedrandom.State.Alea), spelled out: the package's declarations must not need
 * @types/seedrandom, a dev dependency, in a user's project.
 */
export type RngState = Readonly<Record<'c' | 's0' | 's1' | 's2', number>>;

/** How many numbers the streams of one root have drawn: a loop round that drew one was not idle. */
export interface DrawCounter {
  n: number;
}

export class Rng {
  /**
   * Made at the first draw: seeding alea hashes the seed text several times, and a run forks a score of
   * streams (per node: storage, runtime, kubelet, watches, clients) of which many never draw in a short
   * case. The numbers are the same whenever it is made.
   */
  private prngMade: seedrandom.StatefulPRNG<seedrandom.State.Alea> | undefined;

  constructor(
    readonly seedText: string,
    state?: RngState,
    /** Shared by every stream forked from the same root. */
    readonly draws: DrawCounter = { n: 0 },
  ) {
    this.prngMade = state === undefined ? undefined : seedrandom.alea('', { state: { ...state } });
  }

  private get prng(): seedrandom.StatefulPRNG<seedrandom.State.Alea> {
    this.prngMade ??= seedrandom.alea(this.seedText, { state: true });
    return this.prngMade;
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
