// Ported from kubernetes pkg/volume/fc/fc.go and pkg/volume/fc/attacher.go, release-1.23.
// FC has no third-party attach (PR #48940): Attach / Detach are no-ops and the node does the work in
// WaitForAttach (rescan, find the dm map) and UnmountDevice (unmount, multipath -f, delete the disks).
import { GoError } from '../api/errors.js';
import type { UID } from '../api/v1.js';
import type { Fixes } from '../fixes.js';
import type { Co } from '../sim/index.js';
import { dirname, join } from '../storage/fs.js';
import { type Host, isNotExist } from '../storage/host.js';
import {
  cleanupMountPoint,
  formatAndMount,
  getDeviceNameFromMount,
  getMountRefs,
} from '../storage/mountUtils.js';
import { FC_TARGET_WWN } from '../storage/san.js';
import { FC_NO_DISK_TEXT, waitForAttachFault } from './attachFault.js';
import {
  attachDisk,
  detachBlockFCDisk,
  detachDisk,
  diskSetUp,
  type FcDisk,
  fcPluginName,
  makePDNameInternal,
  makeVDPDNameInternal,
  parsePDName,
} from './fcUtil.js';
import { MetricsBlock, MetricsNil } from './metrics.js';
import {
  findGlobalMapPathUUIDFromPod,
  mapBlockVolume,
  openDeviceBehindKubelet,
  recordUnmountDevice,
  specOfLun,
  tearDownFault,
  unmapBlockVolume,
  volumeOfPath,
} from './pluginCommon.js';
import { inTreeStagingFault } from './stagingFault.js';
import type {
  Attacher,
  BlockVolumeMapper,
  BlockVolumeUnmapper,
  Detacher,
  Metrics,
  MetricsProvider,
  Mounter,
  Result,
  Spec,
  Unmounter,
  VolumePlugin,
} from './volume.js';
import { escapeQualifiedName, getReliableMountRefs, pollImmediate } from './volumeUtil.js';

/** PR #101862: FC UnmountDevice retries DetachDisk every 10 s for up to 2 min ("2 minutes should be
 * enough within 6 minute force detach timeout"). */
const detachDiskRetryInterval = 10_000;
const detachDiskRetryTimeout = 120_000;

const fcEscapedName = escapeQualifiedName(fcPluginName);

export class FcPlugin implements VolumePlugin {
  readonly kind = 'fc' as const;

  constructor(
    readonly host: Host,
    readonly fixes: Fixes,
  ) {}

  getPluginName(): string {
    return fcPluginName;
  }

  isAttachable(): boolean {
    return true;
  }

  /** getWwnsLunWwids over the simulated SAN: the FC target WWN and the LUN number of the volume. */
  fcDisk(volName: string, podUID: UID): FcDisk | undefined {
    const lun = this.host.san.lun(volName);
    if (lun === undefined || lun.plugin !== 'fc') return undefined;
    return { volName, podUID, wwns: [FC_TARGET_WWN], lun: String(lun.lunNumber) };
  }

  newAttacher(): Attacher {
    return new FcAttacher(this);
  }

  newDetacher(): Detacher {
    return new FcDetacher(this);
  }

  newMounter(spec: Spec, podUID: UID): Mounter {
    return new FcDiskMounter(this, spec, podUID);
  }

  newUnmounter(volumeName: string, podUID: UID): Unmounter {
    return new FcDiskUnmounter(this, volumeName, podUID);
  }

  newBlockVolumeMapper(spec: Spec, podUID: UID): BlockVolumeMapper {
    return new FcDiskMapper(this, spec, podUID);
  }

  newBlockVolumeUnmapper(volumeName: string, podUID: UID): BlockVolumeUnmapper {
    return new FcDiskUnmapper(this, volumeName, podUID);
  }

  /**
   * ConstructVolumeSpec: find the global mount among the mount refs of the pod's volume dir and parse the
   * WWN + LUN out of its name. PR #102059 ("Try really hard to get the global mount of the volume, an
   * error returned from here would leave the global mount still mounted, while marking the volume as
   * unused") reads the refs with GetReliableMountRefs; before it, with mounter.GetMountRefs.
   */
  *constructVolumeSpec(volumeName: string, mountPath: string): Co<Result<Spec>> {
    if (this.host.faults.constructVolumeSpec(volumeName)) {
      return { value: undefined, err: new GoError(`error checking path ${mountPath}: input/output error`) };
    }
    const paths = yield* getReliableMountRefs(this.host, this.fixes, mountPath);
    if (paths.err !== undefined) return paths; // "Kubelet cannot unmount volume at %s, please unmount it manually"
    const pluginDir = this.host.getPluginDir(fcPluginName);
    const globalPDPath = paths.value.find((p) => p.includes(pluginDir)) ?? '';
    if (globalPDPath.length === 0) {
      return {
        value: undefined,
        err: new GoError("couldn't fetch globalPDPath. failed to obtain volume spec"),
      };
    }
    const parsed = parsePDName(globalPDPath);
    const lun =
      parsed.err === undefined ? this.host.san.findFcLun(parsed.value.wwns, parsed.value.lun) : undefined;
    if (lun === undefined) {
      const why = parsed.err?.message ?? `no LUN behind ${globalPDPath}`;
      return {
        value: undefined,
        err: new GoError(`failed to retrieve volume plugin information from globalPDPath: ${why}`),
      };
    }
    return { value: specOfLun(volumeName, lun, 'Filesystem'), err: undefined };
  }

  /**
   * ConstructBlockVolumeSpec: FindGlobalMapPathUUIDFromPod under the plugin's volumeDevices dir, then
   * parsePDName of its parent (plugins/kubernetes.io/fc/volumeDevices/<wwn>-lun-<n>/<pod uid>).
   */
  // biome-ignore lint/correctness/useYield: a directory walk takes no virtual time
  *constructBlockVolumeSpec(podUID: UID, volumeName: string, mapPath: string): Co<Result<Spec>> {
    if (this.host.faults.constructVolumeSpec(volumeName)) {
      return { value: undefined, err: new GoError(`error checking path ${mapPath}: input/output error`) };
    }
    const pluginDir = this.host.getVolumeDevicePluginDir(fcPluginName);
    const globalMapPathUUID = findGlobalMapPathUUIDFromPod(this.host, pluginDir, mapPath, podUID);
    // Upstream parses filepath.Dir("") = "." when nothing was found: a spec with WWIDs ["."] that names
    // no LUN. The simulator cannot build a spec without a LUN, so it fails here instead; either way
    // the real volume is not reconstructed (and so drops out of volumesInUse).
    const globalPDPath = globalMapPathUUID === '' ? '.' : dirname(globalMapPathUUID);
    const parsed = parsePDName(globalPDPath);
    const lun =
      parsed.err === undefined ? this.host.san.findFcLun(parsed.value.wwns, parsed.value.lun) : undefined;
    if (lun === undefined) {
      const why = parsed.err?.message ?? `no LUN behind ${globalPDPath}`;
      return {
        value: undefined,
        err: new GoError(`failed to retrieve volume plugin information from globalPDPath: ${why}`),
      };
    }
    return { value: specOfLun(volumeName, lun, 'Block'), err: undefined };
  }

  // biome-ignore lint/correctness/useYield: a /proc read takes no virtual time
  *getDeviceMountRefs(deviceMountPath: string): Co<Result<string[]>> {
    return getMountRefs(this.host, deviceMountPath);
  }
}

class FcAttacher implements Attacher {
  constructor(private readonly plugin: FcPlugin) {}

  // biome-ignore lint/correctness/useYield: no third-party attach for FC
  *attach(): Co<Result<string>> {
    return { value: '', err: undefined };
  }

  /** WaitForAttach = fcUtil.AttachDisk: find (rescanning if needed) the LUN's dm map or disk. */
  *waitForAttach(spec: Spec, _devicePath: string, podUID: UID): Co<Result<string>> {
    const disk = this.plugin.fcDisk(spec.name, podUID);
    if (disk === undefined) {
      return {
        value: undefined,
        err: new GoError('fc: no fc disk information found. failed to make a new mounter'),
      };
    }
    // A waitForAttach fault: the rescan finds no disk of the LUN's WWNs (a path down, zoning not there yet).
    const fault = yield* waitForAttachFault(this.plugin.host, spec.name, () => FC_NO_DISK_TEXT);
    if (fault !== undefined) return { value: undefined, err: fault };
    return yield* attachDisk(this.plugin.host, disk);
  }

  getDeviceMountPath(spec: Spec): string {
    const disk = this.plugin.fcDisk(spec.name, '');
    return disk === undefined ? '' : makePDNameInternal(this.plugin.host, disk.wwns, disk.lun);
  }

  /** MountDevice: mkdir, then FormatAndMount if not mounted yet; on error remove the dir. */
  *mountDevice(spec: Spec, devicePath: string, deviceMountPath: string): Co<GoError | undefined> {
    const err = yield* mountDeviceCommon(this.plugin.host, spec, devicePath, deviceMountPath);
    this.plugin.host.publish({ kind: 'mountDevice', volume: spec.name, ok: err === undefined });
    return err;
  }
}

/** attacher.go MountDevice, shared by FC and iSCSI (the two are line for line the same). */
export function* mountDeviceCommon(
  host: Host,
  spec: Spec,
  devicePath: string,
  deviceMountPath: string,
): Co<GoError | undefined> {
  host.releaseDevice(spec.name);
  let notMnt: boolean;
  const r = host.isLikelyNotMountPoint(deviceMountPath);
  if (r.err !== undefined) {
    // Only a missing directory is created; any other error fails MountDevice.
    if (!isNotExist(r.err)) return r.err;
    const mkErr = host.mkdirAll(deviceMountPath);
    if (mkErr !== undefined) return mkErr;
    notMnt = true;
  } else {
    notMnt = r.value;
  }
  const options = spec.readOnly ? ['ro'] : [];
  if (notMnt) {
    const err =
      (yield* inTreeStagingFault(host, spec.name, deviceMountPath)) ??
      (yield* formatAndMount(host, devicePath, deviceMountPath, 'ext4', options));
    if (err !== undefined) {
      host.remove(deviceMountPath);
      return err;
    }
  }
  return undefined;
}

class FcDetacher implements Detacher {
  constructor(private readonly plugin: FcPlugin) {}

  // biome-ignore lint/correctness/useYield: no third-party detach for FC
  *detach(): Co<GoError | undefined> {
    return undefined;
  }

  *unmountDevice(deviceMountPath: string): Co<GoError | undefined> {
    const host = this.plugin.host;
    const volume = volumeOfPath(host, deviceMountPath, (p) => {
      const parsed = parsePDName(p);
      return parsed.err === undefined ? host.san.findFcLun(parsed.value.wwns, parsed.value.lun) : undefined;
    });
    const err = yield* this.unmountDeviceInternal(deviceMountPath, volume);
    recordUnmountDevice(host, volume, err);
    return err;
  }

  /** fcDetacher.UnmountDevice. */
  private *unmountDeviceInternal(deviceMountPath: string, volume: string): Co<GoError | undefined> {
    const host = this.plugin.host;
    openDeviceBehindKubelet(host, volume);
    if (host.faults.unmountDevice(volume, 'beforeUnmount')) {
      return new GoError(
        `fc: failed to unmount: ${deviceMountPath}\nError: umount: ${deviceMountPath}: target is busy`,
      );
    }
    // Specify device name for DetachDisk later.
    const dev = getDeviceNameFromMount(host, deviceMountPath);
    if (dev.err !== undefined) return dev.err;
    const devName = dev.value.device;
    // Unmount for deviceMountPath(=globalPDPath).
    const err = yield* cleanupMountPoint(host, deviceMountPath);
    if (err !== undefined)
      return new GoError(`fc: failed to unmount: ${deviceMountPath}\nError: ${err.message}`);
    // GetDeviceNameFromMount returns "" if deviceMountPath is not a mount point (PR #94781).
    if (devName === '') return undefined;
    if (!this.plugin.fixes.on('fc-unmount-retry')) {
      const detachErr = yield* detachDisk(host, volume, devName);
      if (detachErr !== undefined) {
        return new GoError(`fc: failed to detach disk: ${devName}\nError: ${detachErr.message}`);
      }
      return undefined;
    }
    // The device is unmounted now. If UnmountDevice was retried, GetDeviceNameFromMount won't find any
    // mount and won't return DetachDisk below. Therefore implement our own retry mechanism here.
    let detachError: GoError | undefined;
    const pollErr = yield* pollImmediate(host.sim, detachDiskRetryInterval, detachDiskRetryTimeout, () =>
      detachDiskCondition(host, volume, devName, (e) => {
        detachError = e;
      }),
    );
    if (pollErr !== undefined) {
      host.publish({ kind: 'fcDetachRetryExhausted', volume, device: devName });
      return new GoError(`fc: failed to detach disk: ${devName}: ${detachError?.message ?? pollErr.message}`);
    }
    return undefined;
  }
}

/** The condition of UnmountDevice's detach retry: DetachDisk once, its error kept by `keep`. */
function* detachDiskCondition(
  host: Host,
  volume: string,
  devName: string,
  keep: (err: GoError | undefined) => void,
): Co<[boolean, GoError | undefined]> {
  const err = yield* detachDisk(host, volume, devName);
  keep(err);
  return [err === undefined, undefined];
}

class FcDiskMounter extends MetricsNil implements Mounter {
  constructor(
    private readonly plugin: FcPlugin,
    private readonly spec: Spec,
    private readonly podUID: UID,
  ) {
    super();
  }

  getPath(): string {
    return this.plugin.host.getPodVolumeDir(this.podUID, fcEscapedName, this.spec.name);
  }

  /** SetUp = diskSetUp: bind-mount the global path, without checking it is mounted. */
  *setUp(): Co<GoError | undefined> {
    const disk = this.plugin.fcDisk(this.spec.name, this.podUID);
    if (disk === undefined)
      return new GoError('fc: no fc disk information found. failed to make a new mounter');
    const host = this.plugin.host;
    const globalPDPath = makePDNameInternal(host, disk.wwns, disk.lun);
    return yield* diskSetUp(
      host,
      globalPDPath,
      this.getPath(),
      this.spec.readOnly,
      this.podUID,
      this.spec.name,
    );
  }
}

class FcDiskUnmounter implements Unmounter {
  constructor(
    private readonly plugin: FcPlugin,
    private readonly volumeName: string,
    private readonly podUID: UID,
  ) {}

  getPath(): string {
    return this.plugin.host.getPodVolumeDir(this.podUID, fcEscapedName, this.volumeName);
  }

  /** TearDown = mount.CleanupMountPoint of the pod's volume dir. */
  *tearDown(): Co<GoError | undefined> {
    const err = yield* tearDownFault(this.plugin.host, this.volumeName, this.getPath());
    if (err !== undefined) return err;
    return yield* cleanupMountPoint(this.plugin.host, this.getPath());
  }
}

class FcDiskMapper implements BlockVolumeMapper {
  /**
   * fcDiskMapper embeds *fcDisk, which embeds volume.MetricsNil, and since PR #101587 also a
   * volume.MetricsProvider set to NewMetricsBlock(globalMapPath/podUID). Go resolves GetMetrics to the
   * shallower embedded MetricsProvider (MetricsBlock) and SupportsMetrics, which only MetricsNil
   * defines, to MetricsNil's false. Before #101587 GetMetrics is MetricsNil's: NotSupported, no panic.
   */
  private readonly metricsProvider: MetricsProvider;
  private readonly metricsNil = new MetricsNil();

  constructor(
    private readonly plugin: FcPlugin,
    private readonly spec: Spec,
    private readonly podUID: UID,
  ) {
    this.metricsProvider = plugin.fixes.on('block-metrics')
      ? new MetricsBlock(plugin.host, join(this.getGlobalMapPath(spec), podUID))
      : this.metricsNil;
  }

  /** fcDisk's MetricsNil.SupportsMetrics: false, so the stats calculator skips FC block volumes. */
  supportsMetrics(): boolean {
    return this.metricsNil.supportsMetrics();
  }

  *getMetrics(): Co<Result<Metrics>> {
    return yield* this.metricsProvider.getMetrics();
  }

  getGlobalMapPath(spec: Spec): string {
    const disk = this.plugin.fcDisk(spec.name, this.podUID);
    return disk === undefined ? '' : makeVDPDNameInternal(this.plugin.host, disk.wwns, disk.lun);
  }

  getPodDeviceMapPath(): string {
    return join(this.plugin.host.getPodVolumeDeviceDir(this.podUID, fcEscapedName), this.spec.name);
  }

  // biome-ignore lint/correctness/useYield: fc has nothing to set up per device
  *setUpDevice(): Co<Result<string>> {
    return { value: '', err: undefined };
  }

  /** The kubelet's MapBlockVolume for this pod (global map bind + pod device link). */
  *mapPodDevice(): Co<Result<string>> {
    return yield* mapBlockVolume(
      this.plugin.host,
      this.spec.name,
      this.getGlobalMapPath(this.spec),
      this.podUID,
      this.getPodDeviceMapPath(),
    );
  }
}

class FcDiskUnmapper implements BlockVolumeUnmapper {
  constructor(
    private readonly plugin: FcPlugin,
    private readonly volumeName: string,
    private readonly podUID: UID,
  ) {}

  /** TearDownDevice = DetachBlockFCDisk + RemoveAll(mapPath); the unmountDevice faults apply here. */
  *tearDownDevice(mapPath: string, devicePath: string): Co<GoError | undefined> {
    const host = this.plugin.host;
    const volume = this.volumeName;
    openDeviceBehindKubelet(host, volume);
    let err: GoError | undefined;
    if (host.faults.unmountDevice(volume, 'beforeUnmount')) {
      err = new GoError(`fc: failed to detach disk: ${mapPath}\nError: device or resource busy`);
    } else {
      const detachErr = yield* detachBlockFCDisk(host, mapPath, devicePath);
      if (detachErr !== undefined) {
        err = new GoError(`fc: failed to detach disk: ${mapPath}\nError: ${detachErr.message}`);
      } else if (host.faults.unmountDevice(volume, 'afterUnmount')) {
        err = new GoError(`fc: failed to delete the directory: ${mapPath}\nError: device or resource busy`);
      } else {
        const rmErr = host.removeAll(mapPath);
        if (rmErr !== undefined)
          err = new GoError(`fc: failed to delete the directory: ${mapPath}\nError: ${rmErr}`);
      }
    }
    recordUnmountDevice(host, volume, err);
    return err;
  }

  /** fc's UnmapPodDevice is a no-op; the kubelet's UnmapBlockVolume (link + global map bind) is done here. */
  *unmapPodDevice(): Co<GoError | undefined> {
    const host = this.plugin.host;
    const disk = this.plugin.fcDisk(this.volumeName, this.podUID);
    const podMapPath = join(host.getPodVolumeDeviceDir(this.podUID, fcEscapedName), this.volumeName);
    const err = yield* tearDownFault(host, this.volumeName, podMapPath);
    if (err !== undefined) return err;
    const globalMapPath = disk === undefined ? '' : makeVDPDNameInternal(host, disk.wwns, disk.lun);
    return yield* unmapBlockVolume(host, globalMapPath, this.podUID, podMapPath);
  }
}
