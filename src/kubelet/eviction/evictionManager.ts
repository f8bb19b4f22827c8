// Ported from kubernetes pkg/kubelet/eviction/eviction_manager.go (release-1.31, PR #124063): the grace
// period override synchronize and localStorageEviction hand to evictPod for an immediate (hard) eviction.
import type { Fixes } from '../../fixes.js';

/** immediateEvictionGracePeriodSeconds: how long a pod evicted at once (hard threshold, storage limit) gets. */
export const immediateEvictionGracePeriodSeconds = 1;

/**
 * The override of a hard eviction. Before #124063 it was 0, meant as "at once"; but the pod worker's
 * calculateEffectiveGracePeriod reads a resulting 0 as "no grace settled" and falls back to the spec's
 * terminationGracePeriodSeconds (#115819), so a hard-evicted pod got its full grace. From 1.31 the manager
 * passes 1 s. Only the hard eviction changed: a soft eviction still passes min(MaxPodGracePeriodSeconds,
 * spec), which the scenario gives as a non-zero gracePeriod.
 */
export function hardEvictionGracePeriodOverride(fixes: Fixes): number {
  return fixes.on('immediate-eviction-grace') ? immediateEvictionGracePeriodSeconds : 0;
}
