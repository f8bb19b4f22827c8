// Output files never follow a planted symlink and never replace an input: writeOutputFile's temporary
// file is unguessable and opened O_EXCL | O_NOFOLLOW, rename replaces a symlink at the target itself, and
// run / verify refuse an output flag that names one of their inputs (by real path) or another output.
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
import { join } from 'node:path';
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
  it('replaces a symlink planted at the target instead of writing through it', () => {
    const outside = join(dir, 'outside.txt');
    writeFileSync(outside, 'keep me');
    const folder = join(dir, 'out1');
    mkdirSync(folder);
    const target = join(folder, 'failure.yaml');
    symlinkSync(outside, target);
    writeOutputFile(target, 'new text');
    expect(readFileSync(outside, 'utf8')).toBe('keep me');
    expect(lstatSync(target).isSymbolicLink()).toBe(false);
    expect(readFileSync(target, 'utf8')).toBe('new text');
    expect(readdirSync(folder)).toEqual(['failure.yaml']);
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
      `${join(folder, 'taken')}: cannot write file (EISDIR)`,
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
