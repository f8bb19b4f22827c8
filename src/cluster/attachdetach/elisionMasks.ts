// The attach/detach controller's elision masks (src/sim/masks.ts), in its own elision domain.

/**
 * The parts of the controller's state, for elision (src/sim/masks.ts): the pod informer's cache, which
 * only the desired state of world populator reads, and everything else (the desired and actual states,
 * the node informer's cache, operations), which the reconciler reads. A pod's status patch reaches the
 * controller as a pod delivery: unless the pod's volumes change the desired state, the reconciler has
 * nothing new to see.
 */
export const ADC_WRITES_POD_CACHE = 1;
export const ADC_WRITES_STATE = 2;
