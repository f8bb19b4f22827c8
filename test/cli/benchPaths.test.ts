// `npm run bench` loads the built modules by path (test/bench/*.ts: `file('fuzz/campaign.js')`,
// `join(root, 'dist', 'run', 'run.js')`): a module moved in src/ must move there too, or the section throws
// "dist/ is missing" after a successful build. Every such path must exist in the build the suite made.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const benchDir = join(root, 'test', 'bench');

function builtPaths(source: string): string[] {
  const paths: string[] = [];
  for (const m of source.matchAll(/file\('([^']+)'\)/g)) paths.push(m[1] ?? '');
  for (const m of source.matchAll(
    /join\((?:root|import\.meta\.dirname, '\.\.', '\.\.'), 'dist', ((?:'[^']+',? ?)+)\)/g,
  ))
    paths.push(
      (m[1] ?? '')
        .split(',')
        .map((p) => p.trim().replace(/^'|'$/g, ''))
        .filter((p) => p !== '')
        .join('/'),
    );
  return paths;
}

describe('the bench', () => {
  const files = readdirSync(benchDir)
    .filter((f) => f.endsWith('.ts'))
    .sort();
  it('names built modules that exist', () => {
    const named = files.flatMap((f) =>
      builtPaths(readFileSync(join(benchDir, f), 'utf8')).map((p) => `${f}: dist/${p}`),
    );
    expect(named.length).toBeGreaterThanOrEqual(8);
    expect(named.filter((n) => !existsSync(join(root, n.slice(n.indexOf('dist/')))))).toEqual([]);
  });
});
