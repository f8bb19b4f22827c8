// Ported from kubernetes pkg/scheduler/framework/plugins/noderesources/fit.go (Fits, fitsRequest,
// computePodResourceRequest) and pkg/scheduler/framework/types.go (NodeInfo.AddPod's calculateResource),
// read at v1.20.4, v1.23.13 and v1.28.0: the resource half of the kubelet's predicate admit handler
// (GeneralPredicates at v1.23.13, AdmissionCheck at v1.28.0, both first of all the checks).
import type { Pod, ResourceList } from '../../api/v1.js';

/** noderesources.InsufficientResource: the resource, and the numbers InsufficientResourceError prints. */
export interface InsufficientResource {
  /** v1.ResourceName: `cpu` or `memory` (the rejection's reason is `OutOf` + it). */
  readonly resourceName: 'cpu' | 'memory';
  /** The pod's request (millicores for cpu, bytes for memory). */
  readonly requested: number;
  /** What the node's other admitted pods request (nodeInfo.Requested). */
  readonly used: number;
  /** The node's allocatable amount. */
  readonly capacity: number;
}

/**
 * computePodResourceRequest (and calculateResource for the pods already on the node): the sum of the
 * containers' requests, cpu as MilliValue(). Upstream takes the max of that sum and each init container's
 * request and adds the pod overhead; podrace models neither init containers nor overhead. Two plain
 * loops, no allocation: admission sums every other pod on each ADD, as NewNodeInfo(pods...) does.
 */
export function podRequestMilliCPU(pod: Pod): number {
  let sum = 0;
  const containers = pod.spec.containers;
  for (let i = 0; i < containers.length; i++) sum += containers[i]?.resources?.requests.cpuMilli ?? 0;
  return sum;
}

/** As podRequestMilliCPU, for memory (Value(), bytes). */
export function podRequestMemoryBytes(pod: Pod): number {
  let sum = 0;
  const containers = pod.spec.containers;
  for (let i = 0; i < containers.length; i++) sum += containers[i]?.resources?.requests.memoryBytes ?? 0;
  return sum;
}

/**
 * fitsRequest, cpu and memory, its first insufficient resource (the one the kubelet reports: Admit keeps
 * reasons[0]) or undefined when the pod fits. The allowed pod count, which upstream checks first
 * (maxPods, 110 by default), ephemeral storage and extended resources are not modelled. A resource the
 * node's allocatable does not list is not checked (podrace's default: a node object always lists both).
 *
 * `zeroRequestSkips`: #116408 (1.28.0) checks a resource only when the pod requests some of it
 * (`podRequest.MilliCPU > 0 &&`); v1.20.4 and v1.23.13 compare a zero request too, so a pod that asks
 * for memory alone is OutOfcpu on a node whose admitted pods already request more cpu than it has.
 * Asked only when the answer matters: a zero request that the comparison would refuse.
 */
export function fitsRequest(
  podMilliCPU: number,
  podMemoryBytes: number,
  requestedMilliCPU: number,
  requestedMemoryBytes: number,
  allocatable: ResourceList,
  zeroRequestSkips: () => boolean,
): InsufficientResource | undefined {
  if (podMilliCPU === 0 && podMemoryBytes === 0) return undefined;
  const cpu = allocatable.cpuMilli;
  if (cpu !== undefined && podMilliCPU > cpu - requestedMilliCPU) {
    if (podMilliCPU > 0 || !zeroRequestSkips()) {
      return { resourceName: 'cpu', requested: podMilliCPU, used: requestedMilliCPU, capacity: cpu };
    }
  }
  const memory = allocatable.memoryBytes;
  if (memory !== undefined && podMemoryBytes > memory - requestedMemoryBytes) {
    if (podMemoryBytes > 0 || !zeroRequestSkips()) {
      return {
        resourceName: 'memory',
        requested: podMemoryBytes,
        used: requestedMemoryBytes,
        capacity: memory,
      };
    }
  }
  return undefined;
}

/** InsufficientResourceError.Error() (lifecycle/predicate.go, the same at v1.20.4, v1.23.13 and v1.28.0). */
export function insufficientResourceMessage(r: InsufficientResource): string {
  return `Node didn't have enough resource: ${r.resourceName}, requested: ${r.requested}, used: ${r.used}, capacity: ${r.capacity}`;
}
