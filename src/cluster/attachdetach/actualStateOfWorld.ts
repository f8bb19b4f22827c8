// Ported from kubernetes pkg/controller/volume/attachdetach/cache/actual_state_of_world.go, release-1.23.
// The controller's belief of which volume is attached to which node: confirmed or uncertain (an attach
// that failed, maybe half-way), whether the node has it mounted (assumed until node.status.volumesInUse
// says otherwise), when a detach was first wanted, and per node the volumes to report in
// node.status.volumesAttached. Go maps iterate in random order; these iterate in insertion order, which
// the simulation makes deterministic.
import { GoError } from '../../api/errors.js';
import type { UniqueVolumeName, AttachedVolume as V1AttachedVolume } from '../../api/v1.js';
import type { Spec } from '../../volume/volume.js';
import {
  type ActualStateOfWorldAttacherUpdater,
  type AttachDetachVolumePluginMgr,
  getUniqueVolumeNameFromSpec,
  type OperationAttachedVolume,
} from './operations.js';

/** AttachState: what GetAttachState answers. */
export type AttachState = 'Attached' | 'Uncertain' | 'Detached';
export const AttachStateAttached: AttachState = 'Attached';
export const AttachStateUncertain: AttachState = 'Uncertain';
export const AttachStateDetached: AttachState = 'Detached';

/** cache.AttachedVolume: a (volume, node) pair with the controller's bookkeeping. */
export interface AttachedVolume extends OperationAttachedVolume {
  /** The node has it mounted (unsafe to detach); set and unset by SetVolumeMountedByNode. */
  readonly mountedByNode: boolean;
  /** When the controller first wanted to detach it (virtual ms); undefined is Go's zero time. */
  readonly detachRequestedTimeMs: number | undefined;
}

interface NodeAttachedTo {
  readonly nodeName: string;
  mountedByNode: boolean;
  /** The storage system confirmed the attachment; false after a failed (maybe half-done) attach. */
  attachedConfirmed: boolean;
  detachRequestedTimeMs: number | undefined;
}

interface AttachedVolumeObj {
  readonly volumeName: UniqueVolumeName;
  spec: Spec | undefined;
  readonly nodesAttachedTo: Map<string, NodeAttachedTo>;
  devicePath: string;
}

interface NodeToUpdateStatusFor {
  readonly nodeName: string;
  /** node.status.volumesAttached must be written again (set on every change, reset when read). */
  statusUpdateNeeded: boolean;
  readonly volumesToReportAsAttached: Map<UniqueVolumeName, UniqueVolumeName>;
}

export class ActualStateOfWorld implements ActualStateOfWorldAttacherUpdater {
  private readonly attachedVolumes = new Map<UniqueVolumeName, AttachedVolumeObj>();
  private readonly nodesToUpdateStatusFor = new Map<string, NodeToUpdateStatusFor>();
  /**
   * Simulator addition: counts every change (src/sim/elision.ts), so that a reconciler pass that changed
   * nothing is known to be idle, and a node delivery that changed nothing here need not wake it.
   */
  version = 0;

  constructor(
    private readonly volumePluginMgr: AttachDetachVolumePluginMgr,
    /** time.Now for the detach request time. */
    private readonly now: () => number,
  ) {}

  markVolumeAsUncertain(
    uniqueName: UniqueVolumeName,
    volumeSpec: Spec | undefined,
    nodeName: string,
  ): GoError | undefined {
    return this.addVolumeNode(uniqueName, volumeSpec, nodeName, '', false).err;
  }

  markVolumeAsAttached(
    uniqueName: UniqueVolumeName,
    volumeSpec: Spec | undefined,
    nodeName: string,
    devicePath: string,
  ): GoError | undefined {
    return this.addVolumeNode(uniqueName, volumeSpec, nodeName, devicePath, true).err;
  }

  markVolumeAsDetached(volumeName: UniqueVolumeName, nodeName: string): void {
    this.deleteVolumeNode(volumeName, nodeName);
  }

  removeVolumeFromReportAsAttached(volumeName: UniqueVolumeName, nodeName: string): GoError | undefined {
    const nodeToUpdate = this.nodesToUpdateStatusFor.get(nodeName);
    if (nodeToUpdate?.volumesToReportAsAttached.has(volumeName) === true) {
      nodeToUpdate.statusUpdateNeeded = true;
      nodeToUpdate.volumesToReportAsAttached.delete(volumeName);
      this.version++;
      return undefined;
    }
    return new GoError(
      `volume "${volumeName}" does not exist in volumesToReportAsAttached list or node "${nodeName}" does ` +
        'not exist in nodesToUpdateStatusFor list',
    );
  }

  addVolumeToReportAsAttached(volumeName: UniqueVolumeName, nodeName: string): void {
    // In case the volume/node entry is no longer in attachedVolume list, skip the rest
    if (this.getNodeAndVolume(volumeName, nodeName) === undefined) return;
    let nodeToUpdate = this.nodesToUpdateStatusFor.get(nodeName);
    if (nodeToUpdate === undefined) {
      nodeToUpdate = { nodeName, statusUpdateNeeded: true, volumesToReportAsAttached: new Map() };
      this.nodesToUpdateStatusFor.set(nodeName, nodeToUpdate);
      this.version++;
    }
    if (!nodeToUpdate.volumesToReportAsAttached.has(volumeName)) {
      nodeToUpdate.statusUpdateNeeded = true;
      nodeToUpdate.volumesToReportAsAttached.set(volumeName, volumeName);
      this.version++;
    }
  }

  /**
   * AddVolumeNode: a new (volume, node) is assumed mounted by the node "until proven otherwise"; an
   * existing one keeps its mount and detach state and only changes its confirmation.
   */
  addVolumeNode(
    uniqueName: UniqueVolumeName,
    volumeSpec: Spec | undefined,
    nodeName: string,
    devicePath: string,
    isAttached: boolean,
  ): { value: UniqueVolumeName; err: GoError | undefined } {
    let volumeName = uniqueName;
    if (volumeName === '') {
      if (volumeSpec === undefined) {
        return { value: '', err: new GoError('volumeSpec cannot be nil if volumeName is empty') };
      }
      const attachableVolumePlugin = this.volumePluginMgr.findAttachablePluginBySpec(volumeSpec);
      if (attachableVolumePlugin === undefined) {
        return {
          value: '',
          err: new GoError(
            `failed to get AttachablePlugin from volumeSpec for volume "${volumeSpec.name}" err=plugin do not support attachment`,
          ),
        };
      }
      volumeName = getUniqueVolumeNameFromSpec(attachableVolumePlugin, volumeSpec);
    }
    // Even a repeated call may change the device path, the spec or the confirmation: count it.
    this.version++;
    let volumeObj = this.attachedVolumes.get(volumeName);
    if (volumeObj === undefined) {
      volumeObj = { volumeName, spec: volumeSpec, nodesAttachedTo: new Map(), devicePath };
      this.attachedVolumes.set(volumeName, volumeObj);
    } else {
      // If volume object already exists, it indicates that the information would be out of date.
      // Update the fields for volume object except the nodes attached to the volumes.
      volumeObj.devicePath = devicePath;
      volumeObj.spec = volumeSpec;
    }
    const node = volumeObj.nodesAttachedTo.get(nodeName);
    if (node === undefined) {
      volumeObj.nodesAttachedTo.set(nodeName, {
        nodeName,
        mountedByNode: true, // Assume mounted, until proven otherwise
        attachedConfirmed: isAttached,
        detachRequestedTimeMs: undefined,
      });
    } else {
      node.attachedConfirmed = isAttached;
    }
    if (isAttached) this.addVolumeToReportAsAttached(volumeName, nodeName);
    return { value: volumeName, err: undefined };
  }

  setVolumeMountedByNode(
    volumeName: UniqueVolumeName,
    nodeName: string,
    mounted: boolean,
  ): GoError | undefined {
    const found = this.getNodeAndVolume(volumeName, nodeName);
    if (found === undefined) {
      return new GoError(
        `failed to SetVolumeMountedByNode with error: volume ${volumeName} is no longer attached to the node "${nodeName}"`,
      );
    }
    if (found.node.mountedByNode !== mounted) {
      found.node.mountedByNode = mounted;
      this.version++;
    }
    return undefined;
  }

  /** SetNodeStatusUpdateNeeded: the node status updater failed; write the node's list again. */
  setNodeStatusUpdateNeeded(nodeName: string): void {
    const nodeToUpdate = this.nodesToUpdateStatusFor.get(nodeName);
    if (nodeToUpdate !== undefined && !nodeToUpdate.statusUpdateNeeded) {
      nodeToUpdate.statusUpdateNeeded = true;
      this.version++;
    }
  }

  resetDetachRequestTime(volumeName: UniqueVolumeName, nodeName: string): void {
    const found = this.getNodeAndVolume(volumeName, nodeName);
    if (found === undefined || found.node.detachRequestedTimeMs === undefined) return;
    found.node.detachRequestedTimeMs = undefined;
    this.version++;
  }

  /** SetDetachRequestTime: the first request's time stays; returns how long ago it was. */
  setDetachRequestTime(
    volumeName: UniqueVolumeName,
    nodeName: string,
  ): { value: number; err: GoError | undefined } {
    const found = this.getNodeAndVolume(volumeName, nodeName);
    if (found === undefined) {
      return {
        value: 0,
        err: new GoError(
          `failed to set detach request time with error: volume ${volumeName} is no longer attached to the node "${nodeName}"`,
        ),
      };
    }
    // If there is no previous detach request, set it to the current time
    if (found.node.detachRequestedTimeMs === undefined) {
      found.node.detachRequestedTimeMs = this.now();
      this.version++;
    }
    return { value: this.now() - found.node.detachRequestedTimeMs, err: undefined };
  }

  deleteVolumeNode(volumeName: UniqueVolumeName, nodeName: string): void {
    const volumeObj = this.attachedVolumes.get(volumeName);
    if (volumeObj === undefined) return;
    if (volumeObj.nodesAttachedTo.delete(nodeName)) this.version++;
    if (volumeObj.nodesAttachedTo.size === 0) this.attachedVolumes.delete(volumeName);
    // Remove volume from volumes to report as attached
    this.removeVolumeFromReportAsAttached(volumeName, nodeName);
  }

  getAttachState(volumeName: UniqueVolumeName, nodeName: string): AttachState {
    const node = this.attachedVolumes.get(volumeName)?.nodesAttachedTo.get(nodeName);
    if (node === undefined) return AttachStateDetached;
    return node.attachedConfirmed ? AttachStateAttached : AttachStateUncertain;
  }

  /** GetAttachedVolumes: every (volume, node), confirmed or uncertain. */
  getAttachedVolumes(): AttachedVolume[] {
    const out: AttachedVolume[] = [];
    for (const volumeObj of this.attachedVolumes.values())
      for (const nodeObj of volumeObj.nodesAttachedTo.values())
        out.push(getAttachedVolume(volumeObj, nodeObj));
    return out;
  }

  getAttachedVolumesForNode(nodeName: string): AttachedVolume[] {
    const out: AttachedVolume[] = [];
    for (const volumeObj of this.attachedVolumes.values()) {
      const nodeObj = volumeObj.nodesAttachedTo.get(nodeName);
      if (nodeObj !== undefined) out.push(getAttachedVolume(volumeObj, nodeObj));
    }
    return out;
  }

  /** GetNodesForAttachedVolume: the nodes with a confirmed attachment (an uncertain one does not count). */
  getNodesForAttachedVolume(volumeName: UniqueVolumeName): string[] {
    const volumeObj = this.attachedVolumes.get(volumeName);
    if (volumeObj === undefined) return [];
    const nodes: string[] = [];
    for (const [nodeName, nodeObj] of volumeObj.nodesAttachedTo)
      if (nodeObj.attachedConfirmed) nodes.push(nodeName);
    return nodes;
  }

  /**
   * GetVolumesToReportAttached: for every node whose status needs writing, the volumes to report; every
   * node's statusUpdateNeeded is reset, as the node status updater is about to write them.
   */
  getVolumesToReportAttached(): Map<string, V1AttachedVolume[]> {
    const out = new Map<string, V1AttachedVolume[]>();
    for (const nodeToUpdate of this.nodesToUpdateStatusFor.values()) {
      if (nodeToUpdate.statusUpdateNeeded) {
        out.set(
          nodeToUpdate.nodeName,
          this.getAttachedVolumeFromUpdateObject(nodeToUpdate.volumesToReportAsAttached),
        );
        this.version++;
      }
      nodeToUpdate.statusUpdateNeeded = false;
    }
    return out;
  }

  /** GetVolumesToReportAttachedForNode: [needs an update, the volumes]; resets statusUpdateNeeded. */
  getVolumesToReportAttachedForNode(nodeName: string): [boolean, V1AttachedVolume[]] {
    const nodeToUpdate = this.nodesToUpdateStatusFor.get(nodeName);
    if (nodeToUpdate === undefined || !nodeToUpdate.statusUpdateNeeded) return [false, []];
    const volumes = this.getAttachedVolumeFromUpdateObject(nodeToUpdate.volumesToReportAsAttached);
    nodeToUpdate.statusUpdateNeeded = false;
    this.version++;
    return [true, volumes];
  }

  private getAttachedVolumeFromUpdateObject(
    volumesToReportAsAttached: Map<UniqueVolumeName, UniqueVolumeName>,
  ): V1AttachedVolume[] {
    return [...volumesToReportAsAttached.values()].map((volume) => ({
      name: volume,
      devicePath: this.attachedVolumes.get(volume)?.devicePath ?? '',
    }));
  }

  private getNodeAndVolume(
    volumeName: UniqueVolumeName,
    nodeName: string,
  ): { volume: AttachedVolumeObj; node: NodeAttachedTo } | undefined {
    const volume = this.attachedVolumes.get(volumeName);
    const node = volume?.nodesAttachedTo.get(nodeName);
    return volume === undefined || node === undefined ? undefined : { volume, node };
  }
}

function getAttachedVolume(volumeObj: AttachedVolumeObj, nodeObj: NodeAttachedTo): AttachedVolume {
  return {
    volumeName: volumeObj.volumeName,
    volumeSpec: volumeObj.spec,
    nodeName: nodeObj.nodeName,
    devicePath: volumeObj.devicePath,
    pluginIsAttachable: true,
    mountedByNode: nodeObj.mountedByNode,
    detachRequestedTimeMs: nodeObj.detachRequestedTimeMs,
  };
}
