// Ported from kubernetes pkg/volume/util/volumepathhandler (MapBlockVolume / UnmapBlockVolume as
// util.MapBlockVolume calls them), release-1.23, plus the simulator glue every in-tree plugin shares:
// building a reconstructed Spec from a LUN, the facts around UnmountDevice, and the tearDown fault.
import { GoError } from '../api/errors.js';
import type { UID, VolumeMode } from '../api/v1.js';
import { type Co, sleep } from '../sim/index.js';
import { basename, dirname, join } from '../storage/fs.js';
import type { Host } from '../storage/host.js';
import { mount, unmount } from '../storage/mountUtils.js';
import type { Lun } from '../storage/san.js';
import type { Result, Spec } from './volume.js';

/** A volume.Spec for a reconstructed volume; what upstream cannot recover from a path comes from the SAN. */
export function specOfLun(volumeName: string, lun: Lun, mode: VolumeMode): Spec {
  return {
    name: volumeName,
    plugin: lun.plugin,
    volumeMode: mode,
    accessModes: [lun.accessMode],
    capacityBytes: lun.capacityBytes,
    readOnly: false,
  };
}

/**
 * volumepathhandler.FindGlobalMapPathUUIDFromPod: walk the plugin's volumeDevices dir for an entry named
 * after the pod UID that is a device node (a block map bind mount) pointing at the same device as the
 * pod's map path link (compareBindMountAndSymlinks: same major/minor). Returns '' when none is found,
 * as upstream does: the caller then parses filepath.Dir("") = ".".
 */
export function findGlobalMapPathUUIDFromPod(
  host: Host,
  pluginDir: string,
  mapPath: string,
  podUID: UID,
): string {
  if (!host.fs.isDir(pluginDir)) return '';
  const link = host.fs.get(mapPath);
  const podDevice = link?.type === 'file' ? host.devices.evalSymlinks(link.content) : undefined;
  let found = '';
  const walk = (dir: string): void => {
    for (const name of host.fs.readDir(dir)) {
      const path = join(dir, name);
      if (host.fs.isDir(path)) {
        walk(path);
        continue;
      }
      const m = host.mounts.at(path);
      // A device node: only a block map bind mount makes the file one.
      if (name !== podUID || m === undefined || m.kind !== 'blockMap') continue;
      if (podDevice !== undefined && m.device === podDevice) found = path;
    }
  };
  walk(pluginDir);
  return found;
}

/** The cluster volume a global path belongs to: what is mounted there, else what its name parses to. */
export function volumeOfPath(host: Host, path: string, parse: (path: string) => Lun | undefined): string {
  return host.mounts.at(path)?.lun ?? parse(path)?.name ?? basename(path);
}

/**
 * The start of an UnmountDevice (or TearDownDevice): a host process that held the LUN's device since the
 * last one lets go, and a deviceStillOpen fault opens it again now (udev's blkid probe, a backup agent),
 * before the plugin flushes and deletes the device. The flush then fails ("map in use"): FC (with
 * fc-unmount-retry) returns the error, iSCSI's deleteDevices falls through and the map stays, so the
 * kubelet's isDeviceOpened check after a successful UnmountDevice (PR #107789) finds the device open.
 * A single-path SCSI disk is deleted even while open, as the kernel does.
 */
export function openDeviceBehindKubelet(host: Host, volume: string): void {
  host.releaseDevice(volume);
  if (host.faults.unmountDevice(volume, 'deviceStillOpen')) host.holdDevice(volume);
}

/**
 * The fact of an UnmountDevice (or TearDownDevice) that just returned. What it left of the device
 * (deviceResidue) is published by the kubelet's operation once it marks the device unmounted: after its
 * isDeviceOpened check, which may still see the device and retry.
 */
export function recordUnmountDevice(host: Host, volume: string, err: GoError | undefined): void {
  host.publish({ kind: 'unmountDevice', volume, ok: err === undefined });
}

/**
 * The tearDown fault: the pod's umount fails with EBUSY and nothing changes, after hanging as long as the
 * fault says (the mount stays in place all that time).
 */
export function* tearDownFault(host: Host, volume: string, path: string): Co<GoError | undefined> {
  const firing = host.faults.tearDown(volume);
  if (firing === undefined) return undefined;
  if (firing.hangMs > 0) yield* sleep(firing.hangMs);
  return new GoError(
    `unmount failed: exit status 32\nUnmounting arguments: ${path}\nOutput: umount: ${path}: target is busy.`,
  );
}

/**
 * util.MapBlockVolume for one pod: bind-mount the LUN's device onto globalMapPath/{podUID} (the
 * reference that keeps the device in use) and link it from the pod's volumeDevices dir. Deviation: the
 * device is the one WaitForAttach left on the node, looked up here, as the interface's MapPodDevice has
 * no devicePath argument.
 */
export function* mapBlockVolume(
  host: Host,
  volume: string,
  globalMapPath: string,
  podUID: UID,
  podDeviceMapPath: string,
): Co<Result<string>> {
  const devicePath = host.devices.preferredDevice(volume);
  if (devicePath === undefined || globalMapPath === '') {
    return {
      value: undefined,
      err: new GoError(`blkUtil.MapDevice failed: device of volume ${volume} not found`),
    };
  }
  const mkErr = host.mkdirAll(globalMapPath);
  if (mkErr !== undefined) return { value: undefined, err: mkErr };
  const linkPath = join(globalMapPath, podUID);
  if (!host.pathExists(linkPath)) host.fs.writeFile(linkPath, '');
  if (host.mounts.at(linkPath) === undefined) {
    const err = yield* mount(host, devicePath, linkPath, '', ['bind']);
    if (err !== undefined)
      return { value: undefined, err: new GoError(`blkUtil.MapDevice failed: ${err.message}`) };
  }
  const podErr = host.mkdirAll(dirname(podDeviceMapPath));
  if (podErr !== undefined) return { value: undefined, err: podErr };
  host.fs.writeFile(podDeviceMapPath, devicePath); // the symlink pods/{uid}/volumeDevices/{plugin}/{vol}
  return { value: podDeviceMapPath, err: undefined };
}

/** util.UnmapBlockVolume for one pod: remove the pod's link, unmount and remove globalMapPath/{podUID}. */
export function* unmapBlockVolume(
  host: Host,
  globalMapPath: string,
  podUID: UID,
  podDeviceMapPath: string,
): Co<GoError | undefined> {
  if (host.pathExists(podDeviceMapPath)) {
    const err = host.remove(podDeviceMapPath);
    if (err !== undefined) return err;
  }
  if (globalMapPath === '') return undefined;
  const linkPath = join(globalMapPath, podUID);
  if (host.mounts.at(linkPath) !== undefined) {
    const err = yield* unmount(host, linkPath);
    if (err !== undefined) return new GoError(`blkUtil.UnmapDevice failed: ${err.message}`);
  }
  if (host.pathExists(linkPath)) return host.remove(linkPath);
  return undefined;
}
