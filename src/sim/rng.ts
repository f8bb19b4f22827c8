// Seeded randomness for the whole simulation (seedrandom's alea). Streams are forked by name from the
// root seed, not from the parent's position, so a component that draws more numbers shifts no other
// component's numbers.
import seedrandom from 'seedrandom';
import { AssertionError, assert } from './assert.js';
import { mix32 } from './ties.js';

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
  /**
   * The simulated goroutine making the draw (set by the kernel while one runs, src/sim/sim.ts), or
   * undefined: the world's setup, a scenario timeline entry, a callback.
   */
  owner: DrawOwner | undefined;
  /** Streams forked so far: each gets the next number, its index into an owner's ordinals. */
  streams: number;
  /**
   * Told of each draw made outside a goroutine (the stream's next number, so two such draws in the other
   * order swap their numbers): a schedule run records it in the event's footprint (src/sim/choices.ts).
   */
  unkeyed?: ((streamNo: number) => void) | undefined;
}

/** Who draws: its key (stable across orderings: a hash of its name and incarnation) and its counts. */
export interface DrawOwner {
  readonly drawKey: number;
  /** Per stream (by its number), how many numbers this owner has drawn from it. */
  readonly drawOrdinals: number[];
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
    readonly draws: DrawCounter = { n: 0, chooser: undefined, owner: undefined, streams: 0 },
  ) {
    this.streamNo = draws.streams++;
    this.prngMade = state === undefined ? undefined : seedrandom.alea('', { state: { ...state } });
  }

  private get prng(): seedrandom.StatefulPRNG<seedrandom.State.Alea> {
    this.prngMade ??= seedrandom.alea(this.seedText, { state: true });
    return this.prngMade;
  }

  /** This stream's number among those of its root (an index into DrawOwner.drawOrdinals). */
  private readonly streamNo: number;
  /** A hash of the stream's name, made at its first draw by an owner. */
  private streamKey = -1;

  /**
   * The next number in [0, 1) for the draw being made. Inside a simulated goroutine it comes from that
   * goroutine's own stream under this one: a hash of (this stream, the goroutine's key, how many numbers
   * it has drawn from this stream), so the n-th draw of one goroutine is the same number whatever other
   * goroutines drew before it, and two same-instant operations that run in the other order (podrace
   * explore) swap no latencies. Counter-based: an owner's first draw costs no seeding. Outside a goroutine
   * (the world's setup, a scenario timeline entry, a callback) it is this stream's next number.
   */
  private unit(): number {
    const owner = this.draws.owner;
    if (owner === undefined) {
      this.draws.unkeyed?.(this.streamNo);
      return this.prng();
    }
    if (this.streamKey < 0) this.streamKey = hashText(this.seedText);
    const ordinals = owner.drawOrdinals;
    const n = (ordinals[this.streamNo] ?? 0) + 1;
    ordinals[this.streamNo] = n;
    const h1 = mix32(this.streamKey ^ Math.imul(owner.drawKey, 0x9e3779b1) ^ Math.imul(n, 0x85ebca6b));
    const h2 = mix32(h1 ^ Math.imul(n, 0xc2b2ae35) ^ 0x27d4eb2f);
    // 53 bits: 32 of h1, 21 of h2.
    return (h1 * TWO_POW_21 + (h2 >>> 11)) / TWO_POW_53;
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
    return this.unit();
  }

  uint32(): number {
    this.draws.n++;
    return Math.floor(this.unit() * TWO_POW_32);
  }

  /** An integer in [lo, hi], both ends included. */
  int(lo: number, hi: number): number {
    if (!(Number.isInteger(lo) && Number.isInteger(hi) && lo <= hi))
      throw new AssertionError(`bad int range [${lo}, ${hi}]`);
    this.draws.n++;
    return lo + Math.floor(this.unit() * (hi - lo + 1));
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
    return this.unit() < probability;
  }

  pick<T>(items: readonly T[]): T {
    assert(items.length > 0, 'pick from an empty list');
    this.draws.n++;
    return items[Math.floor(this.unit() * items.length)] as T;
  }

  /**
   * wait.Jitter(duration, maxFactor) from k8s.io/apimachinery: duration + rand * maxFactor * duration,
   * rounded to whole virtual milliseconds.
   */
  jitterMs(durationMs: number, maxFactor: number, what = 'jitter'): number {
    const factor = maxFactor <= 0 ? 1 : maxFactor;
    this.draws.n++;
    const drawn = durationMs + Math.floor(this.unit() * factor * durationMs);
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

const TWO_POW_21 = 2 ** 21;
const TWO_POW_32 = 2 ** 32;
const TWO_POW_53 = 2 ** 53;

/** FNV-1a over the text's UTF-16 code units, finalised: the key of a stream's or an owner's name. */
export function hashText(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return mix32(h >>> 0);
}
