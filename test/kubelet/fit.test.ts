// The resource half of the kubelet's predicate admit handler (src/kubelet/lifecycle/fit.ts, predicate.ts):
// cases ported from upstream's noderesources fit_test.go TestEnoughRequests (v1.23.13 and v1.28.0) and
// lifecycle predicate_test.go TestGeneralPredicates that apply to cpu and memory without init containers,
// with the node of those tests (allocatable 10m cpu, 20 bytes of memory).
import { describe, expect, it } from 'vitest';
import type { Pod, ResourceList } from '../../src/api/v1.js';
import {
  fitsRequest,
  insufficientResourceMessage,
  podRequestMemoryBytes,
  podRequestMilliCPU,
} from '../../src/kubelet/lifecycle/fit.js';
import { PredicateAdmitHandler } from '../../src/kubelet/lifecycle/predicate.js';

/** newResourcePod: one container per usage, each requesting it. */
function resourcePod(uid: string, ...usage: { cpu: number; memory: number }[]): Pod {
  return {
    metadata: { uid, name: uid, namespace: 'default', annotations: {} },
    spec: {
      nodeName: 'machine1',
      containers: usage.map((u, i) => ({
        name: `c${i}`,
        resources: { requests: { cpuMilli: u.cpu, memoryBytes: u.memory } },
      })),
      volumes: [],
      restartPolicy: 'Always',
    },
    status: { phase: 'Pending', containerStatuses: [] },
  };
}

const NODE: ResourceList = { cpuMilli: 10, memoryBytes: 20 };
/** fitsRequest of `pod` on the node of the upstream tests, beside `existing` (NewNodeInfo(existing...)). */
function fits(pod: Pod, existing: Pod[], zeroRequestSkips = false) {
  let cpu = 0;
  let memory = 0;
  for (const p of existing) {
    cpu += podRequestMilliCPU(p);
    memory += podRequestMemoryBytes(p);
  }
  return fitsRequest(
    podRequestMilliCPU(pod),
    podRequestMemoryBytes(pod),
    cpu,
    memory,
    NODE,
    () => zeroRequestSkips,
  );
}

describe('fitsRequest (fit_test.go TestEnoughRequests)', () => {
  it('no resources requested always fits', () => {
    expect(fits(resourcePod('p'), [resourcePod('e', { cpu: 10, memory: 20 })])).toBeUndefined();
  });

  it('too many resources fails, cpu first (the reason the kubelet keeps)', () => {
    expect(
      fits(resourcePod('p', { cpu: 1, memory: 1 }), [resourcePod('e', { cpu: 10, memory: 20 })]),
    ).toEqual({ resourceName: 'cpu', requested: 1, used: 10, capacity: 10 });
  });

  it('both resources fit; the equal edge case fits', () => {
    expect(fits(resourcePod('p', { cpu: 1, memory: 1 }), [resourcePod('e', { cpu: 5, memory: 5 })])).toBe(
      undefined,
    );
    expect(fits(resourcePod('p', { cpu: 5, memory: 1 }), [resourcePod('e', { cpu: 5, memory: 19 })])).toBe(
      undefined,
    );
  });

  it('one resource memory fits: cpu fails; one resource cpu fits: memory fails', () => {
    expect(fits(resourcePod('p', { cpu: 2, memory: 1 }), [resourcePod('e', { cpu: 9, memory: 5 })])).toEqual({
      resourceName: 'cpu',
      requested: 2,
      used: 9,
      capacity: 10,
    });
    expect(fits(resourcePod('p', { cpu: 1, memory: 2 }), [resourcePod('e', { cpu: 5, memory: 19 })])).toEqual(
      {
        resourceName: 'memory',
        requested: 2,
        used: 19,
        capacity: 20,
      },
    );
  });

  it('sums the containers of a pod and of the pods already on the node', () => {
    const pod = resourcePod('p', { cpu: 2, memory: 1 }, { cpu: 2, memory: 1 });
    expect(podRequestMilliCPU(pod)).toBe(4);
    const existing = [resourcePod('a', { cpu: 3, memory: 1 }), resourcePod('b', { cpu: 3, memory: 1 })];
    expect(fits(pod, existing)).toBeUndefined();
    expect(fits(pod, [...existing, resourcePod('c', { cpu: 1, memory: 0 })])).toEqual({
      resourceName: 'cpu',
      requested: 4,
      used: 7,
      capacity: 10,
    });
  });

  it('#116408 (v1.28.0, "skip checking resource request with quantity zero"): a zero request always fits', () => {
    // The node's pods request more than it has (20m of 10m cpu); the pod asks for memory only.
    const pod = resourcePod('p', { cpu: 0, memory: 1 });
    const existing = [resourcePod('e', { cpu: 20, memory: 5 })];
    expect(fits(pod, existing, true)).toBeUndefined();
    // v1.23.13 compares the zero request too: 0 > 10 - 20.
    expect(fits(pod, existing, false)).toEqual({ resourceName: 'cpu', requested: 0, used: 20, capacity: 10 });
  });

  it('asks the #116408 switch only for a zero request the comparison refuses', () => {
    let asked = 0;
    const ask = () => {
      asked++;
      return true;
    };
    fitsRequest(1, 1, 5, 5, NODE, ask);
    fitsRequest(0, 1, 5, 5, NODE, ask);
    fitsRequest(0, 0, 50, 50, NODE, ask);
    expect(asked).toBe(0);
    fitsRequest(0, 1, 50, 5, NODE, ask);
    expect(asked).toBe(1);
  });

  it('checks no resource the node does not list', () => {
    const pod = resourcePod('p', { cpu: 100, memory: 1 });
    expect(fitsRequest(100, 1, 0, 0, { memoryBytes: 20 }, () => true)).toBeUndefined();
    expect(fitsRequest(100, 30, 0, 0, { memoryBytes: 20 }, () => true)?.resourceName).toBe('memory');
    expect(fitsRequest(podRequestMilliCPU(pod), 1, 0, 0, {}, () => true)).toBeUndefined();
  });
});

describe('the predicate admit handler (predicate_test.go TestGeneralPredicates)', () => {
  const handler = (labels: Record<string, string> = {}) =>
    new PredicateAdmitHandler(
      () => labels,
      NODE,
      () => true,
    );

  it("not enough cpu and memory: the first reason, OutOfcpu, with InsufficientResourceError's text", () => {
    const result = handler().admit({
      pod: resourcePod('p', { cpu: 8, memory: 10 }),
      otherPods: [resourcePod('e', { cpu: 5, memory: 19 })],
    });
    expect(result).toEqual({
      admit: false,
      reason: 'OutOfcpu',
      message: "Node didn't have enough resource: cpu, requested: 8, used: 5, capacity: 10",
    });
  });

  it('OutOfmemory when only memory is short', () => {
    const result = handler().admit({
      pod: resourcePod('p', { cpu: 1, memory: 10 }),
      otherPods: [resourcePod('e', { cpu: 5, memory: 19 })],
    });
    expect(result.reason).toBe('OutOfmemory');
    expect(result.message).toBe(
      insufficientResourceMessage({ resourceName: 'memory', requested: 10, used: 19, capacity: 20 }),
    );
  });

  it('no resources requested always fits; resources are checked before node affinity', () => {
    expect(
      handler().admit({ pod: resourcePod('p'), otherPods: [resourcePod('e', { cpu: 9, memory: 19 })] }),
    ).toEqual({ admit: true, reason: '', message: '' });
    const pod = { ...resourcePod('p', { cpu: 8, memory: 1 }) };
    const selecting: Pod = { ...pod, spec: { ...pod.spec, nodeSelector: { pool: 'green' } } };
    // Both fail: generalFilter lists the insufficient resource first, and Admit keeps reasons[0].
    expect(
      handler({ pool: 'blue' }).admit({
        pod: selecting,
        otherPods: [resourcePod('e', { cpu: 5, memory: 0 })],
      }).reason,
    ).toBe('OutOfcpu');
    expect(handler({ pool: 'blue' }).admit({ pod: selecting, otherPods: [] }).reason).toBe('NodeAffinity');
  });

  it('without allocatable every pod fits (the scenario default)', () => {
    const h = new PredicateAdmitHandler(
      () => ({}),
      undefined,
      () => true,
    );
    expect(
      h.admit({
        pod: resourcePod('p', { cpu: 1e9, memory: 1e12 }),
        otherPods: [resourcePod('e', { cpu: 1e9, memory: 1 })],
      }).admit,
    ).toBe(true);
  });
});
