// The parked set of elision (src/sim/elision.ts has the whole story): loops whose last round was idle
// have no event; their rounds are virtual. Before each real event the run loop skips the virtual rounds
// that the plain run pops before it (advance), makes a loop's round at its deadline real (materialiseDue),
// and after an event that changed something wakes the parked loops that can see it (unpark).
import { assert } from './assert.js';
import type { Chan } from './chan.js';
import type { LoopRef } from './effects.js';
import type { Process } from './process.js';
import type { Sim } from './sim.js';

export const KIND_LOOP = 0;
export const KIND_TICKER = 1;

/** What the parked set keeps per loop (owned by its IdleLoop or Ticker: parking allocates nothing). */
export interface Parked {
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
  /** Its index in its domain's bucket while parked (-1: not parked). */
  bucketAt: number;
  /** Its index in the heap of eager entries while parked (-1: lazy, not parked, or taken out by advance). */
  heapAt: number;
  /** Its heap key after nextMs: the tie of its process's event at nextMs (a loop's round, a ticker's fire). */
  heapTie: number;
}

export class ParkedLoops {
  /** Every parked entry (Process.parkedAt is the index): a change anywhere (domain 0) looks at all. */
  private readonly entries: Parked[] = [];
  count = 0;
  /**
   * The parked entries per read domain (Parked.bucketAt is the index): a change in a node's domain looks
   * at that node's loops only, so an event costs the same with 1,000 idle nodes as with one.
   */
  private readonly buckets: Parked[][] = [];
  /**
   * The eager entries (those advance must bring up to date: a loop with a hook, or a ticker), a binary
   * min-heap by nextMs (Parked.heapAt is the index). A loop without a hook is lazy: skipping its rounds
   * changes nothing but its nextMs, which is only read when it wakes (unpark, materialiseDue), so advance
   * leaves it and those bring it up to date. The volume managers' and the controller's 100 ms reconcilers
   * are lazy, so most events skip advance.
   */
  private readonly heap: Parked[] = [];
  private heapCount = 0;
  /** The entries advance took off the heap at one call (reused: advancing allocates nothing). */
  private readonly due: Parked[] = [];
  /**
   * Where a lazy loop's skipped rounds end: the instant of the last advance, and the largest tie of the
   * events advance ran before at that instant. Ties within an instant are not popped in increasing order
   * (a wake-up at the current instant may have a smaller tie than the event that made it), and the plain
   * run has popped a round of that instant as soon as any event with a larger tie was popped.
   */
  private keyTimeMs = Number.NEGATIVE_INFINITY;
  private keyTie = 0;
  /** No due round comes before this time (a lower bound). */
  minDueMs = Number.POSITIVE_INFINITY;
  /**
   * With minDueMs, a lower bound on the due rounds' key (time, tie): a round due at minDueMs has a tie of
   * at least this. Without it, every event of a busy instant that comes before a round due at that instant
   * rescanned every entry (300 idle nodes whose rounds share the instant: 40 entries looked at an event).
   */
  private minDueTie = Number.NEGATIVE_INFINITY;
  /**
   * Parked entries looked at, all told: the work of elision's bookkeeping. Per event it stays small however
   * many idle nodes there are (test/sim/parkedScale.test.ts); a scan of every entry per event made 1,000
   * idle nodes cost 300 us an event.
   */
  visits = 0;

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
    const e = this.entries[p.parkedAt] as Parked;
    this.drop(e);
    if (e.heapAt >= 0) this.heapRemove(e);
  }

  /** @internal Skips every virtual round the plain run pops before the event with key (timeMs, tie). */
  advance(timeMs: number, tie: number): void {
    if (timeMs !== this.keyTimeMs) {
      this.keyTimeMs = timeMs;
      this.keyTie = tie;
    } else if (tie > this.keyTie) this.keyTie = tie;
    // Most events come before every eager entry's next round: nothing to skip. An entry whose round is at
    // this instant with a tie not below the event's comes after it, as in the plain run.
    const due = this.due;
    let n = 0;
    while (this.heapCount > 0) {
      const e = this.heap[0] as Parked;
      if (e.nextMs > timeMs || (e.nextMs === timeMs && e.heapTie >= tie)) break;
      this.heapRemove(e);
      due[n++] = e;
    }
    this.visits += n;
    for (let i = 0; i < n; i++) {
      const e = due[i] as Parked;
      // A tick sent by an entry before it may have woken this one: it is no longer parked.
      if ((e.proc as Process).parkedAt < 0) continue;
      if (e.kind === KIND_LOOP) this.advanceLoop(e, timeMs, tie);
      else if (this.advanceTicker(e, timeMs, tie)) {
        this.materialise(e, timeMs);
        continue;
      }
      this.heapPush(e);
    }
  }

  /**
   * @internal A schedule run reaches instant `timeMs`, at which a real event is due: every parked round of
   * that instant runs for real, whatever its tie (src/sim/choices.ts). The instant's events are then the
   * plain run's, so a reordered instant runs a round after a writer it came before by default, as the
   * plain run would; the rounds before the instant stay virtual (idle rounds alone at their instant only
   * read: any order of them is the same run).
   */
  wakeInstant(timeMs: number): void {
    this.advance(timeMs, Number.NEGATIVE_INFINITY);
    this.visits += this.count;
    for (let i = this.count - 1; i >= 0; i--) {
      const e = this.entries[i] as Parked;
      if (isLazy(e)) this.advanceLoop(e, timeMs, Number.NEGATIVE_INFINITY);
      if (e.nextMs === timeMs) this.wake(e);
    }
  }

  /** Whether a due round may come before the event with key (timeMs, tie): materialiseDue has work. */
  mayBeDue(timeMs: number, tie: number): boolean {
    const due = this.minDueMs;
    return due < timeMs || (due === timeMs && this.minDueTie < tie);
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
    this.visits += this.count;
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
    this.minDueTie = firstTie;
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
    if (domain === 0) {
      this.visits += this.count;
      // Walk down: waking swaps the last entry into the woken one's place, which was already looked at.
      for (let i = this.count - 1; i >= 0; i--) {
        const e = this.entries[i] as Parked;
        if ((e.readMask & mask) !== 0) this.wake(e);
      }
      return;
    }
    const bucket = this.buckets[domain];
    if (bucket === undefined) return;
    this.visits += bucket.length;
    for (let i = bucket.length - 1; i >= 0; i--) {
      const e = bucket[i] as Parked;
      if ((e.readMask & mask) !== 0) this.wake(e);
    }
  }

  /** Runs the parked entry's next round for real: the event the plain run has pending. */
  private wake(e: Parked): void {
    const p = e.proc as Process;
    // A killed process leaves the set as its group dies (ProcessGroup.kill): a parked one is blocked.
    assert(p.state === 'blocked', 'a parked process that is not blocked');
    assert(e.stage === 0, 'unpark of a ticker between its fire and its handling');
    this.drop(e);
    if (e.heapAt >= 0) this.heapRemove(e);
    // The rounds a lazy loop skipped: those the plain run pops before the current event. A loop that
    // parked after the last advance has its next round after the current event already.
    if (isLazy(e)) this.advanceLoop(e, this.keyTimeMs, this.keyTie);
    // Blocked with no pending event: its next round is the event the plain run has pending.
    this.sim.pushProcess(p, e.nextMs, p.gen);
  }

  private add(e: Parked): void {
    const p = e.proc as Process;
    assert(p.parkedAt < 0, `${p.name} is parked twice`);
    p.parkedAt = this.count;
    this.entries[this.count++] = e;
    let bucket = this.buckets[e.readDomain];
    if (bucket === undefined) {
      for (let d = this.buckets.length; d <= e.readDomain; d++) this.buckets.push([]);
      bucket = this.buckets[e.readDomain] as Parked[];
    }
    e.bucketAt = bucket.length;
    bucket.push(e);
    if (!isLazy(e)) this.heapPush(e);
    if (e.dueMs < this.minDueMs) {
      this.minDueMs = e.dueMs;
      this.minDueTie = this.sim.processTie(p, e.dueMs);
    } else if (e.dueMs === this.minDueMs) {
      const tie = this.sim.processTie(p, e.dueMs);
      if (tie < this.minDueTie) this.minDueTie = tie;
    }
  }

  /** Takes `e` out of the entries and its bucket (not the heap). */
  private drop(e: Parked): void {
    const p = e.proc as Process;
    const i = p.parkedAt;
    p.parkedAt = -1;
    const last = this.entries[--this.count] as Parked;
    if (last !== e) {
      this.entries[i] = last;
      (last.proc as Process).parkedAt = i;
    }
    const bucket = this.buckets[e.readDomain] as Parked[];
    const lastInBucket = bucket.pop() as Parked;
    if (lastInBucket !== e) {
      bucket[e.bucketAt] = lastInBucket;
      lastInBucket.bucketAt = e.bucketAt;
    }
    e.bucketAt = -1;
  }

  private heapPush(e: Parked): void {
    e.heapTie = this.sim.processTie(e.proc as Process, e.nextMs);
    this.place(e, this.siftUp(e, this.heapCount++));
  }

  private heapRemove(e: Parked): void {
    const heap = this.heap;
    const i = e.heapAt;
    e.heapAt = -1;
    const last = heap[--this.heapCount] as Parked;
    heap[this.heapCount] = undefined as unknown as Parked;
    if (last === e) return;
    // The last entry takes the hole and moves up or down to its place.
    let j = this.siftUp(last, i);
    if (j === i) {
      for (;;) {
        const l = 2 * j + 1;
        if (l >= this.heapCount) break;
        const r = l + 1;
        let c = l;
        if (r < this.heapCount && before(heap[r] as Parked, heap[l] as Parked)) c = r;
        const child = heap[c] as Parked;
        if (!before(child, last)) break;
        this.place(child, j);
        j = c;
      }
    }
    this.place(last, j);
  }

  /** Moves the parents that `e` comes before down from hole `i`; returns where `e` goes. */
  private siftUp(e: Parked, i: number): number {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const up = this.heap[parent] as Parked;
      if (!before(e, up)) break;
      this.place(up, i);
      i = parent;
    }
    return i;
  }

  private place(e: Parked, i: number): void {
    this.heap[i] = e;
    e.heapAt = i;
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

/** Whether eager entry `a`'s next round comes before `b`'s (the heap's order). */
function before(a: Parked, b: Parked): boolean {
  return a.nextMs < b.nextMs || (a.nextMs === b.nextMs && a.heapTie < b.heapTie);
}

/** A loop without a hook: its skipped rounds are counted when it wakes, not as they pass (not in the heap). */
function isLazy(e: Parked): boolean {
  return e.kind === KIND_LOOP && e.hook === undefined;
}
