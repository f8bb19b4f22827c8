// What a coroutine yields to the kernel: sleep, channel send and receive, select, park, and the end of an
// elidable loop round. The hot effects allocate nothing (reusable iterators over reusable effect objects).
import { AssertionError } from './assert.js';
import type { Chan } from './chan.js';

/** What a coroutine is: `function* (): Co<T> { ... yield* sleep(10) ... }`. */
export type Co<T = void> = Generator<Effect, T, unknown>;

export const OP_SLEEP = 0;
export const OP_RECV = 1;
export const OP_SEND = 2;
export const OP_SELECT = 3;
export const OP_PARK = 4;
/**
 * The end of a loop round (src/sim/elision.ts): sleep `ms` (or, with `cases`, select on them with that
 * timeout), or park the timeout if the round was idle.
 */
export const OP_LOOP = 5;

export type SelectCase =
  | { readonly recv: Chan<unknown> }
  | { readonly send: Chan<unknown>; readonly value: unknown };

/**
 * Every effect object has the same fields in the same order, so the run loop's reads of `op` and
 * friends stay monomorphic (one hidden class) whatever the effect.
 */
export interface Effect {
  readonly op: number;
  ms: number;
  readonly ch: Chan<unknown> | undefined;
  value: unknown;
  cases: readonly SelectCase[] | undefined;
  readonly timeoutMs: number;
  /** OP_LOOP: the loop whose round ended. */
  readonly loop: LoopRef | undefined;
}

/** What OP_LOOP carries: the loop's parked entry and whether its round was idle (filled per round). */
export interface LoopRef {
  /** Park instead of sleeping (set by the loop just before it yields). */
  park: boolean;
  /** The earliest time a time-dependent decision of the idle round may flip (Infinity: none). */
  deadlineMs: number;
  /** The domain whose changes the loop can see, if not its process's (src/sim/process.ts ProcessGroup). */
  readonly readsDomain: number | undefined;
}

export function effect(
  op: number,
  ms: number,
  ch: Chan<unknown> | undefined,
  value: unknown,
  cases: readonly SelectCase[] | undefined,
  timeoutMs: number,
  loop: LoopRef | undefined = undefined,
): Effect {
  return { op, ms, ch, value, cases, timeoutMs, loop };
}

/** `index` is the case that fired, SELECT_TIMEOUT for the timeout, SELECT_DEFAULT for the default. */
export interface SelectResult {
  readonly index: number;
  readonly value: unknown;
}
export const SELECT_TIMEOUT = -1;
export const SELECT_DEFAULT = -2;
export const NO_TIMEOUT = -1;
/** A select with `timeoutMs: 0` never blocks: Go's `default:` branch. */
export const DEFAULT_CASE = 0;

/**
 * The hot effects (sleep, channel send and receive, a loop's end of round) allocate nothing: each returns
 * a reusable iterator whose single step yields a reusable effect, and whose second step returns the
 * resume value. The run loop reads the effect synchronously, before any other coroutine can reuse it; a
 * step sequence is always `[Symbol.iterator]()`, `next()` within one synchronous step, then `next(v)` on
 * resume, so the one bit of state (`stepped`) is right for every coroutine even when several wait on the
 * same iterator.
 */
export class EffectIterator<R> implements Iterator<Effect, R, unknown>, Iterable<Effect, R, unknown> {
  private stepped = false;
  private readonly yielded: IteratorYieldResult<Effect>;
  private readonly returned: { done: true; value: R };

  constructor(readonly effect: Effect) {
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

const sharedSleep = new EffectIterator<void>(effect(OP_SLEEP, 0, undefined, undefined, undefined, 0));

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
