// Ported from kubernetes pkg/controller/volume/attachdetach/attach_detach_controller.go, release-1.23, with
// release-1.31's disableForceDetachOnTimeout parameter of NewAttachDetachController (read in a v1.31.0-rc.1
// tree), which it hands to NewReconciler.
// The controller's informers (pods and nodes, watched through the simulated API server with their own
// seeded delivery delays), its caches, the operation executor, the node status updater, the reconciler
// (100 ms) and the desired state populator (1 min). FC and iSCSI Attach / Detach are no-ops (the node
// does the work), so for them this bookkeeping is the only protection of a ReadWriteOnce LUN: the root
// of the #101791 and #106710 corruption stories.
//
// Not modelled: PVCs (pods name their PersistentVolumes), CSI migration, VolumeAttachment objects at
// start-up (processVolumeAttachments), node deletion, and a controller restart.
import type { Node, Pod, UniqueVolumeName } from '../../api/v1.js';
import type { Fact } from '../../facts.js';
import type { Fixes } from '../../fixes.js';
import type { Sim } from '../../sim/index.js';
import { NestedPendingOperations } from '../../volume/util/nestedPendingOperations.js';
import type { ControllerClient, NodeWatchHandler, WatchHandler } from '../apiServer.js';
import { ActualStateOfWorld, AttachStateAttached } from './actualStateOfWorld.js';
import { DesiredStateOfWorld } from './desiredStateOfWorld.js';
import { DesiredStateOfWorldPopulator, type PodLister } from './desiredStateOfWorldPopulator.js';
import { ADC_WRITES_NODE_CACHE, ADC_WRITES_POD_CACHE, ADC_WRITES_STATE } from './elisionMasks.js';
import { type NodeStatusUpdater, newNodeStatusUpdater } from './nodeStatusUpdater.js';
import {
  type AttachDetachVolumePluginMgr,
  getUniqueVolumeNameFromSpec,
  OperationExecutor,
  OperationGenerator,
} from './operations.js';
import { type EventRecorder, Reconciler } from './reconciler.js';
import { determineVolumeAction, processPodVolumes, type VolumeSpecLister } from './util.js';

/** TimerConfig (DefaultTimerConfig). */
export interface TimerConfig {
  readonly reconcilerLoopPeriodMs: number;
  /** After this long, the controller assumes the node or kubelet is unresponsive and detaches anyway. */
  readonly reconcilerMaxWaitForUnmountDurationMs: number;
  readonly desiredStateOfWorldPopulatorLoopSleepPeriodMs: number;
  readonly desiredStateOfWorldPopulatorListPodsRetryDurationMs: number;
}

export const DefaultTimerConfig: TimerConfig = {
  reconcilerLoopPeriodMs: 100,
  reconcilerMaxWaitForUnmountDurationMs: 6 * 60_000,
  desiredStateOfWorldPopulatorLoopSleepPeriodMs: 60_000,
  desiredStateOfWorldPopulatorListPodsRetryDurationMs: 3 * 60_000,
};

/** What the controller needs of the API server: two informers and a client. */
export interface AttachDetachControllerAPI {
  watchPods(
    name: string,
    handler: WatchHandler,
    onSynced: () => void,
    domain?: number,
    writeMask?: number,
  ): void;
  watchNodes(
    name: string,
    handler: NodeWatchHandler,
    onSynced: () => void,
    domain?: number,
    writeMask?: number,
  ): void;
  controllerClient(name: string): ControllerClient;
  /**
   * The node's Lease renewTime: what the node lifecycle controller turns into the node's Ready
   * condition (src/cluster/nodeLifecycle.ts), which the controller reads through its node informer.
   */
  nodeLeaseRenewTimeMs(nodeName: string): number | undefined;
}

export interface AttachDetachControllerOptions {
  readonly sim: Sim;
  readonly api: AttachDetachControllerAPI;
  readonly volumePluginMgr: AttachDetachVolumePluginMgr;
  readonly volumeSpecLister: VolumeSpecLister;
  readonly fixes: Fixes;
  /**
   * kube-controller-manager --disable-force-detach-on-timeout (AttachDetachControllerConfiguration's
   * DisableForceDetachOnTimeout, passed to NewReconciler; #120344, from 1.30): default false.
   */
  readonly disableForceDetachOnTimeout?: boolean | undefined;
  readonly publish: (fact: Fact) => void;
  readonly timerConfig?: TimerConfig | undefined;
  readonly recorder?: EventRecorder | undefined;
  /**
   * The controller's elision domain (src/sim/elision.ts): its informers' deliveries and its populator
   * change its caches alone; its reconciler and operations write the API server, which anyone may read.
   */
  readonly domain?: number | undefined;
}

const CONTROLLER_NAME = 'attachdetach-controller';

export class AttachDetachController {
  readonly desiredStateOfWorld: DesiredStateOfWorld;
  readonly actualStateOfWorld: ActualStateOfWorld;
  readonly attacherDetacher: OperationExecutor;
  readonly nodeStatusUpdater: NodeStatusUpdater;
  readonly reconciler: Reconciler;
  readonly desiredStateOfWorldPopulator: DesiredStateOfWorldPopulator;
  /** The pod informer's store, keyed namespace/name. */
  private readonly pods = new Map<string, Pod>();
  /** The node informer's store. */
  private readonly nodes = new Map<string, Node>();
  private podsSynced = false;
  private nodesSynced = false;
  private running = false;

  constructor(private readonly o: AttachDetachControllerOptions) {
    const timers = o.timerConfig ?? DefaultTimerConfig;
    const now = (): number => o.sim.nowMs;
    const client = o.api.controllerClient(CONTROLLER_NAME);
    const nodeLister = (name: string): Node | undefined => this.nodes.get(name);
    this.desiredStateOfWorld = new DesiredStateOfWorld(o.volumePluginMgr);
    this.actualStateOfWorld = new ActualStateOfWorld(o.volumePluginMgr, now);
    this.attacherDetacher = new OperationExecutor(
      new NestedPendingOperations(o.sim, undefined),
      new OperationGenerator({
        volumePluginMgr: o.volumePluginMgr,
        fixes: o.fixes,
        getNode: (name) => client.getNode(name),
        now,
        publish: o.publish,
      }),
    );
    this.nodeStatusUpdater = newNodeStatusUpdater(client, nodeLister, this.actualStateOfWorld);
    this.reconciler = new Reconciler({
      loopPeriodMs: timers.reconcilerLoopPeriodMs,
      maxWaitForUnmountDurationMs: timers.reconcilerMaxWaitForUnmountDurationMs,
      disableForceDetachOnTimeout: o.disableForceDetachOnTimeout === true,
      desiredStateOfWorld: this.desiredStateOfWorld,
      actualStateOfWorld: this.actualStateOfWorld,
      attacherDetacher: this.attacherDetacher,
      nodeStatusUpdater: this.nodeStatusUpdater,
      recorder: o.recorder ?? { eventf: () => {} },
      fixes: o.fixes,
      nodeLister,
      nodeLeaseRenewTimeMs: (name) => o.api.nodeLeaseRenewTimeMs(name),
      now,
      publish: o.publish,
      sim: o.sim,
      domain: o.domain,
    });
    const podLister: PodLister = {
      get: (namespace, name) => this.pods.get(`${namespace}/${name}`),
      list: () => [...this.pods.values()],
    };
    this.desiredStateOfWorldPopulator = new DesiredStateOfWorldPopulator({
      loopSleepDurationMs: timers.desiredStateOfWorldPopulatorLoopSleepPeriodMs,
      listPodsRetryDurationMs: timers.desiredStateOfWorldPopulatorListPodsRetryDurationMs,
      podLister,
      desiredStateOfWorld: this.desiredStateOfWorld,
      volumePluginMgr: o.volumePluginMgr,
      volumeSpecLister: o.volumeSpecLister,
      now,
    });
  }

  /**
   * Starts the informers (their event handlers run from the first LIST event on); Run waits for both
   * caches to sync (WaitForNamedCacheSync), populates both states of world, then starts the loops.
   */
  start(): void {
    this.o.api.watchPods(
      CONTROLLER_NAME,
      (type, pod) => {
        const key = `${pod.metadata.namespace}/${pod.metadata.name}`;
        // The delivery writes the informer's cache (ADC_WRITES_POD_CACHE); the desired state only if the
        // pod's volumes change it, which the reconciler must then see.
        const dswVersion = this.desiredStateOfWorld.version;
        if (type === 'DELETED') {
          this.pods.delete(key);
          this.podDelete(pod);
        } else {
          this.pods.set(key, pod);
          if (type === 'ADDED') this.podAdd(pod);
          else this.podUpdate(pod);
        }
        if (this.desiredStateOfWorld.version !== dswVersion) this.o.sim.touch(ADC_WRITES_STATE);
      },
      () => {
        this.podsSynced = true;
        this.o.sim.touch(ADC_WRITES_STATE);
        this.run();
      },
      this.o.domain,
      ADC_WRITES_POD_CACHE,
    );
    this.o.api.watchNodes(
      CONTROLLER_NAME,
      (type, node) => {
        if (type === 'DELETED') return; // node deletion is not modelled
        // A status patch changes the informer's cache (ADC_WRITES_NODE_CACHE). The reconciler reads a
        // node as its Ready condition (from the Lease, whose expiry it holds as a deadline) and its taints
        // (hasOutOfServiceTaint): it must be woken if the update changed the desired or actual state or
        // the taints.
        const versions = this.desiredStateOfWorld.version + this.actualStateOfWorld.version;
        const taintsBefore = this.nodes.get(node.metadata.name)?.spec?.taints;
        this.nodes.set(node.metadata.name, node);
        if (type === 'ADDED') this.nodeAdd(node);
        else this.nodeUpdate(node);
        if (
          versions !== this.desiredStateOfWorld.version + this.actualStateOfWorld.version ||
          taintsBefore !== node.spec?.taints
        )
          this.o.sim.touch(ADC_WRITES_STATE);
      },
      () => {
        this.nodesSynced = true;
        this.o.sim.touch(ADC_WRITES_STATE);
        this.run();
      },
      this.o.domain,
      ADC_WRITES_NODE_CACHE,
    );
  }

  private run(): void {
    if (this.running || !this.podsSynced || !this.nodesSynced) return;
    this.running = true;
    this.populateActualStateOfWorld();
    this.populateDesiredStateOfWorld();
    this.o.sim.spawn(`${CONTROLLER_NAME}/reconciler`, this.reconciler.run(), undefined, 0);
    this.o.sim.spawn(
      `${CONTROLLER_NAME}/desiredStateOfWorldPopulator`,
      this.desiredStateOfWorldPopulator.run(),
      undefined,
      this.o.domain ?? 0,
    );
  }

  private populateActualStateOfWorld(): void {
    for (const node of this.nodes.values()) {
      const nodeName = node.metadata.name;
      for (const attachedVolume of node.status.volumesAttached) {
        // The nil VolumeSpec is safe only in the case the volume is not in use by any pod.
        // In such a case it should be detached in the first reconciliation cycle and the
        // volume spec is not needed to detach a volume. If the volume is used by a pod, it
        // its spec can be: this would happen during in the populateDesiredStateOfWorld which
        // scans the pods and updates their volumes in the ActualStateOfWorld too.
        const err = this.actualStateOfWorld.markVolumeAsAttached(
          attachedVolume.name,
          undefined,
          nodeName,
          attachedVolume.devicePath,
        );
        if (err !== undefined) continue;
        this.processVolumesInUse(nodeName, node.status.volumesInUse);
        this.addNodeToDswp(nodeName);
      }
    }
  }

  private populateDesiredStateOfWorld(): void {
    for (const pod of this.pods.values()) {
      this.podAdd(pod);
      const nodeName = pod.spec.nodeName;
      for (const podVolume of pod.spec.volumes) {
        // The volume specs present in the ActualStateOfWorld are nil, let's replace those
        // with the correct ones found on pods. The present in the ASW with no corresponding
        // pod will be detached and the spec is irrelevant.
        const volumeSpec = this.o.volumeSpecLister(podVolume);
        if (volumeSpec === undefined) continue;
        const plugin = this.o.volumePluginMgr.findAttachablePluginBySpec(volumeSpec);
        if (plugin === undefined) continue;
        const volumeName = getUniqueVolumeNameFromSpec(plugin, volumeSpec);
        if (this.actualStateOfWorld.getAttachState(volumeName, nodeName) !== AttachStateAttached) continue;
        const devicePath = this.getNodeVolumeDevicePath(volumeName, nodeName);
        if (devicePath === undefined) continue;
        this.actualStateOfWorld.markVolumeAsAttached(volumeName, volumeSpec, nodeName, devicePath);
      }
    }
  }

  private getNodeVolumeDevicePath(volumeName: UniqueVolumeName, nodeName: string): string | undefined {
    return this.nodes.get(nodeName)?.status.volumesAttached.find((v) => v.name === volumeName)?.devicePath;
  }

  private podAdd(pod: Pod): void {
    // Ignore pods without NodeName, indicating they are not scheduled.
    if (pod.spec.nodeName === '') return;
    const volumeActionFlag = determineVolumeAction(pod, this.desiredStateOfWorld, true);
    processPodVolumes(
      pod,
      volumeActionFlag,
      this.desiredStateOfWorld,
      this.o.volumePluginMgr,
      this.o.volumeSpecLister,
    );
  }

  private podUpdate(pod: Pod): void {
    this.podAdd(pod);
  }

  private podDelete(pod: Pod): void {
    processPodVolumes(pod, false, this.desiredStateOfWorld, this.o.volumePluginMgr, this.o.volumeSpecLister);
  }

  private nodeAdd(node: Node): void {
    this.nodeUpdate(node);
    // kubernetes/kubernetes/issues/37586
    // This is to workaround the case when a node add causes to wipe out
    // the attached volumes field. This function ensures that we sync with
    // the actual status.
    this.actualStateOfWorld.setNodeStatusUpdateNeeded(node.metadata.name);
  }

  private nodeUpdate(node: Node): void {
    this.addNodeToDswp(node.metadata.name);
    this.processVolumesInUse(node.metadata.name, node.status.volumesInUse);
  }

  /**
   * processVolumesInUse: the node's status.volumesInUse decides whether the controller believes each of
   * the node's attached volumes mounted (until then, a newly attached volume is assumed mounted).
   */
  private processVolumesInUse(nodeName: string, volumesInUse: readonly UniqueVolumeName[]): void {
    for (const attachedVolume of this.actualStateOfWorld.getAttachedVolumesForNode(nodeName)) {
      const mounted = volumesInUse.includes(attachedVolume.volumeName);
      this.actualStateOfWorld.setVolumeMountedByNode(attachedVolume.volumeName, nodeName, mounted);
    }
  }

  /**
   * addNodeToDswp: every simulated kubelet runs with --enable-controller-attach-detach (the node carries
   * the controller-managed-attach-detach annotation) and without keep-terminated-pod-volumes.
   */
  private addNodeToDswp(nodeName: string): void {
    this.desiredStateOfWorld.addNode(nodeName, false);
  }
}
