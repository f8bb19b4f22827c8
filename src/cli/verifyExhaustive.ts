// `verify --exhaustive` (or a claim's `exhaustive: true`): a claim that says `violations: []` is checked over every schedule of same-instant
// events (with --latencies, and of latency picks) within the bound (podrace explore, docs/explore.md), not only the default order. It holds only if
// that exploration was complete and found nothing: a schedule that violates, or a limit that cut the
// search short, fails it. Claims that list violations are checked as before (the default order fires them).
import { explore } from '../explore/explore.js';
import { formatSchedule } from '../explore/scheduleText.js';
import type { InvariantId } from '../invariants/types.js';
import { firedInvariants } from '../run/run.js';
import { fixesOfClaim } from '../scenario/types.js';
import type { VerifyEntry, VerifyRow } from './verify.js';

export interface ExhaustiveOptions {
  readonly bound: number;
  readonly maxSchedules: number;
  /** Per claim. */
  readonly timeLimitMs: number;
  /** Latency draws are choice points too (explore --latencies). */
  readonly latencies: boolean;
  readonly clock: () => number;
  readonly maxEvents?: number | undefined;
}

/** What the exploration of one claim found. */
export interface ExhaustiveCheck {
  readonly bound: number;
  readonly latencies: boolean;
  readonly explored: number;
  readonly complete: boolean;
  readonly stoppedBy: string | null;
  /** The first violating schedule (fewest deviations), or null. */
  readonly schedule: string | null;
  readonly invariants: readonly InvariantId[];
}

/**
 * The entries, each passing `violations: []` claim explored (every one with `all`, else those that say
 * `exhaustive: true`), and failed if that found or proved nothing.
 */
export function exhaustEntries(
  entries: readonly VerifyEntry[],
  o: ExhaustiveOptions,
  all: boolean,
): VerifyEntry[] {
  return entries.map((e) => {
    if (!('claim' in e) || !e.claim.pass || e.claim.expected.length > 0) return e;
    if (!all && e.claim.claim.exhaustive !== true) return e;
    const r = explore(e.scenario, {
      fixes: fixesOfClaim(e.claim.claim.fixes),
      bound: o.bound,
      maxSchedules: o.maxSchedules,
      deadlineMs: o.clock() + o.timeLimitMs,
      clock: o.clock,
      maxEvents: o.maxEvents,
      latencies: o.latencies,
    });
    const v = r.violation;
    const exhaustive: ExhaustiveCheck = {
      bound: o.bound,
      latencies: o.latencies,
      explored: r.explored,
      complete: r.complete,
      stoppedBy: r.stoppedBy ?? null,
      schedule: v === undefined ? null : formatSchedule(v.schedule),
      invariants: v === undefined ? [] : firedInvariants(v.result),
    };
    const pass = v === undefined && r.complete;
    const row: VerifyRow = {
      scenario: e.scenario,
      claim: Object.assign({}, e.claim, { pass }),
      exhaustive,
    };
    return row;
  });
}

/** The table's words for a claim's exploration. */
export function exhaustiveDetail(x: ExhaustiveCheck): string {
  const within = `${x.explored} schedule(s) within ${x.bound} deviation(s)${x.latencies ? ' of order or latency' : ''}`;
  if (x.schedule !== null) return `schedule ${x.schedule} fires [${x.invariants.join(', ')}] (${within})`;
  if (!x.complete) return `INCOMPLETE: stopped by ${x.stoppedBy} after ${within}; nothing proved`;
  return `clean over all ${within}`;
}
