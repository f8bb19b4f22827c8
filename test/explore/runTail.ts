// What two runs must share for a skipped deviation to count as its parent's run: the same facts, and after
// the deviation's instant the same events (time, process, footprint, tie). Within the instant they may
// differ by an idle round: a consumer that takes two ticks in one round instead of two (docs/explore.md).
import type { ChoiceLog } from '../../src/sim/index.js';

export function tailAfter(log: ChoiceLog, timeMs: number): string {
  const out: string[] = [];
  for (let j = 0; j < log.seq.length; j++)
    if ((log.timeMs[j] as number) > timeMs)
      out.push(`${log.timeMs[j]}:${log.owner[j]}:${log.kind[j]}:${log.mask[j]}:${log.tie[j]}`);
  return out.join(',');
}
