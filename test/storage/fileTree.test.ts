// FileTree keeps the names below each directory (readDir and removeAll walk a directory's own entries):
// any sequence of operations gives the same results, errors and paths as the plain tree that scanned
// every path for them.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dirname, FileTree, FsError, normalize, pathWithinBase } from '../../src/storage/fs.js';

/** The tree as it was: one map of paths, scanned by readDir and removeAll. */
class ScanningTree {
  readonly nodes = new Map<string, 'dir' | 'file'>([['/', 'dir']]);
  private isDir(n: string): boolean {
    return this.nodes.get(n) === 'dir';
  }
  mkdirAll(path: string): void {
    const n = normalize(path);
    const node = this.nodes.get(n);
    if (node !== undefined) {
      if (node !== 'dir') throw new FsError('ENOTDIR', n, 'mkdir');
      return;
    }
    this.mkdirAll(dirname(n));
    this.nodes.set(n, 'dir');
  }
  writeFile(path: string): void {
    const n = normalize(path);
    if (!this.isDir(dirname(n))) throw new FsError('ENOENT', n, 'open');
    if (this.isDir(n)) throw new FsError('EISDIR', n, 'open');
    this.nodes.set(n, 'file');
  }
  readDir(path: string): string[] {
    const n = normalize(path);
    if (!this.isDir(n)) throw new FsError('ENOENT', n, 'open');
    const prefix = n === '/' ? '/' : `${n}/`;
    const out: string[] = [];
    for (const p of this.nodes.keys())
      if (p !== n && p.startsWith(prefix) && !p.slice(prefix.length).includes('/'))
        out.push(p.slice(prefix.length));
    return out.sort();
  }
  remove(path: string): void {
    const n = normalize(path);
    const node = this.nodes.get(n);
    if (node === undefined) throw new FsError('ENOENT', n, 'remove');
    if (node === 'dir' && this.readDir(n).length > 0) throw new FsError('ENOTEMPTY', n, 'remove');
    if (n !== '/') this.nodes.delete(n);
  }
  removeAll(path: string): void {
    const n = normalize(path);
    for (const p of [...this.nodes.keys()]) if (p !== '/' && pathWithinBase(p, n)) this.nodes.delete(p);
  }
}

type Op = { op: 'mkdirAll' | 'writeFile' | 'remove' | 'removeAll' | 'readDir'; path: string };

function apply(t: FileTree | ScanningTree, o: Op): unknown {
  try {
    if (o.op === 'mkdirAll') return t.mkdirAll(o.path);
    if (o.op === 'writeFile') return t instanceof FileTree ? t.writeFile(o.path, 'x') : t.writeFile(o.path);
    if (o.op === 'remove') return t.remove(o.path);
    if (o.op === 'removeAll') return t.removeAll(o.path);
    return t.readDir(o.path);
  } catch (err) {
    if (err instanceof FsError) return `${err.code} ${err.path}`;
    throw err;
  }
}

describe('FileTree', () => {
  it('gives what scanning every path gave, for any sequence of operations', () => {
    const name = fc.constantFrom('a', 'b', 'ab', 'pods', '.', '..');
    const path = fc.array(name, { minLength: 0, maxLength: 4 }).map((ns) => `/${ns.join('/')}`);
    const op = fc.record({
      op: fc.constantFrom('mkdirAll', 'writeFile', 'remove', 'removeAll', 'readDir') as fc.Arbitrary<
        Op['op']
      >,
      path,
    });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        const tree = new FileTree();
        const reference = new ScanningTree();
        for (const o of ops) {
          expect(apply(tree, o)).toEqual(apply(reference, o));
          expect(tree.paths()).toEqual([...reference.nodes.keys()].sort());
        }
      }),
      { numRuns: 3000 },
    );
  });
});
