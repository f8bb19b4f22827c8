// Builds dist/ once before the CLI tests spawn the real binary, so they never run a stale build: tsc, then
// the bundle the CLI runs (scripts/bundle.mjs), as `npm run build` does. It calls both through node
// directly, not npm: npm needs a home directory, and the suite must pass as a user
// without one. A read-only checkout keeps the dist/ it has.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { isWritable } from '../checkout.js';

export default function setup(): void {
  const root = join(import.meta.dirname, '..', '..');
  if (!isWritable(root)) {
    // A read-only checkout cannot be built: its dist/ is what there is (npm ci built it).
    if (!existsSync(join(root, 'dist', 'cli.js')))
      throw new Error(
        'the checkout is read-only and has no dist/: run `npm run build` before making it read-only',
      );
    process.stderr.write('read-only checkout: the CLI tests use the dist/ that is there (not rebuilt)\n');
    return;
  }
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], {
    cwd: root,
    stdio: 'inherit',
  });
  execFileSync(process.execPath, [join(root, 'scripts', 'bundle.mjs')], { cwd: root, stdio: 'inherit' });
}
