// Ported from kubernetes pkg/kubelet/kubelet.go (syncPod's mirror pod block, handleMirrorPod) and
// kubelet_pods.go (deleteOrphanedMirrorPods), release-1.23; release-1.20 has the same code except for
// the guard of the orphan cleanup, which the caller passes in. A static pod becomes visible in the API
// server through its mirror pod: the kubelet creates one when it syncs the static pod, replaces it when
// the static pod changes (the hash differs) or the mirror is being deleted, and deletes it once the
// static pod has left the config.
import { isStaticPod, type Pod } from '../api/v1.js';
import type { Co } from '../sim/index.js';
import type { BasicMirrorClient } from './pod/mirrorClient.js';
import type { BasicPodManager } from './pod/podManager.js';

export interface MirrorPodHost {
  readonly podManager: BasicPodManager;
  readonly mirrorClient: BasicMirrorClient;
}

/**
 * The mirror pod block of syncPod: create the mirror pod of a static pod if it doesn't already exist,
 * and delete one that is semantically different first (it is recreated right after). Errors are only
 * logged upstream, so nothing is returned. Upstream skips the create when the node object is gone or
 * being deleted; nodes are never deleted here.
 */
export function* syncMirrorPod(kl: MirrorPodHost, pod: Pod, mirrorPod: Pod | undefined): Co<void> {
  if (!isStaticPod(pod)) return;
  let deleted = false;
  if (mirrorPod !== undefined) {
    if (mirrorPod.metadata.deletionTimestamp !== undefined || !kl.podManager.isMirrorPodOf(mirrorPod, pod)) {
      // The mirror pod is semantically different from the static pod. Remove it. The mirror pod will
      // get recreated later.
      const podFullName = `${pod.metadata.name}_${pod.metadata.namespace}`;
      const r = yield* kl.mirrorClient.deleteMirrorPod(podFullName, mirrorPod.metadata.uid);
      deleted = r.deleted;
    }
  }
  if (mirrorPod === undefined || deleted) {
    // "Failed creating a mirror pod" is only logged: the next sync tries again.
    yield* kl.mirrorClient.createMirrorPod(pod);
  }
}

/**
 * deleteOrphanedMirrorPods (housekeeping): delete the mirror pods whose static pod is gone from the
 * config, unless `keep` says its static pod is still being killed (release-1.23:
 * IsPodForMirrorPodTerminatingByFullName; release-1.20.3+: IsMirrorPodPendingTerminationByPodName).
 */
export function* deleteOrphanedMirrorPods(
  kl: MirrorPodHost,
  keep: (podFullname: string) => boolean,
): Co<void> {
  for (const podFullname of kl.podManager.getOrphanedMirrorPodNames()) {
    if (keep(podFullname)) continue;
    // "encountered error when deleting mirror pod" is only logged.
    yield* kl.mirrorClient.deleteMirrorPod(podFullname, undefined);
  }
}
