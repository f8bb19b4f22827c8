// The slice of k8s.io/api/core/v1 and kubecontainer types the simulator needs. Names follow upstream
// (metadata / spec / status, DeletionTimestamp, TerminationGracePeriodSeconds), in camelCase.
// Virtual time stamps are integer milliseconds.

export type UID = string;
export type PodPhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';
export type RestartPolicy = 'Always' | 'OnFailure' | 'Never';
export type VolumeMode = 'Filesystem' | 'Block';
export type AccessMode = 'ReadWriteOnce' | 'ReadWriteMany' | 'ReadOnlyMany';

/** kubetypes.ConfigSourceAnnotationKey and its values (pkg/kubelet/types/pod_update.go). */
export const ConfigSourceAnnotationKey = 'kubernetes.io/config.source';
export const ConfigMirrorAnnotationKey = 'kubernetes.io/config.mirror';
/** The hash of a file pod: config/common.go sets it to the pod's UID (itself a hash of the manifest). */
export const ConfigHashAnnotationKey = 'kubernetes.io/config.hash';
export const FileSource = 'file';
export const ApiserverSource = 'api';

export interface ContainerSpec {
  readonly name: string;
  /** How long the runtime takes to start this container's process (scenario `startDelay`). */
  readonly startDelayMs?: number | undefined;
  /**
   * lifecycle.preStop: an exec hook that runs this long in the container (scenario `preStop`); undefined:
   * no hook.
   */
  readonly preStopMs?: number | undefined;
  /** resources: what the container requests of its node (no limits are modelled); undefined: none. */
  readonly resources?: ResourceRequirements | undefined;
}

/** v1.ResourceRequirements, its requests only: what the scheduler and the kubelet's admission count. */
export interface ResourceRequirements {
  readonly requests: ResourceList;
}

/**
 * v1.ResourceList of cpu and memory, each as the kubelet reads the Quantity: cpu as MilliValue(),
 * memory as Value() (bytes); a resource not listed is undefined. Also a node's status.allocatable.
 */
export interface ResourceList {
  readonly cpuMilli?: number | undefined;
  readonly memoryBytes?: number | undefined;
}

export interface ObjectMeta {
  readonly uid: UID;
  readonly name: string;
  readonly namespace: string;
  readonly annotations: Readonly<Record<string, string>>;
  /**
   * Virtual ms at which the API server created the object, in whole seconds (metav1.Time serializes
   * seconds, so every client sees it truncated). Undefined is Go's zero time: a static pod from a manifest
   * file has none (the file source and applyDefaults set none), so it sorts before every API pod.
   */
  readonly creationTimestamp?: number | undefined;
  /** Virtual ms at which graceful deletion was requested; undefined while the pod is not being deleted. */
  readonly deletionTimestamp?: number | undefined;
  readonly deletionGracePeriodSeconds?: number | undefined;
}

export interface PodSpec {
  readonly nodeName: string;
  readonly containers: readonly ContainerSpec[];
  /** Names of the cluster volumes (PersistentVolumes) the pod mounts. */
  readonly volumes: readonly string[];
  readonly terminationGracePeriodSeconds?: number | undefined;
  readonly restartPolicy: RestartPolicy;
  /**
   * spec.nodeSelector: labels the node must carry. The kubelet's predicate admit handler checks it
   * (GetRequiredNodeAffinity); absent: none (no required node affinity is modelled besides it).
   */
  readonly nodeSelector?: Readonly<Record<string, string>> | undefined;
}

export type ContainerStateName = 'waiting' | 'running' | 'terminated';

export interface ContainerStatus {
  readonly name: string;
  readonly state: ContainerStateName;
  readonly reason?: string | undefined;
  readonly exitCode?: number | undefined;
}

export interface PodStatus {
  readonly phase: PodPhase;
  readonly reason?: string | undefined;
  readonly message?: string | undefined;
  readonly containerStatuses: readonly ContainerStatus[];
}

export interface Pod {
  readonly metadata: ObjectMeta;
  readonly spec: PodSpec;
  readonly status: PodStatus;
}

// ---- one hidden class per API type ----
// Every Pod, ObjectMeta, PodSpec, PodStatus and ContainerStatus is built by these, each field present (an
// unset optional one as undefined) in one order. V8 gives an object a hidden class per set and order of
// fields and per way of building it (a literal and an Object.assign copy differ), and every reader of a
// pod (syncPod, handlePodCleanups, relist, the status manager) compiles against the classes it has seen:
// with several, its optimised code is polymorphic, or thrown away and compiled again when a new one
// arrives, which each worker thread pays in JIT time. JSON and the fields' values are the same as before.

export function newPod(metadata: ObjectMeta, spec: PodSpec, status: PodStatus): Pod {
  return { metadata, spec, status };
}

/** A copy of `m` to set fields on before it is stored (the API server's creation and deletion stamps). */
export function newObjectMeta(m: ObjectMeta): { -readonly [K in keyof ObjectMeta]: ObjectMeta[K] } {
  return {
    uid: m.uid,
    name: m.name,
    namespace: m.namespace,
    annotations: m.annotations,
    creationTimestamp: m.creationTimestamp,
    deletionTimestamp: m.deletionTimestamp,
    deletionGracePeriodSeconds: m.deletionGracePeriodSeconds,
  };
}

/** A copy of `m` with one annotation set (the pod config's source, a mirror pod's hash). */
export function annotated(m: ObjectMeta, key: string, value: string): ObjectMeta {
  const copy = newObjectMeta(m);
  copy.annotations = Object.assign({}, m.annotations, { [key]: value });
  return copy;
}

export function newPodSpec(s: PodSpec): PodSpec {
  return {
    nodeName: s.nodeName,
    containers: s.containers,
    volumes: s.volumes,
    terminationGracePeriodSeconds: s.terminationGracePeriodSeconds,
    restartPolicy: s.restartPolicy,
    nodeSelector: s.nodeSelector,
  };
}

export function newPodStatus(s: PodStatus): PodStatus {
  return { phase: s.phase, reason: s.reason, message: s.message, containerStatuses: s.containerStatuses };
}

export function newContainerStatus(c: ContainerStatus): ContainerStatus {
  return { name: c.name, state: c.state, reason: c.reason, exitCode: c.exitCode };
}

/** kubecontainer.GetPodFullName: name_namespace, the identity of a static pod across UIDs. */
export function getPodFullName(pod: Pod): string {
  return `${pod.metadata.name}_${pod.metadata.namespace}`;
}

/**
 * sliceutils.PodsByCreationTime, as HandlePodAdditions sorts an ADD: oldest first, the zero time (undefined)
 * first of all. Go's sort.Sort is not stable in general, but for the small slices of one ADD it runs an
 * insertion sort (fewer than 12 elements), which keeps the order of equal timestamps; so does this.
 */
export function sortPodsByCreationTime(pods: readonly Pod[]): Pod[] {
  return [...pods].sort(
    (a, b) => (a.metadata.creationTimestamp ?? -1) - (b.metadata.creationTimestamp ?? -1),
  );
}

/** kubetypes.IsStaticPod: the pod came from a manifest file, not the API server. */
export function isStaticPod(pod: Pod): boolean {
  return pod.metadata.annotations[ConfigSourceAnnotationKey] === FileSource;
}

export function isMirrorPod(pod: Pod): boolean {
  return pod.metadata.annotations[ConfigMirrorAnnotationKey] !== undefined;
}

export function isPodPhaseTerminal(phase: PodPhase): boolean {
  return phase === 'Failed' || phase === 'Succeeded';
}

// ---- nodes ----

/** v1.UniqueVolumeName; in the simulator, the cluster volume's name (see getUniqueVolumeNameFromSpec). */
/**
 * volumeutil.PVCProtectionFinalizer: the admission plugin puts it on every claim; the pvc-protection
 * controller removes it from a claim being deleted once no pod uses the claim.
 */
export const PVCProtectionFinalizer = 'kubernetes.io/pvc-protection';

/**
 * A PersistentVolumeClaim as podrace has it: each scenario volume is a PV bound to a claim of its own name
 * (spec.volumeName, status.phase Bound), in namespace default; only its deletion and finalizers change.
 */
export interface PersistentVolumeClaim {
  readonly metadata: {
    readonly name: string;
    readonly namespace: string;
    /** Virtual ms at which the claim's DELETE was accepted; undefined while it is not being deleted. */
    readonly deletionTimestamp?: number | undefined;
    readonly finalizers: readonly string[];
  };
  readonly spec: { readonly volumeName: string };
  readonly status: { readonly phase: 'Bound' };
}

export type UniqueVolumeName = string;

/** v1.AttachedVolume: one entry of node.status.volumesAttached. */
export interface AttachedVolume {
  readonly name: UniqueVolumeName;
  readonly devicePath: string;
}

/** The slice of v1.NodeStatus the volume code reads and writes. */
export interface NodeStatus {
  /** Written by the kubelet (VolumesInUse setter). */
  readonly volumesInUse: readonly UniqueVolumeName[];
  /** Written by the attach/detach controller's node status updater. */
  readonly volumesAttached: readonly AttachedVolume[];
}

/** v1.Taint, the part the controllers read: its key and effect (no value, no timeAdded). */
export interface Taint {
  readonly key: string;
  readonly effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
}

/**
 * v1.TaintNodeOutOfService: the taint an administrator puts on a node that is shut down for good
 * (non-graceful node shutdown, KEP-2268), so that its pods and volumes are given up at once.
 */
export const TaintNodeOutOfService = 'node.kubernetes.io/out-of-service';

/** The slice of v1.NodeSpec the controllers read. */
export interface NodeSpec {
  readonly taints: readonly Taint[];
}

/** pkg/util/taints TaintKeyExists: whether a taint with the key is set, whatever its effect. */
export function taintKeyExists(taints: readonly Taint[], key: string): boolean {
  return taints.some((t) => t.key === key);
}

/** A v1.Node object as the API server stores it and watches deliver it (a snapshot, never mutated). */
export interface Node {
  readonly metadata: { readonly name: string };
  /** Absent: no taints. */
  readonly spec?: NodeSpec;
  readonly status: NodeStatus;
}

// ---- kubecontainer: what the runtime reports ----

export type RuntimeContainerState = 'created' | 'running' | 'exited' | 'unknown';

/** kubecontainer.Container in a runtime pod listing (GetPods). */
export interface RuntimeContainer {
  readonly id: string;
  readonly name: string;
  readonly state: RuntimeContainerState;
}

/** kubecontainer.Pod: a pod as the runtime knows it, without an API object behind it. */
export interface RuntimePod {
  readonly id: UID;
  readonly name: string;
  readonly namespace: string;
  readonly containers: readonly RuntimeContainer[];
  readonly sandboxes: readonly { readonly id: string; readonly ready: boolean }[];
}

/** kubecontainer.Pod.ToAPIPod: a bare API pod for a runtime-only (orphaned) pod. */
export function runtimePodToAPIPod(rp: RuntimePod, nodeName: string): Pod {
  return newPod(
    newObjectMeta({ uid: rp.id, name: rp.name, namespace: rp.namespace, annotations: {} }),
    newPodSpec({
      nodeName,
      containers: rp.containers.map((c) => ({ name: c.name })),
      volumes: [],
      restartPolicy: 'Always',
    }),
    newPodStatus({ phase: 'Unknown', containerStatuses: [] }),
  );
}

/** kubecontainer.Status of one container, as the PLEG cache holds it. */
export interface RuntimeContainerStatus {
  readonly id: string;
  readonly name: string;
  readonly state: RuntimeContainerState;
  readonly exitCode?: number | undefined;
  /** When CreateContainer made it: the runtime lists a pod's containers newest created first. */
  readonly createdAtMs?: number | undefined;
  readonly startedAtMs?: number | undefined;
  readonly finishedAtMs?: number | undefined;
}

/**
 * kubecontainer.PodStatus.FindContainerStatusByName: the first match in a list sorted newest created
 * first (kuberuntime's containerStatusByCreated), i.e. the newest attempt of that container name. Of two
 * attempts created at one instant the later listed one counts as newer (the fake lists in creation order).
 * `matching` narrows the candidates (doBackOff looks for the newest exited one).
 */
export function findContainerStatusByName(
  status: RuntimePodStatus | undefined,
  name: string,
  matching: (c: RuntimeContainerStatus) => boolean = () => true,
): RuntimeContainerStatus | undefined {
  let newest: RuntimeContainerStatus | undefined;
  for (const c of status?.containerStatuses ?? []) {
    if (c.name !== name || !matching(c)) continue;
    if (newest === undefined || (c.createdAtMs ?? -1) >= (newest.createdAtMs ?? -1)) newest = c;
  }
  return newest;
}

/** kubecontainer.PodStatus: the runtime cache entry of one pod UID. */
export interface RuntimePodStatus {
  readonly id: UID;
  readonly name: string;
  readonly namespace: string;
  readonly containerStatuses: readonly RuntimeContainerStatus[];
  readonly sandboxStatuses: readonly { readonly id: string; readonly ready: boolean }[];
  /** When the cache entry was filled (virtual ms); GetNewerThan waits for a newer one. */
  readonly timestampMs: number;
}

export function emptyRuntimePodStatus(uid: UID, timestampMs: number): RuntimePodStatus {
  return { id: uid, name: '', namespace: '', containerStatuses: [], sandboxStatuses: [], timestampMs };
}
