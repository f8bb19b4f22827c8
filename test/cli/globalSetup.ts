// Builds dist/ once before the CLI tests spawn the real binary, so they never run a stale build. It calls
// tsc through node directly, not npm: npm needs a home directory, and the suite must pass as a user
// without one.
import { execFileSync } from 'node:child_process';
import { chmodSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

export default function setup(): void {
  const root = join(import.meta.dirname, '..', '..');
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], {
    cwd: root,
    stdio: 'inherit',
  });
  chmodSync(join(root, 'dist', 'cli.js'), 0o755);
}
