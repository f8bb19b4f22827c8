// One node's filesystem namespace as the volume plugins see it: a directory tree (the kubelet's pods/
// and plugins/ dirs, iscsi.json files, block-map files) and the mount table behind /proc/mounts and
// /proc/self/mountinfo. Pure data; Host (host.ts) publishes facts around the changes.

/** What the kubelet's root directory is mounted from; a bind of a plain directory shows this device. */
export const ROOT_DEVICE = '/dev/vda1';
/** Capacity of the node's root disk (for statfs of a path that is not on a LUN). */
export const ROOT_DISK_BYTES = 100 * 1024 ** 3;

export type FsNode = { readonly type: 'dir' } | { readonly type: 'file'; content: string };

export class FsError extends Error {
  constructor(
    readonly code: 'ENOENT' | 'EEXIST' | 'ENOTDIR' | 'ENOTEMPTY' | 'EBUSY' | 'EISDIR',
    readonly path: string,
    message: string,
  ) {
    super(`${message} ${path}: ${code}`);
  }
}

export function normalize(path: string): string {
  // Most paths are already clean: absolute, no empty, '.' or '..' segment, no trailing slash.
  if (
    path.charCodeAt(0) === 47 &&
    (path.length === 1 || path.charCodeAt(path.length - 1) !== 47) &&
    !path.includes('//') &&
    !path.includes('/.')
  )
    return path;
  const parts: string[] = [];
  for (const p of path.split('/')) {
    if (p === '' || p === '.') continue;
    if (p === '..') parts.pop();
    else parts.push(p);
  }
  return `/${parts.join('/')}`;
}

export function dirname(path: string): string {
  const n = normalize(path);
  const i = n.lastIndexOf('/');
  return i <= 0 ? '/' : n.slice(0, i);
}

export function basename(path: string): string {
  const n = normalize(path);
  return n.slice(n.lastIndexOf('/') + 1);
}

export function join(...parts: string[]): string {
  return normalize(parts.join('/'));
}

/** mount.PathWithinBase: `path` is `base` or below it. */
export function pathWithinBase(path: string, base: string): boolean {
  const p = normalize(path);
  const b = normalize(base);
  return p === b || b === '/' || p.startsWith(`${b}/`);
}

export class FileTree {
  private readonly nodes = new Map<string, FsNode>([['/', { type: 'dir' }]]);
  /**
   * The names directly below each directory that has any: readDir and removeAll walk a directory's own
   * entries, not every path of the node (the pod volume scans of housekeeping and of the status manager's
   * reclaim check ran over the whole tree).
   */
  private readonly children = new Map<string, Set<string>>();

  /** Records `n` (normalized, not '/') under its parent directory. */
  private link(n: string): void {
    const parent = dirname(n);
    const names = this.children.get(parent);
    if (names === undefined) this.children.set(parent, new Set([basename(n)]));
    else names.add(basename(n));
  }

  /** Forgets `n` (normalized, not '/') under its parent directory. */
  private unlink(n: string): void {
    const parent = dirname(n);
    const names = this.children.get(parent);
    if (names === undefined) return;
    names.delete(basename(n));
    if (names.size === 0) this.children.delete(parent);
  }

  get(path: string): FsNode | undefined {
    return this.nodes.get(normalize(path));
  }

  exists(path: string): boolean {
    return this.nodes.has(normalize(path));
  }

  isDir(path: string): boolean {
    return this.get(path)?.type === 'dir';
  }

  /** os.MkdirAll. */
  mkdirAll(path: string): void {
    const n = normalize(path);
    const node = this.nodes.get(n);
    if (node !== undefined) {
      if (node.type !== 'dir') throw new FsError('ENOTDIR', n, 'mkdir');
      return;
    }
    this.mkdirAll(dirname(n));
    this.nodes.set(n, { type: 'dir' });
    this.link(n);
  }

  /** os.WriteFile (creates or truncates; the parent must exist). */
  writeFile(path: string, content: string): void {
    const n = normalize(path);
    if (!this.isDir(dirname(n))) throw new FsError('ENOENT', n, 'open');
    const node = this.nodes.get(n);
    if (node?.type === 'dir') throw new FsError('EISDIR', n, 'open');
    this.nodes.set(n, { type: 'file', content });
    if (node === undefined) this.link(n);
  }

  readFile(path: string): string {
    const node = this.get(path);
    if (node === undefined) throw new FsError('ENOENT', normalize(path), 'open');
    if (node.type !== 'file') throw new FsError('EISDIR', normalize(path), 'read');
    return node.content;
  }

  /** Names directly below `path`, sorted (os.ReadDir). */
  readDir(path: string): string[] {
    const n = normalize(path);
    if (!this.isDir(n)) throw new FsError('ENOENT', n, 'open');
    const names = this.children.get(n);
    return names === undefined ? [] : [...names].sort();
  }

  /** os.Remove: a file or an empty directory. The caller checks for mount points (EBUSY). */
  remove(path: string): void {
    const n = normalize(path);
    const node = this.nodes.get(n);
    if (node === undefined) throw new FsError('ENOENT', n, 'remove');
    if (node.type === 'dir' && this.children.has(n)) throw new FsError('ENOTEMPTY', n, 'remove');
    if (n === '/') return; // the root stays, as os.Remove("/") of an empty root leaves a root
    this.nodes.delete(n);
    this.unlink(n);
  }

  /** os.RemoveAll (no error if missing). The caller checks for mount points below it. */
  removeAll(path: string): void {
    const n = normalize(path);
    this.deleteBelow(n);
    if (n === '/') return; // everything below the root goes; the root stays
    if (this.nodes.delete(n)) this.unlink(n);
  }

  /** Deletes every path strictly below directory `n` (normalized). */
  private deleteBelow(n: string): void {
    const names = this.children.get(n);
    if (names === undefined) return;
    this.children.delete(n);
    const prefix = n === '/' ? '/' : `${n}/`;
    for (const name of names) {
      const p = prefix + name;
      this.deleteBelow(p);
      this.nodes.delete(p);
    }
  }

  /** Every path in the tree (for tests and traces). */
  paths(): string[] {
    return [...this.nodes.keys()].sort();
  }
}

export type MountKind =
  /** A filesystem on a block device (MountDevice / NodeStage at the global path). */
  | 'fs'
  /** A bind mount of a directory (SetUp into the pod dir). */
  | 'bind'
  /** A bind mount of a block device node onto a file (block map under the global map path). */
  | 'blockMap';

/** One line of /proc/self/mountinfo. */
export interface MountEntry {
  readonly id: number;
  readonly kind: MountKind;
  /** The source device ('/dev/dm-0', '/dev/sdb', or ROOT_DEVICE for a bind of a plain directory). */
  readonly device: string;
  readonly path: string;
  readonly fstype: string;
  readonly opts: readonly string[];
  /** mountinfo's root: '/' for a filesystem, the bound directory for a bind of a plain dir. */
  readonly root: string;
  /** Ground truth: the LUN behind the device, if any. */
  readonly lun: string | undefined;
}

export function isReadOnly(m: MountEntry): boolean {
  return m.opts.includes('ro');
}

export class MountTable {
  private readonly entries: MountEntry[] = [
    {
      id: 1,
      kind: 'fs',
      device: ROOT_DEVICE,
      path: '/',
      fstype: 'ext4',
      opts: ['rw'],
      root: '/',
      lun: undefined,
    },
  ];
  private nextId = 2;

  add(m: Omit<MountEntry, 'id'>): MountEntry {
    const entry: MountEntry = Object.assign({}, m, { path: normalize(m.path), id: this.nextId++ });
    this.entries.push(entry);
    return entry;
  }

  /** Removes the top-most mount at `path` (umount); undefined if nothing is mounted there. */
  remove(path: string): MountEntry | undefined {
    const n = normalize(path);
    for (let i = this.entries.length - 1; i > 0; i--) {
      const e = this.entries[i] as MountEntry;
      if (e.path === n) {
        this.entries.splice(i, 1);
        return e;
      }
    }
    return undefined;
  }

  /** The top-most mount exactly at `path`. */
  at(path: string): MountEntry | undefined {
    const n = normalize(path);
    for (let i = this.entries.length - 1; i > 0; i--) {
      const e = this.entries[i] as MountEntry;
      if (e.path === n) return e;
    }
    return undefined;
  }

  /** Any mount at or below `path` (os.RemoveAll would hit EBUSY on it). */
  anyWithin(path: string): boolean {
    return this.entries.some((e) => e.path !== '/' && pathWithinBase(e.path, path));
  }

  /** The mount that holds `path` (the longest mount point that is a prefix of it). */
  containing(path: string): MountEntry {
    const n = normalize(path);
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const e = this.entries[i] as MountEntry;
      if (pathWithinBase(n, e.path)) return e;
    }
    return this.entries[0] as MountEntry;
  }

  list(): readonly MountEntry[] {
    return this.entries;
  }
}
