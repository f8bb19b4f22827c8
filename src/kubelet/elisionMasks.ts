// The parts of a node's state, as elision of idle loop rounds sees them (src/sim/elision.ts, masks.ts):
// an event that changed some parts wakes only the node's parked loops that read one of them. A process
// writes every part unless the code that spawns it says otherwise; each narrowing below names what the
// process can change, and each loop names what its round reads.

/** Pod config, pod manager, pod workers' state, the work queue, mirror pods. */
export const WRITES_PODS = 1;
/** The status manager's statuses. */
export const WRITES_STATUS = 2;
/** The container runtime, the runtime cache, the PLEG's pod cache and its waiters, pod cgroups. */
export const WRITES_RUNTIME = 4;
/** The volume manager's caches and operations, the node's storage, node.status.volumesAttached. */
export const WRITES_VOLUMES = 8;
/** Nothing a loop of the node reads: the API node object's heartbeat and volumesInUse. */
export const WRITES_NONE = 0;
