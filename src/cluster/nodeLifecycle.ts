// The node's Ready condition as the node lifecycle controller (pkg/controller/nodelifecycle, release-1.23)
// maintains it: a node whose kubelet has not posted status for node-monitor-grace-period is marked
// Ready=Unknown. The simulator has no node lifecycle controller loop; it derives the condition from the
// last heartbeat when someone reads it (upstream's 5 s monitor period is not modelled).
import type { Node } from '../api/v1.js';

/** --node-monitor-grace-period default. */
export const nodeMonitorGracePeriodMs = 40_000;

/** nodeutil.IsNodeReady on a node object whose Ready condition the node lifecycle controller keeps. */
export function isNodeReady(node: Node, nowMs: number): boolean {
  return nowMs - node.status.lastHeartbeatMs < nodeMonitorGracePeriodMs;
}
