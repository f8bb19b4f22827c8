// Which finds of a campaign come first: the ones it shrinks and writes (--shrink N of them, one per
// invariant), and the one its exit reason names. A campaign is run to answer what the user asked, so:
//
//   1. asked:          a violation no known-open hazard explains, closed by flipping back a switch the
//                      user changed from the --kubelet preset (`--fix unmount-device-uncertain=off`:
//                      closed by turning it back on);
//   2. podrace-bug:    the simulator threw, or two runs of a case differed (exit 3);
//   3. fix-sensitive:  a violation no hazard explains that some other switch's flip closes;
//   4. unexplained:    a violation no hazard explains and no single switch closes (an upstream bug no
//                      modelled change touches, or a podrace bug);
//   5. known-open:     a violation a known-open upstream hazard explains (fails only with --strict).
//
// Each kind of failure is ranked by its best find: the lowest tier any of its cases reaches, and the first
// case at that tier. Kinds are ordered by (tier, case index, the kind's place in that case's violations):
// a pure function of the case results, whatever order they come in, so --workers cannot change it. And a
// shard ranks a kind no later than the whole campaign does (its best find is the campaign's best when the
// shard owns that case, and every kind the shard puts first the campaign puts first too), which is what
// `podrace merge` relies on to take each failure from the shard that owns its case.
import { FIX_IDS, type Fixes, type FixId } from '../fixes.js';
import type { CaseOutcome } from './campaign.js';
import type { FailureKind } from './shrink.js';

export const FIND_TIERS = ['asked', 'podrace-bug', 'fix-sensitive', 'unexplained', 'known-open'] as const;
export type FindTier = (typeof FIND_TIERS)[number];

/** A kind of failure with the find that ranks it. */
export interface RankedFind {
  readonly kind: FailureKind;
  readonly tier: FindTier;
  /** The case of its best find: the one shrunk. */
  readonly caseIndex: number;
  /** The switch a shrink must keep closing it (a changed one first), or null. */
  readonly closedBy: FixId | null;
}

/** The switches of `fixes` that differ from the preset it was built on (`--fix` overrides that matter). */
export function changedSwitches(preset: Fixes, fixes: Fixes): FixId[] {
  return FIX_IDS.filter((id) => preset.on(id) !== fixes.on(id));
}

/** The kinds of failure of one case, in order: a simulator error, else violations in time order. */
export function failureKindsOf(r: CaseOutcome): FailureKind[] {
  if (r.outcome === 'error') return ['simulator-error'];
  if (r.outcome === 'nondeterministic') return ['nondeterminism'];
  const out: FailureKind[] = [];
  for (const v of r.violations) if (!out.includes(v.invariant)) out.push(v.invariant);
  return out;
}

/** The tier of kind `kind` in case `r`, and the switch a shrink keeps closing. */
export function findTier(
  r: CaseOutcome,
  kind: FailureKind,
  changed: readonly FixId[],
): { tier: FindTier; closedBy: FixId | null } {
  if (kind === 'simulator-error' || kind === 'nondeterminism') return { tier: 'podrace-bug', closedBy: null };
  const closing = r.closedBy?.[kind] ?? [];
  const asked = closing.find((id) => changed.includes(id));
  const closedBy = asked ?? closing[0] ?? null;
  if (r.knownOpen.includes(kind)) return { tier: 'known-open', closedBy };
  if (asked !== undefined) return { tier: 'asked', closedBy };
  return { tier: closing.length > 0 ? 'fix-sensitive' : 'unexplained', closedBy };
}

/** Every kind of failure of `results`, best first (see the top of this file). */
export function rankFinds(results: readonly CaseOutcome[], changed: readonly FixId[]): RankedFind[] {
  interface Best extends RankedFind {
    readonly place: number;
  }
  const key = (b: Best): [number, number, number] => [FIND_TIERS.indexOf(b.tier), b.caseIndex, b.place];
  const before = (a: Best, b: Best): number => {
    const [ka, kb] = [key(a), key(b)];
    return ka[0] - kb[0] || ka[1] - kb[1] || ka[2] - kb[2];
  };
  const best = new Map<FailureKind, Best>();
  for (const r of results) {
    failureKindsOf(r).forEach((kind, place) => {
      const find: Best = { kind, ...findTier(r, kind, changed), caseIndex: r.index, place };
      const old = best.get(kind);
      if (old === undefined || before(find, old) < 0) best.set(kind, find);
    });
  }
  return [...best.values()]
    .sort(before)
    .map(({ kind, tier, caseIndex, closedBy }) => ({ kind, tier, caseIndex, closedBy }));
}

/** Whether a find of this tier fails the campaign (exit 1 or 3). */
export function failsCampaign(tier: FindTier, strict: boolean): boolean {
  return tier !== 'known-open' || strict;
}
