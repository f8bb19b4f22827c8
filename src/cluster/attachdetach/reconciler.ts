// Ported from kubernetes pkg/controller/volume/attachdetach/reconciler/reconciler.go, release-1.23; the
// detach decision of release-1.31 (the NewReconciler with disableForceDetachOnTimeout that
// attach_detach_controller.go of a v1.31.0-rc.1 tree calls; v1.28.0's is the same less #120344) where fix
// `no-force-detach-healthy-node` is on; hasOutOfServiceTaint (KEP-2268, non-graceful node shutdown) as in
// reconciler.go of v1.28.0 (GA: the NodeOutOfServiceVolumeDetach gate locked on, so no gate check).
// Every loopPeriod: detach what is attached but no longer desired (once the node has unmounted it, or
// after maxWaitForUnmountDuration), then attach what is desired, then write node statuses. Detach and
// attach run as operations (their own goroutines) with exponential backoff after a failure.
//
// The periodic sync with the storage (syncStates -> VerifyVolumesAreAttached, every
// --attach-detach-reconcile-sync-period) is not modelled: nothing detaches a simulated volume behind the
// controller's back, and FC / iSCSI VolumesAreAttached always answer true, so it would never change
// the actual state.
import type { GoError } from '../../api/errors.js';
import { type Node, type Pod, TaintNodeOutOfService, taintKeyExists } from '../../api/v1.js';
import type { Fact } from '../../facts.js';
import type { Fixes } from '../../fixes.js';
import { type Co, roundLoop, type Sim } from '../../sim/index.js';
import { EmptyNodeName, EmptyUniquePodName } from '../../volume/util/nestedPendingOperations.js';
import { isMultiAttachAllowed } from '../../volume/volume.js';
import { isNodeReady, nodeMonitorGracePeriodMs } from '../nodeLifecycle.js';
import { type ActualStateOfWorld, AttachStateAttached, AttachStateDetached } from './actualStateOfWorld.js';
import type { DesiredStateOfWorld } from './desiredStateOfWorld.js';
import { ADC_WRITES_STATE } from './elisionMasks.js';
import type { NodeStatusUpdater } from './nodeStatusUpdater.js';
import {
  DetachOperationName,
  type OperationExecutor,
  type VolumeToAttach,
  volumeToAttachMsg,
} from './operations.js';

/** record.EventRecorder, the part the reconciler uses. */
export interface EventRecorder {
  eventf(pod: Pod, eventType: 'Normal' | 'Warning', reason: string, message: string): void;
}

/** kevents.FailedAttachVolume. */
export const FailedAttachVolume = 'FailedAttachVolume';

export interface ReconcilerOptions {
  readonly loopPeriodMs: number;
  readonly maxWaitForUnmountDurationMs: number;
  /**
   * kube-controller-manager --disable-force-detach-on-timeout (#120344, 1.30): maxWaitForUnmountDuration
   * passing no longer lets a detach skip the node's volumesInUse. Default false.
   */
  readonly disableForceDetachOnTimeout?: boolean | undefined;
  readonly desiredStateOfWorld: DesiredStateOfWorld;
  readonly actualStateOfWorld: ActualStateOfWorld;
  readonly attacherDetacher: OperationExecutor;
  readonly nodeStatusUpdater: NodeStatusUpdater;
  readonly recorder: EventRecorder;
  readonly fixes: Fixes;
  /** The node informer's lister (PR #110721's nodeIsHealthy reads the node's Ready condition there). */
  readonly nodeLister: (name: string) => Node | undefined;
  /** The node's Lease renewTime, from which the node lifecycle controller derives Ready. */
  readonly nodeLeaseRenewTimeMs: (name: string) => number | undefined;
  readonly now: () => number;
  readonly publish: (fact: Fact) => void;
  /** The kernel, for the elision of idle passes (src/sim/elision.ts); without it, plain sleeps. */
  readonly sim?: Sim | undefined;
  /** The controller's elision domain: a pass reads the controller's caches and the clock only. */
  readonly domain?: number | undefined;
}

export class Reconciler {
  constructor(private readonly o: ReconcilerOptions) {}

  /** Run: wait.Until(reconciliationLoopFunc, loopPeriod): the period starts after each pass. */
  *run(): Co<void> {
    const loop = roundLoop(this.o.sim, this.o.loopPeriodMs, {
      version: () => this.o.actualStateOfWorld.version,
      readsDomain: this.o.domain,
      // Not the pod informer's cache: the desired state carries what the reconciler needs of pods.
      readMask: ADC_WRITES_STATE,
    });
    for (;;) {
      loop.begin();
      yield* this.reconciliationLoopFunc();
      yield* loop.end();
    }
  }

  *reconciliationLoopFunc(): Co<void> {
    yield* this.reconcile();
  }

  private *reconcile(): Co<void> {
    const { desiredStateOfWorld: dsw, actualStateOfWorld: asw, attacherDetacher } = this.o;
    // Detaches are triggered before attaches so that volumes referenced by
    // pods that are rescheduled to a different node are detached first.

    // Ensure volumes that should be detached are detached.
    for (const attachedVolume of asw.getAttachedVolumes()) {
      if (dsw.volumeExists(attachedVolume.volumeName, attachedVolume.nodeName)) continue;
      // Check whether there already exist an operation pending, and don't even
      // try to start an operation if there is already one running.
      // This check must be done before we do any other checks, as otherwise the other checks
      // may pass while at the same time the volume leaves the pending state, resulting in
      // double detach attempts
      // The operation key format is different depending on whether the volume
      // allows multi attach across different nodes.
      const keyNode = isMultiAttachAllowed(attachedVolume.volumeSpec)
        ? attachedVolume.nodeName
        : EmptyNodeName;
      if (
        !attacherDetacher.isOperationSafeToRetry(
          attachedVolume.volumeName,
          EmptyUniquePodName,
          keyNode,
          DetachOperationName,
        )
      ) {
        continue;
      }
      // Because the detach operation updates the ActualStateOfWorld before
      // marking itself complete, it's possible for the volume to be removed
      // from the ActualStateOfWorld between the GetAttachedVolumes() check
      // and the IsOperationPending() check above.
      // Check the ActualStateOfWorld again to avoid issuing an unnecessary
      // detach.
      // See https://github.com/kubernetes/kubernetes/issues/93902
      const attachState = asw.getAttachState(attachedVolume.volumeName, attachedVolume.nodeName);
      if (attachState === AttachStateDetached) continue;

      // Set the detach request time
      const elapsed = asw.setDetachRequestTime(attachedVolume.volumeName, attachedVolume.nodeName);
      if (elapsed.err !== undefined) continue;
      // Check whether the umount drain timer expired
      const maxWaitForUnmountDurationExpired = elapsed.value > this.o.maxWaitForUnmountDurationMs;
      // The timeout is a deadline of this pass: an idle reconciler must look again when it is reached.
      if (!maxWaitForUnmountDurationExpired)
        this.o.sim?.noteDeadline(this.o.now() - elapsed.value + this.o.maxWaitForUnmountDurationMs + 1);
      // PR #120344 (release-1.30): "Force detach volumes from unhealthy nodes after
      // maxWaitForUnmountDuration if force detach is enabled". It rewrote #110721's lines; with the fix
      // off (release-1.23's check, a hypothetical 1.31 without #110721) it gates that timeout the same way.
      const forceDetachTimeoutExpired =
        maxWaitForUnmountDurationExpired && this.o.disableForceDetachOnTimeout !== true;
      // KEP-2268: "Check whether volume is still mounted. Skip detach if it is still mounted unless force
      // detach timeout or the node has `node.kubernetes.io/out-of-service` taint." Neither the node's
      // Ready condition nor whether its kubelet still runs is asked: the administrator who set the taint
      // vouches that the node is shut down (an error reading the node leaves it false).
      const hasOutOfServiceTaint = this.hasOutOfServiceTaint(attachedVolume.nodeName);
      if (this.o.fixes.on('no-force-detach-healthy-node')) {
        // PR #110721 (release-1.25, 1.24 as #114168; the 1.23 cherry-pick #115353 was closed unmerged):
        // force detach only from an unhealthy node; a healthy node keeps a volume it still has mounted,
        // however long. reconciler.go at v1.28.0 and release-1.31:
        //   isHealthy, err := rc.nodeIsHealthy(attachedVolume.NodeName)   // an error leaves it false
        //   forceDetach := !isHealthy && forceDetachTimeoutExpired        // v1.28.0: && timeout
        //   if attachedVolume.MountedByNode && !forceDetach && !hasOutOfServiceTaint { continue }
        const isHealthy = this.nodeIsHealthy(attachedVolume.nodeName);
        const forceDetach = !isHealthy && forceDetachTimeoutExpired;
        if (attachedVolume.mountedByNode && !forceDetach && !hasOutOfServiceTaint) continue;
      } else {
        // Release-1.23: "Check whether volume is still mounted. Skip detach if it is still mounted unless
        // timeout". The timeout alone detaches, from a healthy node too: for FC / iSCSI, whose Detach does
        // nothing on the node, a volume whose UnmountDevice keeps failing stays mounted there while another
        // node attaches and mounts it (issue #106710, data corruption). (Release-1.23 has no out-of-service
        // taint; a scenario that sets one runs only a kube-controller-manager that reads it: 1.26 and later,
        // whose check is the one above. With #110721 off under such a release, the taint goes the same way.)
        if (attachedVolume.mountedByNode && !forceDetachTimeoutExpired && !hasOutOfServiceTaint) continue;
      }

      // Before triggering volume detach, mark volume as detached and update the node status
      // If it fails to update node status, skip detach volume
      // If volume detach operation fails, the volume needs to be added back to report as attached so that node status
      // has the correct volume attachment information.
      asw.removeVolumeFromReportAsAttached(attachedVolume.volumeName, attachedVolume.nodeName);

      // Update Node Status to indicate volume is no longer safe to mount.
      const statusErr = yield* this.o.nodeStatusUpdater.updateNodeStatusForNode(attachedVolume.nodeName);
      if (statusErr !== undefined) {
        // Skip detaching this volume if unable to update node status
        // Add volume back to ReportAsAttached if UpdateNodeStatusForNode call failed so that node status updater will add it back to VolumeAttached list.
        // It is needed here too because DetachVolume is not call actually and we keep the data consistency for every reconcile.
        asw.addVolumeToReportAsAttached(attachedVolume.volumeName, attachedVolume.nodeName);
        continue;
      }

      // Trigger detach volume which requires verifying safe to detach step
      // If forceDetachTimeoutExpired is true, skip verifySafeToDetach check
      // If the node has node.kubernetes.io/out-of-service taint with NoExecute effect, skip verifySafeToDetach check
      const verifySafeToDetach = !(forceDetachTimeoutExpired || hasOutOfServiceTaint);
      const forced = (forceDetachTimeoutExpired || hasOutOfServiceTaint) && attachedVolume.mountedByNode;
      const err: GoError | undefined = attacherDetacher.detachVolume(
        attachedVolume,
        verifySafeToDetach,
        asw,
        forced,
      );
      if (err === undefined) {
        this.o.publish({
          kind: 'volumeDetachStarted',
          atMs: this.o.now(),
          node: attachedVolume.nodeName,
          volume: attachedVolume.volumeName,
          forced,
          verifySafeToDetach,
          ...(hasOutOfServiceTaint ? { outOfService: true as const } : {}),
        });
        // The path upstream keeps open (#110721 force-detaches exactly here): a node that is not Ready may
        // still run its pods on the volume (a partition cuts only its API server), and its kubelet never
        // learns of this detach (#119273). The health is read again only for a forced detach. A detach the
        // out-of-service taint forced is not this hazard: upstream documents that the taint may be set
        // only on a node that is shut down, so one set on a running node is the administrator's error,
        // and what it breaks stays unexplained.
        if (forceDetachTimeoutExpired && forced && !this.nodeIsHealthy(attachedVolume.nodeName)) {
          this.o.publish({
            kind: 'forceDetachUnhealthyNode',
            atMs: this.o.now(),
            node: attachedVolume.nodeName,
            volume: attachedVolume.volumeName,
          });
        }
      } else {
        // Add volume back to ReportAsAttached if DetachVolume call failed so that node status updater will add it back to VolumeAttached list.
        // This function is also called during executing the volume detach operation in operation_generoator.
        // It is needed here too because DetachVolume call might fail before executing the actual operation in operation_executor (e.g., cannot find volume plugin etc.)
        // (An exponential backoff error is expected; upstream only logs the others.)
        asw.addVolumeToReportAsAttached(attachedVolume.volumeName, attachedVolume.nodeName);
      }
    }

    this.attachDesiredVolumes();

    // Update Node Status
    yield* this.o.nodeStatusUpdater.updateNodeStatuses();
  }

  private attachDesiredVolumes(): void {
    const { desiredStateOfWorld: dsw, actualStateOfWorld: asw, attacherDetacher } = this.o;
    // Ensure volumes that should be attached are attached.
    for (const volumeToAttach of dsw.getVolumesToAttach()) {
      // Don't even try to start an operation if there is already one running for the given volume (and node,
      // for a volume that may be attached to several nodes).
      const keyNode = isMultiAttachAllowed(volumeToAttach.volumeSpec)
        ? volumeToAttach.nodeName
        : EmptyNodeName;
      if (attacherDetacher.isOperationPending(volumeToAttach.volumeName, EmptyUniquePodName, keyNode))
        continue;

      // Because the attach operation updates the ActualStateOfWorld before
      // marking itself complete, IsOperationPending() must be checked before
      // GetAttachState() to guarantee the ActualStateOfWorld is
      // up-to-date when it's read.
      // See https://github.com/kubernetes/kubernetes/issues/93902
      const attachState = asw.getAttachState(volumeToAttach.volumeName, volumeToAttach.nodeName);
      if (attachState === AttachStateAttached) {
        // Volume/Node exists, touch it to reset detachRequestedTime
        asw.resetDetachRequestTime(volumeToAttach.volumeName, volumeToAttach.nodeName);
        continue;
      }

      if (!isMultiAttachAllowed(volumeToAttach.volumeSpec)) {
        // Only confirmed attachments count: a volume whose attach to another node is uncertain may be
        // attached here.
        const nodes = asw.getNodesForAttachedVolume(volumeToAttach.volumeName);
        if (nodes.length > 0) {
          if (!volumeToAttach.multiAttachErrorReported) {
            this.reportMultiAttachError(volumeToAttach, nodes);
            dsw.setMultiAttachError(volumeToAttach.volumeName, volumeToAttach.nodeName);
          }
          continue;
        }
      }

      // Volume/Node doesn't exist, spawn a goroutine to attach it
      // (an exponential backoff error is expected while a failed attach waits for its retry)
      attacherDetacher.attachVolume(volumeToAttach, asw);
    }
  }

  /**
   * reportMultiAttachError sends events and logs situation that a volume that should be attached to a
   * node is already attached to different node(s); the simulator also publishes a fact.
   */
  reportMultiAttachError(volumeToAttach: VolumeToAttach, nodes: readonly string[]): void {
    // Filter out the current node from list of nodes where the volume is attached.
    const otherNodes = nodes.filter((node) => node !== volumeToAttach.nodeName);
    // Get list of pods that use the volume on the other nodes.
    const pods = this.o.desiredStateOfWorld.getVolumePodsOnNodes(otherNodes, volumeToAttach.volumeName);
    this.o.publish({
      kind: 'multiAttachError',
      atMs: this.o.now(),
      node: volumeToAttach.nodeName,
      volume: volumeToAttach.volumeName,
      attachedTo: otherNodes,
      uids: volumeToAttach.scheduledPods.map((p) => p.metadata.uid),
      pods: volumeToAttach.scheduledPods.map((p) => p.metadata.name),
      usedBy: pods.map((p) => `${p.metadata.namespace}/${p.metadata.name}`),
    });
    if (pods.length === 0) {
      // We did not find any pods that requests the volume. The pod must have been deleted already.
      const [simpleMsg] = volumeToAttachMsg(
        volumeToAttach,
        'Multi-Attach error',
        "Volume is already exclusively attached to one node and can't be attached to another",
      );
      for (const pod of volumeToAttach.scheduledPods)
        this.o.recorder.eventf(pod, 'Warning', FailedAttachVolume, simpleMsg);
      return;
    }
    // There are pods that require the volume and run on another node. Typically
    // it's user error, e.g. a ReplicaSet uses a PVC and has >1 replicas. Let
    // the user know what pods are blocking the volume.
    for (const scheduledPod of volumeToAttach.scheduledPods) {
      // Each scheduledPod must get a custom message. They can run in
      // different namespaces and user of a namespace should not see names of
      // pods in other namespaces.
      const localPodNames: string[] = []; // Names of pods in scheduledPods's namespace
      let otherPods = 0; // Count of pods in other namespaces
      for (const pod of pods) {
        if (pod.metadata.namespace === scheduledPod.metadata.namespace) localPodNames.push(pod.metadata.name);
        else otherPods++;
      }
      let msg: string;
      if (localPodNames.length > 0) {
        msg = `Volume is already used by pod(s) ${localPodNames.join(', ')}`;
        if (otherPods > 0) msg = `${msg} and ${otherPods} pod(s) in different namespaces`;
      } else {
        // No local pods, there are pods only in different namespaces.
        msg = `Volume is already used by ${otherPods} pod(s) in different namespaces`;
      }
      const [simpleMsg] = volumeToAttachMsg(volumeToAttach, 'Multi-Attach error', msg);
      this.o.recorder.eventf(scheduledPod, 'Warning', FailedAttachVolume, simpleMsg);
    }
  }

  /**
   * hasOutOfServiceTaint returns true if the node has out-of-service taint present (the node informer's
   * copy; a node it does not have is an error upstream, read as false).
   */
  private hasOutOfServiceTaint(nodeName: string): boolean {
    const node = this.o.nodeLister(nodeName);
    if (node === undefined) return false;
    return taintKeyExists(node.spec?.taints ?? [], TaintNodeOutOfService);
  }

  /** PR #110721's nodeIsHealthy: the node's Ready condition, from the node informer; unknown is unhealthy. */
  private nodeIsHealthy(nodeName: string): boolean {
    const node = this.o.nodeLister(nodeName);
    const renewTimeMs = this.o.nodeLeaseRenewTimeMs(nodeName);
    if (node === undefined || renewTimeMs === undefined) return false;
    // Ready turns Unknown when the Lease is too old: a deadline of this pass (src/sim/elision.ts).
    this.o.sim?.noteDeadline(renewTimeMs + nodeMonitorGracePeriodMs);
    return isNodeReady(renewTimeMs, this.o.now());
  }
}
