// Ported from kubernetes pkg/volume/iscsi/iscsi.go and pkg/volume/iscsi/attacher.go, release-1.23.
// Like FC, no third-party attach: WaitForAttach logs in and scans the LUN; UnmountDevice = DetachDisk
// (from the mount path, idempotent on retry) followed by RemoveAll of the global dir.
import { GoError } from '../api/errors.js';
import type { UID } from '../api/v1.js';
import type { Fixes } from '../fixes.js';
import type { Co } from '../sim/index.js';
import { dirname, join } from '../storage/fs.js';
import type { Host } from '../storage/host.js';
import { cleanupMountPoint, getMountRefs } from '../storage/mountUtils.js';
import { ISCSI_TARGET_IQN, ISCSI_TARGET_PORTAL } from '../storage/san.js';
import { iscsiNoPathText, waitForAttachFault } from './attachFault.js';
import { mountDeviceCommon } from './fc.js';
import { diskSetUp } from './fcUtil.js';
import {
  attachDisk,
  detachBlockISCSIDisk,
  detachDisk,
  extractDeviceAndPrefix,
  extractIface,
  extractPortalAndIqn,
  globalPDName,
  globalVDPDName,
  type IscsiDisk,
  iscsiPluginName,
} from './iscsiUtil.js';
import { callEmbeddedProvider, MetricsBlock, MetricsStatFS } from './metrics.js';
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
import { escapeQualifiedName, getReliableMountRefs, KeyMutex } from './volumeUtil.js';

const iscsiEscapedName = escapeQualifiedName(iscsiPluginName);
const noDiskInfo = (): GoError => new GoError('Spec does not reference an ISCSI volume type');

export class IscsiPlugin implements VolumePlugin {
  readonly kind = 'iscsi' as const;
  /** targetLocks: one per IQN, held across login / logout (in-process: a kubelet restart drops them). */
  readonly targetLocks: KeyMutex;

  constructor(
    readonly host: Host,
    readonly fixes: Fixes,
  ) {
    this.targetLocks = new KeyMutex(host.sim);
  }

  getPluginName(): string {
    return iscsiPluginName;
  }

  isAttachable(): boolean {
    return true;
  }

  /** createISCSIDisk over the simulated SAN: the one target portal + IQN, the LUN's number, iface default. */
  iscsiDisk(volName: string, podUID: UID): IscsiDisk | undefined {
    const lun = this.host.san.lun(volName);
    if (lun === undefined || lun.plugin !== 'iscsi') return undefined;
    return {
      VolName: volName,
      podUID,
      Portals: [ISCSI_TARGET_PORTAL],
      Iqn: ISCSI_TARGET_IQN,
      Lun: String(lun.lunNumber),
      Iface: 'default',
      InitiatorName: '',
    };
  }

  newAttacher(): Attacher {
    return new IscsiAttacher(this);
  }

  newDetacher(): Detacher {
    return new IscsiDetacher(this);
  }

  newMounter(spec: Spec, podUID: UID): Mounter {
    return new IscsiDiskMounter(this, spec, podUID);
  }

  newUnmounter(volumeName: string, podUID: UID): Unmounter {
    return new IscsiDiskUnmounter(this, volumeName, podUID);
  }

  newBlockVolumeMapper(spec: Spec, podUID: UID): BlockVolumeMapper {
    return new IscsiDiskMapper(this, spec, podUID);
  }

  newBlockVolumeUnmapper(volumeName: string, podUID: UID): BlockVolumeUnmapper {
    return new IscsiDiskUnmapper(this, volumeName, podUID);
  }

  /** ConstructVolumeSpec: the global mount among the mount refs, parsed back to portal + IQN + LUN + iface. */
  *constructVolumeSpec(volumeName: string, mountPath: string): Co<Result<Spec>> {
    const fail = (message: string): Result<Spec> => ({ value: undefined, err: new GoError(message) });
    if (this.host.faults.constructVolumeSpec(volumeName)) {
      return fail(`error checking path ${mountPath}: input/output error`);
    }
    // Try really hard to get the global mount of the volume (PR #102059).
    const paths = yield* getReliableMountRefs(this.host, this.fixes, mountPath);
    if (paths.err !== undefined) return paths; // "Kubelet cannot unmount volume at %s, please unmount it ... manually"
    const pluginDir = this.host.getPluginDir(iscsiPluginName);
    const globalPDPath = paths.value.find((p) => p.includes(pluginDir)) ?? '';
    if (globalPDPath.length === 0) return fail("couldn't fetch globalPDPath. failed to obtain volume spec");
    const dp = extractDeviceAndPrefix(globalPDPath);
    if (dp.err !== undefined) return { value: undefined, err: dp.err };
    const pi = extractPortalAndIqn(dp.value.device);
    if (pi.err !== undefined) return { value: undefined, err: pi.err };
    const lunText = dp.value.device.split('-lun-')[1];
    if (lunText === undefined) return fail(`failed to retrieve lun from globalPDPath: ${globalPDPath}`);
    extractIface(globalPDPath);
    const lun = this.host.san.findIscsiLun(pi.value.portal, pi.value.iqn, Number(lunText));
    if (lun === undefined) return fail(`no iSCSI LUN behind ${globalPDPath}`);
    return { value: specOfLun(volumeName, lun, 'Filesystem'), err: undefined };
  }

  /**
   * ConstructBlockVolumeSpec: FindGlobalMapPathUUIDFromPod, then getVolumeSpecFromGlobalMapPath of its
   * parent (plugins/kubernetes.io/iscsi/volumeDevices/iface-default/<portal>-<iqn>-lun-<n>/<pod uid>):
   * portal, IQN and LUN from the name, the iface from the path (required here, unlike Filesystem).
   */
  *constructBlockVolumeSpec(podUID: UID, volumeName: string, mapPath: string): Co<Result<Spec>> {
    const fail = (message: string): Result<Spec> => ({ value: undefined, err: new GoError(message) });
    if (this.host.faults.constructVolumeSpec(volumeName)) {
      return fail(`error checking path ${mapPath}: input/output error`);
    }
    const pluginDir = this.host.getVolumeDevicePluginDir(iscsiPluginName);
    const globalMapPathUUID = findGlobalMapPathUUIDFromPod(this.host, pluginDir, mapPath, podUID);
    const globalMapPath = globalMapPathUUID === '' ? '.' : dirname(globalMapPathUUID);
    const dp = extractDeviceAndPrefix(globalMapPath);
    if (dp.err !== undefined) return { value: undefined, err: dp.err };
    const pi = extractPortalAndIqn(dp.value.device);
    if (pi.err !== undefined) return { value: undefined, err: pi.err };
    const lunText = dp.value.device.split('-lun-')[1];
    if (lunText === undefined) return fail(`failed to retrieve lun from globalMapPath: ${globalMapPath}`);
    const [, found] = extractIface(globalMapPath);
    if (!found) return fail(`failed to retrieve iface from globalMapPath: ${globalMapPath}`);
    const lun = this.host.san.findIscsiLun(pi.value.portal, pi.value.iqn, Number(lunText));
    if (lun === undefined) return fail(`no iSCSI LUN behind ${globalMapPath}`);
    return { value: specOfLun(volumeName, lun, 'Block'), err: undefined };
  }

  /** GetDeviceMountRefs = mounter.GetMountRefs. */
  // biome-ignore lint/correctness/useYield: a /proc read takes no virtual time
  *getDeviceMountRefs(deviceMountPath: string): Co<Result<string[]>> {
    return getMountRefs(this.host, deviceMountPath);
  }
}

class IscsiAttacher implements Attacher {
  constructor(private readonly plugin: IscsiPlugin) {}

  // biome-ignore lint/correctness/useYield: no third-party attach for iSCSI
  *attach(): Co<Result<string>> {
    return { value: '', err: undefined };
  }

  *waitForAttach(spec: Spec, _devicePath: string, podUID: UID): Co<Result<string>> {
    const disk = this.plugin.iscsiDisk(spec.name, podUID);
    if (disk === undefined) return { value: undefined, err: noDiskInfo() };
    // A waitForAttach fault: no portal of the target answers (AttachDisk gets no path to the LUN).
    const fault = yield* waitForAttachFault(this.plugin.host, spec.name, () => iscsiNoPathText(disk.Portals));
    if (fault !== undefined) return { value: undefined, err: fault };
    return yield* attachDisk(this.plugin.host, this.plugin.targetLocks, disk, spec.volumeMode);
  }

  getDeviceMountPath(spec: Spec): string {
    const disk = this.plugin.iscsiDisk(spec.name, '');
    return disk === undefined ? '' : globalPDName(this.plugin.host, disk);
  }

  *mountDevice(spec: Spec, devicePath: string, deviceMountPath: string): Co<GoError | undefined> {
    const err = yield* mountDeviceCommon(this.plugin.host, spec, devicePath, deviceMountPath);
    this.plugin.host.publish({ kind: 'mountDevice', volume: spec.name, ok: err === undefined });
    return err;
  }
}

class IscsiDetacher implements Detacher {
  constructor(private readonly plugin: IscsiPlugin) {}

  // biome-ignore lint/correctness/useYield: no third-party detach for iSCSI
  *detach(): Co<GoError | undefined> {
    return undefined;
  }

  /** UnmountDevice = DetachDisk(mount path), then RemoveAll of the global dir. */
  *unmountDevice(deviceMountPath: string): Co<GoError | undefined> {
    const host = this.plugin.host;
    const volume = volumeOfPath(host, deviceMountPath, (p) => {
      const dp = extractDeviceAndPrefix(p);
      const pi = dp.err === undefined ? extractPortalAndIqn(dp.value.device) : undefined;
      const lunText = dp.value?.device.split('-lun-')[1];
      if (pi?.value === undefined || lunText === undefined) return undefined;
      return host.san.findIscsiLun(pi.value.portal, pi.value.iqn, Number(lunText));
    });
    openDeviceBehindKubelet(host, volume);
    let err = yield* detachDisk(host, this.plugin.targetLocks, volume, deviceMountPath);
    if (err !== undefined) {
      err = new GoError(`iscsi: failed to detach disk: ${deviceMountPath}\nError: ${err.message}`);
    } else {
      const rmErr = host.removeAll(deviceMountPath);
      if (rmErr !== undefined) {
        err = new GoError(
          `iscsi: failed to delete the directory: ${deviceMountPath}\nError: ${rmErr.message}`,
        );
      }
    }
    recordUnmountDevice(host, volume, err);
    return err;
  }
}

class IscsiDiskMounter implements Mounter {
  /** iscsiDisk.MetricsProvider = NewMetricsStatFS(GetPath()). */
  private readonly metrics: MetricsStatFS;

  constructor(
    private readonly plugin: IscsiPlugin,
    private readonly spec: Spec,
    private readonly podUID: UID,
  ) {
    this.metrics = new MetricsStatFS(plugin.host, this.getPath());
  }

  getPath(): string {
    return this.plugin.host.getPodVolumeDir(this.podUID, iscsiEscapedName, this.spec.name);
  }

  *getMetrics(): Co<Result<Metrics>> {
    return yield* this.metrics.getMetrics();
  }

  /** SetUp = diskSetUp (pkg/volume/iscsi/disk_manager.go): bind mount without checking the global path. */
  *setUp(): Co<GoError | undefined> {
    const disk = this.plugin.iscsiDisk(this.spec.name, this.podUID);
    if (disk === undefined) return noDiskInfo();
    const host = this.plugin.host;
    return yield* diskSetUp(
      host,
      globalPDName(host, disk),
      this.getPath(),
      this.spec.readOnly,
      this.podUID,
      this.spec.name,
    );
  }
}

class IscsiDiskUnmounter implements Unmounter {
  constructor(
    private readonly plugin: IscsiPlugin,
    private readonly volumeName: string,
    private readonly podUID: UID,
  ) {}

  getPath(): string {
    return this.plugin.host.getPodVolumeDir(this.podUID, iscsiEscapedName, this.volumeName);
  }

  /** TearDown = mount.CleanupMountPoint of the pod's volume dir. */
  *tearDown(): Co<GoError | undefined> {
    const err = yield* tearDownFault(this.plugin.host, this.volumeName, this.getPath());
    if (err !== undefined) return err;
    return yield* cleanupMountPoint(this.plugin.host, this.getPath());
  }
}

class IscsiDiskMapper implements BlockVolumeMapper {
  /** The embedded MetricsProvider: NewMetricsBlock(globalMapPath/podUID) since PR #101587, unset before. */
  private readonly metricsProvider: MetricsProvider | undefined;

  constructor(
    private readonly plugin: IscsiPlugin,
    private readonly spec: Spec,
    private readonly podUID: UID,
  ) {
    if (plugin.fixes.on('block-metrics')) {
      this.metricsProvider = new MetricsBlock(plugin.host, join(this.getGlobalMapPath(spec), podUID));
    }
  }

  /** "SupportsMetrics returns true for SupportsMetrics as it initializes the MetricsProvider" (PR #101587). */
  supportsMetrics(): boolean {
    return this.plugin.fixes.on('block-metrics');
  }

  *getMetrics(): Co<Result<Metrics>> {
    return yield* callEmbeddedProvider(this.metricsProvider);
  }

  getGlobalMapPath(spec: Spec): string {
    const disk = this.plugin.iscsiDisk(spec.name, this.podUID);
    return disk === undefined ? '' : globalVDPDName(this.plugin.host, disk);
  }

  getPodDeviceMapPath(): string {
    return join(this.plugin.host.getPodVolumeDeviceDir(this.podUID, iscsiEscapedName), this.spec.name);
  }

  // biome-ignore lint/correctness/useYield: iSCSI SetUpDevice returns "", nil
  *setUpDevice(): Co<Result<string>> {
    return { value: '', err: undefined };
  }

  *mapPodDevice(): Co<Result<string>> {
    const host = this.plugin.host;
    return yield* mapBlockVolume(
      host,
      this.spec.name,
      this.getGlobalMapPath(this.spec),
      this.podUID,
      this.getPodDeviceMapPath(),
    );
  }
}

class IscsiDiskUnmapper implements BlockVolumeUnmapper {
  constructor(
    private readonly plugin: IscsiPlugin,
    private readonly volumeName: string,
    private readonly podUID: UID,
  ) {}

  /**
   * TearDownDevice: "iSCSI plugin needs volume detach operation during TearDownDevice()" =
   * DetachBlockISCSIDisk + RemoveAll(mapPath). The unmountDevice faults apply here.
   */
  *tearDownDevice(mapPath: string): Co<GoError | undefined> {
    const host = this.plugin.host;
    const volume = this.volumeName;
    openDeviceBehindKubelet(host, volume);
    let err: GoError | undefined;
    if (host.faults.unmountDevice(volume, 'beforeUnmount')) {
      err = new GoError(`iscsi: failed to detach disk: ${mapPath}\nError: device or resource busy`);
    } else {
      const detachErr = yield* detachBlockISCSIDisk(host, this.plugin.targetLocks, volume, mapPath);
      if (detachErr !== undefined) {
        err = new GoError(`iscsi: failed to detach disk: ${mapPath}\nError: ${detachErr.message}`);
      } else {
        const rmErr = host.removeAll(mapPath);
        if (rmErr !== undefined)
          err = new GoError(`iscsi: failed to delete the directory: ${mapPath}\nError: ${rmErr}`);
      }
    }
    recordUnmountDevice(host, volume, err);
    return err;
  }

  /** The kubelet's UnmapBlockVolume for this pod (iSCSI has no UnmapPodDevice of its own). */
  *unmapPodDevice(): Co<GoError | undefined> {
    const host = this.plugin.host;
    const disk = this.plugin.iscsiDisk(this.volumeName, this.podUID);
    const podMapPath = join(host.getPodVolumeDeviceDir(this.podUID, iscsiEscapedName), this.volumeName);
    const err = yield* tearDownFault(host, this.volumeName, podMapPath);
    if (err !== undefined) return err;
    const globalMapPath = disk === undefined ? '' : globalVDPDName(host, disk);
    return yield* unmapBlockVolume(host, globalMapPath, this.podUID, podMapPath);
  }
}
