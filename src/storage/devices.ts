// One node's block-device layer: SCSI disks (/dev/sdX) with their /dev/disk/by-path links, dm-multipath
// maps over them (/dev/dm-N), and iSCSI sessions per portal + IQN. Paths appear on an FC rescan or an
// iSCSI login + LUN scan and go on a write to /sys/block/sdX/device/delete or an iSCSI logout; maps go on
// `multipath -f`. Pure data: Host publishes facts (told of each change of a LUN's paths or maps through
// `onChange`), the plugins take the time.

export interface ScsiDevice {
  /** '/dev/sdb'. */
  readonly path: string;
  readonly lun: string;
  /** The SCSI host (FC HBA port or iSCSI session) it was found through. */
  readonly hostNumber: number;
  /** Its /dev/disk/by-path link. */
  readonly byPath: string;
}

export interface MultipathMap {
  /** '/dev/dm-0'. */
  readonly path: string;
  readonly lun: string;
  readonly wwid: string;
  /** The SCSI paths under it ('/dev/sdb', ...); a map can outlive all of them. */
  readonly slaves: string[];
}

export interface IscsiSession {
  readonly portal: string;
  readonly iqn: string;
  readonly iface: string;
  readonly hostNumber: number;
}

/** The two FC HBA ports every node has (SCSI hosts 1 and 2), so an FC LUN has two paths. */
export const FC_HBA_HOSTS: readonly number[] = [1, 2];

function sdName(n: number): string {
  // sda is the node's root disk; LUNs start at sdb. sdz is followed by sdaa, as the kernel names them.
  let s = '';
  let k = n;
  do {
    s = String.fromCharCode(97 + (k % 26)) + s;
    k = Math.floor(k / 26) - 1;
  } while (k >= 0);
  return `/dev/sd${s}`;
}

export function fcByPath(hostNumber: number, wwn: string, lunNumber: number): string {
  return `/dev/disk/by-path/pci-0000:41:00.${hostNumber - 1}-fc-0x${wwn}-lun-${lunNumber}`;
}

export function iscsiByPath(portal: string, iqn: string, lunNumber: number): string {
  return `/dev/disk/by-path/ip-${portal}-iscsi-${iqn}-lun-${lunNumber}`;
}

export class Devices {
  private readonly scsi = new Map<string, ScsiDevice>();
  private readonly maps = new Map<string, MultipathMap>();
  private readonly sessions = new Map<string, IscsiSession>();
  private nextSd = 1;
  private nextDm = 0;
  /** iSCSI sessions get SCSI hosts after the FC HBAs. */
  private nextScsiHost = 3;

  /** `onChange(lun)`: a SCSI path or a multipath map of the LUN appeared or went (Host's hostDevices fact). */
  constructor(private readonly onChange: (lun: string) => void = () => {}) {}

  // ---- SCSI paths ----

  addScsiPath(lun: string, hostNumber: number, byPath: string): ScsiDevice {
    const existing = this.byPathTarget(byPath);
    if (existing !== undefined) return existing;
    const dev: ScsiDevice = { path: sdName(this.nextSd++), lun, hostNumber, byPath };
    this.scsi.set(dev.path, dev);
    this.onChange(lun);
    return dev;
  }

  /** A write to /sys/block/sdX/device/delete: the disk goes; a map over it keeps running without it. */
  deleteScsi(path: string): boolean {
    const dev = this.scsi.get(path);
    if (dev === undefined) return false;
    this.scsi.delete(path);
    for (const m of this.maps.values()) {
      const i = m.slaves.indexOf(path);
      if (i >= 0) m.slaves.splice(i, 1);
    }
    this.onChange(dev.lun);
    return true;
  }

  scsiDevice(path: string): ScsiDevice | undefined {
    return this.scsi.get(path);
  }

  // ---- multipath ----

  /** multipathd assembling (or extending) the map of a LUN from its SCSI paths. */
  ensureMultipath(lun: string, wwid: string): MultipathMap | undefined {
    const paths = this.scsiPathsOf(lun).map((d) => d.path);
    if (paths.length === 0) return undefined;
    let m = [...this.maps.values()].find((x) => x.lun === lun);
    if (m === undefined) {
      m = { path: `/dev/dm-${this.nextDm++}`, lun, wwid, slaves: [] };
      this.maps.set(m.path, m);
      this.onChange(lun);
    }
    for (const p of paths) if (!m.slaves.includes(p)) m.slaves.push(p);
    return m;
  }

  removeMap(path: string): boolean {
    const m = this.maps.get(path);
    if (m === undefined) return false;
    this.maps.delete(path);
    this.onChange(m.lun);
    return true;
  }

  map(path: string): MultipathMap | undefined {
    return this.maps.get(path);
  }

  /** volumeutil DeviceUtil.FindMultipathDeviceForDevice: the dm map holding `devicePath`, or ''. */
  findMultipathDeviceForDevice(devicePath: string): string {
    for (const m of this.maps.values()) if (m.slaves.includes(devicePath)) return m.path;
    return '';
  }

  /** DeviceUtil.FindSlaveDevicesOnMultipath. */
  findSlaveDevicesOnMultipath(dm: string): string[] {
    return [...(this.maps.get(dm)?.slaves ?? [])];
  }

  // ---- names ----

  /** The device a /dev path names: a by-path link resolves to its disk; a disk or map to itself. */
  evalSymlinks(path: string): string | undefined {
    if (this.scsi.has(path) || this.maps.has(path)) return path;
    return this.byPathTarget(path)?.path;
  }

  /** ReadDir("/dev/disk/by-path/"): the link names. */
  byPathNames(): string[] {
    return [...this.scsi.values()].map((d) => d.byPath.slice('/dev/disk/by-path/'.length)).sort();
  }

  /** Which LUN a device node belongs to (a disk, a map, or a by-path link). */
  lunOf(path: string): string | undefined {
    const dev = this.evalSymlinks(path);
    if (dev === undefined) return undefined;
    return this.scsi.get(dev)?.lun ?? this.maps.get(dev)?.lun;
  }

  scsiPathsOf(lun: string): ScsiDevice[] {
    return [...this.scsi.values()].filter((d) => d.lun === lun);
  }

  mapsOf(lun: string): MultipathMap[] {
    return [...this.maps.values()].filter((m) => m.lun === lun);
  }

  /** The device a plugin would use for the LUN now: its map if there is one, else its first path. */
  preferredDevice(lun: string): string | undefined {
    return this.mapsOf(lun)[0]?.path ?? this.scsiPathsOf(lun)[0]?.path;
  }

  // ---- iSCSI sessions ----

  /** `iscsiadm -m node --login`: a session (and a SCSI host) for the portal + IQN. */
  login(portal: string, iqn: string, iface: string): IscsiSession {
    const key = `${portal},${iqn}`;
    let s = this.sessions.get(key);
    if (s === undefined) {
      s = { portal, iqn, iface, hostNumber: this.nextScsiHost++ };
      this.sessions.set(key, s);
    }
    return s;
  }

  /** `iscsiadm -m node --logout`: the session goes, and the kernel removes the disks found through it. */
  logout(portal: string, iqn: string): boolean {
    const key = `${portal},${iqn}`;
    const s = this.sessions.get(key);
    if (s === undefined) return false;
    this.sessions.delete(key);
    for (const d of [...this.scsi.values()]) if (d.hostNumber === s.hostNumber) this.deleteScsi(d.path);
    return true;
  }

  /** DeviceUtil.GetISCSIPortalHostMapForTarget: portal -> SCSI host number, for the IQN's sessions. */
  portalHostMapForTarget(iqn: string): Map<string, number> {
    const out = new Map<string, number>();
    for (const s of this.sessions.values()) if (s.iqn === iqn) out.set(s.portal, s.hostNumber);
    return out;
  }

  /** DeviceUtil.FindDevicesForISCSILun: the disk names ('sdb') of LUN `lunNumber` on the IQN's sessions. */
  findDevicesForISCSILun(iqn: string, byPathOf: (portal: string) => string): string[] {
    const out: string[] = [];
    for (const s of this.sessions.values()) {
      if (s.iqn !== iqn) continue;
      const d = this.byPathTarget(byPathOf(s.portal));
      if (d !== undefined && d.hostNumber === s.hostNumber) out.push(d.path.slice('/dev/'.length));
    }
    return out;
  }

  sessionList(): IscsiSession[] {
    return [...this.sessions.values()];
  }

  private byPathTarget(byPath: string): ScsiDevice | undefined {
    for (const d of this.scsi.values()) if (d.byPath === byPath) return d;
    return undefined;
  }
}
