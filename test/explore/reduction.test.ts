// The commutation rule of podrace explore (src/explore/children.ts mustExplore, src/sim/choices.ts
// dependent), on bundled scenarios: what it may skip gives the parent's very run, and what it must not skip
// (a wake-up stale in the parent, run first) gives another run.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WRITES_POD_CACHE_TIME } from '../../src/elisionMasks.js';
import { childrenOf, sameAsNextSibling } from '../../src/explore/children.js';
import { mustExplore } from '../../src/explore/explore.js';
import { Fixes } from '../../src/fixes.js';
import { runScenario } from '../../src/run/run.js';
import { loadScenarioFile } from '../../src/scenario/load.js';
import type { Scenario } from '../../src/scenario/types.js';
import {
  type ChoiceLog,
  dependent,
  FP_HOOKED,
  FP_READER,
  FP_STALE,
  FP_WRITER,
} from '../../src/sim/choices.js';
import { WRITES_TICK } from '../../src/sim/masks.js';
import { fullTailAfter, tailAfter } from './runTail.js';

const dir = join(import.meta.dirname, '..', '..', 'scenarios');
const load = (name: string) => loadScenarioFile(join(dir, `${name}.yaml`));
const fixes = Fixes.all();

interface Parent {
  readonly scenario: Scenario;
  readonly log: ChoiceLog;
  readonly facts: string;
  /** Every deviation of the default run: [point, pick, index of the picked event in the parent]. */
  readonly deviations: readonly (readonly [number, number, number])[];
}

function parent(name: string): Parent {
  const scenario = load(name);
  const r = runScenario(scenario, { fixes, recordFacts: true, schedule: [] });
  const log = r.choices?.log;
  if (log === undefined) throw new Error('no log');
  const index = new Map(log.seq.map((s, j) => [s, j]));
  const deviations: [number, number, number][] = [];
  for (let c = 0; c < log.points; c++) {
    for (let i = 1; i < log.readyCount(c); i++) deviations.push([c, i, index.get(log.readySeq(c, i)) ?? -1]);
  }
  return { scenario, log, facts: JSON.stringify(r.facts), deviations };
}

function skippedBy(p: Parent): (readonly [number, number, number])[] {
  const index = new Map(p.log.seq.map((s, j) => [s, j]));
  return p.deviations.filter(([c, i]) => !mustExplore(p.log, index, c, i));
}

/** The same facts, and after the deviation's instant the same events (runTail.ts). */
function sameRun(p: Parent, point: number, pick: number, tail = tailAfter): boolean {
  const r = runScenario(p.scenario, { fixes, recordFacts: true, schedule: [{ point, pick }] });
  const atMs = p.log.timeMs[p.log.pointEvent[point] as number] as number;
  const log = r.choices?.log;
  return log !== undefined && JSON.stringify(r.facts) === p.facts && tail(log, atMs) === tail(p.log, atMs);
}

/** Skipped deviations that swap an event `is` picks out with another of its node's writers or rounds. */
function swapsWith(p: Parent, is: (j: number) => boolean): (readonly [number, number, number])[] {
  const log = p.log;
  return skippedBy(p).filter(([c, , at]) => {
    if (at < 0) return false;
    for (let j = log.pointEvent[c] as number; j < at; j++)
      if ((is(j) && !is(at) && log.kind[at] !== FP_STALE) || (is(at) && !is(j) && log.kind[j] !== FP_STALE))
        return true;
    return false;
  });
}

/**
 * A footprint narrowed for the events `is` picks out (at least `events` of them): at least `swaps`
 * skipped deviations swap one with another event, and (the first 25) give the parent's run.
 */
function narrowedFootprintKeepsTheRun(
  p: Parent,
  is: (j: number) => boolean,
  events: number,
  swaps: number,
): void {
  expect(countWhere(p.log, is)).toBeGreaterThanOrEqual(events);
  const swapped = swapsWith(p, is);
  expect(swapped.length).toBeGreaterThanOrEqual(swaps);
  for (const [point, pick] of swapped.slice(0, 25))
    expect(sameRun(p, point, pick), `${point}:${pick}`).toBe(true);
}

/** How many events of `log` `is` picks out. */
function countWhere(log: ChoiceLog, is: (j: number) => boolean): number {
  let n = 0;
  for (let j = 0; j < log.seq.length; j++) if (is(j)) n++;
  return n;
}

const isTickFire = (log: ChoiceLog, j: number) => log.kind[j] === FP_WRITER && log.mask[j] === WRITES_TICK;

describe('explore: the commutation rule', () => {
  const deleted = parent('pod-deleted-before-start');

  it('an event that pushes one due at its own instant is skipped when the child only swaps commuting events, and gives the same run', () => {
    const pushing = skippedBy(deleted).filter(([, , at]) => deleted.log.nowPush[at] === 1);
    // The coarse rule explored every one of these.
    expect(pushing.length).toBeGreaterThan(20);
    for (let k = 0; k < 20; k++) {
      const [point, pick] = pushing[Math.floor((k * pushing.length) / 20)] as readonly [
        number,
        number,
        number,
      ];
      expect(sameRun(deleted, point, pick), `${point}:${pick}`).toBe(true);
    }
  });

  it("a ticker's fire commutes with the idle rounds of its node's other loops, not with its consumer's round", () => {
    const log = deleted.log;
    let commuting = 0;
    let consumers = 0;
    for (let j = 0; j < log.seq.length; j++) {
      if (!isTickFire(log, j)) continue;
      for (let k = j + 1; k < log.seq.length && log.timeMs[k] === log.timeMs[j]; k++) {
        // What the fire pushed at its instant is its consumer's wake-up: that round handles the tick.
        if (log.pusher[k] === j) {
          expect(dependent(log, j, k)).toBe(true);
          consumers++;
        } else if (log.kind[k] === FP_READER && log.domain[k] === log.domain[j] && !dependent(log, j, k))
          commuting++;
      }
    }
    expect(consumers).toBeGreaterThan(20);
    // The coarse rule: a fire never commuted with an idle round of its node.
    expect(commuting).toBeGreaterThan(25);
  });

  it("two tick fires that only race to wake an idle consumer (syncLoop's select on syncCh and housekeepingCh) are skipped, and give the same run", () => {
    const log = deleted.log;
    // Skipped deviations that move a tick fire ahead of another fire to the same consumer: the pair is
    // dependent (both touched the consumer's wait), so without the consumer rule they were explored.
    const racing = skippedBy(deleted).filter(([c, , at]) => {
      if (at < 0 || !isTickFire(log, at)) return false;
      for (let j = log.pointEvent[c] as number; j < at; j++)
        if (isTickFire(log, j) && dependent(log, j, at)) return true;
      return false;
    });
    expect(racing.length).toBeGreaterThanOrEqual(3);
    for (const [point, pick] of racing) expect(sameRun(deleted, point, pick), `${point}:${pick}`).toBe(true);
  });

  it('tick fires whose consumer took them in two idle rounds may be reordered too: one round may take both, and the run goes on the same', () => {
    const log = deleted.log;
    const split = skippedBy(deleted).filter(([c, , at]) => {
      if (at < 0 || !isTickFire(log, at)) return false;
      const from = log.pointEvent[c] as number;
      // It overtakes a fire to the same consumer.
      let overtakes = false;
      for (let j = from; j < at; j++) if (isTickFire(log, j) && dependent(log, j, at)) overtakes = true;
      if (!overtakes) return false;
      const rounds = new Map<number, number>();
      for (let j = from; j < log.seq.length && log.timeMs[j] === log.timeMs[from]; j++)
        if (log.kind[j] === FP_READER || log.kind[j] === FP_HOOKED)
          rounds.set(log.owner[j] as number, (rounds.get(log.owner[j] as number) ?? 0) + 1);
      return [...rounds.values()].some((n) => n >= 2);
    });
    expect(split.length).toBeGreaterThanOrEqual(3);
    for (const [point, pick] of split) expect(sameRun(deleted, point, pick), `${point}:${pick}`).toBe(true);
  });

  it("the first step of a ticker's goroutine (it only starts its sleep) is a fire's footprint", () => {
    const log = deleted.log;
    const firstFires = [];
    for (let j = 0; j < log.seq.length && log.timeMs[j] === 0; j++)
      if (isTickFire(log, j)) firstFires.push(j);
    // syncCh and housekeepingCh, started by syncLoop at 0 s.
    expect(firstFires.length).toBe(2);
  });

  it("an idle relist writes only the PLEG cache's timestamp, which only a pod worker's GetNewerThan reads: it commutes with the status manager", () => {
    const log = deleted.log;
    const idleRelists: number[] = [];
    for (let j = 0; j < log.seq.length; j++)
      if (log.kind[j] === FP_HOOKED && log.mask[j] === WRITES_POD_CACHE_TIME) idleRelists.push(j);
    expect(idleRelists.length).toBeGreaterThan(10);
    // A pod worker's sync reads it (Sim.noteReads in the cache), so they stay dependent.
    let readers = 0;
    for (let j = 0; j < log.seq.length; j++)
      if (((log.reads[j] as number) & WRITES_POD_CACHE_TIME) !== 0) readers++;
    expect(readers).toBeGreaterThan(0);
    // Skipped deviations that swap an idle relist and a writer that reads everything else of the node.
    const swapped = skippedBy(deleted).filter(([c, , at]) => {
      if (at < 0) return false;
      for (let j = log.pointEvent[c] as number; j < at; j++) {
        const relistMoved = idleRelists.includes(at) && log.kind[j] === FP_WRITER && !idleRelists.includes(j);
        const passedRelist = idleRelists.includes(j) && log.kind[at] === FP_WRITER;
        if ((relistMoved || passedRelist) && log.domain[j] === log.domain[at]) return true;
      }
      return false;
    });
    expect(swapped.length).toBeGreaterThanOrEqual(5);
    for (const [point, pick] of swapped.slice(0, 30))
      expect(sameRun(deleted, point, pick), `${point}:${pick}`).toBe(true);
  });

  it('at the bound, a deviation that moves E ahead of one event it commutes with is skipped: picking E one choice point later gives the same run', () => {
    const log = deleted.log;
    const index = new Map(log.seq.map((s, j) => [s, j]));
    const later = deleted.deviations.filter(
      ([c, i]) => mustExplore(log, index, c, i) && sameAsNextSibling(log, index, c, i),
    );
    expect(later.length).toBeGreaterThanOrEqual(10);
    for (const [point, pick, at] of later.slice(0, 25)) {
      const seq = log.seq[at] as number;
      let nextPick = -1;
      for (let k = 0; k < log.readyCount(point + 1); k++)
        if (log.readySeq(point + 1, k) === seq) nextPick = k;
      const run = (schedule: { point: number; pick: number }[]) =>
        JSON.stringify(runScenario(deleted.scenario, { fixes, recordFacts: true, schedule }).facts);
      expect(run([{ point, pick }]), `${point}:${pick}`).toBe(
        nextPick === 0 ? deleted.facts : run([{ point: point + 1, pick: nextPick }]),
      );
    }
    // Only at the bound: below it, the children of "E first" are not all the sibling's.
    const c = runScenario(deleted.scenario, { fixes, schedule: [] }).choices;
    if (c === undefined) throw new Error('no log');
    const below = childrenOf([], c.log, c.latency, false, true, false).steps.length;
    const atBound = childrenOf([], c.log, c.latency, false, true, true).steps.length;
    expect(below - atBound).toBe(later.length);
  });

  it("the status manager's rounds write nothing of the node but the statuses they drop: swapped with the node's writers, the run is the same", () => {
    // Its footprint: a writer of nothing (its API versions and batch time are its own) that reads pods,
    // statuses, the runtime and volumes (0xf); the kubelet's other goroutines read everything.
    const uidReuse = parent('static-pod-uid-reuse');
    const log = uidReuse.log;
    const isStatusManager = (j: number) =>
      log.kind[j] === FP_WRITER && log.mask[j] === 0 && log.reads[j] === 0xf;
    narrowedFootprintKeepsTheRun(uidReuse, isStatusManager, 6, 10);
  });

  it('a container GC round that removes nothing writes nothing; one that removes a container writes the runtime', () => {
    const gcScenario = deleted;
    const log = gcScenario.log;
    // The GC's footprint: reads pods, statuses and the runtime (7), nothing of volumes or the queue.
    const isGC = (j: number) => log.kind[j] === FP_WRITER && log.reads[j] === 7;
    const masks = new Set<number>();
    for (let j = 0; j < log.seq.length; j++) if (isGC(j)) masks.add(log.mask[j] as number);
    expect([...masks].sort()).toEqual([0, 4]);
    const idleGC = (j: number) => isGC(j) && log.mask[j] === 0;
    narrowedFootprintKeepsTheRun(gcScenario, idleGC, 1, 5);
  });

  it("the volume manager's goroutines (populator, reconciler, operations) write only volumes: swapped with writers of other parts, the run is the same", () => {
    const volumes = parent('reconstructed-device-mount-fails');
    const log = volumes.log;
    const isVolumeManager = (j: number) =>
      log.kind[j] === FP_WRITER && log.mask[j] === 8 && log.reads[j] === 0xffff;
    narrowedFootprintKeepsTheRun(volumes, isVolumeManager, 11, 10);
  });

  it('keeps fewer reorderings than the coarse rule (235 and 265 of 432)', () => {
    const kept = deleted.deviations.length - skippedBy(deleted).length;
    expect(deleted.deviations.length).toBe(432);
    expect(kept).toBeLessThan(250);
  });

  it('an instant with a stale wake-up is read like any other: what keeps it stale keeps its side, the rest may move', () => {
    const contrast = parent('terminating-pvc-kubelet-restart');
    const log = contrast.log;
    const instantOf = (c: number): [number, number] => {
      const from = log.pointEvent[c] as number;
      let to = from;
      while (to + 1 < log.seq.length && log.timeMs[to + 1] === log.timeMs[from]) to++;
      return [from, to];
    };
    // Skipped at an instant with a stale wake-up, where the older rule (E commutes with every event it
    // passes and pushes nothing due now) would have kept it.
    const coarseKeeps = (from: number, at: number) => {
      if (log.nowPush[at] === 1) return true;
      for (let j = from; j < at; j++) if (dependent(log, j, at)) return true;
      return false;
    };
    const staleInstants = skippedBy(contrast).filter(([c, , at]) => {
      if (at < 0) return false;
      const [from, to] = instantOf(c);
      let stale = false;
      for (let j = from; j <= to; j++) if (log.kind[j] === FP_STALE) stale = true;
      return stale && coarseKeeps(from, at);
    });
    expect(staleInstants.length).toBeGreaterThanOrEqual(10);
    for (const [point, pick] of staleInstants.slice(0, 25))
      expect(sameRun(contrast, point, pick), `${point}:${pick}`).toBe(true);
  });

  it('a wake-up stale in the parent is always explored: run first, it is live, and the run differs', () => {
    const restart = parent('terminal-pod-kubelet-restart');
    const index = new Map(restart.log.seq.map((s, j) => [s, j]));
    const stale = restart.deviations.filter(([, , at]) => at >= 0 && restart.log.kind[at] === FP_STALE);
    expect(stale.length).toBeGreaterThan(0);
    for (const [c, i] of stale) expect(mustExplore(restart.log, index, c, i)).toBe(true);
    const [point, pick] = stale[0] as readonly [number, number, number];
    expect(sameRun(restart, point, pick, fullTailAfter)).toBe(false);
  });
});
