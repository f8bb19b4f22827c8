// Tick fires racing to wake a consumer whose rounds of the instant were all idle (podrace explore,
// docs/explore.md "Why a commuting pair can be skipped"): which fire wakes it first, and whether it
// handles the ticks in one round or two, changes nothing.
import { type ChoiceLog, dependent, FP_HOOKED, FP_READER, isTickFire } from '../sim/index.js';

/**
 * Per event of the instant `from..to` (index j - from), the consumer whose cluster it belongs to, or -1.
 * A cluster is a consumer (syncLoop, whose select takes syncCh's and housekeepingCh's ticks) with the tick
 * fires that touched its wait and its rounds, where every round of it in the instant was idle (an idle
 * round, or one whose hook moved only its declared parts) and no other event of the instant depends on
 * one of them. Reordered among themselves, the fires only change which tick a round takes first and
 * whether one round takes both: each handling is idle either way, since no other event changes what it
 * reads, so the instant ends in the same state with the same events pending. Only the count of idle
 * rounds may differ, as it does between a run that skips idle rounds and one that runs them.
 */
export function idleTickClusters(log: ChoiceLog, from: number, to: number): number[] {
  const n = to - from + 1;
  const cluster = new Array<number>(n).fill(-1);
  for (let f = from; f <= to; f++) {
    if (!isTickFire(log, f)) continue;
    const consumer = consumerOf(log, f);
    if (consumer < 0 || cluster[f - from] !== -1) continue;
    if (idleCluster(log, from, to, consumer)) markCluster(log, from, to, consumer, cluster);
  }
  return cluster;
}

/** The wait a tick fire touched besides its own process's: its consumer's (even ids), or -1. */
function consumerOf(log: ChoiceLog, f: number): number {
  for (let k = log.touchStart[f] as number; k < (log.touchStart[f + 1] as number); k++) {
    const id = log.touches[k] as number;
    if (id >= 0 && id % 2 === 0 && id !== log.owner[f]) return id;
  }
  return -1;
}

function isFireTo(log: ChoiceLog, j: number, consumer: number): boolean {
  return isTickFire(log, j) && consumerOf(log, j) === consumer;
}

function idleCluster(log: ChoiceLog, from: number, to: number, consumer: number): boolean {
  let rounds = 0;
  for (let r = from; r <= to; r++) {
    if (log.owner[r] !== consumer) continue;
    if (log.kind[r] !== FP_READER && log.kind[r] !== FP_HOOKED) return false;
    rounds++;
    for (let x = from; x <= to; x++) {
      if (log.owner[x] === consumer || isFireTo(log, x, consumer)) continue;
      if (dependent(log, x, r)) return false;
    }
  }
  return rounds > 0;
}

function markCluster(log: ChoiceLog, from: number, to: number, consumer: number, cluster: number[]): void {
  for (let j = from; j <= to; j++)
    if (log.owner[j] === consumer || isFireTo(log, j, consumer)) cluster[j - from] = consumer;
}
