// What a node's state is made of, for elision (src/sim/elision.ts): an event that changed some parts
// wakes only the parked loops that read one of them. The kernel knows nothing of Kubernetes: the
// kubelet gives the bits their meaning (src/elisionMasks.ts).

/** Every part: the default of every event, so nothing is narrowed without saying so. */
export const WRITES_ALL = 0xffff;
