// `npm test` in a read-only checkout: a copy of the checkout made read-only runs a small part of the suite
// with the arguments `npm test` gives vitest, writes nothing into the checkout and passes. Run as root, the
// copy is used by an unprivileged UID (root writes anywhere); node_modules is the real one, which that UID
// cannot write either.
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  cpSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resultsCache } from './checkout.js';

const root = join(import.meta.dirname, '..');
const dir = mkdtempSync(join(tmpdir(), 'podrace-readonly-'));
chmodSync(dir, 0o755);

function walk(path: string, f: (path: string, isDir: boolean) => void): void {
  const st = lstatSync(path);
  if (st.isSymbolicLink()) return;
  f(path, st.isDirectory());
  if (st.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name), f);
}

afterAll(() => {
  walk(dir, (p, isDir) => chmodSync(p, isDir ? 0o755 : 0o644));
  rmSync(dir, { recursive: true, force: true });
});

const isRoot = process.getuid?.() === 0;
const uid = isRoot ? 54321 : undefined;
// That UID must reach node and the real node_modules through their folders.
const probe = spawnSync(
  process.execPath,
  ['-e', `require('fs').accessSync(${JSON.stringify(join(root, 'node_modules', 'vitest', 'vitest.mjs'))})`],
  uid === undefined ? {} : { uid, gid: uid },
);

describe('a read-only checkout', () => {
  it('turns the results cache off where node_modules cannot be written', () => {
    expect(resultsCache('/x/node_modules', () => false)).toBe(false);
    expect(resultsCache('/x/node_modules', () => true)).toBeUndefined();
  });

  it('npm test runs vitest with a config loader that writes no temporary file into the checkout', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { test: string } };
    expect(pkg.scripts.test).toBe('tsc && vitest run --configLoader runner');
  });

  it.skipIf(probe.status !== 0)(
    `passes a test run and writes nothing into the checkout${uid === undefined ? '' : ` (as UID ${uid})`}${probe.status === 0 ? '' : ' (skipped: that user cannot reach node_modules)'}`,
    () => {
      const copy = join(dir, 'checkout');
      mkdirSync(copy);
      for (const name of ['src', 'test', 'dist', 'package.json', 'tsconfig.json', 'vitest.config.ts']) {
        cpSync(join(root, name), join(copy, name), { recursive: true });
      }
      symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'));
      walk(copy, (p, isDir) => chmodSync(p, isDir ? 0o555 : 0o444));
      const files = () => {
        const out: string[] = [];
        walk(copy, (p) => out.push(relative(copy, p)));
        return out.sort();
      };
      const before = files();
      // Its own temporary folder, which that user can write.
      const tmp = join(dir, 'tmp');
      mkdirSync(tmp, { mode: 0o755 });
      if (uid !== undefined) chownSync(tmp, uid, uid);
      const r = spawnSync(
        process.execPath,
        ['node_modules/vitest/vitest.mjs', 'run', '--configLoader', 'runner', 'test/sim/units.test.ts'],
        {
          cwd: copy,
          encoding: 'utf8',
          timeout: 120_000,
          env: { PATH: process.env['PATH'] ?? '', TMPDIR: tmp, NO_COLOR: '1', CI: '1' },
          ...(uid === undefined ? {} : { uid, gid: uid }),
        },
      );
      expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
      expect(r.stderr).toContain(
        'read-only checkout: the CLI tests use the dist/ that is there (not rebuilt)',
      );
      expect(r.stdout).toMatch(/Tests\s+\d+ passed/);
      expect(files()).toEqual(before);
      // The nested run removed its own temporary folder too.
      expect(readdirSync(tmp)).toEqual([]);
    },
  );
});
