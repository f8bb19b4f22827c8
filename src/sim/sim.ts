// The simulation kernel: a virtual clock, the event queue, goroutine-like coroutines and Go channels.
// It knows nothing of Kubernetes. Coroutines are generator functions that yield effects; between two
// yields a coroutine runs atomically, so interleavings happen exactly where the Go code would block.
import { AssertionError, assert } from './assert.js';
import { EventQueue, type Target } from './queue.js';
import { Rng } from './rng.js';

/** What a coroutine is: `function* (): Co<T> { ... yield* sleep(10) ... }`. */
export type Co<T = void> = Generator<Effect, T, unknown>;

/** Returned by a receive on a closed channel (Go's `v, ok := <-ch` with ok == false). */
export const CLOSED: unique symbol = Symbol('closed');
export type Closed = typeof CLOSED;

const OP_SLEEP = 0;
const OP_RECV = 1;
const OP_SEND = 2;
const OP_SELECT = 3;
const OP_PARK = 4;

type Effect =
  | { readonly op: typeof OP_SLEEP; readonly ms: number }
  | { readonly op: typeof OP_RECV; readonly ch: Chan<unknown> }
  | { readonly op: typeof OP_SEND; readonly ch: Chan<unknown>; readonly value: unknown }
  | { readonly op: typeof OP_SELECT; readonly cases: readonly SelectCase[]; readonly timeoutMs: number }
  | { readonly op: typeof OP_PARK };

export type { Effect };

/**
 * Every effect object has the same six fields in the same order, so the run loop's reads of `op` and
 * friends stay monomorphic (one hidden class) whatever the effect.
 */
function effect(
  op: Effect['op'],
  ms: number,
  ch: Chan<unknown> | undefined,
  value: unknown,
  cases: readonly SelectCase[] | undefined,
  timeoutMs: number,
): Effect {
  return { op, ms, ch, value, cases, timeoutMs } as unknown as Effect;
}

export type SelectCase =
  | { readonly recv: Chan<unknown> }
  | { readonly send: Chan<unknown>; readonly value: unknown };

/** `index` is the case that fired, SELECT_TIMEOUT for the timeout, SELECT_DEFAULT for the default. */
export interface SelectResult {
  readonly index: number;
  readonly value: unknown;
}
export const SELECT_TIMEOUT = -1;
export const SELECT_DEFAULT = -2;
const NO_TIMEOUT = -1;
/** A select with `timeoutMs: 0` never blocks: Go's `default:` branch. */
export const DEFAULT_CASE = 0;

// ---- effects (used with yield*) ----

/**
 * Sleep is the hottest effect (every kubelet loop), so it allocates nothing: `sleep(ms)` returns one
 * shared iterator whose single step yields itself as the effect. The run loop reads `ms` synchronously,
 * before any other coroutine can call sleep again, so sharing it is safe.
 */
/**
 * The hot effects (sleep, channel send and receive) allocate nothing: each returns a reusable iterator
 * whose single step yields a reusable effect, and whose second step returns the resume value. The run
 * loop reads the effect synchronously, before any other coroutine can reuse it; a step sequence is always
 * `[Symbol.iterator]()`, `next()` within one synchronous step, then `next(v)` on resume, so the one bit of
 * state (`stepped`) is right for every coroutine even when several wait on the same iterator.
 */
class EffectIterator<R> implements Iterator<Effect, R, unknown>, Iterable<Effect, R, unknown> {
  private stepped = false;
  private readonly yielded: IteratorYieldResult<Effect>;
  private readonly returned: { done: true; value: R };

  constructor(readonly effect: Effect & { ms: number; value: unknown }) {
    this.yielded = { done: false, value: effect };
    this.returned = { done: true, value: undefined as R };
  }

  [Symbol.iterator](): this {
    this.stepped = false;
    return this;
  }

  next(resume?: unknown): IteratorResult<Effect, R> {
    if (this.stepped) {
      this.returned.value = resume as R;
      return this.returned;
    }
    this.stepped = true;
    return this.yielded;
  }
}

const sharedSleep = new EffectIterator<void>(
  effect(OP_SLEEP, 0, undefined, undefined, undefined, 0) as Effect & { ms: number; value: unknown },
);

export function sleep(ms: number): Iterable<Effect, void, unknown> {
  if (!(Number.isInteger(ms) && ms >= 0))
    throw new AssertionError(`sleep needs a whole, non-negative ms, got ${ms}`);
  sharedSleep.effect.ms = ms;
  return sharedSleep;
}

/** Go's `select`; `timeoutMs` 0 is the `default:` branch, undefined waits forever. */
export function* select(cases: readonly SelectCase[], timeoutMs?: number): Co<SelectResult> {
  const t = timeoutMs === undefined ? NO_TIMEOUT : timeoutMs;
  if (!(t === NO_TIMEOUT || (Number.isInteger(t) && t >= 0)))
    throw new AssertionError(`bad select timeout ${String(timeoutMs)}`);
  return (yield effect(OP_SELECT, 0, undefined, undefined, cases, t)) as SelectResult;
}

/** Blocks until `sim.unpark(process, value)`; used by kernel-level primitives outside channels. */
export function* park(): Co<unknown> {
  return yield effect(OP_PARK, 0, undefined, undefined, undefined, 0);
}

// ---- channels ----

interface Waiter {
  readonly proc: Process;
  gen: number;
  /** -1 for a plain send/recv, otherwise the select case index. */
  caseIndex: number;
  value: unknown;
}

/** A Go channel with Go's semantics: capacity 0 is a rendezvous; receive on a closed channel gets CLOSED. */
export class Chan<T> {
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
      effect(OP_RECV, 0, this as Chan<unknown>, undefined, undefined, 0) as Effect & {
        ms: number;
        value: unknown;
      },
    );
    return this.recvOp;
  }

  send(value: T): Iterable<Effect, void, unknown> {
    this.sendOp ??= new EffectIterator<void>(
      effect(OP_SEND, 0, this as Chan<unknown>, undefined, undefined, 0) as Effect & {
        ms: number;
        value: unknown;
      },
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
      // A blocked sender's value moves into the freed slot, and the sender runs on.
      const sender = this.takeLive(this.sendq);
      if (sender !== undefined) {
        this.buffer.push(sender.value as T);
        this.sim.wake(sender, undefined);
      }
      return value;
    }
    const sender = this.takeLive(this.sendq);
    if (sender !== undefined) {
      this.sim.wake(sender, undefined);
      return sender.value as T;
    }
    if (this.closedFlag) return CLOSED;
    return NOT_READY;
  }

  /** @internal Tries to send without blocking. */
  offer(value: T): boolean {
    const receiver = this.takeLive(this.recvq);
    if (receiver !== undefined) {
      this.sim.wake(receiver, value);
      return true;
    }
    if (this.buffer.length < this.capacity) {
      this.buffer.push(value);
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
      if (this.sim.isLive(w)) return w;
    }
    return undefined;
  }
}

/** The smallest length at which a channel's wait queue is compacted (see Chan.recvCompactAt). */
const WAITQ_COMPACT_MIN = 64;

const NOT_READY: unique symbol = Symbol('not-ready');

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

// ---- processes ----

export type ProcessState = 'ready' | 'blocked' | 'done' | 'killed';

export class Process implements Target {
  state: ProcessState = 'ready';
  /** Bumped each time the process blocks or wakes; stale wake-ups carry an old generation. */
  gen = 0;
  resumeValue: unknown = undefined;
  /**
   * The waiter of a plain (non-select) send or receive, reused: a process waits in at most one plain
   * queue, is taken out of it when woken, and a killed process never blocks again.
   */
  readonly plainWaiter: Waiter;

  constructor(
    readonly sim: Sim,
    readonly name: string,
    readonly gen_: Co<unknown>,
    readonly group: ProcessGroup | undefined,
  ) {
    this.plainWaiter = { proc: this, gen: -1, caseIndex: -1, value: undefined };
  }

  fire(arg: number): void {
    if (arg !== this.gen || this.state !== 'blocked') return;
    this.sim.step(this);
  }
}

/** Processes that die together (one kubelet's goroutines when the kubelet process is killed). */
export class ProcessGroup {
  readonly members = new Set<Process>();
  alive = true;

  constructor(readonly name: string) {}

  kill(): void {
    this.alive = false;
    for (const p of this.members) {
      p.state = 'killed';
      p.gen++;
    }
    this.members.clear();
  }
}

class Callback implements Target {
  constructor(private readonly fn: () => void) {}
  fire(): void {
    this.fn();
  }
}

export interface RunBounds {
  readonly horizonMs: number;
  readonly maxEvents: number;
}

export type StopReason = 'idle' | 'horizon' | 'max-events' | 'stopped';

export interface Outcome {
  readonly reason: StopReason;
  readonly events: number;
  readonly nowMs: number;
}

/** How many effects a coroutine may perform without blocking before it is declared a livelock. */
const STEP_OPS_MAX = 100_000;

export class Sim {
  nowMs = 0;
  events = 0;
  readonly rng: Rng;
  /**
   * Tie-breaks are drawn on every push, so they come from an inline xorshift32 seeded from the named
   * stream 'kernel/tie' rather than from alea: same determinism, a fraction of the cost.
   */
  private tieState: number;
  private readonly queue = new EventQueue();
  private stopRequested = false;
  private running = false;
  current: Process | undefined = undefined;

  constructor(readonly seed: number) {
    this.rng = Rng.fromSeed(seed);
    this.tieState = this.rng.fork('kernel/tie').uint32() || 0x9e3779b9;
  }

  // -- scheduling --

  private nextTie(): number {
    let x = this.tieState;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.tieState = x >>> 0;
    return this.tieState;
  }

  /** A plain callback at `timeMs`; same-instant callbacks are ordered by the seeded tie-break. */
  at(timeMs: number, fn: () => void): void {
    if (!(Number.isInteger(timeMs) && timeMs >= this.nowMs))
      throw new AssertionError(`schedule in the past: ${timeMs} < ${this.nowMs}`);
    this.queue.push(timeMs, this.nextTie(), new Callback(fn), 0);
  }

  after(delayMs: number, fn: () => void): void {
    this.at(this.nowMs + delayMs, fn);
  }

  /** A callback that runs before every seeded event of its instant, in call order (scenario timelines). */
  atOrdered(timeMs: number, fn: () => void): void {
    if (!(Number.isInteger(timeMs) && timeMs >= this.nowMs))
      throw new AssertionError(`schedule in the past: ${timeMs} < ${this.nowMs}`);
    this.queue.push(timeMs, -1, new Callback(fn), 0);
  }

  /** @internal Low-level push for targets that manage their own generations. */
  pushTarget(timeMs: number, target: Target, arg: number): void {
    this.queue.push(timeMs, this.nextTie(), target, arg);
  }

  // -- processes --

  /** Starts a goroutine; it first runs at the current instant, ordered by the seeded tie-break. */
  spawn(name: string, body: Co<unknown>, group?: ProcessGroup): Process {
    if (!(group === undefined || group.alive))
      throw new AssertionError(`spawn ${name} into dead group ${group?.name}`);
    const p = new Process(this, name, body, group);
    group?.members.add(p);
    p.state = 'blocked';
    this.queue.push(this.nowMs, this.nextTie(), p, p.gen);
    return p;
  }

  chan<T>(capacity: number, name?: string): Chan<T> {
    return new Chan<T>(this, capacity, name);
  }

  context(): Context {
    return new Context(this);
  }

  /** Wakes a process blocked in `park()` with `value`. */
  unpark(p: Process, value: unknown): void {
    if (!(p.state === 'blocked' || p.state === 'killed'))
      throw new AssertionError(`unpark of ${p.name} in state ${p.state}`);
    if (p.state === 'killed') return;
    this.wake({ proc: p, gen: p.gen, caseIndex: -1, value: undefined }, value);
  }

  /** @internal */
  isLive(w: Waiter): boolean {
    return w.proc.state === 'blocked' && w.proc.gen === w.gen;
  }

  /** @internal Hands `value` to a blocked waiter and schedules it at the current instant. */
  wake(w: Waiter, value: unknown): void {
    if (!this.isLive(w)) return;
    const p = w.proc;
    p.gen++;
    p.resumeValue = w.caseIndex < 0 ? value : { index: w.caseIndex, value };
    this.queue.push(this.nowMs, this.nextTie(), p, p.gen);
  }

  /** @internal Runs a process until it blocks or finishes. */
  step(p: Process): void {
    if (p.state !== 'blocked') throw new AssertionError(`step of ${p.name} in state ${p.state}`);
    p.state = 'ready';
    let input = p.resumeValue;
    p.resumeValue = undefined;
    // Steps never nest (wake-ups are scheduled, not run inline), so no save/restore of `current` is needed;
    // an exception ends the whole run.
    this.current = p;
    for (let ops = 0; ; ops++) {
      if (ops >= STEP_OPS_MAX)
        throw new AssertionError(`process ${p.name} ran ${STEP_OPS_MAX} effects without blocking`);
      const r = p.gen_.next(input);
      if ((p.state as ProcessState) === 'killed') break; // its own group was killed while it ran
      if (r.done === true) {
        p.state = 'done';
        p.group?.members.delete(p);
        break;
      }
      const outcome = this.perform(p, r.value);
      if (outcome === BLOCKED) break;
      input = outcome;
    }
    this.current = undefined;
  }

  /** Applies one effect; returns the value to resume with at once, or BLOCKED. */
  private perform(p: Process, e: Effect): unknown {
    switch (e.op) {
      case OP_SLEEP:
        this.block(p, undefined);
        this.queue.push(this.nowMs + e.ms, this.nextTie(), p, p.gen);
        return BLOCKED;
      case OP_RECV: {
        const v = e.ch.poll();
        if (v !== NOT_READY) return v;
        this.block(p, undefined);
        e.ch.enqueueRecv(plainWaiter(p, undefined));
        return BLOCKED;
      }
      case OP_SEND:
        if (e.ch.closed) throw new AssertionError(`send on closed channel ${e.ch.name} (panic)`);
        if (e.ch.offer(e.value)) return undefined;
        this.block(p, undefined);
        e.ch.enqueueSend(plainWaiter(p, e.value));
        return BLOCKED;
      case OP_SELECT:
        return this.performSelect(p, e.cases, e.timeoutMs);
      case OP_PARK:
        this.block(p, undefined);
        return BLOCKED;
    }
  }

  private performSelect(p: Process, cases: readonly SelectCase[], timeoutMs: number): unknown {
    // Go picks uniformly among the ready cases: start the scan at a seeded offset.
    const n = cases.length;
    const start = n > 1 ? this.nextTie() % n : 0;
    for (let k = 0; k < n; k++) {
      const i = (start + k) % n;
      const c = cases[i] as SelectCase;
      if ('recv' in c) {
        const v = c.recv.poll();
        if (v !== NOT_READY) return { index: i, value: v };
      } else {
        if (c.send.closed) throw new AssertionError(`send on closed channel ${c.send.name} (panic)`);
        if (c.send.offer(c.value)) return { index: i, value: undefined };
      }
    }
    if (timeoutMs === DEFAULT_CASE) return { index: SELECT_DEFAULT, value: undefined };
    this.block(p, { index: SELECT_TIMEOUT, value: undefined });
    for (let i = 0; i < n; i++) {
      const c = cases[i] as SelectCase;
      if ('recv' in c) c.recv.enqueueRecv({ proc: p, gen: p.gen, caseIndex: i, value: undefined });
      else c.send.enqueueSend({ proc: p, gen: p.gen, caseIndex: i, value: c.value });
    }
    if (timeoutMs !== NO_TIMEOUT) this.queue.push(this.nowMs + timeoutMs, this.nextTie(), p, p.gen);
    return BLOCKED;
  }

  private block(p: Process, timeoutValue: unknown): void {
    p.state = 'blocked';
    p.gen++;
    p.resumeValue = timeoutValue;
  }

  // -- the run loop --

  stop(): void {
    this.stopRequested = true;
  }

  run(bounds: RunBounds): Outcome {
    assert(!this.running, 'Sim.run is not re-entrant');
    assert(bounds.maxEvents > 0 && bounds.horizonMs >= this.nowMs, 'bad run bounds');
    this.running = true;
    this.stopRequested = false;
    let reason: StopReason = 'idle';
    try {
      const queue = this.queue;
      while (queue.size > 0) {
        if (this.stopRequested) {
          reason = 'stopped';
          break;
        }
        if (queue.peekTimeMs() > bounds.horizonMs) {
          reason = 'horizon';
          break;
        }
        if (this.events >= bounds.maxEvents) {
          reason = 'max-events';
          break;
        }
        const target = queue.pop();
        assert(queue.poppedTimeMs >= this.nowMs, 'time went backwards');
        this.nowMs = queue.poppedTimeMs;
        this.events++;
        target.fire(queue.poppedArg);
      }
      if (reason === 'idle' && this.stopRequested) reason = 'stopped';
      if (reason === 'horizon') this.nowMs = bounds.horizonMs;
    } finally {
      this.running = false;
    }
    return { reason, events: this.events, nowMs: this.nowMs };
  }
}

const BLOCKED: unique symbol = Symbol('blocked');

function plainWaiter(p: Process, value: unknown): Waiter {
  const w = p.plainWaiter;
  w.gen = p.gen;
  w.caseIndex = -1;
  w.value = value;
  return w;
}
