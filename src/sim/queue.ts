// The event queue: a binary min-heap ordered by (time, tie-break, sequence), kept in parallel typed arrays
// so that pushing and popping allocate nothing once the arrays have grown, beside a short sorted lane for
// the events of the current instant (a woken receiver, a spawn), which then skip the heap's sift-up and
// sift-down: in a channel hand-over half of the events are such.
import { AssertionError, assert } from './assert.js';

/** Something the run loop can fire. `arg` is a plain number (a generation, an index) to avoid closures. */
export interface Target {
  fire(arg: number): void;
  /** The node whose state the event changes (0: anywhere); src/sim/elision.ts. */
  readonly domain?: number;
  /** Which parts of that node's state it may change (src/sim/elision.ts WRITES_ALL and friends). */
  readonly writeMask?: number;
}

/**
 * The lane's bound: beyond it, same-instant pushes go to the heap (10,000 pods created at one instant
 * must not make the lane's insertion quadratic). Either home gives the same order: pop takes the least.
 */
const LANE_MAX = 16;

/** Scratch arrays that collectAt fills (reused: a schedule run allocates them once). */
export interface InstantEntries {
  readonly tie: number[];
  readonly seq: number[];
  readonly arg: number[];
  readonly target: Target[];
  readonly stack: number[];
}

export class EventQueue {
  /**
   * The current instant's lane: entries at `laneTimeMs` (the last popped time), sorted by descending
   * (tie, seq) so that the least is last. Every heap entry is at or after `laneTimeMs` (nothing is
   * scheduled in the past), so the lane's last entry is the least unless the heap's top ties its time.
   */
  private laneTimeMs = 0;
  private readonly laneTie = new Float64Array(LANE_MAX);
  private readonly laneSeq = new Float64Array(LANE_MAX);
  private readonly laneArg = new Float64Array(LANE_MAX);
  private readonly laneTarget: (Target | undefined)[] = new Array<Target | undefined>(LANE_MAX).fill(
    undefined,
  );
  private laneCount = 0;
  private timeMs: Float64Array;
  private tie: Float64Array;
  private seq: Float64Array;
  private arg: Float64Array;
  private target: (Target | undefined)[];
  private count = 0;
  private nextSeq = 0;

  constructor(initialCapacity = 128) {
    assert(initialCapacity > 0, 'queue capacity must be positive');
    this.timeMs = new Float64Array(initialCapacity);
    this.tie = new Float64Array(initialCapacity);
    this.seq = new Float64Array(initialCapacity);
    this.arg = new Float64Array(initialCapacity);
    this.target = new Array<Target | undefined>(initialCapacity).fill(undefined);
  }

  /** The sequence number the next push gets (a schedule run tells an event's own pushes by it). */
  get nextSeqNumber(): number {
    return this.nextSeq;
  }

  get size(): number {
    return this.count + this.laneCount;
  }

  /** The earliest entry's time, or +Infinity when the queue is empty (the run loop's one read per event). */
  nextTimeMs(): number {
    if (this.laneCount > 0) return this.laneTimeMs;
    return this.count > 0 ? (this.timeMs[0] as number) : Number.POSITIVE_INFINITY;
  }

  peekTimeMs(): number {
    if (this.laneCount > 0) return this.laneTimeMs;
    assert(this.count > 0, 'peek on an empty queue');
    return this.timeMs[0] as number;
  }

  peekTie(): number {
    return this.laneFirst() ? (this.laneTie[this.laneCount - 1] as number) : (this.tie[0] as number);
  }

  /** True if the least entry is the lane's last one. */
  private laneFirst(): boolean {
    const n = this.laneCount;
    if (n === 0) return false;
    if (this.count === 0 || (this.timeMs[0] as number) !== this.laneTimeMs) return true;
    const k = this.laneTie[n - 1] as number;
    const k0 = this.tie[0] as number;
    return k !== k0 ? k < k0 : (this.laneSeq[n - 1] as number) < (this.seq[0] as number);
  }

  push(timeMs: number, tie: number, target: Target, arg: number): void {
    assert(timeMs >= this.laneTimeMs, 'push before the last popped instant');
    const seq = this.nextSeq++;
    if (timeMs === this.laneTimeMs && this.laneCount < LANE_MAX) {
      this.pushLane(tie, seq, target, arg);
      return;
    }
    if (this.count === this.timeMs.length) this.grow();
    let i = this.count++;
    // Sift up: move parents down until the new entry's slot is found, then write it once.
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(timeMs, tie, seq, parent)) break;
      this.move(parent, i);
      i = parent;
    }
    this.timeMs[i] = timeMs;
    this.tie[i] = tie;
    this.seq[i] = seq;
    this.arg[i] = arg;
    this.target[i] = target;
  }

  /** Removes the earliest event, fires nothing; returns its target and sets `poppedArg`/`poppedTimeMs`. */
  poppedArg = 0;
  poppedTimeMs = 0;
  pop(): Target {
    if (this.laneFirst()) {
      const j = --this.laneCount;
      const t = this.laneTarget[j] as Target;
      this.laneTarget[j] = undefined;
      this.poppedArg = this.laneArg[j] as number;
      this.poppedTimeMs = this.laneTimeMs;
      return t;
    }
    assert(this.count > 0, 'pop on an empty queue');
    const top = this.target[0] as Target;
    // The lane is empty or after the top (same instant): a new instant empties it, as it must.
    this.laneTimeMs = this.timeMs[0] as number;
    this.poppedArg = this.arg[0] as number;
    this.poppedTimeMs = this.timeMs[0] as number;
    const last = --this.count;
    if (last > 0) {
      const t = this.timeMs[last] as number;
      const k = this.tie[last] as number;
      const s = this.seq[last] as number;
      const a = this.arg[last] as number;
      const g = this.target[last];
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        if (left >= last) break;
        const right = left + 1;
        const child = right < last && this.lessAt(right, left) ? right : left;
        if (!this.lessThanEntry(child, t, k, s)) break;
        this.move(child, i);
        i = child;
      }
      this.timeMs[i] = t;
      this.tie[i] = k;
      this.seq[i] = s;
      this.arg[i] = a;
      this.target[i] = g;
    }
    this.target[last] = undefined;
    return top;
  }

  /**
   * Removes the pending event of `target` with `arg`, if there is one (a linear scan: the queue holds a
   * few hundred events at most, and this runs when a ticker parks, not per event).
   */
  remove(target: Target, arg: number): boolean {
    for (let j = 0; j < this.laneCount; j++) {
      if (this.laneTarget[j] === target && this.laneArg[j] === arg) {
        for (let m = j + 1; m < this.laneCount; m++) this.moveLane(m, m - 1);
        this.laneTarget[--this.laneCount] = undefined;
        return true;
      }
    }
    let i = -1;
    for (let k = 0; k < this.count; k++) {
      if (this.target[k] === target && this.arg[k] === arg) {
        i = k;
        break;
      }
    }
    if (i < 0) return false;
    this.removeHeapAt(i);
    return true;
  }

  /** Takes heap slot `i` out, moving the last entry into it. */
  private removeHeapAt(i: number): void {
    const last = --this.count;
    if (i !== last) {
      const t = this.timeMs[last] as number;
      const k = this.tie[last] as number;
      const s = this.seq[last] as number;
      const a = this.arg[last] as number;
      const g = this.target[last] as Target;
      // Sift the moved entry up, or else down, from slot i.
      let j = i;
      while (j > 0) {
        const parent = (j - 1) >> 1;
        if (!this.less(t, k, s, parent)) break;
        this.move(parent, j);
        j = parent;
      }
      if (j === i) {
        for (;;) {
          const left = 2 * j + 1;
          if (left >= last) break;
          const right = left + 1;
          const child = right < last && this.lessAt(right, left) ? right : left;
          if (!this.lessThanEntry(child, t, k, s)) break;
          this.move(child, j);
          j = child;
        }
      }
      this.timeMs[j] = t;
      this.tie[j] = k;
      this.seq[j] = s;
      this.arg[j] = a;
      this.target[j] = g;
    }
    this.target[last] = undefined;
  }

  /**
   * The entries due at `timeMs` (the earliest instant), in pop order (tie, seq), written to the `out`
   * arrays; returns how many. For schedule runs only (src/sim/choices.ts): it walks the heap's top.
   */
  collectAt(timeMs: number, out: InstantEntries): number {
    let n = 0;
    if (this.laneCount > 0 && this.laneTimeMs === timeMs) {
      for (let j = this.laneCount - 1; j >= 0; j--) {
        out.tie[n] = this.laneTie[j] as number;
        out.seq[n] = this.laneSeq[j] as number;
        out.arg[n] = this.laneArg[j] as number;
        out.target[n] = this.laneTarget[j] as Target;
        n++;
      }
    }
    // The heap's entries at timeMs form a subtree at its root: no child is earlier than its parent.
    const stack = out.stack;
    let top = 0;
    if (this.count > 0) stack[top++] = 0;
    while (top > 0) {
      const i = stack[--top] as number;
      if ((this.timeMs[i] as number) !== timeMs) continue;
      out.tie[n] = this.tie[i] as number;
      out.seq[n] = this.seq[i] as number;
      out.arg[n] = this.arg[i] as number;
      out.target[n] = this.target[i] as Target;
      n++;
      const l = 2 * i + 1;
      if (l < this.count) stack[top++] = l;
      if (l + 1 < this.count) stack[top++] = l + 1;
    }
    // Insertion sort by (tie, seq): an instant holds a handful of entries.
    for (let a = 1; a < n; a++) {
      const k = out.tie[a] as number;
      const s = out.seq[a] as number;
      const g = out.arg[a] as number;
      const t = out.target[a] as Target;
      let b = a;
      while (b > 0) {
        const kb = out.tie[b - 1] as number;
        if (kb < k || (kb === k && (out.seq[b - 1] as number) < s)) break;
        out.tie[b] = kb;
        out.seq[b] = out.seq[b - 1] as number;
        out.arg[b] = out.arg[b - 1] as number;
        out.target[b] = out.target[b - 1] as Target;
        b--;
      }
      out.tie[b] = k;
      out.seq[b] = s;
      out.arg[b] = g;
      out.target[b] = t;
    }
    return n;
  }

  /**
   * The times of the entries due in [fromMs, toMs] that `live` keeps, appended to `out` (any order). For
   * schedule runs only (src/sim/latencyChoices.ts): it walks the whole queue.
   */
  timesIn(fromMs: number, toMs: number, live: (target: Target, arg: number) => boolean, out: number[]): void {
    for (let j = 0; j < this.laneCount; j++) {
      const t = this.laneTimeMs;
      if (t >= fromMs && t <= toMs && live(this.laneTarget[j] as Target, this.laneArg[j] as number))
        out.push(t);
    }
    for (let i = 0; i < this.count; i++) {
      const t = this.timeMs[i] as number;
      if (t >= fromMs && t <= toMs && live(this.target[i] as Target, this.arg[i] as number)) out.push(t);
    }
  }

  /**
   * Removes the entry with sequence number `seq`, due at the earliest instant, and returns its target as
   * pop does (a schedule's deviation pops it out of the default order).
   */
  popSeq(seq: number): Target {
    for (let j = 0; j < this.laneCount; j++) {
      if (this.laneSeq[j] !== seq) continue;
      const t = this.laneTarget[j] as Target;
      this.poppedArg = this.laneArg[j] as number;
      this.poppedTimeMs = this.laneTimeMs;
      for (let m = j + 1; m < this.laneCount; m++) this.moveLane(m, m - 1);
      this.laneTarget[--this.laneCount] = undefined;
      return t;
    }
    for (let i = 0; i < this.count; i++) {
      if (this.seq[i] !== seq) continue;
      const t = this.target[i] as Target;
      this.poppedArg = this.arg[i] as number;
      this.poppedTimeMs = this.timeMs[i] as number;
      // As pop from the heap: the instant popped is the lane's from now on.
      this.laneTimeMs = this.poppedTimeMs;
      this.removeHeapAt(i);
      return t;
    }
    throw new AssertionError(`popSeq: no entry ${seq}`);
  }

  clear(): void {
    this.target.fill(undefined, 0, this.count);
    this.count = 0;
    this.laneTarget.fill(undefined);
    this.laneCount = 0;
  }

  /** Inserts into the lane, keeping it sorted by descending (tie, seq); `seq` is above every other. */
  private pushLane(tie: number, seq: number, target: Target, arg: number): void {
    let j = this.laneCount++;
    // Entries with a greater tie stay before; a tie equal to one already there sorts after it (its seq is
    // greater), so the new entry goes in front of every entry whose tie is not above its own.
    while (j > 0 && (this.laneTie[j - 1] as number) <= tie) {
      this.moveLane(j - 1, j);
      j--;
    }
    this.laneTie[j] = tie;
    this.laneSeq[j] = seq;
    this.laneArg[j] = arg;
    this.laneTarget[j] = target;
  }

  private moveLane(from: number, to: number): void {
    this.laneTie[to] = this.laneTie[from] as number;
    this.laneSeq[to] = this.laneSeq[from] as number;
    this.laneArg[to] = this.laneArg[from] as number;
    this.laneTarget[to] = this.laneTarget[from];
  }

  private lessThanEntry(i: number, t: number, k: number, s: number): boolean {
    const ti = this.timeMs[i] as number;
    if (ti !== t) return ti < t;
    const ki = this.tie[i] as number;
    if (ki !== k) return ki < k;
    return (this.seq[i] as number) < s;
  }

  private less(t: number, k: number, s: number, j: number): boolean {
    const tj = this.timeMs[j] as number;
    if (t !== tj) return t < tj;
    const kj = this.tie[j] as number;
    if (k !== kj) return k < kj;
    return s < (this.seq[j] as number);
  }

  private lessAt(i: number, j: number): boolean {
    return this.less(this.timeMs[i] as number, this.tie[i] as number, this.seq[i] as number, j);
  }

  private move(from: number, to: number): void {
    this.timeMs[to] = this.timeMs[from] as number;
    this.tie[to] = this.tie[from] as number;
    this.seq[to] = this.seq[from] as number;
    this.arg[to] = this.arg[from] as number;
    this.target[to] = this.target[from];
  }

  private grow(): void {
    const capacity = this.timeMs.length * 2;
    const grow = (old: Float64Array): Float64Array => {
      const next = new Float64Array(capacity);
      next.set(old);
      return next;
    };
    this.timeMs = grow(this.timeMs);
    this.tie = grow(this.tie);
    this.seq = grow(this.seq);
    this.arg = grow(this.arg);
    const target = new Array<Target | undefined>(capacity).fill(undefined);
    for (let i = 0; i < this.count; i++) target[i] = this.target[i];
    this.target = target;
  }
}
