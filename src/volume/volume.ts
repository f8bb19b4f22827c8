// Ported from kubernetes pkg/volume/volume.go and pkg/volume/plugins.go, release-1.23: the interfaces the
// volume manager and the attach/detach controller drive. Every call that does I/O on the host is a
// coroutine (it takes virtual time); errors are returned, Go style.
import type { GoError } from '../api/errors.js';
import type { AccessMode, UID, VolumeMode } from '../api/v1.js';
import type { Co } from '../sim/index.js';

export type PluginKind = 'fc' | 'iscsi' | 'csi';
export const pluginNames: Record<PluginKind, string> = {
  fc: 'kubernetes.io/fc',
  iscsi: 'kubernetes.io/iscsi',
  csi: 'kubernetes.io/csi',
};

/** volume.Spec for a PersistentVolume: one LUN per cluster volume, named after the volume. */
export interface Spec {
  readonly name: string;
  readonly plugin: PluginKind;
  readonly volumeMode: VolumeMode;
  readonly accessModes: readonly AccessMode[];
  readonly capacityBytes: number;
  readonly readOnly: boolean;
}

/**
 * util.IsMultiAttachAllowed: only RWX or ROX volumes may be attached to several nodes. Without a spec (or
 * an access mode) "we don't know if it's supported or not and let the attacher fail later".
 */
export function isMultiAttachAllowed(spec: Spec | undefined): boolean {
  if (spec === undefined || spec.accessModes.length === 0) return true;
  return spec.accessModes.includes('ReadWriteMany') || spec.accessModes.includes('ReadOnlyMany');
}

export type Result<T> = { value: T; err: undefined } | { value: undefined; err: GoError };

/** volume.Metrics: only Capacity is modelled (MetricsBlock sets only Capacity). */
export interface Metrics {
  readonly capacityBytes: number;
}

/** volume.MetricsProvider. */
export interface MetricsProvider {
  getMetrics(): Co<Result<Metrics>>;
}

/** volume.Attacher (embeds DeviceMounter). */
export interface Attacher extends DeviceMounter {
  attach(spec: Spec, nodeName: string): Co<Result<string>>;
  waitForAttach(spec: Spec, devicePath: string, podUID: UID, timeoutMs: number): Co<Result<string>>;
}

/** volume.DeviceMounter. */
export interface DeviceMounter {
  getDeviceMountPath(spec: Spec): string;
  mountDevice(spec: Spec, devicePath: string, deviceMountPath: string): Co<GoError | undefined>;
}

/** volume.Detacher (embeds DeviceUnmounter). */
export interface Detacher extends DeviceUnmounter {
  detach(volumeName: string, nodeName: string): Co<GoError | undefined>;
}

/** volume.DeviceUnmounter: "should only be called once all bind mounts have been unmounted". */
export interface DeviceUnmounter {
  unmountDevice(deviceMountPath: string): Co<GoError | undefined>;
}

/** volume.Mounter (Filesystem mode, per pod). */
export interface Mounter extends MetricsProvider {
  getPath(): string;
  setUp(): Co<GoError | undefined>;
}

/** volume.Unmounter. */
export interface Unmounter {
  getPath(): string;
  tearDown(): Co<GoError | undefined>;
}

/** volume.BlockVolumeMapper / CustomBlockVolumeMapper (Block mode, per pod). */
export interface BlockVolumeMapper extends MetricsProvider {
  /** PR #101587: true only if the MetricsProvider was initialised. */
  supportsMetrics(): boolean;
  getGlobalMapPath(spec: Spec): string;
  getPodDeviceMapPath(): string;
  setUpDevice(): Co<Result<string>>;
  mapPodDevice(): Co<Result<string>>;
}

/** volume.BlockVolumeUnmapper / CustomBlockVolumeUnmapper. */
export interface BlockVolumeUnmapper {
  tearDownDevice(mapPath: string, devicePath: string): Co<GoError | undefined>;
  unmapPodDevice(): Co<GoError | undefined>;
}

/** volume.VolumePlugin + AttachableVolumePlugin + BlockVolumePlugin, for one node. */
export interface VolumePlugin {
  readonly kind: PluginKind;
  getPluginName(): string;
  /** AttachableVolumePlugin: FC and iSCSI are attachable too (no-op Attach/Detach, PR #48940). */
  isAttachable(): boolean;
  newAttacher(): Attacher;
  newDetacher(): Detacher;
  newMounter(spec: Spec, podUID: UID): Mounter;
  newUnmounter(volumeName: string, podUID: UID): Unmounter;
  newBlockVolumeMapper(spec: Spec, podUID: UID): BlockVolumeMapper;
  newBlockVolumeUnmapper(volumeName: string, podUID: UID): BlockVolumeUnmapper;
  /** Reconstruction after a kubelet restart (fc.go / iscsi.go ConstructVolumeSpec): Filesystem volumes. */
  constructVolumeSpec(volumeName: string, mountPath: string): Co<Result<Spec>>;
  /**
   * BlockVolumePlugin.ConstructBlockVolumeSpec(podUID, volumeName, mapPath): Block volumes, from the
   * pod's volumeDevices link and the global map path (FC / iSCSI) or vol_data.json (CSI); no
   * /proc/mounts read, so PR #102059 does not touch it.
   */
  constructBlockVolumeSpec(podUID: UID, volumeName: string, mapPath: string): Co<Result<Spec>>;
  /** GetDeviceMountRefs: other mounts of the global path (bind mounts still using it). */
  getDeviceMountRefs(deviceMountPath: string): Co<Result<string[]>>;
}
