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

/** One latency draw as a schedule run's chooser sees it. */
export interface LatencyDraw {
  readonly loMs: number;
  readonly hiMs: number;
  /** The value the stream drew (Infinity: never, where that is allowed). */
  readonly drawnMs: number;
  /**
   * A delay from now (a sleep, a timer), so pending events' times are meaningful neighbours; a duration
   * used later (a container's SIGTERM exit) is not.
   */
  readonly anchored: boolean;
  /** What the latency is of (`mount`, `StopContainer`, ...), for the timeline and messages. */
  readonly what: string;
  /** The draw may also be Infinity (it never happens: a container that ignores SIGTERM). */
  readonly neverAllowed: boolean;
}

/** A run that explores latencies (src/sim/choices.ts): given a draw, the value to use. */
export interface LatencyChooser {
  choose(draw: LatencyDraw): number;
}

/**
 * Shared by the streams of one root: how many numbers they have drawn (a loop round that drew one was not
 * idle), and the latency chooser of a schedule run (undefined: every latency is the one drawn).
 */
export interface DrawCounter {
  n: number;
  chooser: LatencyChooser | undefined;
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
    readonly draws: DrawCounter = { n: 0, chooser: undefined },
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

  /**
   * A latency in [lo, hi] ms, both ends included: a delay from now (a sleep, a timer) that a schedule run
   * may replace by another value of the range (a latency choice point, src/sim/choices.ts). The stream
   * draws its number either way, so a replaced latency shifts no other draw.
   */
  latencyMs(loMs: number, hiMs: number, what: string): number {
    const drawn = this.int(loMs, hiMs);
    const chooser = this.draws.chooser;
    return chooser === undefined
      ? drawn
      : chooser.choose({ loMs, hiMs, drawnMs: drawn, anchored: true, what, neverAllowed: false });
  }

  /**
   * As latencyMs, for a duration that starts later than now and with probability 1 - `finiteProbability`
   * never ends (Infinity): a container's exit after its SIGTERM, which it may ignore. A schedule run may
   * choose either.
   */
  durationOrNeverMs(finiteProbability: number, loMs: number, hiMs: number, what: string): number {
    const drawn = this.chance(finiteProbability) ? this.int(loMs, hiMs) : Number.POSITIVE_INFINITY;
    const chooser = this.draws.chooser;
    return chooser === undefined
      ? drawn
      : chooser.choose({ loMs, hiMs, drawnMs: drawn, anchored: false, what, neverAllowed: true });
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
  jitterMs(durationMs: number, maxFactor: number, what = 'jitter'): number {
    const factor = maxFactor <= 0 ? 1 : maxFactor;
    this.draws.n++;
    const drawn = durationMs + Math.floor(this.prng() * factor * durationMs);
    const chooser = this.draws.chooser;
    if (chooser === undefined) return drawn;
    // The largest value the draw can give: prng() < 1.
    const hiMs = durationMs + Math.max(0, Math.ceil(factor * durationMs) - 1);
    return chooser.choose({
      loMs: durationMs,
      hiMs,
      drawnMs: drawn,
      anchored: true,
      what,
      neverAllowed: false,
    });
  }

  /** A copy of the stream's position; `new Rng(seedText, state)` resumes from it. */
  state(): RngState {
    return this.prng.state();
  }
}
