// What an eviction in a kubelet log asked for. The eviction manager logs no grace period; the pod's first
// kill after it does ("Killing container with a grace period" gracePeriod=G), and what G says depends on
// the release: release-1.20's killPodNow kills with the override itself; from 1.22 to 1.30 a hard
// eviction's override of 0 became the spec's terminationGracePeriodSeconds in the pod worker (#115819);
// from 1.31 a hard eviction passes 1 s (#124063). Hard thresholds are the kubelet's default, soft ones
// need configuring, so a kill that a hard eviction explains is read as one.
import { RELEASE_PRESETS, type ReleasePreset } from '../fixes.js';

export interface EvictionRead {
  /** The scenario's evictPod gracePeriod: 0 for a hard eviction, else the soft eviction's override. */
  readonly overrideS: number;
  /** The pod's spec grace the kill shows, when the reading implies it (a hard eviction before 1.31). */
  readonly specGraceS: number | null;
  /** Why, when it is a guess. */
  readonly guess: string | null;
}

const at = (p: ReleasePreset): number => RELEASE_PRESETS.indexOf(p);

/** The eviction's override from the grace of the first kill after it (null: no kill seen). Pure. */
export function readEviction(release: ReleasePreset | null, killGraceS: number | null): EvictionRead {
  if (killGraceS === null)
    return { overrideS: 0, specGraceS: null, guess: 'no kill follows the eviction: a hard eviction' };
  if (killGraceS <= 0) return { overrideS: 0, specGraceS: null, guess: null };
  if (release === null || at(release) < at('1.22'))
    return { overrideS: killGraceS, specGraceS: null, guess: null };
  if (at(release) >= at('1.31')) {
    return killGraceS === 1
      ? { overrideS: 0, specGraceS: null, guess: 'a kill of 1s after it: a hard eviction (#124063)' }
      : {
          overrideS: killGraceS,
          specGraceS: null,
          guess: `a kill of ${killGraceS}s after it: a soft eviction (a hard one kills in 1s from 1.31)`,
        };
  }
  return {
    overrideS: 0,
    specGraceS: killGraceS,
    guess: `a kill of ${killGraceS}s after it: a hard eviction whose override of 0 became the pod's spec grace (#115819), so the spec's terminationGracePeriodSeconds is ${killGraceS}s; a soft eviction with that override would log the same`,
  };
}
