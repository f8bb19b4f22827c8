// A path as a CI system resolves it in a report (the JUnit `file` attribute): relative to the root of the
// git repository podrace runs in (where a CI job checks the code out, and what annotation tools such as
// action-junit-report resolve against), else to the working folder, with `/` separators; a file outside
// both keeps its absolute path.
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/** The nearest folder at or above `from` that holds `.git` (a folder, or a file in a worktree), if any. */
export function gitRoot(from: string): string | undefined {
  let dir = resolve(from);
  for (;;) {
    if (existsSync(join(dir, '.git'))) return dir;
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

function inside(base: string, abs: string): string | undefined {
  const rel = relative(base, abs);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return undefined;
  return rel.split(sep).join('/');
}

/** `file` relative to the git root above `cwd`, else to `cwd`, else absolute. */
export function repoRelative(file: string, cwd: string = process.cwd()): string {
  const abs = resolve(cwd, file);
  const root = gitRoot(cwd);
  return (root === undefined ? undefined : inside(root, abs)) ?? inside(cwd, abs) ?? abs;
}
