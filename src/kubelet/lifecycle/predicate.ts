// Ported from kubernetes pkg/kubelet/lifecycle/predicate.go (v1.20.4, v1.23.13 and v1.28.0): the
// predicate admit handler's general checks a scenario can fail, in upstream's order: the node's resources
// (noderesources.Fits: OutOfcpu, OutOfmemory) and its labels (node affinity on spec.nodeSelector,
// #118472's reproduction: a pod whose nodeSelector the node's labels no longer match after a restart).
import type { Pod, ResourceList } from '../../api/v1.js';
import {
  fitsRequest,
  insufficientResourceMessage,
  podRequestMemoryBytes,
  podRequestMilliCPU,
} from './fit.js';

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
 * predicateAdmitHandler.Admit, reduced to what generalFilter (v1.28.0; GeneralPredicates at v1.23.13) can
 * fail here: the node's resources first (noderesources.Fits), then node affinity; node name and host
 * ports always fit (not modelled). The first failed predicate is the result (`reasons[0]`): an
 * InsufficientResourceError gives reason `OutOf` + the resource and its Error() as the message; a
 * PredicateFailureError its name and "Predicate NodeAffinity failed". A critical pod (every static pod)
 * that fails on resources alone would go to the CriticalPodAdmissionHandler, which preempts other pods
 * (preemption.go); that is not modelled, and the scenario loader gives a static pod no requests, so it
 * never fails on resources. The node's labels and allocatable are read when the pod is admitted
 * (getNodeAnyWay: the node object as this kubelet knows it); without allocatable every pod fits.
 */
export class PredicateAdmitHandler implements PodAdmitHandler {
  constructor(
    private readonly nodeLabels: () => Readonly<Record<string, string>>,
    private readonly allocatable: ResourceList | undefined,
    private readonly zeroRequestSkips: () => boolean,
  ) {}

  admit(attrs: PodAdmitAttributes): PodAdmitResult {
    const allocatable = this.allocatable;
    if (allocatable !== undefined) {
      // nodeInfo := schedulerframework.NewNodeInfo(pods...): the requests of the admitted pods alive.
      let usedMilliCPU = 0;
      let usedMemoryBytes = 0;
      const others = attrs.otherPods;
      // One pass over each pod's containers for both resources (what calculateResource adds up).
      for (let i = 0; i < others.length; i++) {
        const containers = (others[i] as Pod).spec.containers;
        for (let j = 0; j < containers.length; j++) {
          const requests = containers[j]?.resources?.requests;
          if (requests === undefined) continue;
          usedMilliCPU += requests.cpuMilli ?? 0;
          usedMemoryBytes += requests.memoryBytes ?? 0;
        }
      }
      const insufficient = fitsRequest(
        podRequestMilliCPU(attrs.pod),
        podRequestMemoryBytes(attrs.pod),
        usedMilliCPU,
        usedMemoryBytes,
        allocatable,
        this.zeroRequestSkips,
      );
      if (insufficient !== undefined) {
        return {
          admit: false,
          reason: `OutOf${insufficient.resourceName}`,
          message: insufficientResourceMessage(insufficient),
        };
      }
    }
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
