// The one line that says why a campaign exits as it does: which invariant, in how many cases no hazard
// explains, and which switch closes it (the best-ranked failing find, src/fuzz/rank.ts). Built from the
// campaign's JSON lines, so `podrace fuzz` and `podrace merge` say the same.
import type { Fixes, FixId } from '../fixes.js';
import type { CaseLine, FailureLine } from './campaignJson.js';
import { failsCampaign, type RankedFind } from './rank.js';

/** How many other failing kinds the line names before it counts the rest. */
const ALSO_NAMED = 3;

export interface ExitFacts {
  readonly exitCode: number;
  readonly ran: number;
  readonly strict: boolean;
  readonly fixes: Fixes;
  readonly changed: readonly FixId[];
  /** The failing (and hazard) cases, in case order. */
  readonly cases: readonly CaseLine[];
  readonly failures: readonly FailureLine[];
  /** rankFinds over those cases. */
  readonly ranked: readonly RankedFind[];
}

function closing(f: RankedFind, e: ExitFacts): string {
  const c = e.cases.find((l) => l.case === f.caseIndex);
  if (f.closedBy === null) {
    return c?.closedBy === null
      ? `case ${f.caseIndex} was not bisected (--no-oracle)`
      : `in case ${f.caseIndex} no single switch closes it`;
  }
  const to = e.fixes.on(f.closedBy) ? 'off' : 'on';
  if (e.changed.includes(f.closedBy)) {
    return `in case ${f.caseIndex} turning ${f.closedBy} back ${to} (--fix turned it ${to === 'on' ? 'off' : 'on'}) closes it`;
  }
  return `in case ${f.caseIndex} turning ${f.closedBy} ${to} closes it`;
}

/** `exit 1: <invariant> fired in N case(s) that no known-open hazard explains; in case C turning X back on ...`. */
export function exitReason(e: ExitFacts): string {
  const head = `exit ${e.exitCode}:`;
  if (e.exitCode === 3) {
    const bug = e.cases.find((c) => c.error !== undefined);
    if (bug !== undefined) {
      return bug.outcome === 'nondeterministic'
        ? `${head} two runs of case ${bug.case} differed (--check-determinism): a podrace bug`
        : `${head} the simulator threw in case ${bug.case}: a podrace bug`;
    }
    const bad = e.failures.find((f) => !f.reproduces);
    return `${head} the written file ${bad?.file ?? '?'} does not reproduce ${bad?.invariant ?? 'its find'}: a podrace bug`;
  }
  if (e.ran === 0) return `${head} no case ran, so nothing was checked`;
  const failing = e.ranked.filter((f) => failsCampaign(f.tier, e.strict));
  const cutShort = e.cases.filter((c) => c.outcome === 'max-events');
  const budget =
    cutShort.length === 0
      ? ''
      : `${cutShort.length} case(s) hit the event budget before their horizon (first: case ${cutShort[0]?.case}): nothing after that point was checked`;
  const top = failing[0];
  if (top === undefined) {
    if (budget !== '') return `${head} ${budget}`;
    return e.cases.length === 0
      ? `${head} no invariant fired`
      : `${head} every find is a known-open upstream hazard (--strict fails on them too)`;
  }
  const n = e.cases.filter(
    (c) =>
      (c.fired as readonly string[]).includes(top.kind) &&
      (e.strict || !(c.knownOpen as readonly string[]).includes(top.kind)),
  ).length;
  const what =
    top.tier === 'known-open'
      ? `${top.kind} fired in ${n} case(s), as a known-open upstream hazard (--strict fails on them); first in case ${top.caseIndex}`
      : `${top.kind} fired in ${n} case(s) that no known-open hazard explains; ${closing(top, e)}`;
  const others = failing.slice(1).map((f) => f.kind);
  const also =
    others.length === 0
      ? ''
      : `; also ${others.slice(0, ALSO_NAMED).join(', ')}${others.length > ALSO_NAMED ? ` (+${others.length - ALSO_NAMED} more)` : ''}`;
  return `${head} ${what}${also}${budget === '' ? '' : `; ${budget}`}`;
}
