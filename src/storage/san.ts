// The simulated storage array (cluster-wide ground truth): one LUN per cluster volume, how each node can
// reach it (FC zoning / iSCSI ACLs let every node in; a CSI ControllerPublish unfences one node, a real
// detach fences it again), which nodes hold it open, and every write, so overlapping writers of a
// ReadWriteOnce LUN are detected as corruption.
import type { AccessMode, VolumeMode } from '../api/v1.js';
import type { Fact } from '../facts.js';
import type { DeviceHolders } from './host.js';

/** The FC target port every FC LUN is behind (fc.go's TargetWWNs has one entry). */
export const FC_TARGET_WWN = '50060e801049cfd1';
/** The FC target port of the array the simulated CSI driver provisions from. */
export const CSI_TARGET_WWN = '50060e801049cfd2';
/** The iSCSI target every iSCSI LUN is behind: portal and IQN (iscsi.go TargetPortal, IQN). */
export const ISCSI_TARGET_PORTAL = '10.0.0.10:3260';
export const ISCSI_TARGET_IQN = 'iqn.2021-06.io.podrace:storage';

/** The volume plugin a LUN is served to (the same names as volume.PluginKind). */
export type LunPlugin = 'fc' | 'iscsi' | 'csi';

export interface LunDecl {
  readonly name: string;
  readonly plugin: LunPlugin;
  readonly mode: VolumeMode;
  readonly capacityBytes: number;
  readonly accessMode: AccessMode;
}

export interface Lun extends LunDecl {
  /** LUN number behind its target (per plugin, in declaration order). */
  readonly lunNumber: number;
  /** The SCSI WWID the array reports (what multipath names the map after). */
  readonly wwid: string;
  /** The filesystem on the LUN, once mkfs ran (FormatAndMount formats only a blank disk). */
  filesystem: string | undefined;
}

export type WriteOutcome =
  /** The write reached the LUN; no other node could write at the same time. */
  | 'ok'
  /** The write reached the LUN while another node also held it read-write and unfenced: corruption. */
  | 'corrupted'
  /** The node's path to the LUN is fenced (a real detach): EIO. */
  | 'ioError'
  /** The node holds the LUN read-only: EROFS. */
  | 'readOnly'
  /** Nothing of the LUN is mounted where the pod writes: the data lands on the node's root disk. */
  | 'rootFs';

export interface WriteRecord {
  readonly atMs: number;
  readonly node: string;
  readonly outcome: 'ok' | 'corrupted';
  /** The other unfenced read-write nodes at the time of the write. */
  readonly otherWriters: readonly string[];
}

interface NodeAccess {
  readWrite: boolean;
}

interface LunState {
  readonly lun: Lun;
  /** csi: the nodes a ControllerPublish made the LUN reachable from. fc / iscsi: unused (always reachable). */
  readonly published: Set<string>;
  /** The nodes that hold the LUN open (a mount or block map), as the hosts report it. */
  readonly access: Map<string, NodeAccess>;
  readonly writes: WriteRecord[];
  corrupted: boolean;
  /** csi: when each node's path was last fenced (a real detach). */
  readonly fencedAtMs: Map<string, number>;
}

export interface SanOptions {
  readonly now: () => number;
  readonly publish: (fact: Fact) => void;
  /** Called on every access: the SAN is shared by the nodes (src/sim/choices.ts footprints). */
  readonly touched?: (() => void) | undefined;
}

export class San {
  private readonly luns = new Map<string, LunState>();
  private readonly nextLunNumber: Record<LunPlugin, number> = { fc: 0, iscsi: 0, csi: 0 };
  /** Per node, who holds a LUN's device open there (its Host answers), for the fence's deviceReleased. */
  private readonly holdersOf = new Map<string, (volume: string) => DeviceHolders>();

  constructor(private readonly opts: SanOptions) {}

  addLun(decl: LunDecl): Lun {
    if (this.luns.has(decl.name)) throw new Error(`LUN ${decl.name} already exists`);
    const lunNumber = this.nextLunNumber[decl.plugin]++;
    const serial = (this.luns.size + 1).toString(16).padStart(8, '0');
    const lun: Lun = Object.assign({}, decl, {
      lunNumber,
      wwid: `3600508b4001${serial}0000900000490`,
      filesystem: undefined,
    });
    this.luns.set(decl.name, {
      lun,
      published: new Set(),
      access: new Map(),
      writes: [],
      corrupted: false,
      fencedAtMs: new Map(),
    });
    return lun;
  }

  lun(name: string): Lun | undefined {
    return this.luns.get(name)?.lun;
  }

  allLuns(): Lun[] {
    return [...this.luns.values()].map((s) => s.lun);
  }

  /** The FC LUN behind target `wwn` at `lunNumber` (parsePDName's output). */
  findFcLun(wwns: readonly string[], lunNumber: number): Lun | undefined {
    if (!wwns.includes(FC_TARGET_WWN)) return undefined;
    return this.allLuns().find((l) => l.plugin === 'fc' && l.lunNumber === lunNumber);
  }

  findIscsiLun(portal: string, iqn: string, lunNumber: number): Lun | undefined {
    if (portal !== ISCSI_TARGET_PORTAL || iqn !== ISCSI_TARGET_IQN) return undefined;
    return this.allLuns().find((l) => l.plugin === 'iscsi' && l.lunNumber === lunNumber);
  }

  // ---- reachability (fencing) ----

  /** Can `node` do I/O to the LUN? FC / iSCSI: always (no 3rd-party attach, PR #48940); csi: once published. */
  isReachable(volume: string, node: string): boolean {
    this.opts.touched?.();
    const s = this.luns.get(volume);
    if (s === undefined) return false;
    return s.lun.plugin !== 'csi' || s.published.has(node);
  }

  /** csi ControllerPublishVolume: the LUN becomes reachable from `node` (lunFenced fenced=false). */
  attach(volume: string, node: string): void {
    const s = this.state(volume);
    if (s.lun.plugin !== 'csi' || s.published.has(node)) return;
    s.published.add(node);
    this.opts.publish({ kind: 'lunFenced', atMs: this.opts.now(), node, volume, fenced: false });
  }

  /** When `node`'s path to the LUN was last fenced by a real detach (undefined: never). */
  lastFencedAtMs(volume: string, node: string): number | undefined {
    this.opts.touched?.();
    return this.luns.get(volume)?.fencedAtMs.get(node);
  }

  /** A node's host registers the question "who holds this LUN's device open here now?". */
  registerHolders(node: string, holders: (volume: string) => DeviceHolders): void {
    this.holdersOf.set(node, holders);
  }

  /**
   * csi ControllerUnpublishVolume: the node's path is fenced; it can no longer write (lunFenced), and
   * whatever held the device there loses it (deviceReleased, action fence).
   */
  detach(volume: string, node: string): void {
    const s = this.state(volume);
    if (s.lun.plugin !== 'csi' || !s.published.has(node)) return;
    s.published.delete(node);
    const atMs = this.opts.now();
    s.fencedAtMs.set(node, atMs);
    const h = this.holdersOf.get(node)?.(volume);
    this.opts.publish({
      kind: 'deviceReleased',
      atMs,
      node,
      volume,
      action: 'fence',
      device: '',
      holders: h?.holders ?? 0,
      mounts: h?.mounts ?? 0,
      pods: h?.pods ?? [],
      hostProcess: h?.hostProcess ?? false,
    });
    this.opts.publish({ kind: 'lunFenced', atMs, node, volume, fenced: true });
  }

  // ---- access and writes ----

  /** Hosts report here when a mount or block map of the LUN appears, changes mode, or goes. */
  setAccess(volume: string, node: string, access: { readWrite: boolean } | undefined): void {
    const s = this.state(volume);
    if (access === undefined) s.access.delete(node);
    else s.access.set(node, { readWrite: access.readWrite });
  }

  /** The nodes that hold the LUN open read-write and are not fenced: the ones that can write now. */
  writers(volume: string): string[] {
    this.opts.touched?.();
    const s = this.luns.get(volume);
    if (s === undefined) return [];
    const out: string[] = [];
    for (const [node, a] of s.access) if (a.readWrite && this.isReachable(volume, node)) out.push(node);
    return out.sort();
  }

  /**
   * A write from `node` through an open read-write access (hosts call this from Host.writes). On a
   * ReadWriteOnce LUN, a write while another node is an unfenced read-write holder corrupts the data.
   */
  write(volume: string, node: string): WriteOutcome {
    const s = this.state(volume);
    if (!this.isReachable(volume, node)) return 'ioError';
    const mine = s.access.get(node);
    if (mine === undefined) return 'rootFs';
    if (!mine.readWrite) return 'readOnly';
    const others = this.writers(volume).filter((n) => n !== node);
    const corrupt = s.lun.accessMode === 'ReadWriteOnce' && others.length > 0;
    if (corrupt) s.corrupted = true;
    const outcome = corrupt ? 'corrupted' : 'ok';
    s.writes.push({ atMs: this.opts.now(), node, outcome, otherWriters: others });
    return outcome;
  }

  isCorrupted(volume: string): boolean {
    this.opts.touched?.();
    return this.luns.get(volume)?.corrupted ?? false;
  }

  writeLog(volume: string): readonly WriteRecord[] {
    this.opts.touched?.();
    return this.luns.get(volume)?.writes ?? [];
  }

  private state(volume: string): LunState {
    this.opts.touched?.();
    const s = this.luns.get(volume);
    if (s === undefined) throw new Error(`no LUN ${volume} on the SAN`);
    return s;
  }
}
