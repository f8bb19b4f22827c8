// Ported from kubernetes pkg/volume/iscsi/iscsi_util.go, release-1.23: login + LUN scan (AttachDisk),
// iscsi.json persisted in the global dir, and DetachDisk, which works from the mount path so that a
// retried UnmountDevice redoes the whole clean-up.
import { GoError, UncertainProgressError } from '../api/errors.js';
import type { UID, VolumeMode } from '../api/v1.js';
import { type Co, sleep } from '../sim/index.js';
import { iscsiByPath } from '../storage/devices.js';
import { join } from '../storage/fs.js';
import { fail, type Host, ok, type Res } from '../storage/host.js';
import { unmount } from '../storage/mountUtils.js';
import { pluginNames } from './volume.js';
import type { KeyMutex } from './volumeUtil.js';

export const iscsiPluginName = pluginNames.iscsi;

/** Minimum number of paths that the volume plugin considers enough when a multipath volume is requested. */
const minMultipathCount = 2;
/** Minimal number of attempts to attach all paths of a multipath volume. */
const minAttachAttempts = 2;
/** Total number of attempts to attach at least minMultipathCount paths. */
const maxAttachAttempts = 5;
/** How many seconds to wait for a device/path to appear before giving up. */
const deviceDiscoveryTimeout = 30;

/** iscsiDisk: what iscsi.json holds. */
export interface IscsiDisk {
  readonly VolName: string;
  readonly podUID: UID;
  readonly Portals: readonly string[];
  readonly Iqn: string;
  readonly Lun: string;
  readonly Iface: string;
  readonly InitiatorName: string;
}

/** makePDNameInternal: plugins/kubernetes.io/iscsi/iface-<iface>/<portal>-<iqn>-lun-<n>. */
export function makePDNameInternal(
  host: Host,
  portal: string,
  iqn: string,
  lun: string,
  iface: string,
): string {
  return join(host.getPluginDir(iscsiPluginName), `iface-${iface}`, `${portal}-${iqn}-lun-${lun}`);
}

/** makeVDPDNameInternal: plugins/kubernetes.io/iscsi/volumeDevices/iface-<iface>/<portal>-<iqn>-lun-<n>. */
export function makeVDPDNameInternal(
  host: Host,
  portal: string,
  iqn: string,
  lun: string,
  iface: string,
): string {
  return join(
    host.getVolumeDevicePluginDir(iscsiPluginName),
    `iface-${iface}`,
    `${portal}-${iqn}-lun-${lun}`,
  );
}

export function globalPDName(host: Host, d: IscsiDisk): string {
  return makePDNameInternal(host, d.Portals[0] ?? '', d.Iqn, d.Lun, d.Iface);
}

export function globalVDPDName(host: Host, d: IscsiDisk): string {
  return makeVDPDNameInternal(host, d.Portals[0] ?? '', d.Iqn, d.Lun, d.Iface);
}

/** scanOneLun: echo "0 0 <lun>" > /sys/class/scsi_host/host<N>/scan; the disk and its dm map appear. */
function* scanOneLun(host: Host, hostNumber: number, portal: string, iqn: string, lun: string): Co<void> {
  yield* sleep(host.latency('scsiRescan'));
  const target = host.san.findIscsiLun(portal, iqn, Number(lun));
  if (target === undefined || !host.san.isReachable(target.name, host.node)) return;
  host.devices.addScsiPath(target.name, hostNumber, iscsiByPath(portal, iqn, target.lunNumber));
  host.devices.ensureMultipath(target.name, target.wwid);
}

/** ISCSIUtil.AttachDisk: log in to each portal if needed, scan the LUN, wait for its path, persist iscsi.json. */
export function* attachDisk(
  host: Host,
  locks: KeyMutex,
  b: IscsiDisk,
  volumeMode: VolumeMode,
): Co<Res<string>> {
  // Lock the target while we login to avoid races between 2 volumes that share the same target.
  yield* locks.lockKey(b.Iqn);
  try {
    const portalHostMap = host.devices.portalHostMapForTarget(b.Iqn);
    const devicePaths = new Map<string, string>();
    let lastErr: GoError | undefined;
    for (let i = 1; i <= maxAttachAttempts; i++) {
      for (const tp of b.Portals) {
        if (devicePaths.has(tp)) continue;
        let hostNumber = portalHostMap.get(tp);
        if (hostNumber === undefined) {
          // discoverydb + sendtargets + --login
          yield* sleep(host.latency('iscsiLogin'));
          hostNumber = host.devices.login(tp, b.Iqn, b.Iface).hostNumber;
          portalHostMap.set(tp, hostNumber);
        }
        yield* scanOneLun(host, hostNumber, tp, b.Iqn, b.Lun);
        const devicePath = ['/dev/disk/by-path/ip', tp, 'iscsi', b.Iqn, 'lun', b.Lun].join('-');
        if (!(yield* waitForPathToExist(host, devicePath, deviceDiscoveryTimeout))) {
          lastErr = new GoError(
            `Timed out waiting for device at path ${devicePath} after ${deviceDiscoveryTimeout}s`,
          );
          continue;
        }
        devicePaths.set(tp, devicePath);
      }
      if (devicePaths.size === 0) {
        return fail(
          new GoError(`failed to get any path for iscsi disk, last err seen:\n${lastErr?.message ?? ''}`),
        );
      }
      if (devicePaths.size === b.Portals.length) break;
      if (devicePaths.size >= minMultipathCount && i >= minAttachAttempts) break;
    }
    const devicePathList = [...devicePaths.values()];
    // For PVs with 1 portal, just try one time to find the multipath device.
    let devicePath = '';
    for (const p of devicePathList) {
      const disk = host.devices.evalSymlinks(p);
      const dm = disk === undefined ? '' : host.devices.findMultipathDeviceForDevice(disk);
      if (dm !== '') {
        devicePath = dm;
        break;
      }
    }
    if (devicePath === '') devicePath = devicePathList[0] ?? '';
    const persistErr = persistISCSI(host, b, volumeMode);
    // Return uncertain error so kubelet calls Unmount / Unmap when the pod is deleted.
    if (persistErr !== undefined) return fail(new UncertainProgressError(persistErr.message));
    return ok(devicePath);
  } finally {
    locks.unlockKey(b.Iqn);
  }
}

/** waitForPathToExist: stat the by-path link, once a second, up to maxRetries times. */
function* waitForPathToExist(host: Host, devicePath: string, maxRetries: number): Co<boolean> {
  for (let i = 0; i < maxRetries; i++) {
    if (host.devices.evalSymlinks(devicePath) !== undefined) return true;
    if (i === maxRetries - 1) break;
    yield* sleep(1000);
  }
  return false;
}

/** persistISCSI: iscsi.json into the global mount / map dir, unless a mount already shadows it. */
function persistISCSI(host: Host, b: IscsiDisk, volumeMode: VolumeMode): GoError | undefined {
  const globalPDPath = volumeMode === 'Block' ? globalVDPDName(host, b) : globalPDName(host, b);
  const mkErr = host.mkdirAll(globalPDPath);
  if (mkErr !== undefined) return mkErr;
  if (volumeMode === 'Filesystem') {
    const notMnt = host.isLikelyNotMountPoint(globalPDPath);
    if (notMnt.err !== undefined) return notMnt.err;
    if (!notMnt.value) return undefined; // "Skipping persistISCSI, the volume is already mounted"
  }
  const { podUID: _podUID, ...conf } = b;
  host.fs.writeFile(join(globalPDPath, 'iscsi.json'), JSON.stringify(conf));
  return undefined;
}

/** loadISCSI: iscsi.json from the (unmounted) global dir. */
function loadISCSI(host: Host, mnt: string): IscsiDisk | undefined {
  const file = join(mnt, 'iscsi.json');
  if (host.mounts.at(mnt) !== undefined || host.fs.get(file)?.type !== 'file') return undefined;
  return { podUID: '', ...(JSON.parse(host.fs.readFile(file)) as Omit<IscsiDisk, 'podUID'>) };
}

/** extractDeviceAndPrefix: the last path element, and the path up to "-lun-". */
export function extractDeviceAndPrefix(mntPath: string): Res<{ device: string; prefix: string }> {
  const ind = mntPath.lastIndexOf('/');
  const lunInd = mntPath.lastIndexOf('-lun-');
  if (ind < 0 || lunInd < 0) return fail(new GoError(`iscsi detach disk: malformatted mnt path: ${mntPath}`));
  return ok({ device: mntPath.slice(ind + 1), prefix: mntPath.slice(0, lunInd) });
}

/** extractPortalAndIqn: "10.0.0.10:3260-iqn.2021-06.io.podrace:storage-lun-0" -> portal, iqn. */
export function extractPortalAndIqn(device: string): Res<{ portal: string; iqn: string }> {
  const ind1 = device.indexOf('-');
  if (ind1 < 0) return fail(new GoError(`iscsi detach disk: no portal in ${device}`));
  let ind2 = device.indexOf('iqn.');
  if (ind2 < 0) ind2 = device.indexOf('eui.');
  if (ind2 < 0) return fail(new GoError(`iscsi detach disk: no iqn in ${device}`));
  return ok({ portal: device.slice(0, ind1), iqn: device.slice(ind2, device.lastIndexOf('-lun-')) });
}

/** extractIface: the iface from ".../iface-<iface>/...". */
export function extractIface(mntPath: string): [string, boolean] {
  const m = /.+\/iface-([^/]+)\/.+/.exec(mntPath);
  return m?.[1] !== undefined ? [m[1], true] : ['', false];
}

/** deleteDevices: flush the LUN's dm maps (a failure falls through) and delete its disks. */
function* deleteDevices(host: Host, iqn: string, lun: string): Co<void> {
  const lunNumber = Number(lun);
  if (lun === '' || !Number.isInteger(lunNumber)) return; // "lun is not a number": logged, falls through
  const deviceNames = host.devices.findDevicesForISCSILun(iqn, (portal) =>
    iscsiByPath(portal, iqn, lunNumber),
  );
  const mpathDevices = new Set<string>();
  for (const name of deviceNames) {
    const dm = host.devices.findMultipathDeviceForDevice(`/dev/${name}`);
    if (dm !== '') mpathDevices.add(dm);
  }
  for (const dm of mpathDevices) {
    yield* sleep(host.latency('multipathFlush'));
    const volume = host.devices.lunOf(dm);
    const busy =
      (volume !== undefined && host.faults.unmountDevice(volume, 'multipathFlushBusy')) ||
      host.isDevicePathOpen(dm);
    if (!busy) host.devices.removeMap(dm);
    // "Failed to flush multipath device map ... Fall through -- keep deleting the block devices"
    else host.publish({ kind: 'multipathFlushFailed', volume: volume ?? '', device: dm, fellThrough: true });
  }
  for (const name of deviceNames) {
    yield* sleep(host.latency('scsiDelete'));
    host.deleteScsiDevice(`/dev/${name}`);
  }
}

/** isSessionBusy: more than one FS or block volume dir of this portal + IQN exists on the node. */
export function isSessionBusy(host: Host, portal: string, iqn: string): boolean {
  const count = (dir: string): number => {
    if (!host.fs.isDir(dir)) return 0;
    let counter = 0;
    for (const c of host.fs.readDir(dir)) {
      if (!host.fs.isDir(join(dir, c)) || c === 'volumeDevices') continue;
      for (const m of host.fs.readDir(join(dir, c))) if (m.startsWith(`${portal}-${iqn}`)) counter++;
    }
    return counter;
  };
  return (
    count(host.getPluginDir(iscsiPluginName)) + count(host.getVolumeDevicePluginDir(iscsiPluginName)) > 1
  );
}

/** detachISCSIDisk: log out of every portal and delete the node records. */
function* detachISCSIDisk(
  host: Host,
  volume: string,
  portals: readonly string[],
  iqn: string,
  block: boolean,
): Co<GoError | undefined> {
  host.publish({ kind: 'iscsiLogout', volume, block });
  for (const portal of portals) {
    yield* sleep(host.latency('iscsiLogout'));
    if (host.faults.unmountDevice(volume, 'afterUnmount')) {
      return new GoError(
        'iscsiadm: Could not logout of all requested sessions (exit status 8: ISCSI_ERR_TRANS_TIMEOUT)',
      );
    }
    host.iscsiLogout(portal, iqn); // exit codes NO_OBJS_FOUND / SESS_NOT_FOUND are ignored
  }
  return undefined;
}

/** The disk config of a global dir: iscsi.json, else parsed from the path (the pre-json fallback). */
function diskOfPath(
  host: Host,
  mntPath: string,
  device: string,
): Res<{ portals: string[]; iqn: string; lun: string }> {
  const conf = loadISCSI(host, mntPath);
  if (conf !== undefined) return ok({ portals: [...conf.Portals], iqn: conf.Iqn, lun: conf.Lun });
  const pi = extractPortalAndIqn(device);
  if (pi.err !== undefined) return fail(pi.err);
  return ok({ portals: [pi.value.portal], iqn: pi.value.iqn, lun: '' });
}

/**
 * ISCSIUtil.DetachDisk(mntPath): unmount if mounted, delete the devices, and log out unless another
 * volume of the target still uses the session. Everything keys off the mount path, so a retry after a
 * failure anywhere redoes what is left (the dir is removed only after complete success).
 */
export function* detachDisk(
  host: Host,
  locks: KeyMutex,
  volume: string,
  mntPath: string,
): Co<GoError | undefined> {
  if (!host.pathExists(mntPath)) return undefined; // "Unmount skipped because path does not exist"
  const notMnt = host.isLikelyNotMountPoint(mntPath);
  if (notMnt.err !== undefined) return notMnt.err;
  if (!notMnt.value) {
    if (host.faults.unmountDevice(volume, 'beforeUnmount')) {
      return new GoError(`umount: ${mntPath}: target is busy`);
    }
    const err = yield* unmount(host, mntPath);
    if (err !== undefined) return err;
  }
  const dp = extractDeviceAndPrefix(mntPath);
  if (dp.err !== undefined) return dp.err;
  const disk = diskOfPath(host, mntPath, dp.value.device);
  if (disk.err !== undefined) return disk.err;
  const { iqn } = disk.value;
  // Delete all the scsi devices and any multipath devices after unmounting.
  yield* deleteDevices(host, iqn, disk.value.lun);
  // Lock the target while we determine if we can safely log out or not.
  yield* locks.lockKey(iqn);
  try {
    const portals = [...new Set(disk.value.portals.filter((p) => p !== ''))];
    if (portals.length === 0) {
      return new GoError(
        "iscsi detach disk: failed to detach iscsi disk. Couldn't get connected portals from configurations",
      );
    }
    if (isSessionBusy(host, portals[0] ?? '', iqn)) {
      host.publish({ kind: 'iscsiLogoutSkipped', volume, block: false });
      return undefined;
    }
    const err = yield* detachISCSIDisk(host, volume, portals, iqn, false);
    return err === undefined
      ? undefined
      : new GoError(`failed to finish detachISCSIDisk, err: ${err.message}`);
  } finally {
    locks.unlockKey(iqn);
  }
}

/** ISCSIUtil.DetachBlockISCSIDisk(mapPath): log out unless the session is still busy. */
export function* detachBlockISCSIDisk(
  host: Host,
  locks: KeyMutex,
  volume: string,
  mapPath: string,
): Co<GoError | undefined> {
  if (!host.pathExists(mapPath)) return undefined; // "Unmap skipped because path does not exist"
  const dp = extractDeviceAndPrefix(mapPath);
  if (dp.err !== undefined) return dp.err;
  const disk = diskOfPath(host, mapPath, dp.value.device);
  if (disk.err !== undefined) return disk.err;
  const { iqn } = disk.value;
  const portals = [...new Set(disk.value.portals.filter((p) => p !== ''))];
  if (portals.length === 0) {
    return new GoError(
      "iscsi detach disk: failed to detach iscsi disk. Couldn't get connected portals from configurations",
    );
  }
  const lun = disk.value.lun !== '' ? disk.value.lun : (dp.value.device.split('-lun-')[1] ?? '');
  const devicePath = ['/dev/disk/by-path/ip', portals[0] ?? '', 'iscsi', iqn, 'lun', lun].join('-');
  if (host.devices.evalSymlinks(devicePath) === undefined) {
    return new GoError(`failed to validate devicePath: ${devicePath}`);
  }
  yield* locks.lockKey(iqn);
  try {
    // If device is no longer used, see if need to logout the target. The Block path deletes no device
    // itself: while the session stays busy, the LUN's disks and map stay on the node.
    if (isSessionBusy(host, portals[0] ?? '', iqn)) {
      host.publish({ kind: 'iscsiLogoutSkipped', volume, block: true });
      return undefined;
    }
    const err = yield* detachISCSIDisk(host, volume, portals, iqn, true);
    return err === undefined
      ? undefined
      : new GoError(`failed to finish detachISCSIDisk, err: ${err.message}`);
  } finally {
    locks.unlockKey(iqn);
  }
}
