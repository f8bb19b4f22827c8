// Ported from kubernetes pkg/volume/csi (csi_attacher.go, csi_mounter.go, csi_block.go, csi_plugin.go),
// release-1.23, reduced to what the races need, with a simulated block-storage CSI driver behind it.
// Unlike FC / iSCSI, CSI is really attachable: Attach (ControllerPublish) makes the LUN reachable from the
// node and Detach (ControllerUnpublish) fences it. NodeStage / NodeUnstage are MountDevice /
// UnmountDevice; NodePublish / NodeUnpublish are SetUp / TearDown.

import { GoError } from '../api/errors.js';
import type { UID } from '../api/v1.js';
import type { Fixes } from '../fixes.js';
import { type Co, sleep } from '../sim/index.js';
import { FC_HBA_HOSTS, fcByPath } from '../storage/devices.js';
import { basename, dirname, join } from '../storage/fs.js';
import type { Host } from '../storage/host.js';
import { cleanupMountPoint, formatAndMount, getMountRefs, mount, unmount } from '../storage/mountUtils.js';
import { CSI_TARGET_WWN } from '../storage/san.js';
import { csiAttachmentGetErrorText, waitForAttachFault } from './attachFault.js';
import { MetricsBlock, MetricsStatFS } from './metrics.js';
import {
  mapBlockVolume,
  openDeviceBehindKubelet,
  recordUnmountDevice,
  specOfLun,
  tearDownFault,
  unmapBlockVolume,
} from './pluginCommon.js';
import { csiSetUpFault } from './setUpFault.js';
import { csiStagingFault } from './stagingFault.js';
import {
  type Attacher,
  type BlockVolumeMapper,
  type BlockVolumeUnmapper,
  type Detacher,
  type Metrics,
  type Mounter,
  pluginNames,
  type Result,
  type Spec,
  type Unmounter,
  type VolumePlugin,
} from './volume.js';
import { escapeQualifiedName } from './volumeUtil.js';

export const CSIPluginName = pluginNames.csi;
const csiEscapedName = escapeQualifiedName(CSIPluginName);
/**
 * The detachError.message the external attacher records when ControllerUnpublishVolume fails with a
 * timeout (its gRPC status text), which csiAttacher.Detach returns as is.
 */
export const csiDetachErrorText = 'rpc error: code = DeadlineExceeded desc = context deadline exceeded';
/** csi_attacher.go: how often waitForVolumeAttachment re-reads the VolumeAttachment. */
const csiAttachPollInterval = 1000;

export class CsiPlugin implements VolumePlugin {
  readonly kind = 'csi' as const;

  constructor(
    readonly host: Host,
    readonly fixes: Fixes,
  ) {}

  getPluginName(): string {
    return CSIPluginName;
  }

  isAttachable(): boolean {
    return true;
  }

  /** makeDeviceMountPath: plugins/kubernetes.io/csi/pv/<pv>/globalmount (the staging path). */
  deviceMountPath(volumeName: string): string {
    return join(this.host.getPluginDir(CSIPluginName), 'pv', volumeName, 'globalmount');
  }

  /** The block global map path: plugins/kubernetes.io/csi/volumeDevices/<pv>/dev. */
  globalMapPath(volumeName: string): string {
    return join(this.host.getVolumeDevicePluginDir(CSIPluginName), volumeName, 'dev');
  }

  /** getVolumeDeviceDataDir: plugins/kubernetes.io/csi/volumeDevices/<pv>/data (vol_data.json of a Block PV). */
  volumeDeviceDataDir(volumeName: string): string {
    return join(this.host.getVolumeDevicePluginDir(CSIPluginName), volumeName, 'data');
  }

  newAttacher(): Attacher {
    return new CsiAttacher(this);
  }

  newDetacher(): Detacher {
    return new CsiDetacher(this);
  }

  newMounter(spec: Spec, podUID: UID): Mounter {
    return new CsiMountMgr(this, spec, podUID);
  }

  newUnmounter(volumeName: string, podUID: UID): Unmounter {
    return new CsiUnmountMgr(this, volumeName, podUID);
  }

  newBlockVolumeMapper(spec: Spec, podUID: UID): BlockVolumeMapper {
    return new CsiBlockMapper(this, spec, podUID);
  }

  newBlockVolumeUnmapper(volumeName: string, podUID: UID): BlockVolumeUnmapper {
    return new CsiBlockUnmapper(this, volumeName, podUID);
  }

  /** ConstructVolumeSpec: from vol_data.json next to the mount dir (no /proc/mounts read). */
  // biome-ignore lint/correctness/useYield: reading vol_data.json takes no virtual time
  *constructVolumeSpec(volumeName: string, mountPath: string): Co<Result<Spec>> {
    if (this.host.faults.constructVolumeSpec(volumeName)) {
      return {
        value: undefined,
        err: new GoError(`failed to load volume data for ${volumeName}: input/output error`),
      };
    }
    const volDir = basename(mountPath) === 'mount' ? dirname(mountPath) : mountPath;
    const dataFile = join(volDir, 'vol_data.json');
    if (this.host.fs.get(dataFile)?.type !== 'file') {
      return { value: undefined, err: new GoError(`open ${dataFile}: no such file or directory`) };
    }
    const data = JSON.parse(this.host.fs.readFile(dataFile)) as { specVolID: string };
    const lun = this.host.san.lun(data.specVolID);
    if (lun === undefined)
      return { value: undefined, err: new GoError(`volume ${data.specVolID} not found`) };
    return { value: specOfLun(volumeName, lun, 'Filesystem'), err: undefined };
  }

  /** ConstructBlockVolumeSpec: loadVolumeData of getVolumeDeviceDataDir(specVolName); the pod is not read. */
  // biome-ignore lint/correctness/useYield: reading vol_data.json takes no virtual time
  *constructBlockVolumeSpec(_podUID: UID, volumeName: string, mapPath: string): Co<Result<Spec>> {
    if (this.host.faults.constructVolumeSpec(volumeName)) {
      return {
        value: undefined,
        err: new GoError(
          `plugin.ConstructBlockVolumeSpec failed loading volume data using [${mapPath}]: input/output error`,
        ),
      };
    }
    const dataFile = join(this.volumeDeviceDataDir(volumeName), 'vol_data.json');
    if (this.host.fs.get(dataFile)?.type !== 'file') {
      return {
        value: undefined,
        err: new GoError(
          `plugin.ConstructBlockVolumeSpec failed loading volume data using [${mapPath}]: open ${dataFile}: no such file or directory`,
        ),
      };
    }
    const data = JSON.parse(this.host.fs.readFile(dataFile)) as { specVolID: string };
    const lun = this.host.san.lun(data.specVolID);
    if (lun === undefined)
      return { value: undefined, err: new GoError(`volume ${data.specVolID} not found`) };
    return { value: specOfLun(volumeName, lun, 'Block'), err: undefined };
  }

  // biome-ignore lint/correctness/useYield: a /proc read takes no virtual time
  *getDeviceMountRefs(deviceMountPath: string): Co<Result<string[]>> {
    return getMountRefs(this.host, deviceMountPath);
  }

  /** The driver's device discovery: rescan for the LUN on both fabric ports; multipathd builds the map. */
  *driverStageDevices(volumeName: string): Co<Result<string>> {
    const host = this.host;
    const lun = host.san.lun(volumeName);
    if (lun === undefined)
      return { value: undefined, err: new GoError(`rpc error: code = NotFound desc = volume ${volumeName}`) };
    yield* sleep(host.latency('scsiRescan'));
    if (!host.san.isReachable(volumeName, host.node)) {
      return {
        value: undefined,
        err: new GoError(`rpc error: code = Internal desc = LUN ${lun.lunNumber} is not visible`),
      };
    }
    for (const h of FC_HBA_HOSTS)
      host.devices.addScsiPath(volumeName, h, fcByPath(h, CSI_TARGET_WWN, lun.lunNumber));
    host.devices.ensureMultipath(volumeName, lun.wwid);
    return { value: host.devices.preferredDevice(volumeName) ?? '', err: undefined };
  }

  /** The driver's NodeUnstage device clean-up: flush the map and delete the disks (idempotent). */
  *driverRemoveDevices(volumeName: string): Co<GoError | undefined> {
    const host = this.host;
    for (const m of host.devices.mapsOf(volumeName)) {
      yield* sleep(host.latency('multipathFlush'));
      if (host.faults.unmountDevice(volumeName, 'multipathFlushBusy') || host.isDevicePathOpen(m.path)) {
        host.publish({
          kind: 'multipathFlushFailed',
          volume: volumeName,
          device: m.path,
          fellThrough: false,
        });
        return new GoError(`rpc error: code = Internal desc = multipath -f ${m.path}: map in use`);
      }
      host.devices.removeMap(m.path);
    }
    for (const d of host.devices.scsiPathsOf(volumeName)) {
      yield* sleep(host.latency('scsiDelete'));
      host.deleteScsiDevice(d.path);
    }
    return undefined;
  }
}

class CsiAttacher implements Attacher {
  constructor(private readonly plugin: CsiPlugin) {}

  /** Attach: the VolumeAttachment is processed by the external attacher (ControllerPublishVolume). */
  *attach(spec: Spec, nodeName: string): Co<Result<string>> {
    yield* sleep(this.plugin.host.latency('controllerPublish'));
    this.plugin.host.san.attach(spec.name, nodeName);
    return { value: '', err: undefined };
  }

  /** WaitForAttach: waitForVolumeAttachment until VolumeAttachment.Status.Attached, or the timeout. */
  *waitForAttach(spec: Spec, _devicePath: string, _podUID: UID, timeoutMs: number): Co<Result<string>> {
    const host = this.plugin.host;
    // A waitForAttach fault: the VolumeAttachment cannot be read (the API server not reachable yet).
    const fault = yield* waitForAttachFault(host, spec.name, () =>
      csiAttachmentGetErrorText(spec.name, host.node),
    );
    if (fault !== undefined) return { value: undefined, err: fault };
    const deadline = host.sim.nowMs + timeoutMs;
    while (!host.san.isReachable(spec.name, host.node)) {
      if (host.sim.nowMs >= deadline) {
        return { value: undefined, err: new GoError(`attachment timeout for volume ${spec.name}`) };
      }
      yield* sleep(Math.min(csiAttachPollInterval, Math.max(1, deadline - host.sim.nowMs)));
    }
    return { value: '', err: undefined };
  }

  getDeviceMountPath(spec: Spec): string {
    return this.plugin.deviceMountPath(spec.name);
  }

  /** MountDevice = NodeStageVolume: the driver finds the device, formats it if blank, mounts the staging path. */
  *mountDevice(spec: Spec, _devicePath: string, deviceMountPath: string): Co<GoError | undefined> {
    const host = this.plugin.host;
    host.releaseDevice(spec.name);
    const fault = yield* csiStagingFault(host, spec.name);
    let err: GoError | undefined = fault.answer;
    if (err === undefined) {
      const dev = yield* this.plugin.driverStageDevices(spec.name);
      if (dev.err !== undefined) err = dev.err;
      else if (host.mounts.at(deviceMountPath) === undefined) {
        err = host.mkdirAll(deviceMountPath);
        if (err === undefined)
          err = yield* formatAndMount(host, dev.value, deviceMountPath, 'ext4', spec.readOnly ? ['ro'] : []);
      }
      err ??= fault.lostAnswer;
    }
    host.publish({ kind: 'mountDevice', volume: spec.name, ok: err === undefined });
    return err;
  }
}

class CsiDetacher implements Detacher {
  constructor(private readonly plugin: CsiPlugin) {}

  /**
   * Detach: the controller deletes the VolumeAttachment and waits until it is gone
   * (waitForVolumeDetachmentWithLister); the external attacher's ControllerUnpublishVolume fences the
   * node's path to the LUN. A detach fault (src/storage/faults.ts DetachStage) is the detachError the
   * external attacher records on the VolumeAttachment, which verifyDetachmentStatus returns as Detach's
   * error (csi_attacher.go, read at v1.28.0 and v1.32.10; the same at v1.23.13).
   */
  *detach(volumeName: string, nodeName: string): Co<GoError | undefined> {
    const host = this.plugin.host;
    yield* sleep(host.latency('controllerPublish'));
    if (host.faults.detach(volumeName, 'beforeDetach')) return new GoError(csiDetachErrorText);
    host.san.detach(volumeName, nodeName);
    // #120571: the unpublish went through, then the answer was lost (ControllerUnpublishVolume timed out).
    if (host.faults.detach(volumeName, 'afterDetach')) return new GoError(csiDetachErrorText);
    return undefined;
  }

  /** UnmountDevice = NodeUnstageVolume: unmount the staging path, remove the devices, remove the dir. */
  *unmountDevice(deviceMountPath: string): Co<GoError | undefined> {
    const host = this.plugin.host;
    const volume = host.mounts.at(deviceMountPath)?.lun ?? basename(dirname(deviceMountPath));
    openDeviceBehindKubelet(host, volume);
    const err = yield* this.nodeUnstage(volume, deviceMountPath);
    recordUnmountDevice(host, volume, err);
    return err;
  }

  private *nodeUnstage(volume: string, stagingPath: string): Co<GoError | undefined> {
    const host = this.plugin.host;
    if (host.faults.unmountDevice(volume, 'beforeUnmount')) {
      return new GoError(`rpc error: code = Internal desc = umount ${stagingPath}: target is busy`);
    }
    if (host.mounts.at(stagingPath) !== undefined) {
      const err = yield* unmount(host, stagingPath);
      if (err !== undefined) return new GoError(`rpc error: code = Internal desc = ${err.message}`);
    }
    // The #100182 / #106729 pattern: the driver unmounted, then the call still fails (a timeout).
    if (host.faults.unmountDevice(volume, 'afterUnmount')) {
      return new GoError('rpc error: code = DeadlineExceeded desc = context deadline exceeded');
    }
    const devErr = yield* this.plugin.driverRemoveDevices(volume);
    if (devErr !== undefined) return devErr;
    const rmErr = host.removeAll(dirname(stagingPath));
    return rmErr;
  }
}

class CsiMountMgr implements Mounter {
  private readonly metrics: MetricsStatFS;

  constructor(
    private readonly plugin: CsiPlugin,
    private readonly spec: Spec,
    private readonly podUID: UID,
  ) {
    this.metrics = new MetricsStatFS(plugin.host, this.getPath());
  }

  /** pods/<uid>/volumes/kubernetes.io~csi/<pv>/mount. */
  getPath(): string {
    return join(this.plugin.host.getPodVolumeDir(this.podUID, csiEscapedName, this.spec.name), 'mount');
  }

  *getMetrics(): Co<Result<Metrics>> {
    return yield* this.metrics.getMetrics();
  }

  /** SetUp = NodePublishVolume: the driver bind-mounts the staging path (it does not check it either). */
  *setUp(): Co<GoError | undefined> {
    const host = this.plugin.host;
    const target = this.getPath();
    const fault = csiSetUpFault(host, this.spec.name);
    if (fault !== undefined) return fault;
    if (host.mounts.at(target) !== undefined) return undefined;
    const mkErr = host.mkdirAll(target);
    if (mkErr !== undefined) return mkErr;
    host.fs.writeFile(join(dirname(target), 'vol_data.json'), JSON.stringify({ specVolID: this.spec.name }));
    const staging = this.plugin.deviceMountPath(this.spec.name);
    if (host.mounts.at(staging) === undefined) {
      host.publish({
        kind: 'bindMountOfUnmountedGlobalPath',
        uid: this.podUID,
        pod: host.podName(this.podUID),
        volume: this.spec.name,
      });
    }
    // Nor does it check that the staged filesystem still has its device: one a detach took away after
    // NodeStage stays dead, and the pod gets its I/O errors (#119273).
    const fenced = host.fencedUnder(staging);
    if (fenced !== undefined) {
      host.publish({
        kind: 'bindMountOfFencedGlobalPath',
        uid: this.podUID,
        pod: host.podName(this.podUID),
        volume: this.spec.name,
        mountedAtMs: fenced.mountedAtMs,
        fencedAtMs: fenced.fencedAtMs,
      });
    }
    const err = yield* mount(host, staging, target, '', this.spec.readOnly ? ['bind', 'ro'] : ['bind']);
    return err === undefined ? undefined : new GoError(`rpc error: code = Internal desc = ${err.message}`);
  }
}

class CsiUnmountMgr implements Unmounter {
  constructor(
    private readonly plugin: CsiPlugin,
    private readonly volumeName: string,
    private readonly podUID: UID,
  ) {}

  getPath(): string {
    return join(this.plugin.host.getPodVolumeDir(this.podUID, csiEscapedName, this.volumeName), 'mount');
  }

  /** TearDown = NodeUnpublishVolume, then removeMountDir (the mount dir, vol_data.json, the volume dir). */
  *tearDown(): Co<GoError | undefined> {
    const host = this.plugin.host;
    const err = yield* tearDownFault(host, this.volumeName, this.getPath());
    if (err !== undefined) return err;
    const cleanErr = yield* cleanupMountPoint(host, this.getPath());
    if (cleanErr !== undefined) return cleanErr;
    return host.removeAll(dirname(this.getPath()));
  }
}

class CsiBlockMapper implements BlockVolumeMapper {
  private readonly metrics: MetricsBlock;

  constructor(
    private readonly plugin: CsiPlugin,
    private readonly spec: Spec,
    private readonly podUID: UID,
  ) {
    this.metrics = new MetricsBlock(plugin.host, join(plugin.globalMapPath(spec.name), podUID));
    // csiPlugin.NewBlockVolumeMapper persists the volume info for teardown and reconstruction
    // (saveVolumeData into the data dir) when it builds the mapper.
    const dataDir = plugin.volumeDeviceDataDir(spec.name);
    if (plugin.host.mkdirAll(dataDir) === undefined) {
      plugin.host.fs.writeFile(join(dataDir, 'vol_data.json'), JSON.stringify({ specVolID: spec.name }));
    }
  }

  /** csiBlockMapper always had metrics (NodeGetVolumeStats, PR #97972): no nil provider here. */
  supportsMetrics(): boolean {
    return true;
  }

  *getMetrics(): Co<Result<Metrics>> {
    return yield* this.metrics.getMetrics();
  }

  getGlobalMapPath(spec: Spec): string {
    return this.plugin.globalMapPath(spec.name);
  }

  getPodDeviceMapPath(): string {
    return join(this.plugin.host.getPodVolumeDeviceDir(this.podUID, csiEscapedName), this.spec.name);
  }

  /** SetUpDevice = NodeStageVolume for a block volume: the driver makes the device appear. */
  *setUpDevice(): Co<Result<string>> {
    const host = this.plugin.host;
    host.releaseDevice(this.spec.name);
    const fault = yield* csiStagingFault(host, this.spec.name);
    let dev: Result<string> =
      fault.answer === undefined
        ? yield* this.plugin.driverStageDevices(this.spec.name)
        : { value: undefined, err: fault.answer };
    if (dev.err === undefined && fault.lostAnswer !== undefined)
      dev = { value: undefined, err: fault.lostAnswer };
    host.publish({ kind: 'mountDevice', volume: this.spec.name, ok: dev.err === undefined });
    return dev;
  }

  /** MapPodDevice = NodePublishVolume for a block volume, plus the kubelet's MapBlockVolume. */
  *mapPodDevice(): Co<Result<string>> {
    const host = this.plugin.host;
    const fault = csiSetUpFault(host, this.spec.name);
    if (fault !== undefined) return { value: undefined, err: fault };
    return yield* mapBlockVolume(
      host,
      this.spec.name,
      this.getGlobalMapPath(this.spec),
      this.podUID,
      this.getPodDeviceMapPath(),
    );
  }
}

class CsiBlockUnmapper implements BlockVolumeUnmapper {
  constructor(
    private readonly plugin: CsiPlugin,
    private readonly volumeName: string,
    private readonly podUID: UID,
  ) {}

  /** TearDownDevice = NodeUnstageVolume for a block volume. */
  *tearDownDevice(mapPath: string): Co<GoError | undefined> {
    const host = this.plugin.host;
    const volume = this.volumeName;
    openDeviceBehindKubelet(host, volume);
    let err: GoError | undefined;
    if (host.faults.unmountDevice(volume, 'beforeUnmount')) {
      err = new GoError('rpc error: code = Internal desc = device is busy');
    } else if (host.faults.unmountDevice(volume, 'afterUnmount')) {
      err = new GoError('rpc error: code = DeadlineExceeded desc = context deadline exceeded');
    } else {
      err = yield* this.plugin.driverRemoveDevices(volume);
      if (err === undefined) err = host.removeAll(dirname(mapPath));
    }
    recordUnmountDevice(host, volume, err);
    return err;
  }

  /** UnmapPodDevice = NodeUnpublishVolume for a block volume, plus the kubelet's UnmapBlockVolume. */
  *unmapPodDevice(): Co<GoError | undefined> {
    const host = this.plugin.host;
    const podMapPath = join(host.getPodVolumeDeviceDir(this.podUID, csiEscapedName), this.volumeName);
    const err = yield* tearDownFault(host, this.volumeName, podMapPath);
    if (err !== undefined) return err;
    return yield* unmapBlockVolume(host, this.plugin.globalMapPath(this.volumeName), this.podUID, podMapPath);
  }
}
