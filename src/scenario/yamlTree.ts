// The YAML syntax tree behind a scenario file: where a field path points (for `file:line:col`), its
// duplicate keys and its aliases. One walk, linear in the size of the document and without recursion (a
// file nested 100,000 deep must not overflow the stack). The yaml package's own duplicate-key check is
// quadratic in the keys of a mapping (20,000 keys take 5 s) and its alias resolution in the aliases of a
// document (20,000 take 11 s), so the loader turns the first off and bounds the second, and uses this.
import {
  type Document,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  type Pair,
  type YAMLMap,
  type Node as YamlNode,
} from 'yaml';

export type PathSeg = string | number;

export function keyText(key: unknown): string {
  if (isScalar(key)) return String(key.value);
  return String(key);
}

export interface DuplicateKey {
  /** The mapping that holds the key twice. */
  readonly path: readonly PathSeg[];
  readonly key: string;
  /** Where the second key starts. */
  readonly offset: number;
  /** Where the first one starts. */
  readonly firstOffset: number | undefined;
}

interface Visit {
  readonly node: unknown;
  readonly parent: Visit | undefined;
  readonly seg: PathSeg | undefined;
}

function pathOf(v: Visit): PathSeg[] {
  const path: PathSeg[] = [];
  for (let at: Visit | undefined = v; at?.seg !== undefined; at = at.parent) path.push(at.seg);
  return path.reverse();
}

function start(node: unknown): number | undefined {
  return (node as YamlNode | null)?.range?.[0];
}

/** Scalar keys are equal when their values are (as the yaml package compares them); others by identity. */
function keyIdentity(key: unknown): unknown {
  return isScalar(key) ? key.value : key;
}

export class ScenarioTree {
  readonly duplicates: DuplicateKey[] = [];
  /** Every alias node, in document order. */
  readonly aliases: YamlNode[] = [];
  /** What each alias stands for: the last node with its anchor before it, in document order. */
  private readonly targets = new Map<unknown, unknown>();

  constructor(private readonly doc: Document) {
    const anchors = new Map<string, unknown>();
    const stack: Visit[] = [{ node: doc.contents, parent: undefined, seg: undefined }];
    for (let v = stack.pop(); v !== undefined; v = stack.pop()) {
      const node = v.node;
      if (isAlias(node)) {
        this.aliases.push(node);
        this.targets.set(node, anchors.get(node.source));
        continue;
      }
      const anchor = (node as { anchor?: unknown } | null)?.anchor;
      if (typeof anchor === 'string') anchors.set(anchor, node);
      // Children go on the stack last first, so that they are visited in document order (keys before
      // values), which is the order in which an alias finds its anchor.
      const next: Visit[] = [];
      if (isMap(node)) {
        const seen = new Map<unknown, number | undefined>();
        let path: PathSeg[] | undefined;
        for (const pair of node.items) {
          const id = keyIdentity(pair.key);
          if (seen.has(id)) {
            path ??= pathOf(v);
            const offset = start(pair.key) ?? start(pair.value) ?? 0;
            this.duplicates.push({ path, key: keyText(pair.key), offset, firstOffset: seen.get(id) });
          } else seen.set(id, start(pair.key));
          next.push({ node: pair.key, parent: v, seg: undefined });
          next.push({ node: pair.value, parent: v, seg: keyText(pair.key) });
        }
      } else if (isSeq(node)) {
        node.items.forEach((item, index) => {
          next.push({ node: item, parent: v, seg: index });
        });
      }
      for (let i = next.length - 1; i >= 0; i--) {
        const child = next[i];
        if (child !== undefined && child.node !== null && typeof child.node === 'object') stack.push(child);
      }
    }
  }

  /** The first pair of each key of a mapping, indexed once: a file may point at every key of a large one. */
  private readonly pairIndex = new Map<YAMLMap, Map<string, Pair>>();
  private pairs(map: YAMLMap): Map<string, Pair> {
    let index = this.pairIndex.get(map);
    if (index === undefined) {
      index = new Map();
      for (const pair of map.items) {
        const key = keyText(pair.key);
        if (!index.has(key)) index.set(key, pair);
      }
      this.pairIndex.set(map, index);
    }
    return index;
  }

  private deref(node: unknown): unknown {
    let current = node;
    for (let i = 0; i < 100 && isAlias(current); i++) current = this.targets.get(current);
    return current;
  }

  /**
   * The source offset of the node at `path`: of the key itself when `atKey`; for a path that does not
   * exist (a missing key), of the nearest existing ancestor.
   */
  offsetOf(path: readonly PathSeg[], atKey: boolean): number {
    let node: unknown = this.doc.contents;
    let best = start(node) ?? 0;
    for (let i = 0; i < path.length; i++) {
      node = this.deref(node);
      const seg = path[i];
      let next: unknown;
      if (isMap(node)) {
        const pair = this.pairs(node).get(String(seg));
        if (pair === undefined) return best;
        const keyOffset = start(pair.key);
        if (atKey && i === path.length - 1) return keyOffset ?? best;
        next = pair.value;
        const value = next as YamlNode | null;
        // `key:` with nothing after it: point at the key.
        if (
          value === null ||
          (isScalar(value) && value.value === null && value.range?.[0] === value.range?.[1])
        ) {
          return keyOffset ?? best;
        }
      } else if (isSeq(node) && typeof seg === 'number') {
        next = node.items[seg];
        if (next === undefined) return best;
      } else {
        return best;
      }
      best = start(next) ?? best;
      node = next;
    }
    return best;
  }
}
