// Ported from kubernetes pkg/volume/fc/fc_util.go and pkg/volume/fc/disk_manager.go, release-1.23.
// The node-side work of the FC plugin: find the LUN's disk and multipath map (rescanning the SCSI hosts),
// remove them again (multipath -f, /sys/block/sdX/device/delete), and the pod bind mount.

import { GoError } from '../api/errors.js';
import type { UID } from '../api/v1.js';
import { type Co, sleep } from '../sim/index.js';
import { FC_HBA_HOSTS, fcByPath } from '../storage/devices.js';
import { basename, join } from '../storage/fs.js';
import { fail, type Host, isNotExist, ok, type Res } from '../storage/host.js';
import { mount, unmount } from '../storage/mountUtils.js';
import { inTreeSetUpFault } from './setUpFault.js';
import { pluginNames } from './volume.js';

export const fcPluginName = pluginNames.fc;
const byPath = '/dev/disk/by-path/';

/** The identity of an FC disk (fcDisk): target WWNs + LUN, and the cluster volume it is. */
export interface FcDisk {
  readonly volName: string;
  readonly podUID: UID;
  readonly wwns: readonly string[];
  readonly lun: string;
}

/** findDisk: the by-path link of wwn + lun, its disk, and the disk's dm parent. */
export function findDisk(host: Host, wwn: string, lun: string): [string, string] {
  const fcPathExp = new RegExp(`^(pci-.*-fc|fc)-0x${wwn}-lun-${lun}$`);
  for (const name of host.devices.byPathNames()) {
    if (!fcPathExp.test(name)) continue;
    const disk = host.devices.evalSymlinks(byPath + name);
    if (disk !== undefined) return [disk, host.devices.findMultipathDeviceForDevice(disk)];
  }
  return ['', ''];
}

/**
 * scsiHostRescan: echo "- - -" into every SCSI host's scan file. The array answers with the LUN on each
 * HBA port, and multipathd assembles the map. Deviation: only the LUN being searched for appears (as if
 * the array masked each LUN until it is needed); a real wildcard scan finds every LUN masked to the node.
 */
export function* scsiHostRescan(host: Host, wwn: string, lun: string): Co<void> {
  yield* sleep(host.latency('scsiRescan'));
  const target = host.san.findFcLun([wwn], Number(lun));
  if (target === undefined || !host.san.isReachable(target.name, host.node)) return;
  for (const h of FC_HBA_HOSTS) host.devices.addScsiPath(target.name, h, fcByPath(h, wwn, target.lunNumber));
  host.devices.ensureMultipath(target.name, target.wwid);
}

/** makePDNameInternal: plugins/kubernetes.io/fc/<wwn1>-<wwn2>-lun-<n>. */
export function makePDNameInternal(host: Host, wwns: readonly string[], lun: string): string {
  return join(host.getPluginDir(fcPluginName), `${wwns.join('-')}-lun-${lun}`);
}

/** makeVDPDNameInternal: plugins/kubernetes.io/fc/volumeDevices/<wwns>-lun-<n>. */
export function makeVDPDNameInternal(host: Host, wwns: readonly string[], lun: string): string {
  return join(host.getVolumeDevicePluginDir(fcPluginName), `${wwns.join('-')}-lun-${lun}`);
}

/** parsePDName: wwns and lun back out of a global path made by makePDNameInternal. */
export function parsePDName(path: string): Res<{ wwns: string[]; lun: number; wwids: string[] }> {
  const components = basename(path).split('-');
  const l = components.length;
  if (l === 1) return ok({ wwns: [], lun: 0, wwids: components });
  if (components[l - 2] === 'lun') {
    if (l === 2) return fail(new GoError(`no wwn in: ${basename(path)}`));
    const lun = Number(components[l - 1]);
    if (!Number.isInteger(lun))
      return fail(new GoError(`strconv.Atoi: parsing "${components[l - 1]}": invalid syntax`));
    return ok({ wwns: components.slice(0, l - 2), lun, wwids: [] });
  }
  return ok({ wwns: [], lun: 0, wwids: components });
}

/** searchDisk: look for the disk; if no dm map is found, rescan once and look again. */
export function* searchDisk(host: Host, disk: FcDisk): Co<Res<string>> {
  let found = '';
  let dm = '';
  let rescanned = false;
  for (;;) {
    for (const wwn of disk.wwns) {
      [found, dm] = findDisk(host, wwn, disk.lun);
      if (dm !== '') break;
    }
    if (rescanned || dm !== '') break;
    for (const wwn of disk.wwns) yield* scsiHostRescan(host, wwn, disk.lun);
    rescanned = true;
  }
  if (found === '' && dm === '') return fail(new GoError('no fc disk found'));
  return ok(dm !== '' ? dm : found);
}

/** fcUtil.AttachDisk. */
export function* attachDisk(host: Host, disk: FcDisk): Co<Res<string>> {
  const devicePath = yield* searchDisk(host, disk);
  if (devicePath.err !== undefined) return devicePath;
  if (host.devices.evalSymlinks(devicePath.value) === undefined) {
    return fail(new GoError(`device ${devicePath.value} does not exist`));
  }
  return devicePath;
}

/** fcUtil.deleteMultipathDevice: `multipath -f`, busy while the map is open (or the fault says so). */
function* deleteMultipathDevice(host: Host, dmDevice: string): Co<GoError | undefined> {
  yield* sleep(host.latency('multipathFlush'));
  const lun = host.devices.lunOf(dmDevice);
  const busy =
    (lun !== undefined && host.faults.unmountDevice(lun, 'multipathFlushBusy')) ||
    host.isDevicePathOpen(dmDevice);
  if (busy) {
    host.publish({ kind: 'multipathFlushFailed', volume: lun ?? '', device: dmDevice, fellThrough: false });
    return new GoError(
      `failed to flush multipath device ${dmDevice}: exit status 1\n${dmDevice}: map in use`,
    );
  }
  host.devices.removeMap(dmDevice);
  return undefined;
}

/** fcUtil.detachFCDisk: flushDevice + removeFromScsiSubsystem (both ignore their own errors). */
function* detachFCDisk(host: Host, devicePath: string): Co<GoError | undefined> {
  if (!devicePath.startsWith('/dev/'))
    return new GoError(`fc detach disk: invalid device name: ${devicePath}`);
  yield* sleep(host.latency('scsiDelete'));
  host.deleteScsiDevice(devicePath);
  return undefined;
}

/**
 * fcUtil.DetachDisk(devicePath): resolve the device; for a dm map, find its slaves and flush the map
 * (the step that fails with "device is busy"); then remove every slave from the SCSI subsystem.
 * `volume` only routes the afterUnmount fault, which fails the first step (EvalSymlinks).
 */
export function* detachDisk(host: Host, volume: string, devicePath: string): Co<GoError | undefined> {
  const dstPath = host.devices.evalSymlinks(devicePath);
  if (dstPath === undefined || host.faults.unmountDevice(volume, 'afterUnmount')) {
    return new GoError(`lstat ${devicePath}: no such file or directory`);
  }
  let devices: string[];
  if (dstPath.startsWith('/dev/dm-')) {
    devices = host.devices.findSlaveDevicesOnMultipath(dstPath);
    const err = yield* deleteMultipathDevice(host, dstPath);
    if (err !== undefined) return err;
  } else {
    devices = [dstPath];
  }
  let lastErr: GoError | undefined;
  for (const device of devices) {
    const err = yield* detachFCDisk(host, device);
    if (err !== undefined)
      lastErr = new GoError(`fc: detachFCDisk failed. device: ${device} err: ${err.message}`);
  }
  return lastErr;
}

/** checkPathExists: (exists, err); a missing path is "Unmap skipped", not an error. */
function checkPathExists(host: Host, path: string): boolean {
  return host.pathExists(path) || host.devices.evalSymlinks(path) !== undefined;
}

/**
 * fcUtil.DetachBlockFCDisk(mapPath, devicePath): find the LUN's disk from the global map path's name
 * (by-path links), flush its dm map and remove the disks.
 */
export function* detachBlockFCDisk(host: Host, mapPath: string, devicePath: string): Co<GoError | undefined> {
  if (devicePath.length !== 0 && !checkPathExists(host, devicePath)) return undefined;
  if (!checkPathExists(host, mapPath)) return undefined;
  const volumeInfo = basename(mapPath);
  let dev = devicePath;
  for (const name of host.devices.byPathNames()) {
    if (name.includes(volumeInfo)) {
      dev = byPath + name;
      break;
    }
  }
  if (dev.length === 0)
    return new GoError(`fc: failed to find corresponding device from searchPath: ${byPath}`);
  let dstPath = host.devices.evalSymlinks(dev);
  if (dstPath === undefined) return new GoError(`lstat ${dev}: no such file or directory`);
  const dm = host.devices.findMultipathDeviceForDevice(dstPath);
  if (dm.length !== 0) dstPath = dm;
  let devices: string[];
  if (dm.length !== 0) {
    devices = host.devices.findSlaveDevicesOnMultipath(dm);
    const err = yield* deleteMultipathDevice(host, dm);
    if (err !== undefined) return err;
  } else {
    devices = [dstPath];
  }
  let lastErr: GoError | undefined;
  for (const device of devices) {
    const err = yield* detachFCDisk(host, device);
    if (err !== undefined)
      lastErr = new GoError(`fc: detachFCDisk failed. device: ${device} err: ${err.message}`);
  }
  return lastErr;
}

/**
 * disk_manager.go diskSetUp: bind-mount the global path into the pod's volume dir. It does not check
 * that the global path is itself mounted (upstream behaviour); the simulator records when it is not.
 * Shared by FC and iSCSI (their disk_manager.go are the same function).
 */
export function* diskSetUp(
  host: Host,
  globalPDPath: string,
  volPath: string,
  readOnly: boolean,
  podUID: UID,
  volume: string,
): Co<GoError | undefined> {
  const noMnt = host.isLikelyNotMountPoint(volPath);
  if (noMnt.err !== undefined && !isNotExist(noMnt.err)) return noMnt.err; // "cannot validate mountpoint"
  if (noMnt.err === undefined && !noMnt.value) return undefined;
  const mkErr = host.mkdirAll(volPath);
  if (mkErr !== undefined) return mkErr;
  if (host.mounts.at(globalPDPath) === undefined) {
    host.publish({ kind: 'bindMountOfUnmountedGlobalPath', uid: podUID, pod: host.podName(podUID), volume });
  }
  // Perform a bind mount to the full path to allow duplicate mounts of the same disk.
  const options = readOnly ? ['bind', 'ro'] : ['bind'];
  const err =
    inTreeSetUpFault(host, volume, volPath) ?? (yield* mount(host, globalPDPath, volPath, '', options));
  if (err !== undefined) {
    // "Failed to bind mount": undo a half-made mount point, then remove the dir.
    const again = host.isLikelyNotMountPoint(volPath);
    if (again.err !== undefined) return err;
    if (!again.value) {
      if ((yield* unmount(host, volPath)) !== undefined) return err;
      if (host.mounts.at(volPath) !== undefined) return err;
    }
    host.remove(volPath);
    return err;
  }
  return undefined;
}
