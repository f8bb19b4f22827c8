// Output files never follow a planted symlink and never replace an input: writeOutputFile's temporary
// file is unguessable and opened O_EXCL | O_NOFOLLOW, rename replaces a symlink at the target itself, and
// run / verify refuse an output flag that names one of their inputs (by real path) or another output.
import { execFileSync, spawn } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '../../src/cli/errors.js';
import { refuseInputsAsOutputs, writeOutputFile } from '../../src/cli/output.js';
import { podrace, root } from './spawnCli.js';

const dir = mkdtempSync(join(tmpdir(), 'podrace-output-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const scenarioText = readFileSync(join(root, 'scenarios', 'pod-deleted-before-start.yaml'), 'utf8');

function messageOf(f: () => void): string {
  try {
    f();
  } catch (err) {
    if (err instanceof InputError) return err.message;
    throw err;
  }
  throw new Error('expected an InputError');
}

describe('writeOutputFile', () => {
  it('refuses a symlink planted at the target: neither writes through it nor replaces it', () => {
    const outside = join(dir, 'outside.txt');
    writeFileSync(outside, 'keep me');
    const folder = join(dir, 'out1');
    mkdirSync(folder);
    const target = join(folder, 'failure.yaml');
    symlinkSync(outside, target);
    expect(messageOf(() => writeOutputFile(target, 'new text'))).toMatch(
      /failure\.yaml: cannot write file \(a symbolic link to a regular file; /,
    );
    expect(readFileSync(outside, 'utf8')).toBe('keep me');
    expect(lstatSync(target).isSymbolicLink()).toBe(true);
    expect(readdirSync(folder)).toEqual(['failure.yaml']);
  });

  it('writes into a FIFO (and a symlink to one) instead of replacing it', async () => {
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const link = join(dir, 'fifo-link');
    symlinkSync(fifo, link);
    for (const target of [fifo, link]) {
      const got = join(dir, `got-${basename(target)}`);
      const reader = spawn('sh', ['-c', `cat "${fifo}" > "${got}"`]);
      const done = new Promise((resolve) => reader.on('exit', resolve));
      writeOutputFile(target, `into ${basename(target)}`);
      await done;
      expect(readFileSync(got, 'utf8')).toBe(`into ${basename(target)}`);
    }
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
  });

  it.runIf(process.getuid?.() === 0)('writes into a character device (and a symlink to one), as root', () => {
    // A device node of our own (the major/minor of /dev/null): the old rename replaced it with a file.
    const node = join(dir, 'null-device');
    execFileSync('mknod', [node, 'c', '1', '3']);
    const link = join(dir, 'null-link');
    symlinkSync(node, link);
    writeOutputFile(node, 'gone');
    writeOutputFile(link, 'gone');
    expect(lstatSync(node).isCharacterDevice()).toBe(true);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('ignores a symlink planted at the temporary name the old code used', () => {
    const outside = join(dir, 'outside2.txt');
    writeFileSync(outside, 'keep me');
    const folder = join(dir, 'out2');
    mkdirSync(folder);
    symlinkSync(outside, join(folder, `.f.yaml.${process.pid}.tmp`));
    writeOutputFile(join(folder, 'f.yaml'), 'text');
    expect(readFileSync(outside, 'utf8')).toBe('keep me');
    expect(readFileSync(join(folder, 'f.yaml'), 'utf8')).toBe('text');
  });

  it('a write that fails names the path and leaves no temporary file', () => {
    const folder = join(dir, 'out3');
    mkdirSync(folder);
    mkdirSync(join(folder, 'taken'));
    expect(messageOf(() => writeOutputFile(join(folder, 'taken'), 'x'))).toBe(
      `${join(folder, 'taken')}: cannot write file (a directory; podrace writes regular files, character devices and pipes)`,
    );
    expect(readdirSync(folder)).toEqual(['taken']);
  });
});

describe('outputs that are inputs', () => {
  it('refuses an output that is an input, through a symlink or ./, or the same file twice', () => {
    const input = join(dir, 's.yaml');
    writeFileSync(input, scenarioText);
    const link = join(dir, 'link.json');
    symlinkSync(input, link);
    expect(messageOf(() => refuseInputsAsOutputs([input], { '--trace': input }))).toBe(
      `--trace ${input}: would overwrite its input ${input}`,
    );
    expect(messageOf(() => refuseInputsAsOutputs([input], { '--timeline': link }))).toBe(
      `--timeline ${link}: would overwrite its input ${input}`,
    );
    expect(messageOf(() => refuseInputsAsOutputs([input], { '--trace': `${dir}/./s.yaml` }))).toMatch(
      /would overwrite its input/,
    );
    const out = join(dir, 'new.json');
    expect(messageOf(() => refuseInputsAsOutputs([input], { '--trace': out, '--timeline': out }))).toBe(
      `--timeline ${out}: the same file as --trace ${out}`,
    );
    expect(() => refuseInputsAsOutputs([input], { '--trace': out, '--timeline': undefined })).not.toThrow();
  });

  it('run and verify: exit 2 "would overwrite its input", the scenario untouched, nothing run', () => {
    const input = join(dir, 'run.yaml');
    writeFileSync(input, scenarioText);
    const r = podrace(['run', input, '--trace', input]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`podrace: --trace ${input}: would overwrite its input ${input}\n`);
    expect(readFileSync(input, 'utf8')).toBe(scenarioText);
    const folder = join(dir, 'verify');
    mkdirSync(folder);
    writeFileSync(join(folder, 'a.yaml'), scenarioText);
    const v = podrace(['verify', folder, '--junit', join(folder, 'a.yaml')]);
    expect(v.code).toBe(2);
    expect(v.stderr).toMatch(/would overwrite its input/);
    expect(v.stdout).toBe('');
    expect(readFileSync(join(folder, 'a.yaml'), 'utf8')).toBe(scenarioText);
    const both = podrace(['run', input, '--trace', join(dir, 'x'), '--timeline', join(dir, 'x')]);
    expect(both.code).toBe(2);
    expect(existsSync(join(dir, 'x'))).toBe(false);
  });
});

describe('output flags naming devices, pipes and descriptors', () => {
  const scenario = join(root, 'scenarios', 'pod-deleted-before-start.yaml');

  it('run --trace /dev/null --timeline /dev/null: written into the device, which stays a device', () => {
    const r = podrace(['run', scenario, '--quiet', '--trace', '/dev/null', '--timeline', '/dev/null']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(lstatSync('/dev/null').isCharacterDevice()).toBe(true);
  });

  it('run --trace /dev/stdout: the trace on standard output', () => {
    const r = podrace(['run', scenario, '--quiet', '--trace', '/dev/stdout']);
    expect(r.code).toBe(0);
    expect(r.stdout.startsWith('{"traceEvents":[\n')).toBe(true);
    expect(r.stdout).toMatch(/no violations {2}\(141 events, .*\n$/);
  });

  it('fuzz --junit into a folder that does not exist: exit 2 before any case runs', () => {
    const r = podrace(['fuzz', '--runs', '3', '--junit', join(dir, 'no', 'such', 'r.xml')]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `podrace: --junit ${join(dir, 'no', 'such', 'r.xml')}: cannot write there (ENOENT)\n`,
    );
  });

  it('fuzz --junit that fails only when written (/dev/full): the results first, then exit 2', () => {
    const r = podrace(['fuzz', '--runs', '3', '--shrink', '0', '--junit', '/dev/full']);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/^podrace fuzz {2}seed 1 {2}3 cases/);
    expect(r.stderr).toMatch(/podrace: --junit \/dev\/full: cannot write file \(ENOSPC\)\n$/);
  });

  it('refuses a symlink to a regular file and a directory before running', () => {
    const file = join(dir, 'plain.json');
    writeFileSync(file, 'old');
    const link = join(dir, 'plain-link.json');
    symlinkSync(file, link);
    const r = podrace(['run', scenario, '--trace', link]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/cannot write there \(a symbolic link to a regular file; /);
    expect(readFileSync(file, 'utf8')).toBe('old');
    expect(podrace(['run', scenario, '--trace', dir]).stderr).toMatch(/cannot write there \(a directory; /);
  });
});
