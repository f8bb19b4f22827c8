// Ported from k8s.io/mount-utils (mount.go, mount_helper_common.go, mount_linux.go, safe_format_and_mount),
// release-1.23 vendored copy: the helpers the FC / iSCSI / CSI plugins call, over the simulated Host.
// Commands (mount, umount, mkfs) take virtual time; reads of /proc/mounts go through ConsistentRead.
import { GoError } from '../api/errors.js';
import { type Co, sleep } from '../sim/index.js';
import { join, type MountEntry, normalize, pathWithinBase } from './fs.js';
import { fail, type Host, isNotExist, ok, type Res } from './host.js';

/** mounter.Mount (mount(8)), taking the command's time. */
export function* mount(
  host: Host,
  source: string,
  target: string,
  fstype: string,
  options: readonly string[],
): Co<GoError | undefined> {
  yield* sleep(host.latency('mount'));
  return host.mount(source, target, fstype, options);
}

/** mounter.Unmount (umount(8)), taking the command's time. */
export function* unmount(host: Host, target: string): Co<GoError | undefined> {
  yield* sleep(host.latency('umount'));
  return host.unmount(target);
}

/** mounter.List(): /proc/mounts through ConsistentRead; `purpose` names the caller in the fact. */
export function list(host: Host, purpose = 'List'): Res<readonly MountEntry[]> {
  return host.readProcMounts(purpose);
}

/**
 * mount.GetDeviceNameFromMount: the device mounted at `mountPath` ('' if none) and how many mounts
 * reference that device.
 */
export function getDeviceNameFromMount(
  host: Host,
  mountPath: string,
): Res<{ device: string; refCount: number }> {
  const mps = list(host, `GetDeviceNameFromMount ${normalize(mountPath)}`);
  if (mps.err !== undefined) return fail(mps.err);
  const target = normalize(mountPath);
  let device = '';
  for (const mp of mps.value) {
    if (mp.path === target) {
      device = mp.device;
      break;
    }
  }
  let refCount = 0;
  for (const mp of mps.value) if (mp.device === device) refCount++;
  return ok({ device, refCount });
}

/**
 * mount_linux.go GetMountRefs + SearchMountPoints: the other mount points of the same filesystem subtree
 * as `pathname` (for a pod bind mount: the global mount and sibling binds). A missing path has none.
 */
export function getMountRefs(host: Host, pathname: string): Res<string[]> {
  if (!host.pathExists(pathname)) return ok([]);
  const mis = list(host, `GetMountRefs ${normalize(pathname)}`);
  if (mis.err !== undefined) return fail(mis.err);
  const hostSource = normalize(pathname);
  let mountID = 0;
  let rootPath = '';
  let device = '';
  // Search in backward order: later mounts may overlap earlier ones.
  for (let i = mis.value.length - 1; i >= 0; i--) {
    const mi = mis.value[i] as MountEntry;
    if (hostSource === mi.path || pathWithinBase(hostSource, mi.path)) {
      mountID = mi.id;
      rootPath = join(mi.root, hostSource.slice(mi.path === '/' ? 0 : mi.path.length));
      device = mi.device;
      break;
    }
  }
  if (rootPath === '' || device === '') {
    return fail(new GoError(`failed to get root path and major:minor for ${hostSource}`));
  }
  const refs: string[] = [];
  for (const mi of mis.value) {
    if (mi.id === mountID) continue;
    if (mi.root === rootPath && mi.device === device) refs.push(mi.path);
  }
  return ok(refs);
}

/** mount.PathExists (corrupted mounts are not modelled). */
export function pathExists(host: Host, path: string): boolean {
  return host.pathExists(path);
}

/**
 * mount.CleanupMountPoint(mountPath, mounter, extensiveMountPointCheck=false): unmount the path if it is
 * a mount point, then remove the directory.
 */
export function* cleanupMountPoint(host: Host, mountPath: string): Co<GoError | undefined> {
  if (!pathExists(host, mountPath)) return undefined; // "Unmount skipped because path does not exist"
  return yield* doCleanupMountPoint(host, mountPath);
}

function* doCleanupMountPoint(host: Host, mountPath: string): Co<GoError | undefined> {
  let r = removePathIfNotMountPoint(host, mountPath);
  if (r.err !== undefined || r.value) return r.err;
  // "%q is a mountpoint, unmounting"
  const err = yield* unmount(host, mountPath);
  if (err !== undefined) return err;
  r = removePathIfNotMountPoint(host, mountPath);
  if (r.err !== undefined) return r.err;
  if (r.value) return undefined; // "%q is unmounted, deleting the directory"
  return new GoError(`Failed to unmount path ${normalize(mountPath)}`);
}

/** mount.removePathIfNotMountPoint: true if it was not a mount point (and is now removed). */
function removePathIfNotMountPoint(host: Host, mountPath: string): Res<boolean> {
  const notMnt = host.isLikelyNotMountPoint(mountPath);
  if (notMnt.err !== undefined) {
    if (isNotExist(notMnt.err)) return ok(true); // "%q does not exist"
    return fail(notMnt.err);
  }
  if (notMnt.value) {
    const err = host.remove(mountPath);
    if (err !== undefined) return fail(err);
  }
  return ok(notMnt.value);
}

/**
 * SafeFormatAndMount.FormatAndMount: blkid the disk; mkfs it if it is blank (never when mounting
 * read-only); then mount it. The filesystem lives on the LUN, so the next node to mount it finds it.
 */
export function* formatAndMount(
  host: Host,
  source: string,
  target: string,
  fstype: string,
  options: readonly string[],
): Co<GoError | undefined> {
  const lunName = host.devices.lunOf(source);
  if (lunName === undefined) return new GoError(`exit status 2: blkid: ${source}: no such device`);
  const lun = host.san.lun(lunName);
  if (lun === undefined || !host.san.isReachable(lunName, host.node)) {
    return new GoError(`exit status 2: blkid: ${source}: Input/output error`);
  }
  yield* sleep(host.latency('blkid'));
  const readOnly = options.includes('ro');
  if (lun.filesystem === undefined) {
    if (readOnly)
      return new GoError(
        `cannot mount unformatted disk ${source} as we are manipulating it in read-only mode`,
      );
    yield* sleep(host.latency('mkfs'));
    if (!host.san.isReachable(lunName, host.node))
      return new GoError(`mkfs.${fstype}: ${source}: Input/output error`);
    lun.filesystem = fstype;
  }
  return yield* mount(host, source, target, lun.filesystem, options);
}
