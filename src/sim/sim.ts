// The simulation kernel: a virtual clock, the event queue, goroutine-like coroutines and Go channels.
// It knows nothing of Kubernetes. Coroutines are generator functions that yield effects; between two
// yields a coroutine runs atomically, so interleavings happen exactly where the Go code would block.
import { AssertionError, assert } from './assert.js';
import { Chan, Context, NOT_READY, type Waiter } from './chan.js';
import type { ChoiceRun } from './choices.js';
import {
  type Co,
  DEFAULT_CASE,
  type Effect,
  type LoopRef,
  NO_TIMEOUT,
  OP_LOOP,
  OP_PARK,
  OP_RECV,
  OP_SELECT,
  OP_SEND,
  OP_SLEEP,
  SELECT_DEFAULT,
  SELECT_TIMEOUT,
  type SelectCase,
  type SelectResult,
} from './effects.js';
import { WRITES_ALL } from './masks.js';
import { ParkedLoops } from './parked.js';
import { Process, ProcessGroup, type ProcessState, processObjectId } from './process.js';
import { EventQueue, type Target } from './queue.js';
import { type DrawCounter, hashText, Rng } from './rng.js';
import { CALLBACK_SALT, PROCESS_SALT, SELECT_SALT, tieAt, tieKeyOf, tieOf } from './ties.js';

class Callback implements Target {
  constructor(
    private readonly fn: () => void,
    readonly domain: number,
    readonly writeMask: number,
  ) {}
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

export interface SimOptions {
  /**
   * Skip the rounds of idle loops (src/sim/elision.ts) instead of running them; the outcome is the same
   * (the differential test in test/sim/elision.test.ts and test/e2e/elision.test.ts proves it).
   */
  readonly elide?: boolean | undefined;
}

/** How many effects a coroutine may perform without blocking before it is declared a livelock. */
const STEP_OPS_MAX = 100_000;

/** The first shared object's id (Sim.newSharedObjectId): far below any stream's (-1 - its number). */
const SHARED_OBJECT_ID_FIRST = -0x4000_0000;

export class Sim {
  nowMs = 0;
  /** Events fired so far (elided loop rounds are not events). */
  events = 0;
  readonly rng: Rng;
  readonly elide: boolean;
  /**
   * Everything that can change what another part of the world sees bumps this one counter: spawns,
   * wake-ups, scheduled callbacks, channel buffer changes, RNG draws, published facts. A loop round
   * that leaves it (and its own state versions) unchanged was idle.
   */
  readonly fx: DrawCounter;
  /** The tie-break seed: ties are a hash of (seed, owner, instant), src/sim/ties.ts. */
  private readonly tieSeed: number;
  private readonly queue = new EventQueue();
  /** @internal Read by a schedule's run loop (src/sim/choices.ts). */
  stopRequested = false;
  private running = false;
  private nextProcessId = 0;
  /** How many processes of each name were spawned: a process's incarnation keys its draws. */
  private readonly spawnedByName = new Map<string, number>();
  private nextCallbackId = 0;
  /** `fx.n` when the current event started, and when it was last declared clean (-1: it was not). */
  private eventFx = 0;
  private cleanFx = -1;
  /** What the current event may have changed (its target's write mask, plus `touch`). */
  private eventWrites = WRITES_ALL;
  /** What the current event may have changed for its footprint, if narrower (Process.footprintWriteMask); else -1. */
  private eventFootprintWrites = -1;
  /** The current event is a process resumed by a sleep's end or a tick, and nothing in it was busy. */
  private eventPure = false;
  /** Effects the current step has performed, in the kernel or inline (channel operations that did not block). */
  private stepOps = 0;
  /** The earliest deadline noted by the current loop round (noteDeadline). */
  deadlineMs = Number.POSITIVE_INFINITY;
  readonly parked: ParkedLoops;
  current: Process | undefined = undefined;
  /**
   * Accesses to what nodes share (the API server, the SAN, the fact stream, the kernel's spawn and
   * callback numbering): a schedule run's footprints read it (src/sim/choices.ts). A plain counter, so the
   * default run pays one increment per access.
   */
  shared = 0;
  /**
   * @internal A schedule run's record of the kernel objects the current event touched (channels: odd ids,
   * processes' waits: even ids; src/sim/choices.ts), or undefined: a run without a schedule keeps none.
   */
  touchedObjects: number[] | undefined = undefined;
  /** @internal As touchedObjects, the shared objects the current event only read (readObject). */
  readObjects: number[] | undefined = undefined;
  private nextChanObjectId = 1;
  private nextSharedObjectId = SHARED_OBJECT_ID_FIRST;
  /**
   * @internal Set by an idle round that only read (noteIdleReads): its read domain, -1 if none, -2 if
   * the event is no reader (rounds of two domains, or a round whose hook may write anything).
   */
  readerDomain = -1;
  /** @internal The parts of that domain it read. */
  readerMask = 0;
  /**
   * @internal Set by an idle round whose hook still moved something (noteIdleHookWrites): the parts the
   * hook writes, -1 if none, -2 if they are not known (noteIdleHookUnknown). Its reads are readerMask's.
   */
  hookWrites = -1;
  /** @internal Parts outside every read mask (WRITES_ALL) that the current event read (noteReads). */
  eventReads = 0;
  /** @internal What the current event reads, if it said (readsOnly); -1: its target's read mask. */
  eventReadMask = -1;
  /** The schedule this run follows (src/sim/choices.ts); undefined: the default order, the kernel's loops. */
  private choices: ChoiceRun | undefined = undefined;

  constructor(
    readonly seed: number,
    o: SimOptions = {},
  ) {
    this.rng = Rng.fromSeed(seed);
    this.fx = this.rng.draws;
    this.elide = o.elide === true;
    this.tieSeed = this.rng.fork('kernel/tie').uint32();
    this.parked = new ParkedLoops(this);
  }

  // -- ties --

  /** @internal The tie of process `p`'s wake-up at `timeMs`. */
  processTie(p: Process, timeMs: number): number {
    return tieAt(p.tieKey, timeMs);
  }

  // -- effects and clean events --

  /** Something observable happened (a fact was published, say): the current event is not idle. */
  noteEffect(): void {
    this.fx.n++;
  }

  /** The current event read or wrote an object that nodes share (API server, SAN, facts). */
  noteShared(): void {
    this.shared++;
  }

  /**
   * The current event is an idle round (declared so) that read only these parts of `domain`: it commutes
   * with every event that writes none of them (src/sim/choices.ts).
   */
  noteIdleReads(domain: number, mask: number): void {
    // One event may judge several rounds idle (syncLoop's select takes a second tick in the same step):
    // it read what all of them read, and reads one domain or is no reader.
    this.readerDomain = this.readerDomain === -1 || this.readerDomain === domain ? domain : -2;
    this.readerMask |= mask;
  }

  /**
   * The current event is an idle round (declared so) whose hook still moved the parts in `writes` (the
   * PLEG's relist moves its cache's timestamp): it writes only those and reads only `reads` of its
   * node (src/sim/choices.ts).
   */
  noteIdleHookWrites(reads: number, writes: number): void {
    this.readerMask |= reads;
    if (this.hookWrites !== -2) this.hookWrites = Math.max(this.hookWrites, 0) | writes;
  }

  /**
   * The current event judged an idle round whose hook may move anything its process may write: not a
   * reader, whatever else it judged (src/sim/choices.ts).
   */
  noteIdleHookUnknown(): void {
    this.readerDomain = -2;
    this.hookWrites = -2;
  }

  /**
   * The current event read parts that no read mask holds (outside WRITES_ALL: a process reads them only
   * where it says so, here), for its footprint (src/sim/choices.ts).
   */
  noteReads(mask: number): void {
    this.eventReads |= mask;
  }

  /**
   * Runs follow `choices`'s schedule and record their choice points. With elision, every round of an
   * instant where a real event is due runs for real, so any order of that instant can be picked
   * (src/sim/choices.ts).
   */
  setChoices(choices: ChoiceRun): void {
    this.choices = choices;
    this.fx.chooser = choices.attach(this, this.queue);
    // A stream's object id: negative, apart from processes' (even) and channels' (odd, positive).
    this.fx.unkeyed = (streamNo) => this.touchObject(-1 - streamNo);
  }

  /** @internal A schedule run's loop starts an event as runElided does (its footprint is judged after). */
  beginEvent(target: { readonly writeMask?: number; readonly footprintWriteMask?: number }): void {
    this.eventFx = this.fx.n;
    this.cleanFx = -1;
    this.eventPure = false;
    this.eventWrites = target.writeMask ?? WRITES_ALL;
    this.eventFootprintWrites = target.footprintWriteMask ?? -1;
    this.readerDomain = -1;
    this.readerMask = 0;
    this.hookWrites = -1;
    this.eventReads = 0;
    this.eventReadMask = -1;
  }

  /**
   * @internal A schedule run's loop ends an event as runElided does: if it changed something, the parked
   * loops that can see it poll again at their next round.
   */
  endEvent(target: { readonly domain?: number | undefined }): void {
    const parked = this.parked;
    if (parked.count > 0 && this.cleanFx !== this.fx.n && this.eventWrites !== 0)
      parked.unpark(target.domain ?? 0, this.eventWrites);
  }

  /** @internal The current event has had no effect since it was declared clean. */
  eventClean(): boolean {
    return this.cleanFx === this.fx.n;
  }

  /**
   * @internal What the current event may have changed, for its footprint (src/sim/choices.ts): its
   * target's write mask (or footprint write mask), plus touch.
   */
  get eventWritesMask(): number {
    return this.eventFootprintWrites >= 0 ? this.eventFootprintWrites : this.eventWrites;
  }

  /** The current event also changed these parts of its node's state (src/sim/masks.ts). */
  touch(mask: number): void {
    this.eventWrites |= mask;
    if (this.eventFootprintWrites >= 0) this.eventFootprintWrites |= mask;
  }

  /**
   * The current event changed these parts, which its target's write mask already names for elision:
   * only its footprint, where narrower (Process.footprintWriteMask), learns of it.
   */
  touchFootprint(mask: number): void {
    if (this.eventFootprintWrites >= 0) this.eventFootprintWrites |= mask;
  }

  /**
   * The current event changes only the parts in `mask` (`touch` still adds to them), not everything its
   * target may change. For an event whose kind is known only when it runs (a scenario timeline entry):
   * call it first, before the event changes anything.
   */
  writesOnly(mask: number): void {
    this.eventWrites = mask;
    this.eventFootprintWrites = -1;
  }

  /**
   * The current event reads only the parts in `mask` of its node's state (a callback reads everything
   * unless it says so): for schedule footprints (src/sim/choices.ts).
   */
  readsOnly(mask: number): void {
    this.eventReadMask = mask;
  }

  /** A time-dependent decision of the current loop round changes at `timeMs` (a back-off ends, say). */
  noteDeadline(timeMs: number): void {
    // A flip at or before now is already seen by the round; only a future one limits its idleness.
    if (timeMs > this.nowMs && timeMs < this.deadlineMs) this.deadlineMs = timeMs;
  }

  /**
   * @internal The current event touched kernel object `id` (a channel's buffer or queues, or a process's
   * wait): two events that touch one may not commute, whatever their masks say (src/sim/choices.ts).
   */
  touchObject(id: number): void {
    this.touchedObjects?.push(id);
  }

  /**
   * A fresh id for one object that nodes share (an API server resource: the pods, one node's Lease, ...):
   * an event that reads or writes it touches it (touchObject), and two events that touched one do not
   * commute, while two that touched different ones may (src/sim/choices.ts). Negative, below every
   * stream's id (-1 - its number), apart from channels' (odd) and processes' waits (even).
   */
  newSharedObjectId(): number {
    return this.nextSharedObjectId--;
  }

  /**
   * The current event read shared object `id` (Sim.newSharedObjectId) and may not have changed it: it
   * commutes with another event that only read it, not with one that touched it (touchObject).
   */
  readObject(id: number): void {
    this.readObjects?.push(id);
  }

  /** @internal A fresh channel's object id (odd: process ids are even, processObjectId). */
  newChanObjectId(): number {
    const id = this.nextChanObjectId;
    this.nextChanObjectId += 2;
    return id;
  }

  /** @internal The current event changed nothing another part of the world can see. */
  declareClean(): void {
    this.cleanFx = this.fx.n;
  }

  /**
   * @internal True (and the event declared clean) if the current event is a loop's round or a tick's
   * handling that has had no effect and changed nothing so far (see taint).
   */
  declareIdle(): boolean {
    if (!this.eventPure || this.fx.n !== this.eventFx) return false;
    this.cleanFx = this.fx.n;
    return true;
  }

  /** @internal Something in the current event was not idle: it cannot be declared clean any more. */
  taint(): void {
    this.eventPure = false;
    this.cleanFx = -1;
  }

  // -- scheduling --

  /**
   * A plain callback at `timeMs`; same-instant callbacks are ordered by the seeded tie-break. `domain`:
   * the node whose state alone it changes (src/sim/elision.ts); 0 (the default) for anywhere.
   */
  at(timeMs: number, fn: () => void, domain = 0, writeMask = WRITES_ALL): void {
    if (!(Number.isInteger(timeMs) && timeMs >= this.nowMs))
      throw new AssertionError(`schedule in the past: ${timeMs} < ${this.nowMs}`);
    this.fx.n++;
    this.shared++;
    const id = this.nextCallbackId++;
    const cb = new Callback(fn, domain, writeMask);
    this.queue.push(timeMs, tieOf(this.tieSeed ^ CALLBACK_SALT, id, timeMs), cb, 0);
  }

  after(delayMs: number, fn: () => void, domain = 0, writeMask = WRITES_ALL): void {
    this.at(this.nowMs + delayMs, fn, domain, writeMask);
  }

  /** A callback that runs before every seeded event of its instant, in call order (scenario timelines). */
  atOrdered(timeMs: number, fn: () => void): void {
    if (!(Number.isInteger(timeMs) && timeMs >= this.nowMs))
      throw new AssertionError(`schedule in the past: ${timeMs} < ${this.nowMs}`);
    this.fx.n++;
    this.shared++;
    this.queue.push(timeMs, -1, new Callback(fn, 0, WRITES_ALL), 0);
  }

  /** @internal Takes the pending wake-up of blocked process `p` out of the queue. */
  unschedule(p: Process): void {
    this.queue.remove(p, p.gen);
  }

  /** @internal Schedules process `p` (generation `gen`) at `timeMs` with its tie for that instant. */
  pushProcess(p: Process, timeMs: number, gen: number): void {
    this.queue.push(timeMs, tieAt(p.tieKey, timeMs), p, gen);
  }

  // -- processes --

  /**
   * Starts a goroutine; it first runs at the current instant, ordered by the seeded tie-break. Its elision
   * domain is its group's, else `domain`, else its spawner's (src/sim/elision.ts).
   */
  spawn(name: string, body: Co<unknown>, group?: ProcessGroup, domain?: number): Process {
    if (!(group === undefined || group.alive))
      throw new AssertionError(`spawn ${name} into dead group ${group?.name}`);
    const d = group !== undefined ? group.domain : (domain ?? this.current?.domain ?? 0);
    const id = this.nextProcessId++;
    this.shared++;
    const p = new Process(this, name, body, group, id, d, tieKeyOf(this.tieSeed ^ PROCESS_SALT, id));
    const incarnation = this.spawnedByName.get(name) ?? 0;
    this.spawnedByName.set(name, incarnation + 1);
    p.drawKey = (hashText(name) ^ Math.imul(incarnation + 1, 0x27d4eb2f)) >>> 0;
    group?.members.add(p);
    p.state = 'blocked';
    this.fx.n++;
    this.pushProcess(p, this.nowMs, p.gen);
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
    // Whether a waiter is live is the state of its process's wait, which a wake-up changes.
    this.touchedObjects?.push(processObjectId(w.proc));
    return w.proc.state === 'blocked' && w.proc.gen === w.gen;
  }

  /** @internal Hands `value` to a blocked waiter and schedules it at the current instant. */
  wake(w: Waiter, value: unknown): void {
    if (this.isLive(w)) this.wakeLive(w, value);
  }

  /** @internal wake, for a waiter known to be live (just taken from a channel's queue). */
  wakeLive(w: Waiter, value: unknown, quiet = false): void {
    const p = w.proc;
    this.touchedObjects?.push(processObjectId(p));
    p.pureWake = quiet;
    if (p.parkedAt >= 0) this.parked.remove(p); // a loop parked in a select got a message
    p.gen++;
    p.resumeValue = w.caseIndex < 0 ? value : { index: w.caseIndex, value };
    this.fx.n++;
    this.pushProcess(p, this.nowMs, p.gen);
  }

  /** @internal Runs a process until it blocks or finishes. */
  step(p: Process): void {
    if (p.state !== 'blocked') throw new AssertionError(`step of ${p.name} in state ${p.state}`);
    if (p.parkedAt >= 0) this.parked.remove(p);
    p.state = 'ready';
    this.eventPure = p.pureWake;
    let input = p.resumeValue;
    p.resumeValue = undefined;
    // Steps never nest (wake-ups are scheduled, not run inline), so no save/restore of `current` is needed;
    // an exception ends the whole run.
    this.current = p;
    this.fx.owner = p;
    this.stepOps = 0;
    for (;;) {
      this.countOp();
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
    this.fx.owner = undefined;
  }

  /** @internal One more effect in the current step: a coroutine that never blocks is a livelock. */
  countOp(): void {
    if (++this.stepOps > STEP_OPS_MAX)
      throw new AssertionError(`process ${this.current?.name} ran ${STEP_OPS_MAX} effects without blocking`);
  }

  /** Applies one effect; returns the value to resume with at once, or BLOCKED. */
  private perform(p: Process, e: Effect): unknown {
    switch (e.op) {
      case OP_SLEEP:
        this.block(p, undefined);
        this.pushProcess(p, this.nowMs + e.ms, p.gen);
        return BLOCKED;
      // A channel operation reaches the kernel only when it must wait: its iterator (src/sim/chan.ts RecvOp,
      // SendOp) already polled or offered in this step and found the channel not ready.
      case OP_RECV:
        this.block(p, undefined);
        (e.ch as Chan<unknown>).enqueueRecv(plainWaiter(p, undefined));
        return BLOCKED;
      case OP_SEND:
        this.block(p, undefined);
        (e.ch as Chan<unknown>).enqueueSend(plainWaiter(p, e.value));
        return BLOCKED;
      case OP_SELECT:
        return this.performSelect(p, e.cases as readonly SelectCase[], e.timeoutMs);
      case OP_PARK:
        this.block(p, undefined);
        return BLOCKED;
      case OP_LOOP: {
        const loop = e.loop as LoopRef;
        const cases = e.cases;
        if (cases === undefined) this.block(p, undefined);
        else {
          const r = this.selectReady(p, cases);
          if (r !== undefined) return r;
          this.blockOnCases(p, cases);
        }
        if (loop.park) this.parked.parkLoop(p, this.nowMs + e.ms, loop);
        else this.pushProcess(p, this.nowMs + e.ms, p.gen);
        return BLOCKED;
      }
      default:
        throw new AssertionError(`unknown effect ${e.op}`);
    }
  }

  private performSelect(p: Process, cases: readonly SelectCase[], timeoutMs: number): unknown {
    const r = this.selectReady(p, cases);
    if (r !== undefined) return r;
    if (timeoutMs === DEFAULT_CASE) return { index: SELECT_DEFAULT, value: undefined };
    this.blockOnCases(p, cases);
    if (timeoutMs !== NO_TIMEOUT) this.pushProcess(p, this.nowMs + timeoutMs, p.gen);
    return BLOCKED;
  }

  /** The first ready case from a seeded start (Go picks uniformly among the ready ones), or undefined. */
  private selectReady(p: Process, cases: readonly SelectCase[]): SelectResult | undefined {
    const n = cases.length;
    const start = n > 1 ? tieOf(this.tieSeed ^ SELECT_SALT, p.id, this.nowMs) % n : 0;
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
    return undefined;
  }

  /** Blocks `p` on every case; it resumes with the timeout result unless a case fires first. */
  private blockOnCases(p: Process, cases: readonly SelectCase[]): void {
    this.block(p, { index: SELECT_TIMEOUT, value: undefined });
    for (let i = 0; i < cases.length; i++) {
      const c = cases[i] as SelectCase;
      if ('recv' in c) c.recv.enqueueRecv({ proc: p, gen: p.gen, caseIndex: i, value: undefined });
      else c.send.enqueueSend({ proc: p, gen: p.gen, caseIndex: i, value: c.value });
    }
  }

  private block(p: Process, timeoutValue: unknown): void {
    p.state = 'blocked';
    p.gen++;
    p.resumeValue = timeoutValue;
    p.pureWake = true; // a timed wake-up; a wake by a message says otherwise (wakeLive)
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
    let reason: StopReason;
    try {
      if (this.choices !== undefined) reason = this.choices.run(this, this.queue, bounds);
      else reason = this.elide ? this.runElided(bounds) : this.runPlain(bounds);
      if (reason === 'idle' && this.stopRequested) reason = 'stopped';
      if (reason === 'horizon') this.nowMs = bounds.horizonMs;
    } finally {
      this.running = false;
    }
    return { reason, events: this.events, nowMs: this.nowMs };
  }

  /** Every event fires: the loop that elision's own one reduces to when nothing is parked. */
  private runPlain(bounds: RunBounds): StopReason {
    const queue = this.queue;
    const horizonMs = bounds.horizonMs;
    const maxEvents = bounds.maxEvents;
    for (;;) {
      const timeMs = queue.nextTimeMs();
      if (timeMs === Number.POSITIVE_INFINITY) return 'idle';
      if (this.stopRequested) return 'stopped';
      if (timeMs > horizonMs) return 'horizon';
      if (this.events >= maxEvents) return 'max-events';
      const target = queue.pop();
      if (timeMs < this.nowMs) throw new AssertionError('time went backwards');
      this.nowMs = timeMs;
      this.events++;
      target.fire(queue.poppedArg);
    }
  }

  private runElided(bounds: RunBounds): StopReason {
    const queue = this.queue;
    const parked = this.parked;
    for (;;) {
      // A parked loop's round at its deadline is real: it joins the queue before the events after it.
      let timeMs = queue.nextTimeMs();
      if (parked.count > 0 && parked.minDueMs !== Number.POSITIVE_INFINITY && parked.minDueMs <= timeMs) {
        const tie = timeMs === Number.POSITIVE_INFINITY ? 0 : queue.peekTie();
        if (parked.mayBeDue(timeMs, tie)) parked.materialiseDue(timeMs, tie);
        timeMs = queue.nextTimeMs();
      }
      // Only parked loops left: in the plain run they would poll, idle, until the horizon.
      if (timeMs === Number.POSITIVE_INFINITY) return parked.count > 0 ? 'horizon' : 'idle';
      if (this.stopRequested) return 'stopped';
      if (timeMs > bounds.horizonMs) return 'horizon';
      if (this.events >= bounds.maxEvents) return 'max-events';
      // The idle rounds that the plain run would fire before this event are skipped here.
      if (parked.count > 0) parked.advance(timeMs, queue.peekTie());
      const target = queue.pop();
      if (timeMs < this.nowMs) throw new AssertionError('time went backwards');
      this.nowMs = timeMs;
      this.events++;
      this.eventFx = this.fx.n;
      this.cleanFx = -1;
      this.eventPure = false;
      this.eventWrites = target.writeMask ?? WRITES_ALL;
      target.fire(queue.poppedArg);
      // Something changed: the parked loops that can see it poll again at their next round.
      if (parked.count > 0 && this.cleanFx !== this.fx.n && this.eventWrites !== 0)
        parked.unpark(target.domain ?? 0, this.eventWrites);
    }
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

export { Chan, Context, Process, ProcessGroup };
