// The attach/detach controller's elision masks (src/sim/masks.ts), in its own elision domain.

/**
 * The parts of the controller's state, for elision (src/sim/masks.ts): the informers' caches, and
 * everything else (the desired and actual states, operations), which the reconciler reads. A pod's
 * status patch reaches the controller as a pod delivery, a kubelet's volumesInUse patch as a node
 * delivery: unless the delivery changes the desired or actual state, the reconciler has nothing new to
 * see (it reads a node only as its Ready condition, which comes from the node's Lease). The populator reads
 * the pod cache and the desired state.
 */
export const ADC_WRITES_POD_CACHE = 1;
export const ADC_WRITES_STATE = 2;
export const ADC_WRITES_NODE_CACHE = 4;
