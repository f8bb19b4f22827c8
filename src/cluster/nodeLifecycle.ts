// The node's Ready condition as the node lifecycle controller (pkg/controller/nodelifecycle, release-1.23)
// maintains it: a node whose Lease (kube-node-lease, renewed by its kubelet every 10 s) has not been
// renewed for node-monitor-grace-period is marked Ready=Unknown. The simulator has no node lifecycle
// controller loop; it derives the condition from the Lease's renewTime when someone reads it (upstream's
// 5 s monitor period and the informer delay of the Ready patch are not modelled).

/** --node-monitor-grace-period default. */
export const nodeMonitorGracePeriodMs = 40_000;

/** nodeutil.IsNodeReady, for a node whose Lease was last renewed at `renewTimeMs`. */
export function isNodeReady(renewTimeMs: number, nowMs: number): boolean {
  return nowMs - renewTimeMs < nodeMonitorGracePeriodMs;
}
