// The normalised scenario (docs/scenario-format.md) as the simulator, `verify` and the fuzzer use it: durations in
// integer milliseconds, grace periods in integer seconds, sizes in bytes, every default applied, names
// cross-checked, the timeline sorted stably by time. `src/scenario/load.ts` produces it from YAML and writes it
// back (`scenarioToYaml`); docs/scenario-format.md describes the file format for users.
import type { AccessMode, RestartPolicy, VolumeMode } from '../api/v1.js';
import { Fixes, type FixId, type KubeletName } from '../fixes.js';
import type { InvariantId } from '../invariants/types.js';
import type { PluginKind } from '../volume/volume.js';

export const ACTION_KINDS = [
  'createPod',
  'deletePod',
  'forceDeletePod',
  'evictPod',
  'restartKubelet',
  'shutdownNode',
  'crashContainer',
  'deletePvc',
  'outOfServiceTaint',
  'fault',
] as const;
export type ActionKind = (typeof ACTION_KINDS)[number];

export const FAULT_KINDS = [
  'unmountDevice',
  'procMounts',
  'constructVolumeSpec',
  'containerStart',
  'tearDown',
  'mountDevice',
  'waitForAttach',
  'stopContainer',
  'setUp',
  'pvcLookup',
  'nodePartition',
  'detach',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export const PLUGIN_KINDS = ['fc', 'iscsi', 'csi'] as const satisfies readonly PluginKind[];
export const VOLUME_MODES = ['Filesystem', 'Block'] as const satisfies readonly VolumeMode[];
export const ACCESS_MODES = [
  'ReadWriteOnce',
  'ReadWriteMany',
  'ReadOnlyMany',
] as const satisfies readonly AccessMode[];
export const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'] as const satisfies readonly RestartPolicy[];
export const UNMOUNT_DEVICE_STAGES = [
  'beforeUnmount',
  'afterUnmount',
  'multipathFlushBusy',
  'deviceStillOpen',
] as const;
export type UnmountDeviceStage = (typeof UNMOUNT_DEVICE_STAGES)[number];
/** Where a CSI volume's Detach fails (src/storage/faults.ts DetachStage). */
export const DETACH_STAGES = ['beforeDetach', 'afterDetach'] as const;
export type DetachStage = (typeof DETACH_STAGES)[number];
/**
 * How a faulted MountDevice (device staging) fails, in upstream's terms (volumetypes.IsOperationFinishedError):
 * - final: the staging failed and is over, nothing is left staged (FC / iSCSI: the mount of the global path
 *   fails; CSI: NodeStageVolume answers a final gRPC code, Internal);
 * - uncertain: CSI only: the driver staged the volume, but its answer was lost (NodeStageVolume answers
 *   Unavailable, the driver restarted before replying: csi_client.go isFinalError says not final), so the
 *   kubelet cannot know and marks the device uncertain.
 * A CSI staging slower than the kubelet's 2 min NodeStageVolume deadline (csiTimeout) times out by itself.
 */
export const MOUNT_DEVICE_ERRORS = ['final', 'uncertain'] as const;
export type MountDeviceError = (typeof MOUNT_DEVICE_ERRORS)[number];

/** Defaults the loader applies (and the serialiser leaves out). */
export const DEFAULTS = {
  seed: 1,
  horizonMs: 10 * 60_000,
  volumeMode: 'Filesystem',
  accessMode: 'ReadWriteOnce',
  /** Kubernetes' default terminationGracePeriodSeconds. */
  podGracePeriodS: 30,
  restartPolicy: 'Always',
  /** Hard eviction: grace 0 unless the entry gives one. */
  evictGracePeriodS: 0,
  /** crashContainer: the container fails. */
  crashExitCode: 1,
  faultTimes: 1,
  /** detach: the unpublish went through and its answer was lost (#120571). */
  detachStage: 'afterDetach',
} as const;

/** `containers: N` declares containers named c1 ... cN. */
export function defaultContainerName(index: number): string {
  return `c${index + 1}`;
}

/**
 * A node's kubelet configuration for graceful node shutdown (KubeletConfiguration shutdownGracePeriod and
 * shutdownGracePeriodCriticalPods, whole seconds). Upstream's default is 0 and 0: no shutdown manager.
 */
export interface NodeShutdownConfig {
  readonly shutdownGracePeriodS: number;
  readonly shutdownGracePeriodCriticalPodsS: number;
}

export interface VolumeDecl {
  readonly name: string;
  readonly plugin: PluginKind;
  readonly mode: VolumeMode;
  readonly capacityBytes: number;
  readonly accessMode: AccessMode;
}

export interface ContainerDecl {
  readonly name: string;
  /** How long the runtime takes to start it; null: drawn from the seeded RNG. */
  readonly startDelayMs: number | null;
  /**
   * Its lifecycle.preStop hook (an exec that runs this long; the container's exit cuts it short); absent:
   * none.
   */
  readonly preStopMs?: number | undefined;
  /**
   * resources.requests, as the kubelet reads them (cpu MilliValue(), memory Value() in bytes); absent: the
   * file gives none. A resource the file leaves out is absent from the list.
   */
  readonly requests?: ResourceAmounts | undefined;
}

/** cpu and memory amounts: a container's requests or a node's allocatable (absent: not given). */
export interface ResourceAmounts {
  readonly cpuMilli?: number;
  readonly memoryBytes?: number;
}

export interface CreatePodAction {
  readonly kind: 'createPod';
  readonly pod: string;
  readonly node: string;
  /** At least one; `containers: N` is expanded to c1 ... cN. */
  readonly containers: readonly ContainerDecl[];
  /** Names of cluster volumes, in file order. */
  readonly volumes: readonly string[];
  /** A static pod (a manifest file); its fullname is name_namespace. */
  readonly static: boolean;
  /** terminationGracePeriodSeconds (default 30). */
  readonly gracePeriodS: number;
  readonly restartPolicy: RestartPolicy;
  /** spec.nodeSelector, keys sorted; absent when the file gives none (or an empty one). */
  readonly nodeSelector?: Readonly<Record<string, string>>;
}

export interface DeletePodAction {
  readonly kind: 'deletePod';
  readonly pod: string;
  /** The deletion's gracePeriodSeconds; null: the pod's own terminationGracePeriodSeconds. */
  readonly gracePeriodS: number | null;
}

export interface ForceDeletePodAction {
  readonly kind: 'forceDeletePod';
  readonly pod: string;
}

export interface EvictPodAction {
  readonly kind: 'evictPod';
  readonly pod: string;
  /** The eviction's grace period override (default 0: hard eviction). */
  readonly gracePeriodS: number;
}

export interface RestartKubeletAction {
  readonly kind: 'restartKubelet';
  readonly node: string;
  /** How long the kubelet stays down; null: drawn from the seeded RNG. */
  readonly downForMs: number | null;
  /**
   * The node's labels from this restart on, keys sorted (the kubelet comes back with other
   * --node-labels, which is how #104817 and #118472 make a running pod inadmissible); absent: unchanged.
   */
  readonly labels?: Readonly<Record<string, string>>;
}

export interface ShutdownNodeAction {
  readonly kind: 'shutdownNode';
  readonly node: string;
}

export interface CrashContainerAction {
  readonly kind: 'crashContainer';
  readonly pod: string;
  /** Always a container of the pod; when the file leaves it out, the pod's first container. */
  readonly container: string;
  /** The process's exit code (default 1: it failed; 0: it completed, as a Job's container does). */
  readonly exitCode: number;
}

/**
 * `kubectl delete pvc`: the user deletes the volume's PersistentVolumeClaim (each cluster volume is a PV
 * bound to a claim of its own name). While a pod object uses the claim, kubernetes.io/pvc-protection holds
 * it: it stays, being deleted, until the pvc-protection controller sees no pod use it.
 */
export interface DeletePvcAction {
  readonly kind: 'deletePvc';
  readonly volume: string;
}

/**
 * `kubectl taint node <node> node.kubernetes.io/out-of-service=nodeshutdown:NoExecute` (or, with
 * `remove`, its removal): non-graceful node shutdown (KEP-2268). The attach/detach controller then
 * detaches the node's volumes once no pod wants them, without waiting for the node to unmount them.
 */
export interface OutOfServiceTaintAction {
  readonly kind: 'outOfServiceTaint';
  readonly node: string;
  /** true: the taint is removed (the node is back in service). */
  readonly remove: boolean;
}

export interface UnmountDeviceFault {
  readonly kind: 'unmountDevice';
  readonly node: string;
  readonly volume: string;
  readonly stage: UnmountDeviceStage;
  /** How many UnmountDevice calls fail (default 1). */
  readonly times: number;
}

export interface ProcMountsFault {
  readonly kind: 'procMounts';
  readonly node: string;
  /** How many reads of /proc/mounts are inconsistent. */
  readonly inconsistentReads: number;
}

export interface ConstructVolumeSpecFault {
  readonly kind: 'constructVolumeSpec';
  readonly node: string;
  readonly volume: string;
}

export interface ContainerStartFault {
  readonly kind: 'containerStart';
  readonly pod: string;
  /** Extra delay before the runtime starts the pod's containers; null: none. */
  readonly delayMs: number | null;
  /** The start fails with this error message; null: it does not fail. At least one of the two is set. */
  readonly error: string | null;
}

export interface TearDownFault {
  readonly kind: 'tearDown';
  readonly node: string;
  readonly volume: string;
  /** How many TearDown / unmap calls fail (default 1). */
  readonly times: number;
  /**
   * How long each faulted call hangs before it fails (a umount stuck on a dead path, a CSI
   * NodeUnpublishVolume that does not answer); null: it fails at once.
   */
  readonly delayMs: number | null;
}

export interface MountDeviceFault {
  readonly kind: 'mountDevice';
  readonly node: string;
  readonly volume: string;
  /** How much longer the staging takes (MountDevice, or SetUpDevice for a CSI Block volume); null: none. */
  readonly delayMs: number | null;
  /** How it fails after the delay; null: it does not. At least one of the two is set. */
  readonly error: MountDeviceError | null;
  /** How many MountDevice calls are slow or fail (default 1). */
  readonly times: number;
}

/**
 * WaitForAttach of a volume on a node fails `times` times, then behaves: operation_generator.go's
 * GenerateMountVolumeFunc (and GenerateMapVolumeFunc) calls it before MountDevice and returns
 * "MountVolume.WaitForAttach failed" on error, so nothing is staged or set up; the reconciler retries
 * with its exponential back-off. Each plugin fails as upstream's does (src/volume/attachFault.ts).
 */
export interface WaitForAttachFault {
  readonly kind: 'waitForAttach';
  readonly node: string;
  readonly volume: string;
  /** How many WaitForAttach calls fail (default 1). */
  readonly times: number;
  /** The error each failing call returns; null: the plugin's upstream text. */
  readonly error: string | null;
  /** How long each failing call takes before it fails (a login timing out); null: it fails at once. */
  readonly delayMs: number | null;
}

/**
 * CRI StopContainer of a pod's container fails `times` times and leaves the container running (the runtime
 * down or wedged): kuberuntime_container.go's killContainer returns the error, so KillPod and the pod
 * worker's sync fail and are retried (src/runtime/stopFaults.ts).
 */
export interface StopContainerFault {
  readonly kind: 'stopContainer';
  readonly pod: string;
  /** The container whose stops fail; null: any container of the pod. */
  readonly container: string | null;
  /** How many StopContainer calls fail (default 1). */
  readonly times: number;
  /**
   * The error each failing call returns; null: the runtime's socket refusing connections. `notFound`
   * (STOP_CONTAINER_NOT_FOUND): the container is removed under the kubelet and the call answers NotFound.
   */
  readonly error: string | null;
}

/**
 * A pod's SetUp of a volume on a node (MapPodDevice for a CSI Block volume) fails `times` times: `final`
 * (an in-tree bind mount that fails, CSI codes.Internal) or `uncertain` (CSI only: DeadlineExceeded).
 * operation_generator.go's markVolumeErrorState settles what the actual state keeps (src/volume/setUpFault.ts).
 */
export interface SetUpFault {
  readonly kind: 'setUp';
  readonly node: string;
  readonly volume: string;
  /** How many SetUp calls fail (default 1). */
  readonly times: number;
  readonly error: MountDeviceError;
}

/**
 * The node's kubelet cannot read the volume's PersistentVolumeClaim (or its PersistentVolume) from the API
 * server `times` times: the desired state of world populator's getPVCExtractPV fails, and the pod's volume
 * stays out of the desired state until a later pass reads it (#120150: after a kubelet restart the
 * reconciler then unmounts a running pod's reconstructed volume).
 */
export interface PvcLookupFault {
  readonly kind: 'pvcLookup';
  readonly node: string;
  readonly volume: string;
  /**
   * How many lookups fail (default 1). The populator tries the pod again at its next sync (SyncPod's
   * WaitForAttachAndMount reprocesses it: a pod processed before stays processed after a failure).
   */
  readonly times: number;
  /** The client's error; null: a timeout of the API request. */
  readonly error: string | null;
}

/**
 * The node is cut off from the API server for `durationMs` (a network partition): its kubelet and its pods
 * go on, but the kubelet's requests fail, its watch delivers nothing and its Lease is not renewed, so the
 * node lifecycle controller marks it not Ready after node-monitor-grace-period (40 s). Then the network
 * heals: the Lease is renewed again and the kubelet's reflector relists its pods (issue #119273).
 */
export interface NodePartitionFault {
  readonly kind: 'nodePartition';
  readonly node: string;
  /** How long the partition lasts (> 0). */
  readonly durationMs: number;
}

/**
 * The attach/detach controller's Detach of a CSI volume from a node fails `times` times (csi_attacher.go
 * Detach returns the VolumeAttachment's detachError): `afterDetach` (default) once ControllerUnpublishVolume
 * has fenced the node's path and its answer was lost (#120571), `beforeDetach` with nothing changed.
 * operation_generator.go's GenerateDetachVolumeFunc then adds the volume back as attached, or with
 * #120595 (detach-error-uncertain) marks it uncertain on the node. CSI only: the in-tree iSCSI and FC
 * Detach do nothing (PR #48940).
 */
export interface DetachFault {
  readonly kind: 'detach';
  readonly node: string;
  readonly volume: string;
  readonly stage: DetachStage;
  /** How many Detach calls fail (default 1). */
  readonly times: number;
}

export type Fault =
  | UnmountDeviceFault
  | ProcMountsFault
  | ConstructVolumeSpecFault
  | ContainerStartFault
  | TearDownFault
  | MountDeviceFault
  | WaitForAttachFault
  | StopContainerFault
  | SetUpFault
  | PvcLookupFault
  | NodePartitionFault
  | DetachFault;

export interface FaultAction {
  readonly kind: 'fault';
  readonly fault: Fault;
}

export type Action =
  | CreatePodAction
  | DeletePodAction
  | ForceDeletePodAction
  | EvictPodAction
  | RestartKubeletAction
  | ShutdownNodeAction
  | CrashContainerAction
  | DeletePvcAction
  | OutOfServiceTaintAction
  | FaultAction;

export interface TimelineEntry {
  readonly atMs: number;
  /** 1-based line of the entry in the file (0 for a scenario that was not read from a file). */
  readonly line: number;
  /**
   * 1-based column of the action's mapping, kept only for an `outOfServiceTaint` entry read from a file: a run
   * under a release that ignores the taint is refused there (src/controllerManagerGates.ts).
   */
  readonly col?: number | undefined;
  readonly action: Action;
}

/**
 * A claim's fix set: a kubelet (`fixed` for `fixes: all` and `{off: ...}`, `legacy` for `fixes: none` and
 * `{on: ...}`, or the claim's `kubelet:`), then the switches turned off and on. Both lists are unique and
 * in FIX_IDS order.
 */
export interface ClaimFixes {
  readonly kubelet: KubeletName;
  readonly off: readonly FixId[];
  readonly on: readonly FixId[];
}

export interface Claim {
  /** 1-based line of the claim in the file (0 for a scenario that was not read from a file). */
  readonly line: number;
  readonly fixes: ClaimFixes;
  /** The exact set of invariants that must fire: unique, in INVARIANT_IDS order; empty means none. */
  readonly violations: readonly InvariantId[];
  /** The exact set of findings (FINDING_IDS) that must be recorded; null: not checked. */
  readonly findings: readonly InvariantId[] | null;
  /**
   * `violations: []` must hold over every schedule of same-instant events within `verify --bound`
   * deviations (`podrace explore`), not only the default order; `verify` explores it. Absent: the default.
   */
  readonly exhaustive?: true;
}

/** cluster.controllerManager: flags of the kube-controller-manager (src/controllerManagerFlags.ts). */
export interface ControllerManagerConfig {
  /**
   * --disable-force-detach-on-timeout (#120344, 1.30): the attach/detach controller never force-detaches on
   * maxWaitForUnmountDuration. Only `true` is kept (false is the default, the same as no key).
   */
  readonly disableForceDetachOnTimeout: true;
  /** Where the flag is set: 1-based line and column of its key (0 for a scenario not read from a file). */
  readonly line: number;
  readonly col: number;
}

export interface Scenario {
  /** The file name as given to the loader ('' for a scenario that was not read from a file). */
  readonly file: string;
  readonly name: string;
  /** '' when the file has none. */
  readonly description: string;
  readonly upstream: readonly string[];
  /** uint32, default 1. */
  readonly seed: number;
  /** Virtual-time bound, default 10 min; no timeline entry is later than it. */
  readonly horizonMs: number;
  /** Node names, unique, in file order (at least one). */
  readonly nodes: readonly string[];
  /**
   * The nodes whose entry in cluster.nodes configures graceful node shutdown; a node not here has
   * upstream's default (0 s: the kubelet does nothing on a shutdown).
   */
  readonly nodeShutdown?: Readonly<Record<string, NodeShutdownConfig>>;
  /** The nodes whose entry in cluster.nodes gives labels (non-empty, keys sorted); a node not here has none. */
  readonly nodeLabels?: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /**
   * The nodes whose entry in cluster.nodes gives allocatable (cpu, memory or both); a node not here, or a
   * resource a node does not list, is not checked: every pod fits.
   */
  readonly nodeAllocatable?: Readonly<Record<string, ResourceAmounts>>;
  readonly volumes: readonly VolumeDecl[];
  /** The kube-controller-manager flags cluster.controllerManager sets; absent: none (upstream's defaults). */
  readonly controllerManager?: ControllerManagerConfig;
  /** Sorted by atMs; entries at the same time keep their file order. */
  readonly timeline: readonly TimelineEntry[];
  /** Empty when the file has no claims. */
  readonly claims: readonly Claim[];
}

/** The scenario without where it came from (file and lines): what a round trip through YAML preserves. */
/** A labels mapping with its keys sorted (what the loader keeps and the writer writes). */
export function sortedLabels(labels: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of Object.keys(labels).sort()) out[key] = labels[key] ?? '';
  return out;
}

export function stripSourcePositions(s: Scenario): Scenario {
  return {
    ...s,
    ...(s.controllerManager === undefined
      ? {}
      : { controllerManager: { ...s.controllerManager, line: 0, col: 0 } }),
    file: '',
    timeline: s.timeline.map(({ col: _col, ...e }) => ({ ...e, line: 0 })),
    claims: s.claims.map((c) => ({ ...c, line: 0 })),
  };
}

/** The fix switches a claim runs with. */
export function fixesOfClaim(fixes: ClaimFixes): Fixes {
  let out = Fixes.of(fixes.kubelet);
  for (const id of fixes.off) out = out.with(id, false);
  for (const id of fixes.on) out = out.with(id, true);
  return out;
}

/** A claim's fix set as the verify table shows it: `fixes: all`, `off: a, b`, `kubelet: 1.23, off: a`. */
export function claimFixesLabel(f: ClaimFixes): string {
  if (f.kubelet === 'fixed' && f.on.length === 0)
    return f.off.length === 0 ? 'fixes: all' : `off: ${f.off.join(', ')}`;
  if (f.kubelet === 'legacy' && f.off.length === 0)
    return f.on.length === 0 ? 'fixes: none' : `on: ${f.on.join(', ')}`;
  const parts = [`kubelet: ${f.kubelet}`];
  if (f.off.length > 0) parts.push(`off: ${f.off.join(', ')}`);
  if (f.on.length > 0) parts.push(`on: ${f.on.join(', ')}`);
  return parts.join(', ');
}
