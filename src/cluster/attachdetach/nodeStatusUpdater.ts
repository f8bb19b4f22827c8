// Ported from kubernetes pkg/controller/volume/attachdetach/statusupdater/node_status_updater.go, release-1.23.
// Writes node.status.volumesAttached from the actual state of world's volumes to report; a failed write
// marks the node for another attempt.
import { GoError } from '../../api/errors.js';
import type { AttachedVolume, Node } from '../../api/v1.js';
import type { Co } from '../../sim/index.js';
import type { ActualStateOfWorld } from './actualStateOfWorld.js';

export interface NodeStatusUpdaterClient {
  /** nodeutil.PatchNodeStatus of status.volumesAttached. */
  patchNodeVolumesAttached(name: string, volumesAttached: readonly AttachedVolume[]): Co<GoError | undefined>;
}

/** NodeStatusUpdater: updates the VolumesAttached field of node statuses. */
export interface NodeStatusUpdater {
  /** Gets a list of node statuses that should be updated from the actual state of the world and updates them. */
  updateNodeStatuses(): Co<GoError | undefined>;
  /** Update any pending status change for the given node. */
  updateNodeStatusForNode(nodeName: string): Co<GoError | undefined>;
}

export function newNodeStatusUpdater(
  kubeClient: NodeStatusUpdaterClient,
  nodeLister: (name: string) => Node | undefined,
  actualStateOfWorld: ActualStateOfWorld,
): NodeStatusUpdater {
  return new nodeStatusUpdater(kubeClient, nodeLister, actualStateOfWorld);
}

class nodeStatusUpdater implements NodeStatusUpdater {
  constructor(
    private readonly kubeClient: NodeStatusUpdaterClient,
    /** The node informer's lister. */
    private readonly nodeLister: (name: string) => Node | undefined,
    private readonly actualStateOfWorld: ActualStateOfWorld,
  ) {}

  *updateNodeStatuses(): Co<GoError | undefined> {
    let nodeIssues = 0;
    const nodesToUpdate = this.actualStateOfWorld.getVolumesToReportAttached();
    for (const [nodeName, attachedVolumes] of nodesToUpdate) {
      const err = yield* this.processNodeVolumes(nodeName, attachedVolumes);
      if (err !== undefined) nodeIssues++;
    }
    if (nodeIssues > 0) return new GoError(`unable to update ${nodeIssues} nodes`);
    return undefined;
  }

  *updateNodeStatusForNode(nodeName: string): Co<GoError | undefined> {
    const [needsUpdate, attachedVolumes] =
      this.actualStateOfWorld.getVolumesToReportAttachedForNode(nodeName);
    if (!needsUpdate) return undefined;
    return yield* this.processNodeVolumes(nodeName, attachedVolumes);
  }

  private *processNodeVolumes(nodeName: string, attachedVolumes: AttachedVolume[]): Co<GoError | undefined> {
    // If node does not exist, its status cannot be updated.
    // Do nothing so that there is no retry until node is created.
    if (this.nodeLister(nodeName) === undefined) return undefined;
    const err = yield* this.kubeClient.patchNodeVolumesAttached(nodeName, attachedVolumes);
    if (err !== undefined) {
      // If update node status fails, reset flag statusUpdateNeeded back to true
      // to indicate this node status needs to be updated again
      this.actualStateOfWorld.setNodeStatusUpdateNeeded(nodeName);
      return err;
    }
    return undefined;
  }
}
