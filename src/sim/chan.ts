// Go channels and contexts on top of the kernel: capacity 0 is a rendezvous, a full buffer blocks the
// sender, receive on a closed channel returns CLOSED, and a context's done channel closes on cancel.
import { AssertionError } from './assert.js';
import { type Co, type Effect, effect, OP_RECV, OP_SEND, SELECT_TIMEOUT, select } from './effects.js';
import type { Process } from './process.js';
import type { Sim } from './sim.js';
import { WaitQueue } from './waitq.js';

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
export class Chan<T> {
  // Plain arrays: V8 shifts a short array in O(1) (it moves the start), and these stay short.
  private readonly buffer: T[] = [];
  private readonly recvq: WaitQueue;
  private readonly sendq: WaitQueue;
  private closedFlag = false;
  private recvOp: RecvOp<T> | undefined = undefined;
  private sendOp: SendOp<T> | undefined = undefined;
  /**
   * A ticker's channel: what its buffer holds is seen by the ticker's consumer alone, whose handling of
   * the tick is judged idle or not (src/sim/elision.ts), so a buffered tick is no effect by itself.
   */
  quiet = false;
  /** Its id among the kernel objects a schedule run's footprints record (src/sim/choices.ts). */
  private readonly objectId: number;

  constructor(
    private readonly sim: Sim,
    readonly capacity: number,
    readonly name = 'chan',
  ) {
    if (!(Number.isInteger(capacity) && capacity >= 0))
      throw new AssertionError(`bad channel capacity ${capacity}`);
    this.objectId = sim.newChanObjectId();
    this.recvq = new WaitQueue(sim);
    this.sendq = new WaitQueue(sim);
  }

  get closed(): boolean {
    return this.closedFlag;
  }

  get length(): number {
    return this.buffer.length;
  }

  recv(): Iterable<Effect, T | Closed, unknown> {
    this.recvOp ??= new RecvOp<T>(this.sim, this);
    return this.recvOp;
  }

  send(value: T): Iterable<Effect, void, unknown> {
    this.sendOp ??= new SendOp<T>(this.sim, this);
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
    this.sim.touchObject(this.objectId);
    this.sim.noteEffect();
    this.recvq.drain((w) => this.sim.wake(w, CLOSED));
    this.sendq.drain((w) => {
      if (this.sim.isLive(w)) throw new AssertionError(`send on closed channel ${this.name} (panic)`);
    });
  }

  /** @internal Tries to receive without blocking; returns NOT_READY if it would block. */
  poll(): T | Closed | typeof NOT_READY {
    this.sim.touchObject(this.objectId);
    if (this.buffer.length > 0) {
      const value = this.buffer.shift() as T;
      if (!this.quiet) this.sim.noteEffect();
      // A blocked sender's value moves into the freed slot, and the sender runs on.
      const sender = this.sendq.takeLive();
      if (sender !== undefined) {
        this.buffer.push(sender.value as T);
        this.sim.wakeLive(sender, undefined);
      }
      return value;
    }
    const sender = this.sendq.takeLive();
    if (sender !== undefined) {
      this.sim.wakeLive(sender, undefined);
      return sender.value as T;
    }
    if (this.closedFlag) return CLOSED;
    return NOT_READY;
  }

  /** @internal Tries to send without blocking. */
  offer(value: T): boolean {
    this.sim.touchObject(this.objectId);
    const receiver = this.recvq.takeLive();
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
    this.sim.touchObject(this.objectId);
    this.recvq.push(w);
  }

  /** @internal */
  enqueueSend(w: Waiter): void {
    this.sim.touchObject(this.objectId);
    this.sendq.push(w);
  }
}

// ---- send and receive without a round trip through the kernel when they do not block ----

/**
 * What `yield* ch.recv()` iterates, one per channel, reused. A receive that finds a value (or a closed
 * channel) completes inside the coroutine's step, as the kernel would have done it at once anyway; only
 * one that must wait yields OP_RECV, whose precondition is that this poll found nothing. Like
 * EffectIterator (src/sim/effects.ts), `stepped` is left true after the first step whether it blocked or
 * not, because another coroutine blocked in this same iterator resumes through it later.
 */
class RecvOp<T> implements Iterator<Effect, T | Closed, unknown>, Iterable<Effect, T | Closed, unknown> {
  private stepped = false;
  private readonly yielded: IteratorYieldResult<Effect>;
  private readonly returned: { done: true; value: T | Closed };

  constructor(
    private readonly sim: Sim,
    private readonly ch: Chan<T>,
  ) {
    this.yielded = { done: false, value: effect(OP_RECV, 0, ch as Chan<unknown>, undefined, undefined, 0) };
    this.returned = { done: true, value: CLOSED };
  }

  [Symbol.iterator](): this {
    this.stepped = false;
    return this;
  }

  next(resume?: unknown): IteratorResult<Effect, T | Closed> {
    if (this.stepped) {
      this.returned.value = resume as T | Closed;
      return this.returned;
    }
    this.stepped = true;
    this.sim.countOp();
    const v = this.ch.poll();
    if (v === NOT_READY) return this.yielded;
    this.returned.value = v;
    return this.returned;
  }
}

/** What `yield* ch.send(v)` iterates: as RecvOp, a send that is taken at once never yields OP_SEND. */
class SendOp<T> implements Iterator<Effect, void, unknown>, Iterable<Effect, void, unknown> {
  private stepped = false;
  readonly effect: Effect;
  private readonly yielded: IteratorYieldResult<Effect>;
  private readonly returned: { done: true; value: undefined } = { done: true, value: undefined };

  constructor(
    private readonly sim: Sim,
    private readonly ch: Chan<T>,
  ) {
    this.effect = effect(OP_SEND, 0, ch as Chan<unknown>, undefined, undefined, 0);
    this.yielded = { done: false, value: this.effect };
  }

  [Symbol.iterator](): this {
    this.stepped = false;
    return this;
  }

  next(): IteratorResult<Effect, void> {
    if (this.stepped) return this.returned;
    this.stepped = true;
    this.sim.countOp();
    if (this.ch.closed) throw new AssertionError(`send on closed channel ${this.ch.name} (panic)`);
    return this.ch.offer(this.effect.value as T) ? this.returned : this.yielded;
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
