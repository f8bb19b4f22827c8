// Goroutines: a process is a coroutine with a state and a generation, and a process group dies as one
// (a kubelet restart kills every goroutine of that kubelet wherever it blocks).
import type { Waiter } from './chan.js';
import type { Co } from './effects.js';
import { WRITES_ALL } from './masks.js';
import type { Target } from './queue.js';
import type { Sim } from './sim.js';

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
  /** Set while the process is an idle loop parked by elision (src/sim/elision.ts). */
  parkedAt = -1;
  /**
   * Its next resume is a sleep's end or a tick (a quiet channel): what it then does starts from nothing
   * that another event handed it, so a loop round or a tick's handling in that step can be judged idle.
   */
  pureWake = false;
  /**
   * Which parts of its node's state its events may change (src/sim/elision.ts): all unless narrowed by
   * the code that spawns it; `Sim.touch` adds parts within one event.
   */
  writeMask = WRITES_ALL;
  /**
   * Which parts of its node's state its events may read, whatever they find (src/sim/choices.ts): all
   * unless the code that spawns it says less. Two writers of one node commute when neither writes what
   * the other reads or writes; only a goroutine that reads none of its node's state says 0.
   */
  readMask = WRITES_ALL;
  /**
   * Which parts its events may change as its schedule footprint sees them (src/sim/choices.ts), where
   * that is narrower than writeMask: the parts it changes only at some points, each touched there
   * (Sim.touch). Elision keeps writeMask, so a run without a schedule wakes the loops it always woke.
   * -1: writeMask.
   */
  footprintWriteMask = -1;
  /**
   * Its seeded draws' key (src/sim/rng.ts): a hash of its name and how many processes of that name were
   * spawned before it, so it does not depend on the order of unrelated spawns.
   */
  drawKey = 0;
  /** Per stream, how many numbers it has drawn (src/sim/rng.ts DrawOwner). */
  readonly drawOrdinals: number[] = [];

  constructor(
    readonly sim: Sim,
    readonly name: string,
    readonly gen_: Co<unknown>,
    readonly group: ProcessGroup | undefined,
    /** Spawn order: names the process's tie-breaks (src/sim/ties.ts). */
    readonly id: number,
    /** Where its changes can be seen (src/sim/elision.ts): its node's number, or 0 for anywhere. */
    readonly domain: number,
    /** tieKeyOf(seed, id): its ties are tieAt(tieKey, instant) (src/sim/ties.ts). */
    readonly tieKey: number,
  ) {
    this.plainWaiter = { proc: this, gen: -1, caseIndex: -1, value: undefined };
  }

  fire(arg: number): void {
    if (arg !== this.gen || this.state !== 'blocked') {
      this.sim.declareClean(); // a stale wake-up does nothing
      return;
    }
    this.sim.step(this);
  }
}

/** Processes that die together (one kubelet's goroutines when the kubelet process is killed). */
export class ProcessGroup {
  readonly members = new Set<Process>();
  alive = true;

  constructor(
    readonly name: string,
    /**
     * The node whose state its goroutines change (1, 2, ...; src/sim/elision.ts), or 0: anywhere. A
     * kubelet's goroutines change their node's state and the API server, whose changes reach others
     * only as events of their own (watch deliveries).
     */
    readonly domain = 0,
  ) {}

  kill(): void {
    this.alive = false;
    for (const p of this.members) {
      if (p.parkedAt >= 0) p.sim.parked.remove(p);
      p.state = 'killed';
      p.sim.touchObject(processObjectId(p)); // its wait ends
      p.gen++;
      p.sim.noteEffect();
    }
    this.members.clear();
  }
}

/** The object id of process `p`'s wait (src/sim/choices.ts footprints): even, channels' are odd. */
export function processObjectId(p: Process): number {
  return 2 * p.id;
}
