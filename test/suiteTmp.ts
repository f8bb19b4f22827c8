// The suite keeps its temporary files in a folder of its own (TMPDIR for every test and every process a
// test spawns), removed when the run ends: a run leaves nothing in /tmp, and runs side by side do not see
// each other's files. A test that leaves a `podrace-*` folder behind fails the run here, naming it: remove
// what a test creates (afterAll / finally).
import { chmodSync, lstatSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Makes every folder under `path` writable again (a test may chmod 000 one), so that it can be removed. */
function reopen(path: string): void {
  if (lstatSync(path, { throwIfNoEntry: false })?.isDirectory() !== true) return;
  chmodSync(path, 0o755);
  for (const name of readdirSync(path)) reopen(join(path, name));
}

export default function setup(): () => void {
  const before = process.env['TMPDIR'];
  const root = mkdtempSync(join(tmpdir(), 'podrace-suite-'));
  // Traversable: some tests run the CLI as another user on files in here.
  chmodSync(root, 0o755);
  process.env['TMPDIR'] = root;
  return () => {
    const left = readdirSync(root).filter((name) => name.startsWith('podrace-'));
    reopen(root);
    rmSync(root, { recursive: true, force: true });
    if (before === undefined) delete process.env['TMPDIR'];
    else process.env['TMPDIR'] = before;
    if (left.length > 0) {
      // vitest prints an error thrown here but still exits 0: set the exit code too.
      process.exitCode = 1;
      throw new Error(
        `the tests left ${left.join(', ')} in their temporary folder: a test must remove what it creates (afterAll)`,
      );
    }
  };
}
