// What the built CLI does with whatever a path names: special files (/dev/zero, a FIFO, a symlink to a
// device, a symlink loop), a file too large, a pipe from `<(...)`, a folder or file without permission.
// Each is exit 2 with the path and the reason, promptly (a hang fails the spawn's timeout), never a stack.
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../src/scenario/limits.js';
import { type CliRun, cli, podrace, root, shell } from './spawnCli.js';

const dir = mkdtempSync(join(tmpdir(), 'podrace-inputs-'));
// Readable by the unprivileged user the permission tests run as.
chmodSync(dir, 0o755);
afterAll(() => {
  chmodSync(dir, 0o755);
  rmSync(dir, { recursive: true, force: true });
});

const scenario = join(root, 'scenarios', 'pod-deleted-before-start.yaml');

function folder(name: string): string {
  const path = join(dir, name);
  mkdirSync(path, { mode: 0o755 });
  copyFileSync(scenario, join(path, 'a.yaml'));
  return path;
}

function mkfifo(path: string): void {
  const r = spawnSync('mkfifo', [path]);
  if (r.status !== 0) throw new Error(`mkfifo ${path} failed`);
}

function refused(r: CliRun, stderr: string): void {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toBe(`${stderr}\n`);
}

/**
 * verify reports a file it cannot read as an INVALID row, goes on with the rest, and exits 2 at the end;
 * the error goes to standard error too, as `path: reason` lines.
 */
function reported(r: CliRun, message: string): void {
  expect(r.code, r.stdout).toBe(2);
  expect(r.stderr.split('\n')).toContain(message);
  expect(r.stdout).toContain(`INVALID  ${message}`);
  expect(r.stdout).toMatch(/file\(s\) did not load \(exit 2\)/);
}

describe('scenario files that are not regular files', () => {
  it('run /dev/zero and /dev/null: refused without reading', () => {
    refused(
      podrace(['run', '/dev/zero']),
      '/dev/zero: a character device, not a scenario file; podrace reads regular files and pipes',
    );
    refused(
      podrace(['run', '/dev/null']),
      '/dev/null: a character device, not a scenario file; podrace reads regular files and pipes',
    );
  });

  it('run on a named FIFO that nobody writes to: an error at once, not a wait for a writer', () => {
    const fifo = join(dir, 'lonely.yaml');
    mkfifo(fifo);
    refused(
      podrace(['run', fifo]),
      `${fifo}: a pipe with nothing to read: no writer has it open (podrace reads a pipe from a writer that is already there, as <(...) gives)`,
    );
  });

  it('run <(...): a pipe named on the command line is read', () => {
    const r = shell(`$PODRACE run <(cat ${scenario}) --kubelet legacy --quiet`);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/1 violation\(s\)/);
    // A writer that takes its time is waited for; one that writes too much is cut off at the limit.
    expect(shell(`$PODRACE run <(sleep 1; cat ${scenario}) --quiet`).code).toBe(0);
    const big = shell(`$PODRACE run <(head -c ${LIMITS.fileBytes + 10} /dev/zero)`);
    expect(big.code).toBe(2);
    expect(big.stderr).toMatch(/^\/dev\/fd\/\d+: too large: more than 2097152 bytes \(at most 2 MiB\)\n$/);
  });

  it('verify of a folder: a *.yaml FIFO, a symlink to /dev/zero, a symlink loop are reported, not opened', () => {
    const withFifo = folder('fifo');
    mkfifo(join(withFifo, 'b.yaml'));
    reported(
      podrace(['verify', withFifo]),
      `${withFifo}/b.yaml: a pipe (FIFO), not a regular file; in a folder podrace reads regular files only`,
    );
    const withZero = folder('zero');
    symlinkSync('/dev/zero', join(withZero, 'z.yaml'));
    reported(
      podrace(['verify', withZero]),
      `${withZero}/z.yaml: a character device, not a regular file; in a folder podrace reads regular files only`,
    );
    const withLoop = folder('loop');
    symlinkSync('loop.yaml', join(withLoop, 'loop.yaml'));
    reported(
      podrace(['verify', withLoop]),
      `${withLoop}/loop.yaml: cannot read (ELOOP: too many symbolic links encountered)`,
    );
    const withDir = folder('subdir');
    mkdirSync(join(withDir, 'x.yaml'));
    reported(
      podrace(['verify', withDir]),
      `${withDir}/x.yaml: a directory, not a regular file; in a folder podrace reads regular files only`,
    );
    // A symlink to a regular file is read like the file.
    const withLink = join(dir, 'link');
    mkdirSync(withLink);
    symlinkSync(scenario, join(withLink, 'b.yaml'));
    expect(podrace(['verify', withLink, '--json']).stdout).toContain('"scenario":"pod-deleted-before-start"');
  });

  it('a file over the size limit is refused before it is read; a folder or a path through a file is named', () => {
    const big = join(dir, 'big.yaml');
    writeFileSync(big, '');
    truncateSync(big, 3 * 1024 * 1024);
    refused(podrace(['run', big]), `${big}: too large: 3145728 bytes (at most 2 MiB)`);
    refused(podrace(['run', 'scenarios']), 'scenarios: is a directory; expected a scenario file');
    refused(
      podrace(['run', `${scenario}/x.yaml`]),
      `${scenario}/x.yaml: cannot read (ENOTDIR: not a directory)`,
    );
    reported(
      podrace(['verify', join(dir, 'missing')]),
      `${join(dir, 'missing')}: cannot read (ENOENT: no such file or directory)`,
    );
  });

  it('merge reads its inputs the same way', () => {
    refused(
      podrace(['merge', '/dev/zero']),
      '/dev/zero: a character device, not a shard output (*.jsonl); podrace reads regular files and pipes',
    );
    const shards = join(dir, 'shards');
    mkdirSync(shards);
    mkfifo(join(shards, 'x.jsonl'));
    refused(
      podrace(['merge', shards]),
      `${shards}/x.jsonl: a pipe (FIFO), not a regular file; in a folder podrace reads regular files only`,
    );
  });
});

// Root reads anything: the permission tests run as an unprivileged UID when the suite runs as root (and the
// built CLI is reachable by it), as the current user otherwise.
const isRoot = process.getuid?.() === 0;
const probe = isRoot
  ? spawnSync(process.execPath, ['-e', `require('fs').accessSync(${JSON.stringify(cli)})`], {
      uid: 54321,
      gid: 54321,
    })
  : undefined;
const asUser = isRoot ? (probe?.status === 0 ? 54321 : undefined) : -1;
const permissionTitle =
  asUser === undefined
    ? 'EACCES on a folder and a file (skipped: running as root and UID 54321 cannot reach dist/cli.js)'
    : `EACCES on a folder and a file is exit 2 with the path and the reason${isRoot ? ' (as UID 54321)' : ''}`;

describe('permissions', () => {
  it.skipIf(asUser === undefined)(permissionTitle, () => {
    const o = asUser === -1 || asUser === undefined ? {} : { uid: asUser };
    const closed = folder('closed');
    chmodSync(closed, 0o000);
    try {
      reported(
        podrace(['verify', closed], o),
        `${closed}: cannot list the folder (EACCES: permission denied)`,
      );
    } finally {
      chmodSync(closed, 0o755);
    }
    const secret = join(dir, 'secret.yaml');
    writeFileSync(secret, readFileSync(scenario));
    chmodSync(secret, 0o000);
    refused(podrace(['run', secret], o), `${secret}: cannot read (EACCES: permission denied)`);
    const inClosed = folder('inner');
    chmodSync(inClosed, 0o311); // enter, not list
    try {
      reported(
        podrace(['verify', inClosed], o),
        `${inClosed}: cannot list the folder (EACCES: permission denied)`,
      );
      expect(podrace(['run', join(inClosed, 'a.yaml'), '--quiet'], o).code).toBe(0);
    } finally {
      chmodSync(inClosed, 0o755);
    }
  });
});

describe('error lines', () => {
  it('a scenario error starts with its location; an error with no file location with podrace:', () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(
      bad,
      'name: x\ncluster:\n  nodes: [a]\ntimeline:\n  - at: soon\n    shutdownNode: {node: a}\n',
    );
    refused(
      podrace(['run', bad]),
      `${bad}:5:9: timeline[0].at: expected a duration like 250ms, 30s or 5m, got "soon"`,
    );
    refused(
      podrace(['run', scenario, '--seed', 'x']),
      'podrace: --seed: expected a 32-bit integer seed (decimal or 0x-hex), got "x"',
    );
    // A flag the kube-controller-manager of the chosen release does not have (#120344 is from 1.30).
    const option = join(root, 'scenarios', 'csi-partition-disable-force-detach.yaml');
    refused(
      podrace(['run', option, '--kubelet', '1.29']),
      `${option}:24:53: cluster.controllerManager.disableForceDetachOnTimeout: the kube-controller-manager of 1.29 has no --disable-force-detach-on-timeout (#120344, from 1.30) and does not start with it ("unknown flag"): run with --kubelet 1.30 or later, or fixed`,
    );
    const shard = join(dir, 'shard.jsonl');
    writeFileSync(shard, '{"type":"x"}\n');
    refused(
      podrace(['merge', shard]),
      `${shard}:1: not a line of podrace fuzz --json: ${JSON.stringify('{"type":"x"}')}`,
    );
  });
});
