// The house's layers (docs/architecture.md): imports point down. These are the edges a refactor crossed
// before (issue 26, item 11): the fuzzer importing the CLI's exit codes, the fake runtime the kubelet's
// elision masks, the scenario layer building the cluster world, the JUnit writer reading fuzz campaign
// lines. Each pair below must stay apart.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const src = join(import.meta.dirname, '..', 'src');

function filesUnder(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? filesUnder(path) : path.endsWith('.ts') ? [path] : [];
    });
}

/** The src/ folders (or top-level files) a folder's modules import, from their import lines. */
function importsOf(folder: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const file of filesUnder(join(src, folder))) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/from '(\.{1,2}\/[^']+)'/g)) {
      const target = relative(src, join(file, '..', m[1] as string));
      const top = target.split('/')[0] as string;
      if (top === folder) continue;
      out.set(top, [...(out.get(top) ?? []), relative(src, file)]);
    }
  }
  return out;
}

const MUST_NOT: [string, string][] = [
  ['fuzz', 'cli'],
  ['report', 'cli'],
  ['report', 'fuzz'],
  ['run', 'cli'],
  ['run', 'fuzz'],
  ['run', 'report'],
  ['scenario', 'cluster'],
  ['scenario', 'run'],
  ['scenario', 'fuzz'],
  ['runtime', 'kubelet'],
  ['storage', 'kubelet'],
  ['sim', 'kubelet'],
  ['sim', 'cluster'],
  ['import', 'cli'],
  ['import', 'run'],
  ['import', 'fuzz'],
  ['scenario', 'import'],
  ['run', 'import'],
  ['explore', 'cli'],
  ['explore', 'fuzz'],
  ['run', 'explore'],
];

describe('layers: imports point down', () => {
  for (const [from, to] of MUST_NOT) {
    it(`src/${from} imports nothing of src/${to}`, () => {
      expect(importsOf(from).get(to) ?? []).toEqual([]);
    });
  }
});
