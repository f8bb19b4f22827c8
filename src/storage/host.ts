// One node as the storage stack sees it: directory tree, mount table (global device mounts, pod bind
// mounts, block maps), SCSI paths, multipath maps, iSCSI sessions, device holders, and the /proc/mounts
// reads a fault can make inconsistent. Every change of what the node can do to a LUN is published as a
// fact; the volume plugins (src/volume) drive it and take the virtual time.
import { GoError, InconsistentReadError } from '../api/errors.js';
import type { UID } from '../api/v1.js';
import type { Fact } from '../facts.js';
import { codeUnitOrder, type Rng, type Sim } from '../sim/index.js';
import {
  DEFAULT_LATENCIES,
  type DistributiveOmit,
  FsErrorGo,
  fail,
  type LatencyOp,
  maxListTries,
  ok,
  type Res,
} from './common.js';
import { Devices } from './devices.js';
import { HostFaults, type StorageFault } from './faults.js';
import {
  basename,
  dirname,
  FileTree,
  FsError,
  isReadOnly,
  join,
  type MountEntry,
  MountTable,
  normalize,
  pathWithinBase,
  ROOT_DEVICE,
  ROOT_DISK_BYTES,
} from './fs.js';
import type { LunPlugin, San, WriteOutcome } from './san.js';

/** The kubelet's root directory (--root-dir). */
export const KUBELET_ROOT = '/var/lib/kubelet';

export interface HostOptions {
  readonly node: string;
  readonly sim: Sim;
  readonly san: San;
  readonly publish: (fact: Fact) => void;
  /** Defaults to sim.rng.fork(`${node}/storage`). */
  readonly rng?: Rng | undefined;
  readonly latencies?: Partial<Record<LatencyOp, readonly [number, number]>> | undefined;
  /** Pod name for facts that carry one (upstream plugins know only the UID). */
  readonly podNameOf?: ((uid: UID) => string) | undefined;
}

/** One volume directory under pods/{uid}/volumes/{plugin}/{vol} or pods/{uid}/volumeDevices/{plugin}/{vol}. */
export interface PodVolumeDir {
  readonly podUID: UID;
  readonly podName: string;
  readonly volumeName: string;
  readonly plugin: LunPlugin;
  readonly mode: 'Filesystem' | 'Block';
  readonly mountPath: string;
}

/** Adds a namespace's hold on `lun`, read-write winning over read-only. */
function addRef(refs: NamespaceRef[], lun: string, readWrite: boolean): void {
  const i = refs.findIndex((r) => r.lun === lun);
  if (i < 0) refs.push({ lun, readWrite });
  else if (readWrite && !(refs[i] as NamespaceRef).readWrite) refs[i] = { lun, readWrite };
}

const PLUGIN_DIR_KIND: Record<string, LunPlugin> = {
  'kubernetes.io~fc': 'fc',
  'kubernetes.io~iscsi': 'iscsi',
  'kubernetes.io~csi': 'csi',
};

type AccessState = 'none' | 'ro' | 'rw';

/** One LUN a container's mount namespace holds. */
export interface NamespaceRef {
  readonly lun: string;
  readonly readWrite: boolean;
}

/** What holds a LUN's device open on a node at one moment (the deviceReleased fact's fields). */
export interface DeviceHolders {
  /** mounts + pods.length + (hostProcess ? 1 : 0). */
  readonly holders: number;
  /** Mounts of the device on the node: a global mount, pod bind mounts, block maps. */
  readonly mounts: number;
  /** The pod UID of each running container whose mount namespace or /dev holds it. */
  readonly pods: readonly UID[];
  /** A host process holds it (the deviceStillOpen fault). */
  readonly hostProcess: boolean;
}

/**
 * How long a deviceStillOpen holder keeps the LUN's device open (unless the next UnmountDevice or
 * MountDevice of the volume comes first): longer than one UnmountDevice (so a flush and the kubelet's
 * isDeviceOpened check right after it see the holder), shorter than FC's 10 s flush retry (#101862).
 */
export const DEVICE_HOLD_MS = 5_000;

export class Host {
  readonly node: string;
  readonly sim: Sim;
  readonly san: San;
  readonly rng: Rng;
  readonly fs = new FileTree();
  readonly mounts = new MountTable();
  /** Ground truth: when each filesystem mount of a LUN was made (by mount id), for a later fence's victims. */
  private readonly fsMountedAtMs = new Map<number, number>();
  readonly devices = new Devices((lun) => this.devicesChanged(lun));
  /** The last hostDevices fact's counts per LUN (`paths/maps`): only a change is published. */
  private readonly deviceCounts = new Map<string, string>();
  readonly faults: HostFaults;
  private readonly publishFn: (fact: Fact) => void;
  private readonly latencies: Record<LatencyOp, readonly [number, number]>;
  private readonly podNameOf: (uid: UID) => string;
  private readonly access = new Map<string, AccessState>();
  /**
   * deviceStillOpen: LUNs a host process holds open behind the kubelet's back, and until when (virtual
   * ms): a udev / blkid probe or a scanner that opens the device as it is torn down and closes it soon.
   */
  private readonly holders = new Map<string, number>();
  /**
   * Containers' mount namespaces: container ID -> the LUNs its copy of the pod's volume mounts keeps
   * open (read-write or read-only). Host umounts do not reach them; they go when the container's
   * process exits.
   */
  private readonly namespaces = new Map<string, readonly NamespaceRef[]>();
  /**
   * Block devices of created containers not started yet: the runtime made their device nodes, which
   * open nothing; the device is open once the process runs (startNamespace), as the workload opens it.
   */
  private readonly pendingDevices = new Map<string, readonly NamespaceRef[]>();
  /** The pod of each container in `namespaces` or `pendingDevices`. */
  private readonly namespaceOwners = new Map<string, UID>();

  constructor(opts: HostOptions) {
    this.node = opts.node;
    this.sim = opts.sim;
    this.san = opts.san;
    this.publishFn = opts.publish;
    this.rng = opts.rng ?? opts.sim.rng.fork(`${opts.node}/storage`);
    this.latencies = { ...DEFAULT_LATENCIES, ...opts.latencies };
    this.podNameOf = opts.podNameOf ?? ((uid) => uid);
    this.faults = new HostFaults((fault, volume, firing) =>
      this.publish(
        firing === undefined
          ? { kind: 'faultInjected', fault, volume }
          : { kind: 'faultInjected', fault, volume, delayMs: firing.delayMs, error: firing.error },
      ),
    );
    this.fs.mkdirAll(join(KUBELET_ROOT, 'pods'));
    this.fs.mkdirAll(join(KUBELET_ROOT, 'plugins'));
    // A fence (ControllerUnpublish) asks the node who holds the LUN's device at that moment.
    this.san.registerHolders(this.node, (volume) => this.deviceHolders(volume));
  }

  // ---- plumbing ----

  /** Publishes a fact stamped with the virtual time and this node. */
  publish(f: DistributiveOmit<Fact, 'atMs' | 'node'>): void {
    // Object.assign, not a spread: V8 gives each megamorphic spread's copy a hidden class of its own.
    this.publishFn(Object.assign({}, f, { atMs: this.sim.nowMs, node: this.node }) as Fact);
  }

  podName(uid: UID): string {
    return this.podNameOf(uid);
  }

  /** A latency for `op` drawn from the host's seeded stream. */
  latency(op: LatencyOp): number {
    const [lo, hi] = this.latencies[op];
    return this.rng.latencyMs(lo, hi, op);
  }

  /** Arms a storage fault on this node (a scenario `fault` object fits as is). */
  injectFault(f: StorageFault): void {
    this.faults.inject(f);
  }

  // ---- paths (volume.VolumeHost) ----

  getPluginDir(pluginName: string): string {
    return join(KUBELET_ROOT, 'plugins', pluginName);
  }

  getVolumeDevicePluginDir(pluginName: string): string {
    return join(KUBELET_ROOT, 'plugins', pluginName, 'volumeDevices');
  }

  getPodVolumeDir(podUID: UID, escapedPluginName: string, volName: string): string {
    return join(KUBELET_ROOT, 'pods', podUID, 'volumes', escapedPluginName, volName);
  }

  getPodVolumeDeviceDir(podUID: UID, escapedPluginName: string): string {
    return join(KUBELET_ROOT, 'pods', podUID, 'volumeDevices', escapedPluginName);
  }

  /** reconciler getVolumesFromPodDir: every volume dir in pods/{uid}/volumes and pods/{uid}/volumeDevices. */
  getVolumesFromPodDir(): PodVolumeDir[] {
    const out: PodVolumeDir[] = [];
    const podsDir = join(KUBELET_ROOT, 'pods');
    for (const uid of this.fs.readDir(podsDir)) {
      for (const [sub, mode] of [
        ['volumes', 'Filesystem'],
        ['volumeDevices', 'Block'],
      ] as const) {
        const dir = join(podsDir, uid, sub);
        if (!this.fs.isDir(dir)) continue;
        for (const pluginDir of this.fs.readDir(dir)) {
          const plugin = PLUGIN_DIR_KIND[pluginDir];
          if (plugin === undefined || !this.fs.isDir(join(dir, pluginDir))) continue;
          for (const volumeName of this.fs.readDir(join(dir, pluginDir))) {
            const mountPath = join(dir, pluginDir, volumeName);
            out.push({ podUID: uid, podName: this.podNameOf(uid), volumeName, plugin, mode, mountPath });
          }
        }
      }
    }
    return out;
  }

  // ---- files ----

  pathExists(path: string): boolean {
    return this.fs.exists(path);
  }

  /** os.Remove; EBUSY on a mount point. */
  remove(path: string): GoError | undefined {
    if (this.mounts.at(path) !== undefined)
      return new GoError(`remove ${normalize(path)}: device or resource busy`);
    return this.wrapFs(() => this.fs.remove(path));
  }

  /** os.RemoveAll; EBUSY if something is mounted at or below `path`. */
  removeAll(path: string): GoError | undefined {
    if (this.mounts.anyWithin(path))
      return new GoError(`unlinkat ${normalize(path)}: device or resource busy`);
    this.fs.removeAll(path);
    return undefined;
  }

  mkdirAll(path: string): GoError | undefined {
    return this.wrapFs(() => this.fs.mkdirAll(path));
  }

  // ---- mounts ----

  /** mount.IsLikelyNotMountPoint: stat-based, it does not read /proc/mounts. ENOENT if missing. */
  isLikelyNotMountPoint(path: string): Res<boolean> {
    if (!this.fs.exists(path))
      return fail(new FsErrorGo('ENOENT', `lstat ${normalize(path)}: no such file or directory`));
    return ok(this.mounts.at(path) === undefined);
  }

  /**
   * mount(8). A source under /dev/ is a block device: a filesystem mount (into a directory) or, with
   * `bind`, a block map (onto a file). A directory source needs `bind`: the target shows whatever the
   * source shows, so a bind of a directory that is not a mount point binds the node's root disk.
   */
  mount(source: string, target: string, fstype: string, options: readonly string[]): GoError | undefined {
    const src = normalize(source);
    const tgt = normalize(target);
    const node = this.fs.get(tgt);
    if (node === undefined) return new GoError(`mount point ${tgt} does not exist`);
    const opts = options.includes('ro') ? ['ro', ...options.filter((o) => o !== 'ro')] : ['rw', ...options];
    let entry: Omit<MountEntry, 'id'>;
    if (src.startsWith('/dev/')) {
      const lun = this.devices.lunOf(src);
      const dev = this.devices.evalSymlinks(src);
      if (lun === undefined || dev === undefined) return new GoError(`special device ${src} does not exist`);
      if (!this.san.isReachable(lun, this.node))
        return new GoError(`can't read superblock on ${dev}: I/O error`);
      if (options.includes('bind')) {
        if (node.type !== 'file') return new GoError(`mount ${dev} on ${tgt}: not a regular file`);
        entry = {
          kind: 'blockMap',
          device: dev,
          path: tgt,
          fstype: 'devtmpfs',
          opts,
          root: `/${basename(dev)}`,
          lun,
        };
      } else {
        if (node.type !== 'dir') return new GoError(`mount point ${tgt} is not a directory`);
        entry = { kind: 'fs', device: dev, path: tgt, fstype, opts, root: '/', lun };
      }
    } else {
      if (!options.includes('bind')) return new GoError(`special device ${src} does not exist`);
      if (!this.fs.isDir(src)) return new GoError(`special device ${src} does not exist`);
      if (node.type !== 'dir') return new GoError(`mount point ${tgt} is not a directory`);
      const at = this.mounts.at(src);
      const holder = at ?? this.mounts.containing(src);
      const root = at !== undefined ? at.root : join(holder.root, src.slice(holder.path.length));
      entry = {
        kind: 'bind',
        device: holder.device,
        path: tgt,
        fstype: holder.fstype,
        opts,
        root,
        lun: holder.lun,
      };
      if (entry.lun !== undefined && isReadOnly(holder) && !opts.includes('ro')) {
        entry = { ...entry, opts: ['ro', ...options] };
      }
    }
    // Linux stacks a second mount on a mount point; the kubelet's callers check first (IsLikelyNotMountPoint).
    const under = this.mounts.at(tgt);
    if (under !== undefined) {
      this.publish({
        kind: 'mountStacked',
        volume: entry.lun ?? under.lun ?? '',
        path: tgt,
        device: entry.device,
      });
    }
    const added = this.mounts.add(entry);
    if (added.kind === 'fs' && added.lun !== undefined) this.fsMountedAtMs.set(added.id, this.sim.nowMs);
    if (entry.lun !== undefined) {
      this.publishHostMount(entry.lun, entry.kind, tgt, true);
      this.recomputeAccess(entry.lun);
    }
    return undefined;
  }

  /** umount(8) of the top-most mount at `target`. */
  unmount(target: string): GoError | undefined {
    const removed = this.mounts.remove(target);
    if (removed === undefined) return new GoError(`umount: ${normalize(target)}: not mounted`);
    this.fsMountedAtMs.delete(removed.id);
    if (removed.lun !== undefined) {
      this.publishHostMount(removed.lun, removed.kind, removed.path, false);
      this.recomputeAccess(removed.lun);
    }
    return undefined;
  }

  /**
   * Simulator observation: the hostMount fact of a LUN's mount that appeared or went, with what it is to
   * the kubelet (the global mount, a pod's mount, a pod's reference on a Block volume's global map).
   */
  private publishHostMount(lun: string, kind: MountEntry['kind'], path: string, mounted: boolean): void {
    const podsDir = join(KUBELET_ROOT, 'pods');
    let scope: 'global' | 'pod' | 'podMap' = 'global';
    let uid: string | undefined;
    if (pathWithinBase(path, podsDir)) {
      scope = 'pod';
      uid = path.slice(podsDir.length + 1).split('/')[0];
    } else if (kind === 'blockMap' && path.includes('/volumeDevices/')) {
      scope = 'podMap';
      uid = basename(path);
    }
    if (uid === undefined) {
      this.publish({ kind: 'hostMount', volume: lun, path, mounted, scope });
    } else {
      this.publish({ kind: 'hostMount', volume: lun, path, mounted, scope, uid, pod: this.podNameOf(uid) });
    }
  }

  /**
   * utilio.ConsistentRead of /proc/mounts (and /proc/self/mountinfo, which the same fault affects): up to
   * maxListTries reads; each one the procMounts fault makes inconsistent is retried. `purpose` names the
   * caller for the procMountsRead fact (which path's refs, which device).
   */
  readProcMounts(purpose = 'List'): Res<readonly MountEntry[]> {
    for (let i = 0; i < maxListTries; i++) {
      if (!this.faults.procMountsInconsistent()) {
        this.publish({ kind: 'procMountsRead', purpose, attempts: i + 1, consistent: true });
        return ok([...this.mounts.list()]);
      }
    }
    this.publish({ kind: 'procMountsRead', purpose, attempts: maxListTries, consistent: false });
    return fail(
      new InconsistentReadError(
        `could not get consistent content of /proc/mounts after ${maxListTries} attempts`,
      ),
    );
  }

  /** Simulator observation: volumes whose device is mounted or block-mapped outside any pod dir. */
  globallyMountedVolumes(): string[] {
    const podsDir = join(KUBELET_ROOT, 'pods');
    const out = new Set<string>();
    for (const m of this.mounts.list()) {
      if (m.lun !== undefined && !pathWithinBase(m.path, podsDir)) out.add(m.lun);
    }
    return [...out].sort();
  }

  /**
   * Simulator observation: the per-pod references to a block volume's global map (the bind mount
   * `<global map path>/<pod UID>` that MapBlockVolume makes) whose pod no longer has a volumeDevices link
   * for that volume. UnmapBlockVolume removes the link first and the reference last, so a kubelet that
   * stops in between leaves one: one-shot reconstruction only looks at pod dirs and never finds it.
   */
  orphanedPodMapRefs(): { uid: string; volume: string }[] {
    const pluginsDir = join(KUBELET_ROOT, 'plugins');
    const out: { uid: string; volume: string }[] = [];
    for (const m of this.mounts.list()) {
      const lun = m.lun;
      if (lun === undefined || !pathWithinBase(m.path, pluginsDir) || !m.path.includes('/volumeDevices/'))
        continue;
      const uid = basename(m.path);
      if (!this.podLinksVolumeDevice(uid, lun)) out.push({ uid, volume: lun });
    }
    return out.sort((a, b) =>
      a.uid === b.uid ? codeUnitOrder(a.volume, b.volume) : codeUnitOrder(a.uid, b.uid),
    );
  }

  /** Whether pods/{uid}/volumeDevices/{plugin}/ has a link for the LUN (MapBlockVolume's pod link). */
  private podLinksVolumeDevice(uid: string, lun: string): boolean {
    const deviceDir = join(KUBELET_ROOT, 'pods', uid, 'volumeDevices');
    return (
      this.fs.isDir(deviceDir) &&
      this.fs.readDir(deviceDir).some((p) => this.fs.exists(join(deviceDir, p, lun)))
    );
  }

  /**
   * Simulator observation (ground truth for the pod-deleted-before-volumes-reclaimed invariant): the volumes
   * a pod still has set up in its own pod dir on this node, sorted: a mount under pods/{uid}/ (SetUp's bind
   * mount, a CSI NodePublish), or a block volume the pod dir links whose global map still holds the pod's
   * reference (`<global map path>/{uid}`). A reference no pod dir links is orphanedPodMapRefs' (#85476).
   */
  podVolumeMounts(uid: UID): string[] {
    const podDir = join(KUBELET_ROOT, 'pods', uid);
    const pluginsDir = join(KUBELET_ROOT, 'plugins');
    const out = new Set<string>();
    for (const m of this.mounts.list()) {
      const lun = m.lun;
      if (lun === undefined) continue;
      const podMount = pathWithinBase(m.path, podDir);
      const podMapRef =
        m.kind === 'blockMap' &&
        pathWithinBase(m.path, pluginsDir) &&
        basename(m.path) === uid &&
        this.podLinksVolumeDevice(uid, lun);
      if (podMount || podMapRef) out.add(lun);
    }
    return [...out].sort(codeUnitOrder);
  }

  // ---- devices ----

  /** Everything that keeps the LUN's block device open on this node: mounts, block maps, holders. */
  isDeviceOpened(volume: string): boolean {
    if (this.heldByHostProcess(volume) || this.heldByContainer(volume)) return true;
    return this.mounts.list().some((m) => m.lun === volume);
  }

  /**
   * hostutil PathIsDevice + DeviceOpened: false for a path that is no device node (or does not exist),
   * else whether the device is open (exclusive open fails) anywhere on the node.
   */
  deviceOpened(devicePath: string): boolean {
    if (devicePath === '' || this.devices.evalSymlinks(devicePath) === undefined) return false;
    return this.isDevicePathOpen(devicePath);
  }

  /**
   * The device files below a Block volume's global map path: each pod's reference `<mapPath>/{uid}` while
   * the device is bind-mounted on it (unmounted, it is the empty regular file MapBlockVolume created).
   */
  deviceBindMountRefs(mapPath: string): string[] {
    if (mapPath === '' || !this.fs.isDir(mapPath)) return [];
    return this.fs
      .readDir(mapPath)
      .map((name) => join(mapPath, name))
      .filter((p) => this.mounts.at(p)?.kind === 'blockMap');
  }

  /** Is the device node (disk or map) open: mounted, block-mapped, or under an open map? */
  isDevicePathOpen(devicePath: string): boolean {
    const lun = this.devices.lunOf(devicePath);
    if (lun !== undefined && (this.heldByHostProcess(lun) || this.heldByContainer(lun))) return true;
    const dev = this.devices.evalSymlinks(devicePath) ?? devicePath;
    return this.mounts
      .list()
      .some((m) => m.device === dev || this.devices.map(m.device)?.slaves.includes(dev));
  }

  /** deviceStillOpen: a host process opens the LUN's device for DEVICE_HOLD_MS, or until the next (un)mount. */
  holdDevice(volume: string): void {
    this.holders.set(volume, this.sim.nowMs + DEVICE_HOLD_MS);
  }

  private heldByHostProcess(volume: string): boolean {
    const untilMs = this.holders.get(volume);
    return untilMs !== undefined && this.sim.nowMs < untilMs;
  }

  releaseDevice(volume: string): void {
    this.holders.delete(volume);
  }

  // ---- containers' mount namespaces (runtime.MountNamespaces) ----

  /**
   * A container is created: its mount namespace copies the pod's filesystem volume mounts under
   * pods/{uid}/volumes as they are now (runc init holds the namespace, so the filesystems stay mounted
   * and their devices open), and its /dev gets nodes for the block devices linked from
   * pods/{uid}/volumeDevices, which hold them open only once the process runs (startNamespace).
   */
  createNamespace(containerId: string, podUID: UID): void {
    const mounted: NamespaceRef[] = [];
    const podDir = join(KUBELET_ROOT, 'pods', podUID);
    for (const m of this.mounts.list()) {
      if (m.lun !== undefined && pathWithinBase(m.path, join(podDir, 'volumes'))) {
        addRef(mounted, m.lun, !isReadOnly(m));
      }
    }
    const devices: NamespaceRef[] = [];
    const devicesDir = join(podDir, 'volumeDevices');
    if (this.fs.isDir(devicesDir)) {
      for (const plugin of this.fs.readDir(devicesDir)) {
        if (!this.fs.isDir(join(devicesDir, plugin))) continue;
        for (const name of this.fs.readDir(join(devicesDir, plugin))) {
          const link = this.fs.get(join(devicesDir, plugin, name));
          const lun = link?.type === 'file' ? this.devices.lunOf(link.content) : undefined;
          if (lun !== undefined) addRef(devices, lun, true);
        }
      }
    }
    if (devices.length > 0) this.pendingDevices.set(containerId, devices);
    if (devices.length > 0 || mounted.length > 0) this.namespaceOwners.set(containerId, podUID);
    if (mounted.length === 0) return;
    this.namespaces.set(containerId, mounted);
    for (const r of mounted) this.recomputeAccess(r.lun);
  }

  /** The container's process started: its block devices are open from now on. */
  startNamespace(containerId: string): void {
    const devices = this.pendingDevices.get(containerId);
    if (devices === undefined) return;
    this.pendingDevices.delete(containerId);
    const refs = [...(this.namespaces.get(containerId) ?? [])];
    for (const d of devices) addRef(refs, d.lun, d.readWrite);
    this.namespaces.set(containerId, refs);
    for (const d of devices) this.recomputeAccess(d.lun);
  }

  /** The container's process is gone: so are its namespace's mounts (idempotent). */
  destroyNamespace(containerId: string): void {
    this.pendingDevices.delete(containerId);
    this.namespaceOwners.delete(containerId);
    const refs = this.namespaces.get(containerId);
    if (refs === undefined) return;
    this.namespaces.delete(containerId);
    for (const r of refs) this.recomputeAccess(r.lun);
  }

  /** Whether some container's mount namespace still holds the LUN open. */
  heldByContainer(volume: string): boolean {
    for (const refs of this.namespaces.values()) if (refs.some((r) => r.lun === volume)) return true;
    return false;
  }

  /**
   * Who holds the LUN's device open on this node now: its mounts, the running containers whose mount
   * namespace or /dev holds it, a host process. Ground truth for the deviceReleased fact.
   */
  deviceHolders(volume: string): DeviceHolders {
    let mounts = 0;
    for (const m of this.mounts.list()) if (m.lun === volume) mounts++;
    const pods: UID[] = [];
    for (const [id, refs] of this.namespaces) {
      if (refs.some((r) => r.lun === volume)) pods.push(this.namespaceOwners.get(id) ?? id);
    }
    const hostProcess = this.heldByHostProcess(volume);
    return { holders: mounts + pods.length + (hostProcess ? 1 : 0), mounts, pods, hostProcess };
  }

  /** Publishes a deviceReleased fact with the LUN's holders now. */
  private publishReleased(volume: string, action: 'scsiDelete' | 'logout', device: string): void {
    const h = this.deviceHolders(volume);
    this.publish({
      kind: 'deviceReleased',
      volume,
      action,
      device,
      holders: h.holders,
      mounts: h.mounts,
      pods: h.pods,
      hostProcess: h.hostProcess,
    });
  }

  /**
   * A write to /sys/block/sdX/device/delete: the kernel deletes the disk even while it is open (a map
   * over it, a mount, a process), and the holder loses the path (deviceReleased).
   */
  deleteScsiDevice(path: string): void {
    const lun = this.devices.lunOf(path);
    if (lun !== undefined && this.devices.scsiDevice(path) !== undefined) {
      this.publishReleased(lun, 'scsiDelete', path);
    }
    this.removeScsiDevice(path);
  }

  /**
   * The kernel removes a disk. When a map loses its last path and nothing holds it open, multipathd
   * removes the map too (its remove-path uevent handler flushes empty maps).
   */
  private removeScsiDevice(path: string): void {
    const dm = this.devices.findMultipathDeviceForDevice(path);
    const lun = this.devices.lunOf(path);
    this.devices.deleteScsi(path);
    if (dm !== '' && this.devices.map(dm)?.slaves.length === 0 && !this.isDevicePathOpen(dm)) {
      this.devices.removeMap(dm);
    }
    // A container still holding the LUN loses its last path: its writes fail from now on.
    if (lun !== undefined) this.recomputeAccess(lun);
  }

  /** `iscsiadm --logout`: the session goes and the kernel deletes the disks found through it. */
  iscsiLogout(portal: string, iqn: string): boolean {
    const session = this.devices.sessionList().find((s) => s.portal === portal && s.iqn === iqn);
    if (session === undefined) return false;
    for (const lun of this.san.allLuns()) {
      let released = false;
      for (const d of this.devices.scsiPathsOf(lun.name)) {
        if (d.hostNumber !== session.hostNumber) continue;
        // Every LUN found through the session loses its path: one deviceReleased per LUN.
        if (!released) this.publishReleased(lun.name, 'logout', portal);
        released = true;
        this.removeScsiDevice(d.path);
      }
    }
    return this.devices.logout(portal, iqn);
  }

  /** SCSI paths and multipath maps of the LUN still on the node. */
  deviceResidue(volume: string): { scsiPaths: number; multipathMaps: number } {
    return {
      scsiPaths: this.devices.scsiPathsOf(volume).length,
      multipathMaps: this.devices.mapsOf(volume).length,
    };
  }

  /** Simulator observation: the hostDevices fact of a LUN whose SCSI paths or multipath maps changed. */
  private devicesChanged(volume: string): void {
    const r = this.deviceResidue(volume);
    const counts = `${r.scsiPaths}/${r.multipathMaps}`;
    if (this.deviceCounts.get(volume) === counts) return;
    this.deviceCounts.set(volume, counts);
    this.publish({ kind: 'hostDevices', volume, ...r });
  }

  /** Publishes deviceResidue; the kubelet's operation calls it once it has marked the device unmounted. */
  publishDeviceResidue(volume: string, devicePath: string): void {
    const h = this.deviceHolders(volume);
    this.publish({
      kind: 'deviceResidue',
      volume,
      ...this.deviceResidue(volume),
      mounts: h.mounts,
      pods: h.pods,
      hostProcess: h.hostProcess,
      devicePathIsDevice: devicePath !== '' && this.devices.evalSymlinks(devicePath) !== undefined,
    });
  }

  /** Size of the block device behind `path` (metrics_block's Seek(0, SeekEnd)); a plain file is empty. */
  seekEnd(path: string): Res<number> {
    const m = this.mounts.at(path);
    if (m !== undefined && m.kind === 'blockMap' && m.lun !== undefined) {
      return ok(this.san.lun(m.lun)?.capacityBytes ?? 0);
    }
    const dev = this.devices.evalSymlinks(path);
    const lun = dev === undefined ? undefined : this.devices.lunOf(dev);
    if (lun !== undefined) return ok(this.san.lun(lun)?.capacityBytes ?? 0);
    if (this.fs.get(path)?.type === 'file') return ok(0);
    return fail(new GoError(`open ${normalize(path)}: no such file or directory`));
  }

  /** statfs of the filesystem holding `path`: the LUN's size, or the node's root disk. */
  statfsCapacity(path: string): number {
    const m = this.mounts.containing(path);
    return m.lun === undefined ? ROOT_DISK_BYTES : (this.san.lun(m.lun)?.capacityBytes ?? 0);
  }

  /**
   * The filesystem mounted at `path`, if the node's path to its LUN was fenced (a real detach) after it was
   * mounted: the mount sits on a device the node lost, so it stays dead even once the LUN is attached
   * again (a new attachment is a new device, which only a new MountDevice mounts).
   */
  fencedUnder(path: string): { volume: string; mountedAtMs: number; fencedAtMs: number } | undefined {
    const m = this.mounts.at(path);
    if (m === undefined || m.kind !== 'fs' || m.lun === undefined) return undefined;
    const mountedAtMs = this.fsMountedAtMs.get(m.id);
    const fencedAtMs = this.san.lastFencedAtMs(m.lun, this.node);
    if (mountedAtMs === undefined || fencedAtMs === undefined || fencedAtMs < mountedAtMs) return undefined;
    return { volume: m.lun, mountedAtMs, fencedAtMs };
  }

  // ---- writes ----

  /**
   * A pod (or, without `podUID`, the node's own writeback / journal) writes to the volume. The pod's write
   * goes wherever its volume path really leads: the LUN (corruption if another node writes too), the
   * node's root disk (a bind of a hollow global dir), or nowhere (EIO when fenced).
   */
  writes(volume: string, podUID?: UID): WriteOutcome {
    if (podUID === undefined) {
      return this.access.get(volume) === undefined ? 'rootFs' : this.san.write(volume, this.node);
    }
    const lun = this.san.lun(volume);
    const escaped = lun === undefined ? '' : `kubernetes.io~${lun.plugin}`;
    const fsPath = this.getPodVolumeDir(podUID, escaped, volume);
    const blockPath = join(this.getPodVolumeDeviceDir(podUID, escaped), volume);
    const m = this.mounts.at(fsPath) ?? this.mounts.at(join(fsPath, 'mount'));
    const target =
      m?.lun ?? (this.fs.exists(blockPath) ? this.devices.lunOf(this.fs.readFile(blockPath)) : undefined);
    if (target !== volume) return 'rootFs';
    if (m !== undefined && isReadOnly(m)) return 'readOnly';
    return this.san.write(volume, this.node);
  }

  // ---- internals ----

  private recomputeAccess(volume: string): void {
    const mine = this.mounts.list().filter((m) => m.lun === volume);
    let rw = mine.some((m) => !isReadOnly(m));
    let any = mine.length > 0;
    // A container's namespace reaches the LUN only while the node still has a path to it.
    if (this.devices.scsiPathsOf(volume).length > 0) {
      for (const refs of this.namespaces.values()) {
        for (const r of refs) {
          if (r.lun !== volume) continue;
          any = true;
          rw ||= r.readWrite;
        }
      }
    }
    const next: AccessState = !any ? 'none' : rw ? 'rw' : 'ro';
    const prev = this.access.get(volume) ?? 'none';
    if (next === prev) return;
    if (next === 'none') this.access.delete(volume);
    else this.access.set(volume, next);
    if (this.san.lun(volume) !== undefined) {
      this.san.setAccess(volume, this.node, next === 'none' ? undefined : { readWrite: next === 'rw' });
    }
    if (next === 'none') this.publish({ kind: 'lunAccessClosed', volume });
    else this.publish({ kind: 'lunAccessOpened', volume, readWrite: next === 'rw' });
  }

  private wrapFs(fn: () => void): GoError | undefined {
    try {
      fn();
      return undefined;
    } catch (e) {
      if (e instanceof FsError) return new FsErrorGo(e.code, e.message);
      throw e;
    }
  }
}

export {
  DEFAULT_LATENCIES,
  type DistributiveOmit,
  FsErrorGo,
  fail,
  isNotExist,
  type LatencyOp,
  maxListTries,
  ok,
  type Res,
} from './common.js';
export { dirname, ROOT_DEVICE };
