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
import { assert } from './assert.js';
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
import { WRITES_ALL } from './masks.js';
import type { Process, ProcessGroup } from './process.js';
import type { Sim } from './sim.js';

const KIND_LOOP = 0;
const KIND_TICKER = 1;

/** What the parked set keeps per loop (owned by its IdleLoop or Ticker: parking allocates nothing). */
interface Parked {
  readonly kind: number;
  readonly periodMs: number;
  /** The loop's process, or the ticker's goroutine. */
  proc: Process | undefined;
  /** A ticker's consumer (the goroutine that handles its ticks). */
  consumer: Process | undefined;
  /** The next virtual round: a loop's wake-up, a ticker's fire. */
  nextMs: number;
  /** The first round at or after the loop's deadline: it runs for real (Infinity: none). */
  dueMs: number;
  /** A ticker: 0 before its fire at nextMs, 1 after it (the consumer's handling is still to come). */
  stage: number;
  /** Applied at each skipped round (a timestamp the round would have advanced). */
  readonly hook: ((roundMs: number) => void) | undefined;
  /** A ticker's channel. */
  readonly ch: Chan<number> | undefined;
  /** The domain whose changes it can see (set when it parks; src/sim/process.ts ProcessGroup). */
  readDomain: number;
  /** The parts of that domain's state it reads (src/sim/masks.ts). */
  readonly readMask: number;
}

export class ParkedLoops {
  private readonly entries: Parked[] = [];
  count = 0;
  /** No virtual round is due before this time (a lower bound; the fast path of advance). */
  private minMs = Number.POSITIVE_INFINITY;
  /** No due round comes before this time (a lower bound). */
  minDueMs = Number.POSITIVE_INFINITY;

  constructor(private readonly sim: Sim) {}

  /** @internal Parks loop process `p` (just blocked at the end of an idle round); it would wake at `firstMs`. */
  parkLoop(p: Process, firstMs: number, loop: LoopRef): void {
    const e = loop as unknown as Parked;
    e.proc = p;
    e.readDomain = loop.readsDomain ?? p.domain;
    e.nextMs = firstMs;
    e.stage = 0;
    e.dueMs = this.roundAtOrAfter(e, loop.deadlineMs);
    this.add(e);
  }

  /** @internal Parks a ticker whose last tick was handled idle; its next fire is at `nextMs`. */
  parkTicker(e: Parked, consumer: Process, nextMs: number, deadlineMs: number): void {
    const p = e.proc as Process;
    this.sim.unschedule(p); // its pending fire at nextMs is virtual now
    e.consumer = consumer;
    e.readDomain = consumer.domain;
    e.nextMs = nextMs;
    e.stage = 0;
    e.dueMs = this.roundAtOrAfter(e, deadlineMs);
    this.add(e);
  }

  /** @internal A parked process runs for real (a channel woke it): it is no longer parked. */
  remove(p: Process): void {
    const i = p.parkedAt;
    p.parkedAt = -1;
    const last = this.entries[--this.count] as Parked;
    if (last !== this.entries[i]) {
      this.entries[i] = last;
      (last.proc as Process).parkedAt = i;
    }
  }

  /** @internal Skips every virtual round the plain run pops before the event with key (timeMs, tie). */
  advance(timeMs: number, tie: number): void {
    if (timeMs < this.minMs) return;
    let min = Number.POSITIVE_INFINITY;
    for (let i = 0; i < this.count; ) {
      const e = this.entries[i] as Parked;
      if (e.kind === KIND_LOOP) this.advanceLoop(e, timeMs, tie);
      else if (this.advanceTicker(e, timeMs, tie)) {
        this.materialise(e, timeMs);
        continue; // entry i was replaced by the last one
      }
      if (e.nextMs < min) min = e.nextMs;
      i++;
    }
    this.minMs = min;
  }

  /**
   * @internal Turns the earliest due round into a real event if it comes before the event with key
   * (timeMs, tie) (Infinity: there is none). One at a time: what that round does may wake the others.
   */
  materialiseDue(timeMs: number, tie: number): void {
    const sim = this.sim;
    let first: Parked | undefined;
    let firstTie = 0;
    let minDue = Number.POSITIVE_INFINITY;
    for (let i = 0; i < this.count; i++) {
      const e = this.entries[i] as Parked;
      if (e.dueMs > minDue || e.dueMs === Number.POSITIVE_INFINITY) continue;
      const dueTie = sim.processTie(e.proc as Process, e.dueMs);
      if (e.dueMs < minDue || dueTie < firstTie) {
        first = e;
        firstTie = dueTie;
        minDue = e.dueMs;
      }
    }
    this.minDueMs = minDue;
    if (first === undefined || minDue > timeMs || (minDue === timeMs && firstTie >= tie)) return;
    // Its rounds before the due one are skipped (nothing real happens before it), then it runs.
    const p = first.proc as Process;
    if (first.kind === KIND_LOOP) this.advanceLoop(first, minDue, firstTie);
    else this.advanceTicker(first, minDue, firstTie);
    this.remove(p);
    sim.pushProcess(p, minDue, p.gen);
    this.minDueMs = minDue; // a lower bound: the next call finds the next one
  }

  /**
   * @internal Something changed in `domain` (0: anywhere): every parked loop of that domain runs its next
   * round for real, as the plain run does. A loop of another node cannot see the change (its inputs are
   * its node's state, and what reaches it through the API server comes as events of its own).
   */
  unpark(domain: number, mask: number): void {
    const sim = this.sim;
    let kept = 0;
    let min = Number.POSITIVE_INFINITY;
    let minDue = Number.POSITIVE_INFINITY;
    for (let i = 0; i < this.count; i++) {
      const e = this.entries[i] as Parked;
      const p = e.proc as Process;
      if (((domain !== 0 && e.readDomain !== domain) || (e.readMask & mask) === 0) && p.state === 'blocked') {
        p.parkedAt = kept;
        this.entries[kept++] = e;
        if (e.nextMs < min) min = e.nextMs;
        if (e.dueMs < minDue) minDue = e.dueMs;
        continue;
      }
      p.parkedAt = -1;
      if (p.state !== 'blocked') continue; // killed with its kubelet
      assert(e.stage === 0, 'unpark of a ticker between its fire and its handling');
      // Blocked with no pending event: its next round is the event the plain run has pending.
      sim.pushProcess(p, e.nextMs, p.gen);
    }
    this.count = kept;
    this.minMs = min;
    this.minDueMs = minDue;
  }

  private add(e: Parked): void {
    const p = e.proc as Process;
    assert(p.parkedAt < 0, `${p.name} is parked twice`);
    p.parkedAt = this.count;
    this.entries[this.count++] = e;
    if (e.nextMs < this.minMs) this.minMs = e.nextMs;
    if (e.dueMs < this.minDueMs) this.minDueMs = e.dueMs;
  }

  private roundAtOrAfter(e: Parked, deadlineMs: number): number {
    if (deadlineMs === Number.POSITIVE_INFINITY) return deadlineMs;
    return e.nextMs + Math.max(0, Math.ceil((deadlineMs - e.nextMs) / e.periodMs)) * e.periodMs;
  }

  private advanceLoop(e: Parked, timeMs: number, tie: number): void {
    let r = e.nextMs;
    if (r > timeMs) return;
    const period = e.periodMs;
    const p = e.proc as Process;
    if (e.hook === undefined) {
      if (r < timeMs) r += Math.ceil((timeMs - r) / period) * period;
    } else {
      while (r < timeMs) {
        e.hook(r);
        r += period;
      }
    }
    if (r === timeMs && this.sim.processTie(p, r) < tie) {
      e.hook?.(r);
      r += period;
    }
    e.nextMs = r;
  }

  /** True if the ticker fired before (timeMs, tie) and its consumer's handling comes after it. */
  private advanceTicker(e: Parked, timeMs: number, tie: number): boolean {
    const sim = this.sim;
    const ticker = e.proc as Process;
    const consumer = e.consumer as Process;
    for (;;) {
      const r = e.nextMs;
      if (e.stage === 0) {
        if (r > timeMs || (r === timeMs && sim.processTie(ticker, r) >= tie)) return false;
        e.stage = 1;
      }
      // The fire woke the consumer at (r, its tie); it handles the tick when that key comes.
      if (r < timeMs || sim.processTie(consumer, r) < tie) {
        e.hook?.(r);
        e.stage = 0;
        e.nextMs = r + e.periodMs;
        continue;
      }
      return true;
    }
  }

  /** The ticker's fire at timeMs happened virtually; its tick is sent now, before the next real event. */
  private materialise(e: Parked, timeMs: number): void {
    const sim = this.sim;
    const ticker = e.proc as Process;
    this.remove(ticker);
    e.stage = 0;
    sim.nowMs = timeMs;
    sim.pushProcess(ticker, timeMs + e.periodMs, ticker.gen);
    (e.ch as Chan<number>).trySend(timeMs);
  }
}

/**
 * `wait.Until(f, period)` with elision: `begin()` when a round starts, `yield* end()` instead of
 * `sleep(period)`. A round is idle if it did not block, had no effect and left `version()` (a sum of the
 * loop's own state counters) as the previous round left it; an idle round is clean, and parks the loop
 * when elision is on. `hook` is applied to each skipped round.
 */
export class IdleLoop implements Parked, LoopRef {
  readonly kind = KIND_LOOP;
  proc: Process | undefined = undefined;
  consumer: Process | undefined = undefined;
  nextMs = 0;
  dueMs = Number.POSITIVE_INFINITY;
  stage = 0;
  readonly ch = undefined;
  readDomain = 0;
  park = false;
  deadlineMs = Number.POSITIVE_INFINITY;
  private readonly it: EffectIterator<void>;
  private fx0 = 0;
  private events0 = -1;
  private lastVersion = Number.NaN;

  constructor(
    private readonly sim: Sim,
    readonly periodMs: number,
    private readonly version: () => number = () => 0,
    readonly hook: ((roundMs: number) => void) | undefined = undefined,
    /** What the loop reads, if not its process's domain (a controller reads its informers' caches). */
    readonly readsDomain: number | undefined = undefined,
    /** The parts of its domain's state a round reads (src/sim/masks.ts). */
    readonly readMask: number = WRITES_ALL,
  ) {
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
  ) {
    this.ch = sim.chan<number>(1, name);
    this.ch.quiet = true;
    this.proc = sim.spawn(name, this.run(), group);
  }

  private *run(): Generator<Effect, void, unknown> {
    const sim = this.sim;
    for (;;) {
      yield* sleep(this.periodMs);
      this.ch.trySend(sim.nowMs);
      // The fire itself changes only what the consumer sees; the consumer's handling is judged.
      sim.declareClean();
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
    if (!sim.declareIdle() || !sim.elide) return;
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
export function roundLoop(
  sim: Sim | undefined,
  periodMs: number,
  version?: () => number,
  hook?: (roundMs: number) => void,
  readsDomain?: number,
  readMask?: number,
): RoundLoop {
  if (sim !== undefined) return new IdleLoop(sim, periodMs, version, hook, readsDomain, readMask);
  return { begin: () => {}, end: () => sleep(periodMs) };
}
