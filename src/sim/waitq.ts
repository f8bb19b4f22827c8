// A channel's queue of blocked senders or receivers: a FIFO ring over a reused array, so a queue that
// empties and fills once per message (every hand-over of a capacity-1 channel) allocates nothing.
import type { Waiter } from './chan.js';
import type { Sim } from './sim.js';

/** The smallest length at which a wait queue is compacted (see WaitQueue.compactAt). */
const WAITQ_COMPACT_MIN = 64;

export class WaitQueue {
  /** A power of two long; slots outside [head, head + count) hold undefined (nothing kept alive). */
  private ring: (Waiter | undefined)[] = new Array<Waiter | undefined>(4).fill(undefined);
  private head = 0;
  private count = 0;
  /**
   * A select that ends by its timeout or another case leaves its waiter here, dead. A loop that selects on
   * a quiet channel every period would grow the queue without bound (a day of virtual time: 10^5
   * waiters), so the queue drops its dead waiters when it reaches this length, which then doubles past
   * the live ones: amortised O(1) per push.
   */
  private compactAt = WAITQ_COMPACT_MIN;

  constructor(private readonly sim: Sim) {}

  get length(): number {
    return this.count;
  }

  push(w: Waiter): void {
    if (this.count >= this.compactAt) {
      this.compact();
      this.compactAt = Math.max(WAITQ_COMPACT_MIN, 2 * this.count);
    }
    if (this.count === this.ring.length) this.grow();
    this.ring[(this.head + this.count) & (this.ring.length - 1)] = w;
    this.count++;
  }

  /** Takes waiters from the front until a live one (the dead are what takeLive would skip anyway). */
  takeLive(): Waiter | undefined {
    while (this.count > 0) {
      const w = this.shift();
      if (this.sim.isLive(w)) return w;
    }
    return undefined;
  }

  /** Removes every waiter, front first, handing each to `fn`. */
  drain(fn: (w: Waiter) => void): void {
    while (this.count > 0) fn(this.shift());
  }

  /** Takes the front waiter out; the queue must not be empty. */
  private shift(): Waiter {
    const w = this.ring[this.head] as Waiter;
    this.ring[this.head] = undefined;
    this.head = (this.head + 1) & (this.ring.length - 1);
    this.count--;
    return w;
  }

  /** Drops the dead waiters, keeping the live ones in order, at the front of the ring. */
  private compact(): void {
    const mask = this.ring.length - 1;
    let live = 0;
    for (let i = 0; i < this.count; i++) {
      const from = (this.head + i) & mask;
      const w = this.ring[from] as Waiter;
      this.ring[from] = undefined;
      if (this.sim.isLive(w)) this.ring[(this.head + live++) & mask] = w;
    }
    this.count = live;
  }

  private grow(): void {
    const mask = this.ring.length - 1;
    const next = new Array<Waiter | undefined>(this.ring.length * 2).fill(undefined);
    for (let i = 0; i < this.count; i++) next[i] = this.ring[(this.head + i) & mask];
    this.ring = next;
    this.head = 0;
  }
}
