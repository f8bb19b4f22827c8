// Go channels and contexts on top of the kernel: capacity 0 is a rendezvous, a full buffer blocks the
// sender, receive on a closed channel returns CLOSED, and a context's done channel closes on cancel.
import { AssertionError } from './assert.js';
import {
  type Co,
  type Effect,
  EffectIterator,
  effect,
  OP_RECV,
  OP_SEND,
  SELECT_TIMEOUT,
  select,
} from './effects.js';
import type { Process } from './process.js';
import type { Sim } from './sim.js';

/** Returned by a receive on a closed channel (Go's `v, ok := <-ch` with ok == false). */
export const CLOSED: unique symbol = Symbol('closed');
export type Closed = typeof CLOSED;

export const NOT_READY: unique symbol = Symbol('not-ready');

export interface Waiter {
  readonly proc: Process;
  gen: number;
  /** -1 for a plain send/recv, otherwise the select case index. */
  caseIndex: number;
  value: unknown;
}

/** A Go channel with Go's semantics: capacity 0 is a rendezvous; receive on a closed channel gets CLOSED. */
/** The smallest length at which a channel's wait queue is compacted (see Chan.recvCompactAt). */
const WAITQ_COMPACT_MIN = 64;

export class Chan<T> {
  // Plain arrays: V8 shifts a short array in O(1) (it moves the start), and these stay short.
  private readonly buffer: T[] = [];
  private readonly recvq: Waiter[] = [];
  private readonly sendq: Waiter[] = [];
  /**
   * A select that ends by its timeout or another case leaves its waiter in this channel's queue, dead.
   * A loop that selects on a quiet channel every period would grow the queue without bound (a day of
   * virtual time: 10^5 waiters, then an O(n^2) drain at the first send), so a queue is compacted when it
   * reaches this length, which then doubles past the live waiters: amortised O(1) per enqueue.
   */
  private recvCompactAt = WAITQ_COMPACT_MIN;
  private sendCompactAt = WAITQ_COMPACT_MIN;
  private closedFlag = false;
  private recvOp: EffectIterator<T | Closed> | undefined = undefined;
  private sendOp: EffectIterator<void> | undefined = undefined;
  /**
   * A ticker's channel: what its buffer holds is seen by the ticker's consumer alone, whose handling of
   * the tick is judged idle or not (src/sim/elision.ts), so a buffered tick is no effect by itself.
   */
  quiet = false;

  constructor(
    private readonly sim: Sim,
    readonly capacity: number,
    readonly name = 'chan',
  ) {
    if (!(Number.isInteger(capacity) && capacity >= 0))
      throw new AssertionError(`bad channel capacity ${capacity}`);
  }

  get closed(): boolean {
    return this.closedFlag;
  }

  get length(): number {
    return this.buffer.length;
  }

  recv(): Iterable<Effect, T | Closed, unknown> {
    this.recvOp ??= new EffectIterator<T | Closed>(
      effect(OP_RECV, 0, this as Chan<unknown>, undefined, undefined, 0),
    );
    return this.recvOp;
  }

  send(value: T): Iterable<Effect, void, unknown> {
    this.sendOp ??= new EffectIterator<void>(
      effect(OP_SEND, 0, this as Chan<unknown>, undefined, undefined, 0),
    );
    this.sendOp.effect.value = value;
    return this.sendOp;
  }

  /** A non-blocking send (select with default); true if the value was taken. */
  trySend(value: T): boolean {
    if (this.closedFlag) throw new AssertionError(`send on closed channel ${this.name}`);
    return this.offer(value);
  }

  close(): void {
    if (this.closedFlag) throw new AssertionError(`close of closed channel ${this.name}`);
    this.closedFlag = true;
    this.sim.noteEffect();
    for (const w of this.recvq) this.sim.wake(w, CLOSED);
    this.recvq.length = 0;
    for (const w of this.sendq) {
      if (this.sim.isLive(w)) throw new AssertionError(`send on closed channel ${this.name} (panic)`);
    }
    this.sendq.length = 0;
  }

  /** @internal Tries to receive without blocking; returns NOT_READY if it would block. */
  poll(): T | Closed | typeof NOT_READY {
    if (this.buffer.length > 0) {
      const value = this.buffer.shift() as T;
      if (!this.quiet) this.sim.noteEffect();
      // A blocked sender's value moves into the freed slot, and the sender runs on.
      const sender = this.takeLive(this.sendq);
      if (sender !== undefined) {
        this.buffer.push(sender.value as T);
        this.sim.wakeLive(sender, undefined);
      }
      return value;
    }
    const sender = this.takeLive(this.sendq);
    if (sender !== undefined) {
      this.sim.wakeLive(sender, undefined);
      return sender.value as T;
    }
    if (this.closedFlag) return CLOSED;
    return NOT_READY;
  }

  /** @internal Tries to send without blocking. */
  offer(value: T): boolean {
    const receiver = this.takeLive(this.recvq);
    if (receiver !== undefined) {
      this.sim.wakeLive(receiver, value, this.quiet);
      return true;
    }
    if (this.buffer.length < this.capacity) {
      this.buffer.push(value);
      if (!this.quiet) this.sim.noteEffect();
      return true;
    }
    return false;
  }

  /** @internal */
  enqueueRecv(w: Waiter): void {
    if (this.recvq.length >= this.recvCompactAt) {
      this.compact(this.recvq);
      this.recvCompactAt = Math.max(WAITQ_COMPACT_MIN, 2 * this.recvq.length);
    }
    this.recvq.push(w);
  }

  /** @internal */
  enqueueSend(w: Waiter): void {
    if (this.sendq.length >= this.sendCompactAt) {
      this.compact(this.sendq);
      this.sendCompactAt = Math.max(WAITQ_COMPACT_MIN, 2 * this.sendq.length);
    }
    this.sendq.push(w);
  }

  /** Drops the dead waiters, keeping the live ones in order (what takeLive would skip anyway). */
  private compact(queue: Waiter[]): void {
    let j = 0;
    for (let i = 0; i < queue.length; i++) {
      const w = queue[i] as Waiter;
      if (this.sim.isLive(w)) queue[j++] = w;
    }
    queue.length = j;
  }

  private takeLive(queue: Waiter[]): Waiter | undefined {
    while (queue.length > 0) {
      const w = queue.shift() as Waiter;
      if (w.proc.state === 'blocked' && w.proc.gen === w.gen) return w;
    }
    return undefined;
  }
}

// ---- context (Go's context.Context with cancel) ----

export class Context {
  readonly done: Chan<never>;
  private canceledFlag = false;

  constructor(sim: Sim) {
    this.done = new Chan<never>(sim, 0, 'ctx.Done');
  }

  get canceled(): boolean {
    return this.canceledFlag;
  }

  cancel(): void {
    if (this.canceledFlag) return;
    this.canceledFlag = true;
    this.done.close();
  }
}

/** Sleeps `ms` unless `ctx` is cancelled first; returns false if it was cancelled. */
export function* sleepCtx(ms: number, ctx: Context): Co<boolean> {
  if (ctx.canceled) return false;
  const r = yield* select([{ recv: ctx.done as Chan<unknown> }], ms);
  return r.index === SELECT_TIMEOUT;
}
