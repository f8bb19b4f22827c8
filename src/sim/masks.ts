// What a node's state is made of, for elision (src/sim/elision.ts): an event that changed some parts
// wakes only the parked loops that read one of them. The kernel knows nothing of Kubernetes: the
// kubelet gives the bits their meaning (src/elisionMasks.ts).

/** Every part: the default of every event, so nothing is narrowed without saying so. */
export const WRITES_ALL = 0xffff;

/**
 * A ticker's channel (src/sim/elision.ts Ticker): its fire writes only that, and only its consumer reads
 * it, with a step that reads everything (no loop's read mask names this part). For schedule footprints
 * (src/sim/choices.ts): a fire commutes with idle rounds of its node.
 */
export const WRITES_TICK = 0x8000;
