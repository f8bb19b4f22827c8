// The parts of a node's state, as elision of idle loop rounds sees them (src/sim/elision.ts, masks.ts):
// an event that changed some parts wakes only the node's parked loops that read one of them. A process
// writes every part unless the code that spawns it says otherwise; each narrowing below names what the
// process can change, and each loop names what its round reads.

/**
 * Pod config, pod manager, mirror pods, the pod workers' lifecycle (terminating, terminated, finished,
 * forgotten) and static pod bookkeeping.
 */
export const WRITES_PODS = 1;
/** The status manager's statuses. */
export const WRITES_STATUS = 2;
/** The container runtime, the runtime cache, the PLEG's pod cache and its waiters, pod cgroups. */
export const WRITES_RUNTIME = 4;
/** The volume manager's caches and operations, the node's storage, node.status.volumesAttached. */
export const WRITES_VOLUMES = 8;
/** The work queue (only a syncCh tick reads it). */
export const WRITES_QUEUE = 16;
/**
 * What a release-1.23 pod worker writes besides its lifecycle (which it touches as WRITES_PODS where it
 * changes: podWorkersState.ts) and the populator's reprocess mark (touched as WRITES_VOLUMES): the work
 * queue, statuses, the runtime (its sync and kill), pod cgroups and the pod cache's waiters.
 */
export const WRITES_POD_WORKER = WRITES_QUEUE | WRITES_STATUS | WRITES_RUNTIME;
/**
 * What syncLoop's handling of an update, a PLEG event or a tick writes besides the pod set (the pod
 * manager touches WRITES_PODS when a pod comes or goes) and the pod workers' lifecycle (touched where it
 * changes): the pod workers' work (QUEUE), statuses (housekeeping), the runtime and cgroups.
 */
export const WRITES_SYNC_LOOP = WRITES_QUEUE | WRITES_STATUS | WRITES_RUNTIME;
/** Nothing a loop of the node reads: the API node object (volumesInUse) and the node Lease. */
export const WRITES_NONE = 0;
/**
 * The PLEG cache's timestamp (cache.go UpdateTime), which every relist moves. Outside WRITES_ALL, so in
 * no read mask: the one reader, GetNewerThan (a pod worker's sync), notes its read where it reads it
 * (Sim.noteReads), and an idle relist, which moves only this, commutes with every event that did not.
 */
export const WRITES_POD_CACHE_TIME = 0x10000;
/**
 * When the kubelet's runtime cache was last refreshed (runtime_cache.go cacheTime), which housekeeping
 * moves even when idle. Outside WRITES_ALL like the PLEG cache's timestamp: its readers (GetPods,
 * ForceUpdateIfOlder) note their reads.
 */
export const WRITES_RUNTIME_CACHE_TIME = 0x20000;
