// The event queue: a binary min-heap ordered by (time, tie-break, sequence), kept in parallel typed arrays
// so that pushing and popping allocate nothing once the arrays have grown.
import { assert } from './assert.js';

/** Something the run loop can fire. `arg` is a plain number (a generation, an index) to avoid closures. */
export interface Target {
  fire(arg: number): void;
  /** The node whose state the event changes (0: anywhere); src/sim/elision.ts. */
  readonly domain?: number;
  /** Which parts of that node's state it may change (src/sim/elision.ts WRITES_ALL and friends). */
  readonly writeMask?: number;
}

export class EventQueue {
  private timeMs: Float64Array;
  private tie: Float64Array;
  private seq: Float64Array;
  private arg: Float64Array;
  private target: (Target | undefined)[];
  private count = 0;
  private nextSeq = 0;

  constructor(initialCapacity = 1024) {
    assert(initialCapacity > 0, 'queue capacity must be positive');
    this.timeMs = new Float64Array(initialCapacity);
    this.tie = new Float64Array(initialCapacity);
    this.seq = new Float64Array(initialCapacity);
    this.arg = new Float64Array(initialCapacity);
    this.target = new Array<Target | undefined>(initialCapacity).fill(undefined);
  }

  get size(): number {
    return this.count;
  }

  peekTimeMs(): number {
    assert(this.count > 0, 'peek on an empty queue');
    return this.timeMs[0] as number;
  }

  peekTie(): number {
    return this.tie[0] as number;
  }

  push(timeMs: number, tie: number, target: Target, arg: number): void {
    if (this.count === this.timeMs.length) this.grow();
    let i = this.count++;
    const seq = this.nextSeq++;
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
    assert(this.count > 0, 'pop on an empty queue');
    const top = this.target[0] as Target;
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
    let i = -1;
    for (let k = 0; k < this.count; k++) {
      if (this.target[k] === target && this.arg[k] === arg) {
        i = k;
        break;
      }
    }
    if (i < 0) return false;
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
    return true;
  }

  clear(): void {
    this.target.fill(undefined, 0, this.count);
    this.count = 0;
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
