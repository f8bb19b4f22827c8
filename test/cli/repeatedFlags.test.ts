// A single-valued flag given twice is exit 2 "given twice" in every command, before the command does
// anything (no folder named `a,b`, no campaign run); list flags (`--fix`) stay repeatable.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type OptionTable, repeatedFlag } from '../../src/cli/repeatedFlags.js';
import { podrace } from './spawnCli.js';

const dir = mkdtempSync(join(tmpdir(), 'podrace-flags-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const scenario = 'scenarios/pod-deleted-before-start.yaml';

describe('repeatedFlag', () => {
  const table: OptionTable = {
    key: {
      help: true,
      version: true,
      color: true,
      seed: true,
      s: true,
      fix: true,
      'shrink-runs': true,
      oracle: true,
    },
    array: ['fix'],
    boolean: ['help', 'version', 'color', 'oracle'],
    alias: { seed: ['s'] },
  };
  it('finds a flag given twice in any spelling, and nothing else', () => {
    expect(repeatedFlag(['run', 'f', '--seed', '1', '--seed', '2'], table)).toBe('--seed');
    expect(repeatedFlag(['--seed=1', '--seed', '2'], table)).toBe('--seed');
    expect(repeatedFlag(['--s', '1', '--seed', '2'], table)).toBe('--seed');
    expect(repeatedFlag(['--shrink-runs', '1', '--shrinkRuns', '2'], table)).toBe('--shrink-runs');
    expect(repeatedFlag(['--oracle', '--no-oracle'], table)).toBe('--oracle');
    expect(repeatedFlag(['--color', '--no-color'], table)).toBe('--color');
    expect(repeatedFlag(['--fix', 'a=on', '--fix', 'b=off', '--seed', '1'], table)).toBeUndefined();
    expect(repeatedFlag(['--help', '--help'], table)).toBeUndefined();
    expect(repeatedFlag(['--seed', '1', '--', '--seed'], table)).toBeUndefined();
    expect(repeatedFlag(['--unknown', '--unknown'], table)).toBeUndefined();
  });
});

describe('every command refuses a repeated single-valued flag', () => {
  const cases: [string, string[]][] = [
    ['--seed', ['run', scenario, '--seed', '1', '--seed', '2']],
    ['--trace', ['run', scenario, '--trace', 'a.json', '--trace', 'b.json']],
    ['--json', ['run', scenario, '--json', '--no-json']],
    ['--kubelet', ['run', scenario, '--kubelet', 'legacy', '--kubelet', 'fixed']],
    ['--junit', ['verify', scenario, '--junit', 'a.xml', '--junit', 'b.xml']],
    ['--color', ['list', 'fixes', '--color', '--no-color']],
    ['--out', ['fuzz', '--runs', '2', '--out', 'a', '--out', 'b']],
    ['--runs', ['fuzz', '--runs', '2', '--runs=3']],
    ['--time-limit', ['fuzz', '--time-limit', '1s', '--time-limit', '2s']],
    ['--path', ['replay', '--seed', '1', '--path', '0', '--path', '1']],
    ['--save', ['replay', '--seed', '1', '--save', 'a.yaml', '--save', 'b.yaml']],
    ['--json', ['merge', 'x.jsonl', '--json', '--json']],
    ['--workers', ['main', '--workers', '1', '--workers', '2']],
  ];
  it.each(cases)('%s in %j', (flag, args) => {
    const r = podrace(args, { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`podrace: ${flag}: given twice; give it once\n`);
    expect(r.stdout).toBe('');
  });

  it('wrote nothing: no folder "a,b", no trace, no report', () => {
    expect(readdirSync(dir)).toEqual([]);
    expect(existsSync(join(dir, 'a,b'))).toBe(false);
  });

  it('--fix stays repeatable', () => {
    const r = podrace([
      'run',
      scenario,
      '--fix',
      'pod-worker-lifecycle=off',
      '--fix',
      'pod-worker-lifecycle=on',
      '--quiet',
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });
});
