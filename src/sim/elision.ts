// Elision of idle loop rounds. The kubelet and the controllers poll: the volume reconcilers every 100 ms,
// PLEG every second, syncLoop's tickers every 1 and 2 s. Most rounds find nothing to do. A loop whose
// round was idle (no effect at all, its own state unchanged, src/sim/sim.ts `fx`) parks instead of
// sleeping: its later rounds become virtual. A virtual round is not an event; it is "popped" (skipped)
// exactly where the plain run would have popped it, that is just before the first real event whose
// (time, tie) key is larger. Any event that is not itself clean (idle round, ticker fire, stale wake-up)
// unparks every parked loop: each is scheduled as a real event at its next round, with the tie the plain
// run gives it there (ties are a hash of owner and instant, src/sim/ties.ts). So every real event fires
// in the same order, with the same state, as in the plain run; only rounds that could not have changed
// anything are left out. A time-dependent decision (a back-off, a due work item) is a deadline noted by
// the round (Sim.noteDeadline): the loop is woken for real at its first round at or after it.
//
// A ticker (Go's time.Ticker feeding a select) is a pair of events per round: the ticker's fire, then the
// consumer's handling of the tick. Its consumer reports whether handling the tick was idle; the pair is
// then parked and skipped as a unit. If a real event falls between the two virtual events of one round,
// the tick is sent for real before that event ("materialised"), so the consumer sees it as in the plain
// run. docs/architecture.md says what is skipped and why it cannot change an outcome.
import type { Chan } from './chan.js';
import {
  type Co,
  type Effect,
  EffectIterator,
  effect,
  type LoopRef,
  OP_LOOP,
  type SelectCase,
  type SelectResult,
  sleep,
} from './effects.js';
import { WRITES_ALL, WRITES_TICK } from './masks.js';
import { KIND_LOOP, KIND_TICKER, type Parked } from './parked.js';
import type { Process, ProcessGroup } from './process.js';
import type { Sim } from './sim.js';

/**
 * `wait.Until(f, period)` with elision: `begin()` when a round starts, `yield* end()` instead of
 * `sleep(period)`. A round is idle if it did not block, had no effect and left `version()` (a sum of the
 * loop's own state counters) as the previous round left it; an idle round is clean, and parks the loop
 * when elision is on. `hook` is applied to each skipped round.
 */
/** What an idle loop's rounds read, and what a skipped round still does. */
export interface LoopOptions {
  /** A counter of what the loop's rounds read beyond its domain's state; a change makes a round not idle. */
  readonly version?: (() => number) | undefined;
  /** Runs for every round elision skips, with the round's time (a lease renewed, a batch's next time). */
  readonly hook?: ((roundMs: number) => void) | undefined;
  /** What the loop reads, if not its process's domain (a controller reads its informers' caches). */
  readonly readsDomain?: number | undefined;
  /** The parts of its domain's state a round reads (src/sim/masks.ts); all of it by default. */
  readonly readMask?: number | undefined;
  /**
   * The parts the hook moves: an idle round, run for real, moves them too, and nothing else (for schedule
   * footprints, src/sim/choices.ts). Unset: an idle round with a hook may write anything its process may.
   */
  readonly hookWrites?: number | undefined;
}

export class IdleLoop implements Parked, LoopRef {
  readonly kind = KIND_LOOP;
  proc: Process | undefined = undefined;
  consumer: Process | undefined = undefined;
  nextMs = 0;
  dueMs = Number.POSITIVE_INFINITY;
  stage = 0;
  readonly ch = undefined;
  readDomain = 0;
  bucketAt = -1;
  heapAt = -1;
  heapTie = 0;
  park = false;
  deadlineMs = Number.POSITIVE_INFINITY;
  private readonly it: EffectIterator<void>;
  private fx0 = 0;
  private events0 = -1;
  private lastVersion = Number.NaN;

  private readonly version: () => number;
  readonly hook: ((roundMs: number) => void) | undefined;
  readonly readsDomain: number | undefined;
  readonly readMask: number;
  readonly hookWrites: number | undefined;

  constructor(
    private readonly sim: Sim,
    readonly periodMs: number,
    o: LoopOptions = {},
  ) {
    this.version = o.version ?? (() => 0);
    this.hook = o.hook;
    this.readsDomain = o.readsDomain;
    this.readMask = o.readMask ?? WRITES_ALL;
    this.hookWrites = o.hookWrites;
    this.it = new EffectIterator<void>(effect(OP_LOOP, periodMs, undefined, undefined, undefined, 0, this));
  }

  begin(): void {
    this.fx0 = this.sim.fx.n;
    this.events0 = this.sim.events;
    this.sim.deadlineMs = Number.POSITIVE_INFINITY;
  }

  /** Ends the round: sleep one period (or `ms`), parked if the round was idle. */
  end(ms: number = this.periodMs): Iterable<Effect, void, unknown> {
    this.judge(ms);
    const e = this.it.effect;
    e.ms = ms;
    e.cases = undefined;
    return this.it;
  }

  /**
   * Ends the round with a select on `cases` and a timeout of `ms` (the next round). An idle round parks
   * the timeout only: a message on a case still wakes the loop at once.
   */
  *select(cases: readonly SelectCase[], ms: number): Co<SelectResult> {
    this.judge(ms);
    const e = this.it.effect;
    e.ms = ms;
    e.cases = cases;
    return (yield* this.it) as unknown as SelectResult;
  }

  private judge(ms: number): void {
    const sim = this.sim;
    const v = this.version();
    const idle = sim.events === this.events0 && sim.fx.n === this.fx0 && v === this.lastVersion;
    this.lastVersion = v;
    this.park = false;
    this.events0 = -1; // a round is judged once
    if (!idle) sim.taint();
    else if (sim.declareIdle()) {
      // A round with a hook still moves what the hook moves: not a pure read (src/sim/choices.ts).
      if (this.hook === undefined)
        sim.noteIdleReads(this.readsDomain ?? sim.current?.domain ?? 0, this.readMask);
      else if (this.hookWrites !== undefined && this.readsDomain === undefined)
        sim.noteIdleHookWrites(this.readMask, this.hookWrites);
      else sim.noteIdleHookUnknown();
      this.deadlineMs = sim.deadlineMs;
      this.park = sim.elide && this.deadlineMs > sim.nowMs + ms;
    }
  }
}

/**
 * Go's time.Ticker: a goroutine that offers the time on a 1-slot channel every period and drops the tick
 * when the reader is behind. The consumer calls `begin()` when it receives a tick and `handled()` after
 * handling it; an idle handling parks the ticker until something changes (or `deadlineMs`).
 */
export class Ticker implements Parked {
  readonly kind = KIND_TICKER;
  proc: Process | undefined;
  consumer: Process | undefined = undefined;
  nextMs = 0;
  dueMs = Number.POSITIVE_INFINITY;
  stage = 0;
  readDomain = 0;
  bucketAt = -1;
  heapAt = -1;
  heapTie = 0;
  readonly ch: Chan<number>;
  private fx0 = 0;
  private events0 = -1;
  private lastVersion = Number.NaN;

  constructor(
    private readonly sim: Sim,
    name: string,
    readonly periodMs: number,
    group: ProcessGroup | undefined,
    readonly hook: ((roundMs: number) => void) | undefined = undefined,
    /** The parts of its consumer's domain that handling a tick reads (src/sim/masks.ts). */
    readonly readMask: number = WRITES_ALL,
    /** What `hook` moves: an idle handling moves it too, and nothing else (IdleLoop's `hookWrites`). */
    readonly hookWrites: number | undefined = undefined,
  ) {
    this.ch = sim.chan<number>(1, name);
    this.ch.quiet = true;
    this.proc = sim.spawn(name, this.run(), group);
  }

  private *run(): Generator<Effect, void, unknown> {
    const sim = this.sim;
    // Its first step only starts the sleep to the first tick: it changes nothing but its own wait, as a
    // fire does (src/sim/choices.ts: it commutes with every event that touched neither).
    sim.declareClean();
    sim.writesOnly(WRITES_TICK);
    for (;;) {
      yield* sleep(this.periodMs);
      this.ch.trySend(sim.nowMs);
      // The fire itself changes only what the consumer sees; the consumer's handling is judged.
      sim.declareClean();
      sim.writesOnly(WRITES_TICK);
    }
  }

  begin(): void {
    this.fx0 = this.sim.fx.n;
    this.events0 = this.sim.events;
  }

  handled(tickMs: number, version: number, deadlineMs = Number.POSITIVE_INFINITY): void {
    const sim = this.sim;
    const idle = sim.events === this.events0 && sim.fx.n === this.fx0 && version === this.lastVersion;
    this.lastVersion = version;
    if (!idle) {
      sim.taint();
      return;
    }
    if (!sim.declareIdle()) return;
    if (this.hook === undefined) sim.noteIdleReads(sim.current?.domain ?? 0, this.readMask);
    else if (this.hookWrites !== undefined) sim.noteIdleHookWrites(this.readMask, this.hookWrites);
    else sim.noteIdleHookUnknown();
    if (!sim.elide) return;
    const p = this.proc as Process;
    const next = tickMs + this.periodMs;
    // Park only from the plain state: the tick was handled at its instant, the ticker sleeps to the next.
    if (tickMs !== sim.nowMs || this.ch.length !== 0 || p.state !== 'blocked' || p.parkedAt >= 0) return;
    if (deadlineMs <= next) return;
    sim.parked.parkTicker(this, sim.current as Process, next, deadlineMs);
  }
}

/** What a polling loop needs per round: IdleLoop, or plain sleeps where there is no kernel to park in. */
export interface RoundLoop {
  begin(): void;
  end(): Iterable<Effect, void, unknown>;
}

/** An IdleLoop on `sim`, or (no sim: a component driven by a unit test's own clock) a plain sleep. */
export function roundLoop(sim: Sim | undefined, periodMs: number, o: LoopOptions = {}): RoundLoop {
  if (sim !== undefined) return new IdleLoop(sim, periodMs, o);
  return { begin: () => {}, end: () => sleep(periodMs) };
}
