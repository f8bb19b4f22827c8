// The volumes an imported log names: one per spec name (a PersistentVolume's), with what the log says of
// its plugin and mode, and the guesses where it says nothing (docs/import.md).
import type { VolumeDecl } from '../scenario/types.js';
import type { PluginKind } from '../volume/volume.js';
import type { VolumeOp } from './events.js';
import { blockIn, pluginIn, subdomain } from './hints.js';
import type { LogRecord } from './logLines.js';

/** What a log never says: the size of the disk. Big enough for any filesystem podrace formats. */
const GUESSED_CAPACITY = 1024 ** 3;

interface Seen {
  readonly name: string;
  plugin: PluginKind | null;
  /** A plugin guessed from what the log shows of it, and why; used when the log names none. */
  guessed: { plugin: PluginKind; why: string } | null;
  block: boolean;
  /** Whether the mode was read (a Block op or path, a MountDevice / SetUp of a filesystem). */
  modeRead: boolean;
  rwo: boolean;
  readonly sources: LogRecord[];
}

const BLOCK_OPS: readonly VolumeOp[] = ['mapDevice', 'mapPodDevice', 'unmapPodDevice', 'unmapDevice'];
const FS_OPS: readonly VolumeOp[] = ['mountDevice', 'setUp', 'tearDown', 'unmountDevice'];

export class VolumeTable {
  private readonly byName = new Map<string, Seen>();
  private readonly byUnique = new Map<string, string>();
  /** node/volume -> virtual time of its latest successful UnmountDevice (faults are armed after it). */
  readonly lastUnmount = new Map<string, number>();

  /** Records a mention; returns the scenario name of the volume. */
  see(specName: string, uniqueName: string, r: LogRecord, op: VolumeOp | null): string {
    const known = uniqueName === '' ? undefined : this.byUnique.get(uniqueName);
    // Older releases (and the controller manager's structured lines) name a volume by its UniqueName:
    // `kubernetes.io/cinder/name`, `kubernetes.io/csi/driver^pvc-...`: the part after `^` or the last `/`.
    const given = specName === '' ? uniqueName : specName;
    const short = given.includes('/')
      ? (given.split('^')[1] ?? given.slice(given.lastIndexOf('/') + 1))
      : given;
    const name = known ?? subdomain(short, `volume-${this.byName.size + 1}`);
    if (uniqueName !== '') this.byUnique.set(uniqueName, name);
    let v = this.byName.get(name);
    if (v === undefined) {
      v = { name, plugin: null, guessed: null, block: false, modeRead: false, rwo: false, sources: [] };
      this.byName.set(name, v);
    }
    v.sources.push(r);
    v.plugin ??= pluginIn(uniqueName) ?? pluginIn(r.text);
    if ((op !== null && BLOCK_OPS.includes(op)) || blockIn(r.text)) {
      v.block = true;
      v.modeRead = true;
    } else if (op !== null && FS_OPS.includes(op)) v.modeRead = true;
    return name;
  }

  guessPlugin(name: string, plugin: PluginKind, why: string): void {
    const v = this.byName.get(name);
    if (v !== undefined && v.guessed === null) v.guessed = { plugin, why };
  }

  rwo(name: string, r: LogRecord): void {
    const v = this.byName.get(name);
    if (v === undefined) return;
    v.rwo = true;
    v.sources.push(r);
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  pluginOf(name: string): PluginKind | null {
    const v = this.byName.get(name);
    return v?.plugin ?? v?.guessed?.plugin ?? null;
  }

  /** The declarations in first-mention order, each with its source records and its guesses. */
  decls(): { decl: VolumeDecl; sources: readonly LogRecord[]; guesses: string[] }[] {
    return [...this.byName.values()].map((v) => {
      const guesses: string[] = [];
      if (v.plugin === null) guesses.push(v.guessed?.why ?? 'plugin csi: the log names no plugin');
      if (!v.modeRead) guesses.push('mode Filesystem: the log shows no mount or map of it');
      guesses.push('capacity 1Gi: a log never says');
      if (!v.rwo) guesses.push('accessMode ReadWriteOnce');
      return {
        decl: {
          name: v.name,
          plugin: v.plugin ?? v.guessed?.plugin ?? 'csi',
          mode: v.block ? 'Block' : 'Filesystem',
          capacityBytes: GUESSED_CAPACITY,
          accessMode: 'ReadWriteOnce',
        },
        sources: v.sources,
        guesses,
      };
    });
  }
}
