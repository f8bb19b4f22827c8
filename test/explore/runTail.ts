// What two runs must share for a skipped deviation to count as its parent's run: the same facts, and after
// the deviation's instant the same work (time, process, footprint, tie of every event that is not an idle
// round, a stale wake-up or a tick's fire). Idle rounds may differ: a footprint can be narrower than the
// mask elision wakes parked loops by (Process.footprintWriteMask), so of two orders that leave the same
// state one may wake a parked loop whose next round then runs for real, idle, where the other skips it;
// and within the instant a consumer may take two ticks in one round instead of two (docs/explore.md).
import { type ChoiceLog, FP_HOOKED, FP_READER, FP_STALE, isTickFire } from '../../src/sim/index.js';

export function tailAfter(log: ChoiceLog, timeMs: number): string {
  const out: string[] = [];
  for (let j = 0; j < log.seq.length; j++) {
    if ((log.timeMs[j] as number) <= timeMs) continue;
    const kind = log.kind[j] as number;
    if (kind === FP_STALE || kind === FP_READER || kind === FP_HOOKED || isTickFire(log, j)) continue;
    out.push(`${log.timeMs[j]}:${log.owner[j]}:${log.kind[j]}:${log.mask[j]}:${log.tie[j]}`);
  }
  return out.join(',');
}

/** Every event after `timeMs`, idle rounds too: where two runs differ at all. */
export function fullTailAfter(log: ChoiceLog, timeMs: number): string {
  const out: string[] = [];
  for (let j = 0; j < log.seq.length; j++)
    if ((log.timeMs[j] as number) > timeMs)
      out.push(`${log.timeMs[j]}:${log.owner[j]}:${log.kind[j]}:${log.mask[j]}:${log.tie[j]}`);
  return out.join(',');
}
