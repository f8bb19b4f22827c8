// The JUnit `file` attribute is repository-relative: relative to the git root above the working folder
// (a `.git` folder, or the `.git` file of a worktree), else to the working folder, else absolute.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { gitRoot, repoRelative } from '../../src/cli/repoPath.js';

const dir = mkdtempSync(join(tmpdir(), 'podrace-repo-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('repoRelative', () => {
  it('is relative to the git root when the working folder is inside a repository', () => {
    const repo = join(dir, 'repo');
    mkdirSync(join(repo, '.git'), { recursive: true });
    mkdirSync(join(repo, 'sub', 'deeper'), { recursive: true });
    const cwd = join(repo, 'sub');
    expect(gitRoot(join(cwd, 'deeper'))).toBe(repo);
    expect(repoRelative('failures/x.yaml', cwd)).toBe('sub/failures/x.yaml');
    expect(repoRelative(join(repo, 'scenarios', 'a.yaml'), cwd)).toBe('scenarios/a.yaml');
    expect(repoRelative('../scenarios/a.yaml', cwd)).toBe('scenarios/a.yaml');
  });

  it("takes a worktree's .git file as its root", () => {
    const wt = join(dir, 'worktree');
    mkdirSync(join(wt, 'docs'), { recursive: true });
    writeFileSync(join(wt, '.git'), 'gitdir: /elsewhere/.git/worktrees/wt\n');
    expect(repoRelative('a.yaml', join(wt, 'docs'))).toBe('docs/a.yaml');
  });

  it('outside a repository: relative to the working folder, else absolute', () => {
    const plain = join(dir, 'plain');
    mkdirSync(join(plain, 'out'), { recursive: true });
    // The temporary folder is in no repository (were it, its root would count).
    expect(gitRoot(plain)).toBeUndefined();
    expect(repoRelative('out/x.yaml', plain)).toBe('out/x.yaml');
    expect(repoRelative('/etc/hosts', plain)).toBe('/etc/hosts');
  });
});
