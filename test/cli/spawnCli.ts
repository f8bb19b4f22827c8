// Runs the built CLI (dist/cli.js, built by globalSetup) as a user does, for the tests of test/cli.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

export const root = join(import.meta.dirname, '..', '..');
export const cli = join(root, 'dist', 'cli.js');

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CliOptions {
  readonly cwd?: string;
  readonly env?: Readonly<Record<string, string>>;
  /** Run as this user (only root may). */
  readonly uid?: number;
}

/** A run that must end on its own: a hang fails the test (status null) instead of blocking the suite. */
export function podrace(args: readonly string[], o: CliOptions = {}): CliRun {
  const r = spawnSync(process.execPath, [cli, ...args], {
    cwd: o.cwd ?? root,
    encoding: 'utf8',
    timeout: 30_000,
    env: { ...process.env, NO_COLOR: '1', ...o.env },
    ...(o.uid === undefined ? {} : { uid: o.uid, gid: o.uid }),
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A shell command line (for `<(...)` process substitution), run by bash with the CLI as `$PODRACE`. */
export function shell(command: string, o: CliOptions = {}): CliRun {
  const r = spawnSync('bash', ['-c', command], {
    cwd: o.cwd ?? root,
    encoding: 'utf8',
    timeout: 30_000,
    env: { ...process.env, NO_COLOR: '1', PODRACE: `${process.execPath} ${cli}`, ...o.env },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
