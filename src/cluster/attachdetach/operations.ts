// Ported from kubernetes pkg/volume/util/operationexecutor/{operation_executor.go,operation_generator.go}, release-1.23:
// the attach/detach controller's half (AttachVolume, DetachVolume, GenerateAttachVolumeFunc,
// GenerateDetachVolumeFunc, verifyVolumeIsSafeToDetach); GenerateDetachVolumeFunc's failure path also read
// at v1.31.12 (#120595). Operations run as their own goroutines through
// nestedpendingoperations, keyed by volume (and node for volumes that may attach to several nodes), with
// exponential backoff after a failure.
import { GoError } from '../../api/errors.js';
import type { Node, Pod, UniqueVolumeName } from '../../api/v1.js';
import type { Fact } from '../../facts.js';
import type { Fixes } from '../../fixes.js';
import type { Co } from '../../sim/index.js';
import {
  EmptyNodeName,
  EmptyUniquePodName,
  type GeneratedOperations,
  type NestedPendingOperations,
} from '../../volume/util/nestedPendingOperations.js';
import { isMultiAttachAllowed, type Result, type Spec } from '../../volume/volume.js';

export const AttachOperationName = 'volume_attach';
export const DetachOperationName = 'volume_detach';

/** volume.Attacher as the controller uses it: Attach only (WaitForAttach and MountDevice are the node's). */
export interface ControllerAttacher {
  attach(spec: Spec, nodeName: string): Co<Result<string>>;
}

/** volume.Detacher as the controller uses it: Detach only. */
export interface ControllerDetacher {
  detach(volumeName: string, nodeName: string): Co<GoError | undefined>;
}

/** volume.AttachableVolumePlugin, the controller's view. */
export interface AttachableVolumePlugin {
  getPluginName(): string;
  /** GetVolumeName: the name the plugin's Detach expects. */
  getVolumeName(spec: Spec): string;
  newAttacher(): ControllerAttacher;
  newDetacher(): ControllerDetacher;
}

/** The controller's volume.VolumePluginMgr. */
export interface AttachDetachVolumePluginMgr {
  findAttachablePluginBySpec(spec: Spec): AttachableVolumePlugin | undefined;
}

/**
 * util.GetUniqueVolumeNameFromSpec. Upstream: `<plugin name>/<volume name>`; the simulator's unique name
 * is the cluster volume's name (as the kubelet's port has it), so node status and facts speak scenario
 * names.
 */
export function getUniqueVolumeNameFromSpec(_plugin: AttachableVolumePlugin, spec: Spec): UniqueVolumeName {
  return spec.name;
}

/** operationexecutor.VolumeToAttach. */
export interface VolumeToAttach {
  readonly multiAttachErrorReported: boolean;
  readonly volumeName: UniqueVolumeName;
  readonly volumeSpec: Spec;
  readonly nodeName: string;
  readonly scheduledPods: readonly Pod[];
}

/** operationexecutor.AttachedVolume. */
export interface OperationAttachedVolume {
  readonly volumeName: UniqueVolumeName;
  /** Undefined for a volume found in node.status.volumesAttached at start-up and used by no pod. */
  readonly volumeSpec: Spec | undefined;
  readonly nodeName: string;
  readonly devicePath: string;
  readonly pluginIsAttachable: boolean;
}

/** operationexecutor.ActualStateOfWorldAttacherUpdater. */
export interface ActualStateOfWorldAttacherUpdater {
  markVolumeAsAttached(
    uniqueName: UniqueVolumeName,
    volumeSpec: Spec | undefined,
    nodeName: string,
    devicePath: string,
  ): GoError | undefined;
  markVolumeAsUncertain(
    uniqueName: UniqueVolumeName,
    volumeSpec: Spec | undefined,
    nodeName: string,
  ): GoError | undefined;
  markVolumeAsDetached(volumeName: UniqueVolumeName, nodeName: string): void;
  removeVolumeFromReportAsAttached(volumeName: UniqueVolumeName, nodeName: string): GoError | undefined;
  addVolumeToReportAsAttached(volumeName: UniqueVolumeName, nodeName: string): void;
}

/** generateVolumeMsg / generateVolumeMsgDetailed. */
function volumeMsg(prefix: string, suffix: string, specName: string, details: string): [string, string] {
  return [
    `${prefix} for volume "${specName}" ${suffix}`,
    `${prefix} for volume "${specName}" ${details} ${suffix}`,
  ];
}

function errSuffix(err: GoError | undefined): string {
  return err === undefined ? '' : `: ${err.message}`;
}

/** VolumeToAttach.GenerateMsg: [simple, detailed]. */
export function volumeToAttachMsg(v: VolumeToAttach, prefix: string, suffix: string): [string, string] {
  return volumeMsg(
    prefix,
    suffix,
    v.volumeSpec.name,
    `(UniqueName: "${v.volumeName}") from node "${v.nodeName}"`,
  );
}

/** AttachedVolume.GenerateMsg: [simple, detailed]. */
export function attachedVolumeMsg(
  v: OperationAttachedVolume,
  prefix: string,
  suffix: string,
): [string, string] {
  return volumeMsg(
    prefix,
    suffix,
    v.volumeSpec?.name ?? 'nil',
    `(UniqueName: "${v.volumeName}") on node "${v.nodeName}"`,
  );
}

export interface OperationGeneratorOptions {
  readonly volumePluginMgr: AttachDetachVolumePluginMgr;
  /** The fix switches (`detach-error-uncertain`). */
  readonly fixes: Fixes;
  /** kubeClient.CoreV1().Nodes().Get, for verifyVolumeIsSafeToDetach. */
  readonly getNode: (name: string) => Co<Node | undefined>;
  /** The virtual clock, for facts. */
  readonly now: () => number;
  readonly publish: (fact: Fact) => void;
}

/** operationGenerator: builds the attach and detach operations. */
export class OperationGenerator {
  constructor(private readonly o: OperationGeneratorOptions) {}

  generateAttachVolumeFunc(
    volumeToAttach: VolumeToAttach,
    actualStateOfWorld: ActualStateOfWorldAttacherUpdater,
  ): GeneratedOperations {
    const attachVolumeFunc = (): Co<GoError | undefined> =>
      attachVolumeOp(this.o, volumeToAttach, actualStateOfWorld);
    return { operationName: AttachOperationName, operationFunc: attachVolumeFunc };
  }

  /**
   * GenerateDetachVolumeFunc. `forced` is a simulator addition for the facts: the reconciler detaches a
   * volume the node still had mounted because maxWaitForUnmountDuration passed.
   */
  generateDetachVolumeFunc(
    volumeToDetach: OperationAttachedVolume,
    verifySafeToDetach: boolean,
    actualStateOfWorld: ActualStateOfWorldAttacherUpdater,
    forced: boolean,
  ): Result<GeneratedOperations> {
    // Upstream splits the unique name (plugin/volume) when the spec is nil (controller crash recovery);
    // the simulator's unique names carry no plugin, and a controller restart is not modelled, so a volume
    // without a spec cannot be detached (as upstream when SplitUniqueName fails).
    if (volumeToDetach.volumeSpec === undefined) {
      return {
        value: undefined,
        err: new GoError(
          attachedVolumeMsg(volumeToDetach, 'DetachVolume.SplitUniqueName failed', ': no volume spec')[1],
        ),
      };
    }
    const attachableVolumePlugin = this.o.volumePluginMgr.findAttachablePluginBySpec(
      volumeToDetach.volumeSpec,
    );
    if (attachableVolumePlugin === undefined) {
      return {
        value: undefined,
        err: new GoError(
          attachedVolumeMsg(volumeToDetach, 'DetachVolume.findDetachablePluginBySpec failed', '')[1],
        ),
      };
    }
    const volumeName = attachableVolumePlugin.getVolumeName(volumeToDetach.volumeSpec);
    const volumeDetacher = attachableVolumePlugin.newDetacher();
    const detachVolumeFunc = (): Co<GoError | undefined> =>
      detachVolumeOp(
        this.o,
        this,
        volumeToDetach,
        verifySafeToDetach,
        actualStateOfWorld,
        forced,
        volumeName,
        volumeDetacher,
      );
    return { value: { operationName: DetachOperationName, operationFunc: detachVolumeFunc }, err: undefined };
  }

  /** verifyVolumeIsSafeToDetach: the node object, fetched from the API server, must not list it in use. */
  *verifyVolumeIsSafeToDetach(volumeToDetach: OperationAttachedVolume): Co<GoError | undefined> {
    const node = yield* this.o.getNode(volumeToDetach.nodeName);
    // Node not found on API server. DetachVolume will skip safe to detach check
    if (node === undefined) return undefined;
    for (const inUseVolume of node.status.volumesInUse) {
      if (inUseVolume === volumeToDetach.volumeName) {
        return new GoError(
          attachedVolumeMsg(
            volumeToDetach,
            'DetachVolume failed',
            ': volume is still in use by node, according to Node status',
          )[1],
        );
      }
    }
    return undefined;
  }
}

/** operationExecutor: the controller's AttachVolume / DetachVolume and the pending-operation queries. */
export class OperationExecutor {
  constructor(
    readonly pendingOperations: NestedPendingOperations,
    readonly operationGenerator: OperationGenerator,
  ) {}

  isOperationPending(volumeName: UniqueVolumeName, podName: string, nodeName: string): boolean {
    return this.pendingOperations.isOperationPending(volumeName, podName, nodeName);
  }

  isOperationSafeToRetry(
    volumeName: UniqueVolumeName,
    podName: string,
    nodeName: string,
    operationName: string,
  ): boolean {
    return this.pendingOperations.isOperationSafeToRetry(volumeName, podName, nodeName, operationName);
  }

  attachVolume(
    volumeToAttach: VolumeToAttach,
    actualStateOfWorld: ActualStateOfWorldAttacherUpdater,
  ): GoError | undefined {
    const generatedOperations = this.operationGenerator.generateAttachVolumeFunc(
      volumeToAttach,
      actualStateOfWorld,
    );
    if (isMultiAttachAllowed(volumeToAttach.volumeSpec)) {
      return this.pendingOperations.run(
        volumeToAttach.volumeName,
        EmptyUniquePodName,
        volumeToAttach.nodeName,
        generatedOperations,
      );
    }
    return this.pendingOperations.run(
      volumeToAttach.volumeName,
      EmptyUniquePodName,
      EmptyNodeName,
      generatedOperations,
    );
  }

  /** DetachVolume; `forced` only labels the facts (see generateDetachVolumeFunc). */
  detachVolume(
    volumeToDetach: OperationAttachedVolume,
    verifySafeToDetach: boolean,
    actualStateOfWorld: ActualStateOfWorldAttacherUpdater,
    forced: boolean,
  ): GoError | undefined {
    const generated = this.operationGenerator.generateDetachVolumeFunc(
      volumeToDetach,
      verifySafeToDetach,
      actualStateOfWorld,
      forced,
    );
    if (generated.err !== undefined) return generated.err;
    if (isMultiAttachAllowed(volumeToDetach.volumeSpec)) {
      return this.pendingOperations.run(
        volumeToDetach.volumeName,
        EmptyUniquePodName,
        volumeToDetach.nodeName,
        generated.value,
      );
    }
    return this.pendingOperations.run(
      volumeToDetach.volumeName,
      EmptyUniquePodName,
      EmptyNodeName,
      generated.value,
    );
  }
}

/** GenerateAttachVolumeFunc's operation (hoisted: no generator closure per operation). */
function* attachVolumeOp(
  o: OperationGeneratorOptions,
  volumeToAttach: VolumeToAttach,
  actualStateOfWorld: ActualStateOfWorldAttacherUpdater,
): Co<GoError | undefined> {
  const attachableVolumePlugin = o.volumePluginMgr.findAttachablePluginBySpec(volumeToAttach.volumeSpec);
  if (attachableVolumePlugin === undefined) {
    return new GoError(
      volumeToAttachMsg(volumeToAttach, 'AttachVolume.FindAttachablePluginBySpec failed', '')[1],
    );
  }
  const volumeAttacher = attachableVolumePlugin.newAttacher();
  // Execute attach
  const r = yield* volumeAttacher.attach(volumeToAttach.volumeSpec, volumeToAttach.nodeName);
  if (r.err !== undefined) {
    // A DanglingAttachError (attached to another node) names that node; no simulated plugin returns
    // one, so the uncertain node is always the one asked for.
    const uncertainNode = volumeToAttach.nodeName;
    actualStateOfWorld.markVolumeAsUncertain(
      volumeToAttach.volumeName,
      volumeToAttach.volumeSpec,
      uncertainNode,
    );
    o.publish({
      kind: 'volumeAttachUncertain',
      atMs: o.now(),
      node: uncertainNode,
      volume: volumeToAttach.volumeName,
      error: r.err.message,
    });
    // On failure, return error. Caller will log and retry.
    return new GoError(volumeToAttachMsg(volumeToAttach, 'AttachVolume.Attach failed', errSuffix(r.err))[1]);
  }
  // Update actual state of world
  const addVolumeNodeErr = actualStateOfWorld.markVolumeAsAttached(
    '',
    volumeToAttach.volumeSpec,
    volumeToAttach.nodeName,
    r.value,
  );
  if (addVolumeNodeErr !== undefined) {
    return new GoError(
      volumeToAttachMsg(
        volumeToAttach,
        'AttachVolume.MarkVolumeAsAttached failed',
        errSuffix(addVolumeNodeErr),
      )[1],
    );
  }
  o.publish({
    kind: 'volumeAttached',
    atMs: o.now(),
    node: volumeToAttach.nodeName,
    volume: volumeToAttach.volumeName,
  });
  return undefined;
}

/** GenerateDetachVolumeFunc's operation (hoisted: no generator closure per operation). */
function* detachVolumeOp(
  o: OperationGeneratorOptions,
  self: OperationGenerator,
  volumeToDetach: OperationAttachedVolume,
  verifySafeToDetach: boolean,
  actualStateOfWorld: ActualStateOfWorldAttacherUpdater,
  forced: boolean,
  volumeName: string,
  volumeDetacher: ControllerDetacher,
): Co<GoError | undefined> {
  let err: GoError | undefined;
  if (verifySafeToDetach) err = yield* self.verifyVolumeIsSafeToDetach(volumeToDetach);
  if (err === undefined) err = yield* volumeDetacher.detach(volumeName, volumeToDetach.nodeName);
  if (err !== undefined) {
    if (o.fixes.on('detach-error-uncertain')) {
      // #120595 (1.29; 1.28.3, 1.27, 1.26): "On failure, mark the volume as uncertain. Attach() must
      // succeed before adding the volume back to node status as attached." (read at v1.31.12, and in
      // the v1.27.7 and v1.28.6 trees.) The reconciler then attaches it again if a pod wants it there,
      // or retries the detach.
      actualStateOfWorld.markVolumeAsUncertain(
        volumeToDetach.volumeName,
        volumeToDetach.volumeSpec,
        volumeToDetach.nodeName,
      );
    } else {
      // On failure, add volume back to ReportAsAttached list
      actualStateOfWorld.addVolumeToReportAsAttached(volumeToDetach.volumeName, volumeToDetach.nodeName);
    }
    const detailed = attachedVolumeMsg(volumeToDetach, 'DetachVolume.Detach failed', errSuffix(err))[1];
    o.publish({
      kind: 'volumeDetachFailed',
      atMs: o.now(),
      node: volumeToDetach.nodeName,
      volume: volumeToDetach.volumeName,
      error: err.message,
    });
    return new GoError(detailed);
  }
  // Update actual state of world
  actualStateOfWorld.markVolumeAsDetached(volumeToDetach.volumeName, volumeToDetach.nodeName);
  o.publish({
    kind: 'volumeDetached',
    atMs: o.now(),
    node: volumeToDetach.nodeName,
    volume: volumeToDetach.volumeName,
    forced,
  });
  return undefined;
}
