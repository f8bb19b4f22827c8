// Same-instant ties as choice points (podrace explore, `run --schedule`). The default run pops events in
// (time, tie, seq) order. A choice point is a pop at which more than one event that would do something is
// due at the current instant; a schedule is a list of deviations "at choice point n, pick the i-th of the
// ready events in default order instead of the 0th". A run given a schedule goes through this loop
// instead of the kernel's own (src/sim/sim.ts): a run without one never comes here, so it is the very
// same run as before and its hot loop pays nothing for it.
//
// The loop also records each event's footprint (what it read and wrote, below), from which the explorer
// decides which reorderings can change anything (src/explore/). With elision on, an idle round is skipped
// where the default order would pop it, so a reordered instant could skip a round that is no longer idle:
// at each instant where a real event is due, every parked round of that instant is made real first
// (ParkedLoops.wakeInstant), and the instant's events are the plain run's. Rounds alone at their instant
// stay virtual: idle rounds only read, so any order of them is the same run.
import { AssertionError } from './assert.js';
import { LatencyChoices, type LatencyDeviation } from './latencyChoices.js';
import { WRITES_ALL, WRITES_TICK } from './masks.js';
import { Process, processObjectId } from './process.js';
import type { EventQueue, InstantEntries, Target } from './queue.js';
import type { RunBounds, Sim, StopReason } from './sim.js';

/** At the `point`-th choice point of the run (0-based), pop the `pick`-th ready event (0 = default). */
export interface Deviation {
  readonly point: number;
  readonly pick: number;
}

/** A deviation from the default order (an ordering pick) or from a drawn latency (src/sim/latencyChoices.ts). */
export type Step = Deviation | LatencyDeviation;

/**
 * Deviations, each kind in increasing order of its choice points (the explorer lists them in the order
 * the run meets them); empty: the default order and the drawn latencies.
 */
export type Schedule = readonly Step[];

export function isLatencyDeviation(d: Step): d is LatencyDeviation {
  return 'latencyPoint' in d;
}

/** Footprint kinds: a stale wake-up (does nothing), an idle round (reads only), anything else; and FP_HOOKED. */
export const FP_STALE = 0;
export const FP_READER = 1;
export const FP_WRITER = 2;
/**
 * An idle round whose hook still moved its declared parts (IdleLoop and Ticker `hookWrites`: the PLEG's
 * cache timestamp, the runtime cache's time): a writer of just those, reading its loop's read mask.
 */
export const FP_HOOKED = 3;

/**
 * What one scheduled run did, for the explorer: per event its footprint, per choice point the ready
 * events (their sequence numbers in default order) and the one picked.
 */
export class ChoiceLog {
  readonly seq: number[] = [];
  readonly kind: number[] = [];
  /** A reader's read domain; a writer's domain (0: anywhere). */
  readonly domain: number[] = [];
  /** A reader's read mask; a writer's write mask (src/sim/masks.ts). */
  readonly mask: number[] = [];
  /** A writer's read mask (its process's Process.readMask; everything for a callback); else 0. */
  readonly reads: number[] = [];
  /** 1 if it touched an object shared between nodes (API server, SAN, facts, kernel ids, spawn order). */
  readonly shared: number[] = [];
  /** 1 if it pushed an event due at its own instant (it cannot be moved without moving that one). */
  readonly nowPush: number[] = [];
  readonly timeMs: number[] = [];
  /** Its same-instant tie (src/sim/ties.ts): a function of its owner and instant, not of the order. */
  readonly tie: number[] = [];
  /** The index of the event that pushed it during its own instant, or -1: it was due before the instant. */
  readonly pusher: number[] = [];
  /**
   * The kernel objects it touched (src/sim/sim.ts touchObject: channels, processes' waits), sorted, as
   * touches[touchStart[j] .. touchStart[j + 1]) (touchStart has one entry more than there are events).
   */
  readonly touches: number[] = [];
  readonly touchStart: number[] = [0];
  /**
   * The shared objects it only read (Sim.readObject: an API server resource it got or listed), sorted,
   * as readTouches[readStart[j] .. readStart[j + 1]): a read meets another event's touch of the object,
   * not another read.
   */
  readonly readTouches: number[] = [];
  readonly readStart: number[] = [0];
  /** The kernel object id of its process (processObjectId), or -1: a callback. */
  readonly owner: number[] = [];
  /** The queue's next sequence number when it started: events it pushed have numbers from there on. */
  readonly startSeq: number[] = [];
  /** Per choice point: the index (into the per-event arrays) of the event popped there. */
  readonly pointEvent: number[] = [];
  /**
   * The ready events' sequence numbers of every choice point, in default order, one after the other:
   * point c's are readySeqs[readyStart[c] .. readyStart[c + 1]) (flat, so a run allocates no array per
   * choice point).
   */
  readonly readySeqs: number[] = [];
  readonly readyStart: number[] = [0];
  readonly pointPick: number[] = [];

  get points(): number {
    return this.pointEvent.length;
  }

  /** How many events were ready at choice point `c`. */
  readyCount(c: number): number {
    return (this.readyStart[c + 1] as number) - (this.readyStart[c] as number);
  }

  /** The sequence number of the `i`-th ready event (default order) at choice point `c`. */
  readySeq(c: number, i: number): number {
    return this.readySeqs[(this.readyStart[c] as number) + i] as number;
  }
}

/** A schedule that does not fit the run: which deviation, and why. */
export interface Misfit {
  /** The index of the deviation in the schedule. */
  readonly position: number;
  readonly reason: string;
}

/** Drives one run through a schedule, and records its choice points and footprints. */
export class ChoiceRun {
  /** Choice points met so far. */
  points = 0;
  misfit: Misfit | undefined = undefined;
  readonly log: ChoiceLog = new ChoiceLog();
  /** The run's latency choice points (made when the run is attached to its Sim). */
  latency: LatencyChoices | undefined = undefined;
  private started = false;
  /** Events run so far (the choice log's length when recording). */
  private events = 0;
  private nextDeviation = 0;
  private readonly order: { readonly d: Deviation; readonly position: number }[] = [];
  private readonly latencySteps: { readonly d: LatencyDeviation; readonly position: number }[] = [];
  private readonly entries: InstantEntries = { tie: [], seq: [], arg: [], target: [], stack: [] };
  private readonly ready: number[] = [];
  private readonly touchBuf: number[] = [];
  private readonly readBuf: number[] = [];

  constructor(
    readonly schedule: Schedule,
    /** Record every latency point's candidate values (explore --latencies). */
    private readonly collectLatencies = false,
    /**
     * Record the choice log (footprints, ready events). Off for a run whose log nobody reads (explore's
     * runs of schedules it does not expand: a parent is run again when its children are due): the run
     * follows its schedule the same, and records nothing but its misfit.
     */
    private readonly recordLog = true,
  ) {
    for (let position = 0; position < schedule.length; position++) {
      const d = schedule[position] as Step;
      if (isLatencyDeviation(d)) {
        const prev = this.latencySteps[this.latencySteps.length - 1];
        if (prev !== undefined && d.latencyPoint <= prev.d.latencyPoint)
          throw new AssertionError('latency deviations must be in increasing order of latency point');
        this.latencySteps.push({ d, position });
      } else {
        const prev = this.order[this.order.length - 1];
        if (prev !== undefined && d.point <= prev.d.point)
          throw new AssertionError('schedule deviations must be in increasing order of choice point');
        this.order.push({ d, position });
      }
    }
  }

  /** @internal Sim.setChoices: the latency draws of the run go through this schedule from now on. */
  attach(sim: Sim, queue: EventQueue): LatencyChoices {
    const latency = new LatencyChoices(
      this.latencySteps,
      {
        nowMs: () => sim.nowMs,
        // A draw made while the world is set up, before the first event, comes before choice point 0.
        eventIndex: () => (this.started ? this.events : -1),
        queue,
        live: (t, arg) => !isStale(t, arg),
        misfit: (position, reason) => {
          this.misfit ??= { position, reason };
          sim.stop();
        },
      },
      this.collectLatencies,
    );
    this.latency = latency;
    return latency;
  }

  /** @internal Sim.run's loop when a schedule is given (with elision as runElided, but whole instants). */
  run(sim: Sim, queue: EventQueue, bounds: RunBounds): StopReason {
    this.started = true;
    const log = this.log;
    const e = this.entries;
    let lastTime = -1;
    let lastSeq0 = 0;
    let instantStart = 0;
    const parked = sim.parked;
    for (;;) {
      let timeMs = queue.nextTimeMs();
      if (parked.count > 0 && timeMs !== lastTime) {
        // As runElided: a parked loop's round at its deadline before the next event is real.
        while (parked.count > 0 && parked.minDueMs < timeMs) {
          parked.materialiseDue(timeMs, Number.NEGATIVE_INFINITY);
          timeMs = queue.nextTimeMs();
        }
        // Every parked round of the instant runs for real (ParkedLoops.wakeInstant says why).
        if (timeMs <= bounds.horizonMs && timeMs !== Number.POSITIVE_INFINITY) parked.wakeInstant(timeMs);
      }
      if (timeMs === Number.POSITIVE_INFINITY) return this.end(parked.count > 0 ? 'horizon' : 'idle');
      if (sim.stopRequested) return 'stopped';
      if (timeMs > bounds.horizonMs) return this.end('horizon');
      if (sim.events >= bounds.maxEvents) return this.end('max-events');
      const n = queue.collectAt(timeMs, e);
      const record = this.recordLog;
      // An event that pushed one due at its own instant: entries at this instant newer than its start.
      if (record && timeMs === lastTime && log.seq.length > 0) {
        for (let j = 0; j < n; j++) if ((e.seq[j] as number) >= lastSeq0) log.nowPush[log.seq.length - 1] = 1;
      }
      if (timeMs !== lastTime) instantStart = log.seq.length;
      lastTime = timeMs;
      let chosen = 0;
      const first = e.target[0] as Target;
      if (!isStale(first, e.arg[0] as number)) {
        const ready = this.readyOf(n);
        if (ready.length > 1) {
          const pick = this.pickAt(ready.length);
          if (this.misfit !== undefined) {
            sim.stop();
            return 'stopped';
          }
          chosen = ready[pick] as number;
          if (record) {
            log.pointEvent.push(log.seq.length);
            for (const j of ready) log.readySeqs.push(e.seq[j] as number);
            log.readyStart.push(log.readySeqs.length);
            log.pointPick.push(pick);
          }
        }
      }
      const seq = e.seq[chosen] as number;
      if (record) {
        log.tie.push(e.tie[chosen] as number);
        log.pusher.push(pusherOf(log, instantStart, seq));
      }
      const target = chosen === 0 ? queue.pop() : queue.popSeq(seq);
      const arg = queue.poppedArg;
      lastSeq0 = queue.nextSeqNumber;
      sim.nowMs = timeMs;
      sim.events++;
      if (!record) {
        sim.beginEvent(target);
        target.fire(arg);
        sim.endEvent(target);
        this.events++;
        continue;
      }
      const stale = isStale(target, arg);
      log.startSeq.push(lastSeq0);
      const shared0 = sim.shared;
      sim.beginEvent(target);
      const touched = this.touchBuf;
      touched.length = 0;
      // A process's own step ends (or goes on with) its wait.
      const owner = target instanceof Process ? processObjectId(target) : -1;
      if (owner >= 0) touched.push(owner);
      const read = this.readBuf;
      read.length = 0;
      sim.touchedObjects = touched;
      sim.readObjects = read;
      target.fire(arg);
      sim.touchedObjects = undefined;
      sim.readObjects = undefined;
      sim.endEvent(target);
      recordSorted(log.touches, log.touchStart, touched);
      recordSorted(log.readTouches, log.readStart, read);
      log.seq.push(seq);
      this.events++;
      log.owner.push(owner);
      log.timeMs.push(timeMs);
      log.nowPush.push(0);
      const shared = sim.shared !== shared0 ? 1 : 0;
      if (stale) this.record(FP_STALE, 0, 0, 0, 0);
      else if (sim.hookWrites >= 0 && sim.readerDomain !== -2 && sim.eventClean() && shared === 0)
        this.record(FP_HOOKED, target.domain ?? 0, sim.hookWrites, 0, sim.readerMask | sim.eventReads);
      else if (sim.readerDomain >= 0 && sim.hookWrites === -1 && sim.eventClean() && shared === 0)
        this.record(FP_READER, sim.readerDomain, sim.readerMask | sim.eventReads, 0, 0);
      else
        this.record(
          FP_WRITER,
          target.domain ?? 0,
          sim.eventWritesMask,
          shared,
          (sim.eventReadMask >= 0
            ? sim.eventReadMask
            : target instanceof Process
              ? target.readMask
              : WRITES_ALL) | sim.eventReads,
        );
    }
  }

  private record(kind: number, domain: number, mask: number, shared: number, reads: number): void {
    this.log.kind.push(kind);
    this.log.domain.push(domain);
    this.log.mask.push(mask);
    this.log.shared.push(shared);
    this.log.reads.push(reads);
  }

  /**
   * The entries that can go first: every one that does something (a stale wake-up is a no-op wherever it
   * runs), except that a scenario's timeline entries (tie -1) keep their file order among themselves.
   */
  private readyOf(n: number): number[] {
    const e = this.entries;
    const ready = this.ready;
    ready.length = 0;
    let ordered = false;
    for (let j = 0; j < n; j++) {
      if ((e.tie[j] as number) < 0) {
        if (ordered) continue;
        ordered = true;
      }
      if (!isStale(e.target[j] as Target, e.arg[j] as number)) ready.push(j);
    }
    return ready;
  }

  /** The pick at the current choice point: the schedule's, else 0. */
  private pickAt(readyCount: number): number {
    const point = this.points++;
    const step = this.order[this.nextDeviation];
    if (step === undefined || step.d.point !== point) return 0;
    this.nextDeviation++;
    if (step.d.pick >= readyCount) {
      this.misfit = {
        position: step.position,
        reason: `choice point ${point} has ${readyCount} ready events (picks 0..${readyCount - 1}), not ${step.d.pick}`,
      };
      return 0;
    }
    return step.d.pick;
  }

  /** A run that ended before some deviation's choice point: the schedule does not fit. */
  private end(reason: StopReason): StopReason {
    const step = this.order[this.nextDeviation];
    const orderMisfit =
      step === undefined
        ? undefined
        : {
            position: step.position,
            reason: `choice point ${step.d.point} is never reached (the run has ${this.points} choice points)`,
          };
    const latencyMisfit = this.latency?.unreached();
    // The earlier of the two in the schedule is the first that does not fit.
    const first =
      orderMisfit === undefined
        ? latencyMisfit
        : latencyMisfit === undefined || orderMisfit.position < latencyMisfit.position
          ? orderMisfit
          : latencyMisfit;
    if (first !== undefined && this.misfit === undefined) this.misfit = first;
    return reason;
  }
}

/** The event of this instant (from log index `instantStart` on) during which entry `seq` was pushed, or -1. */
function pusherOf(log: ChoiceLog, instantStart: number, seq: number): number {
  const starts = log.startSeq;
  let lo = instantStart;
  let hi = starts.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if ((starts[mid] as number) <= seq) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** Appends an event's touched objects to the log, sorted and without repeats (an insertion sort: few). */
function recordSorted(t: number[], starts: number[], touched: readonly number[]): void {
  const start = t.length;
  for (const id of touched) {
    let k = t.length;
    while (k > start && (t[k - 1] as number) > id) k--;
    if (k > start && t[k - 1] === id) continue;
    t.push(id);
    for (let m = t.length - 1; m > k; m--) t[m] = t[m - 1] as number;
    t[k] = id;
  }
  starts.push(t.length);
}

/**
 * Whether events `a` and `b` touched a kernel or shared object in common, or one only read an object the
 * other touched.
 */
function touchesMeet(log: ChoiceLog, a: number, b: number): boolean {
  const t = log.touches;
  const ts = log.touchStart;
  const r = log.readTouches;
  const rs = log.readStart;
  return meet(t, ts, a, t, ts, b) || meet(t, ts, a, r, rs, b) || meet(r, rs, a, t, ts, b);
}

/** Whether two events' sorted lists share an id (a merge). */
function meet(
  ta: readonly number[],
  sa: readonly number[],
  a: number,
  tb: readonly number[],
  sb: readonly number[],
  b: number,
): boolean {
  let i = sa[a] as number;
  const iEnd = sa[a + 1] as number;
  let j = sb[b] as number;
  const jEnd = sb[b + 1] as number;
  while (i < iEnd && j < jEnd) {
    const x = ta[i] as number;
    const y = tb[j] as number;
    if (x === y) return true;
    if (x < y) i++;
    else j++;
  }
  return false;
}

/** A ticker's fire: it wrote only its channel (and woke its consumer if that waited on it). */
export function isTickFire(log: ChoiceLog, j: number): boolean {
  return log.kind[j] === FP_WRITER && log.mask[j] === WRITES_TICK;
}

function isStale(t: Target, arg: number): boolean {
  return t instanceof Process && (arg !== t.gen || t.state !== 'blocked');
}

/**
 * Whether events `a` and `b` of a log may not commute: run in either order, they could leave a different
 * state, or one could wake or disable what the other does. Stale wake-ups do nothing. Two events that
 * touched one kernel object (a channel, a process's wait: who wakes a select decides its case) may not
 * commute. A ticker's fire changes nothing else (its channel, and its consumer's wait if it woke it), so it
 * commutes with every event that touched neither. Otherwise: two idle rounds only read; an idle round
 * depends on a writer only if the writer changes a part of the state it reads (the rule elision already
 * relies on: a loop sees only its domain's parts in its read mask, src/sim/elision.ts); two writers commute
 * only if they are of different nodes (neither anywhere, domain 0) and not both touched an object shared
 * between nodes.
 */
export function dependent(log: ChoiceLog, a: number, b: number): boolean {
  const ka = log.kind[a] as number;
  const kb = log.kind[b] as number;
  if (ka === FP_STALE || kb === FP_STALE) return false;
  const meet = touchesMeet(log, a, b);
  if (isTickFire(log, a) || isTickFire(log, b)) return meet;
  if (meet) return true;
  if (ka === FP_READER && kb === FP_READER) return false;
  const da = log.domain[a] as number;
  const db = log.domain[b] as number;
  const sameDomain = da === 0 || db === 0 || da === db;
  if (ka === FP_READER || kb === FP_READER) {
    const mr = ka === FP_READER ? (log.mask[a] as number) : (log.mask[b] as number);
    const mw = ka === FP_READER ? (log.mask[b] as number) : (log.mask[a] as number);
    return sameDomain && (mr & mw) !== 0;
  }
  if (log.shared[a] === 1 && log.shared[b] === 1) return true;
  if (!sameDomain) return false;
  // Two writers of one node (or one of them of every node, domain 0): either order leaves the same state
  // if neither writes a part the other reads or writes. Without a declared read set a writer reads
  // everything (Process.readMask; a callback unless it says: Sim.readsOnly).
  const wa = log.mask[a] as number;
  const wb = log.mask[b] as number;
  return ((wa & ((log.reads[b] as number) | wb)) | (wb & (log.reads[a] as number))) !== 0;
}
