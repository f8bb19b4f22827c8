// The narrow interfaces the volume manager needs from the kubelet around it (pkg/kubelet/volumemanager's
// constructor arguments in release-1.23: VolumePluginMgr, pod.Manager, podStateProvider, the kube client
// for node status, the pods directory on disk, hostutil). The kubelet wires them.
import type { GoError } from '../../api/errors.js';
import type { PersistentVolumeClaim, Pod, RuntimePod, UID, VolumeMode } from '../../api/v1.js';
import type { Fact } from '../../facts.js';
import type { PluginKind, Result, Spec, VolumePlugin } from '../../volume/volume.js';

/** volume.VolumePluginMgr, as the volume manager uses it. */
export interface VolumePluginMgr {
  findPluginBySpec(spec: Spec): VolumePlugin;
  findPluginByName(kind: PluginKind): VolumePlugin;
}

/** pod.Manager: the kubelet's source of truth for the pods bound to this node. */
export interface PodManager {
  getPods(): readonly Pod[];
  getPodByUID(uid: UID): Pod | undefined;
}

/**
 * What the release-1.20 populator asked instead of the pod worker (fix `pod-worker-lifecycle` off):
 * util.IsPodTerminated with the status manager's status, and kubecontainer GetPods(false) from the
 * runtime cache.
 */
export interface LegacyPodStatusProvider {
  isPodTerminated(pod: Pod): boolean;
  getRunningRuntimePods(): readonly RuntimePod[];
}

/** One entry of node.status.volumesAttached. */
export interface AttachedVolumeStatus {
  readonly name: string;
  readonly devicePath: string;
}

/** One volume directory found under pods/{uid}/volumes/{plugin}/{vol} or volumeDevices/... */
export interface PodVolumeOnDisk {
  readonly podUID: UID;
  /** Only for facts and traces; upstream knows just the UID. */
  readonly podName?: string | undefined;
  readonly volumeName: string;
  readonly plugin: PluginKind;
  readonly mode: VolumeMode;
  readonly mountPath: string;
}

/** The node, the API server's view of it, and the fact bus. */
export interface VolumeHost {
  /**
   * PersistentVolumeClaims(ns).Get through the kubelet's client (the populator's getPVCExtractPV): the
   * claim as the API server has it, undefined if there is none (NotFound), a GoError if the request failed.
   */
  getPersistentVolumeClaim(claimName: string): PersistentVolumeClaim | GoError | undefined;
  /**
   * The cluster volume (PV) a claim is bound to, as a volume.Spec (getPVSpec); undefined if it does not
   * exist.
   */
  getVolumeSpec(volumeName: string): Spec | undefined;
  /**
   * node.status.volumesAttached from the API server (device paths, VerifyControllerAttachedVolume);
   * undefined when the GET of the node fails (a network partition).
   */
  getVolumesAttached(): readonly AttachedVolumeStatus[] | undefined;
  /** reconciler getVolumesFromPodDir: the volume directories in the kubelet's pods dir. */
  getVolumesFromPodDir(): readonly PodVolumeOnDisk[];
  /**
   * operation_generator.go isDeviceOpened(deviceToDetach): hostutil.PathIsDevice(devicePath), then
   * hostutil.DeviceOpened(devicePath). A path that is not a device or does not exist (the empty path a
   * reconstructed FC / iSCSI volume has: node status gives no device path for them) is not opened.
   */
  isDeviceOpened(devicePath: string): boolean;
  /**
   * volumepathhandler GetDeviceBindMountRefs(devPath, mapPath), as UnmapDevice uses it: the pods'
   * references on a Block volume's global map path, the device files below it (`<mapPath>/{pod UID}`, a
   * bind mount of the device; like upstream, not checked against devPath). A mapPath that does not exist
   * lists none: UnmapDevice takes os.IsNotExist as "SetupDevice did not complete" and falls through.
   */
  getDeviceBindMountRefs(devicePath: string, mapPath: string): Result<string[]>;
  /**
   * Optional: !mount.IsLikelyNotMountPoint(path), for CheckVolumeExistenceOperation during
   * reconstruction. Without it the pod's volume directory is taken as mounted.
   */
  isLikelyMountPoint?(path: string): boolean;
  /**
   * Optional: whether a path exists on the node (volumepathhandler IsSymlinkExist for a Block volume's
   * pod device link during reconstruction). Without it the link is taken as present.
   */
  pathExists?(path: string): boolean;
  /**
   * Optional simulator observation: the volumes whose device is mounted or mapped outside any pod dir
   * (for the reconstructionFinished fact; upstream's one-shot reconstruction never looks there).
   */
  globallyMountedVolumes?(): string[];
  /**
   * Optional simulator observation: per-pod references to a block volume's global map whose pod has no
   * volumeDevices link for it any more (a kubelet stopped inside UnmapBlockVolume).
   */
  orphanedPodMapRefs?(): { uid: string; volume: string }[];
  /** Optional simulator observation: every pod volume dir on the node (ground truth, not the kubelet's read). */
  podDirVolumes?(): { uid: string; volume: string }[];
  /**
   * Optional simulator observation: publish what is left of the volume's device on the node (SCSI paths,
   * multipath maps) and what holds it at the moment the kubelet marks the device unmounted, i.e. takes
   * it as gone; `devicePath` is the path its isDeviceOpened check was given.
   */
  publishDeviceResidue?(volumeName: string, devicePath: string): void;
  /** Optional: config.SourcesReady.AllReady(); without it the sources are ready at once. */
  sourcesReady?(): boolean;
  publish(fact: Fact): void;
}
