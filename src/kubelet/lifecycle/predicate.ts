// Ported from kubernetes pkg/kubelet/lifecycle/predicate.go (v1.23.13 and v1.28.0): the predicate admit
// handler's node affinity check, the one general predicate a scenario can fail (#118472's reproduction:
// a pod whose nodeSelector the node's labels no longer match, after a kubelet restart changed them).
import type { Pod } from '../../api/v1.js';

/** lifecycle.PodAdmitResult. */
export interface PodAdmitResult {
  readonly admit: boolean;
  /** A brief single-word reason (the failed predicate's name). */
  readonly reason: string;
  /** Why the pod cannot be admitted. */
  readonly message: string;
}

export const ADMIT: PodAdmitResult = { admit: true, reason: '', message: '' };

/** lifecycle.PodAdmitAttributes: the pod, and the admitted pods that are alive (filterOutInactivePods). */
export interface PodAdmitAttributes {
  readonly pod: Pod;
  readonly otherPods: readonly Pod[];
}

/** lifecycle.PodAdmitHandler. */
export interface PodAdmitHandler {
  admit(attrs: PodAdmitAttributes): PodAdmitResult;
}

/** The scheduler plugin's name (framework/plugins/nodeaffinity Name), which is the rejection's reason. */
export const NODE_AFFINITY_PREDICATE = 'NodeAffinity';

/**
 * corev1nodeaffinity.GetRequiredNodeAffinity(pod).Match(node) for a pod with only a nodeSelector: every
 * selector label must be on the node with the same value (labels.SelectorFromSet). Keys in sorted order:
 * the answer does not depend on it, only the order of the reads.
 */
export function podMatchesNodeSelector(pod: Pod, nodeLabels: Readonly<Record<string, string>>): boolean {
  const selector = pod.spec.nodeSelector;
  if (selector === undefined) return true;
  for (const key of Object.keys(selector).sort()) {
    if (!Object.hasOwn(nodeLabels, key) || nodeLabels[key] !== selector[key]) return false;
  }
  return true;
}

/**
 * predicateAdmitHandler.Admit, reduced to generalFilter's node affinity failure: resources, node name and
 * ports always fit here (no requests, allocatable or host ports are modelled). The first failed predicate
 * is the result: reason its name, message PredicateFailureError.Error(), "Predicate NodeAffinity failed".
 * The node's labels are read when the pod is admitted (getNodeAnyWay: the node object as this kubelet
 * knows it, with the labels it registered).
 */
export class PredicateAdmitHandler implements PodAdmitHandler {
  constructor(private readonly nodeLabels: () => Readonly<Record<string, string>>) {}

  admit(attrs: PodAdmitAttributes): PodAdmitResult {
    if (!podMatchesNodeSelector(attrs.pod, this.nodeLabels())) {
      return {
        admit: false,
        reason: NODE_AFFINITY_PREDICATE,
        message: `Predicate ${NODE_AFFINITY_PREDICATE} failed`,
      };
    }
    return ADMIT;
  }
}
