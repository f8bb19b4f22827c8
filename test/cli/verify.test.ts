import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultScenariosDir } from '../../src/cli/scenarioArgs.js';
import { bundledScenariosDir } from '../../src/scenario/bundled.js';
import { podrace, root } from './spawnCli.js';

/** This file's temporary folders, removed when it ends (the suite checks that nothing is left). */
const temp = mkdtempSync(join(tmpdir(), 'podrace-verify-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const good = readFileSync(join(root, 'scenarios', 'pod-deleted-before-start.yaml'), 'utf8');
/** The same race without claims, renamed, and run with every fix off would fire; with every fix on it holds. */
const noClaims = good
  .replace('name: pod-deleted-before-start', 'name: no-claims')
  .replace(/\nclaims:[\s\S]*$/, '\n');
/** A scenario without claims that fires with every fix on (a known-open hazard). */
const firing = readFileSync(join(root, 'scenarios', 'reconstruct-fails-other-error.yaml'), 'utf8')
  .replace(/name: \S+/, 'name: firing-no-claims')
  .replace(/\nclaims:[\s\S]*$/, '\n');
const bad = 'name: bad\ncluster:\n  nodes: [a]\ntimeline:\n  - at: soon\n    shutdownNode: {node: a}\n';

function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(temp, 'verify-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

describe('podrace verify', () => {
  it('a scenario without claims is run and reported as "no claims", never as "0 claims, all hold"', () => {
    const dir = folder({ 'firing.yaml': firing });
    const r = podrace(['verify', dir]);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(/0 claims, all hold/);
    expect(r.stdout).toMatch(
      /firing-no-claims\s+-\s+no claims\s+ran with every fix on: \[.*multi-node-mount.*\]/,
    );
    expect(r.stdout).toMatch(/no claims checked; 1 scenario\(s\) without claims/);
  });

  it('a file that does not load is reported in the table, the others run, and the exit code is 2 at the end', () => {
    // a-bad.yaml sorts first: the good files after it still run.
    const dir = folder({ 'a-bad.yaml': bad, 'b-good.yaml': good, 'c-none.yaml': noClaims });
    const r = podrace(['verify', dir]);
    expect(r.code).toBe(2);
    // The error also goes to standard error, alone on its line, for editors and CI problem matchers.
    expect(r.stderr).toMatch(/^\S*a-bad\.yaml:5:9: timeline\[0\]\.at: expected a duration [^\n]*\n$/);
    const lines = r.stdout.trim().split('\n');
    expect(lines.find((l) => l.includes('a-bad.yaml'))).toMatch(
      /INVALID\s+\S*a-bad\.yaml:5:\d+: timeline\[0\]\.at: /,
    );
    expect(lines.filter((l) => /^pod-deleted-before-start\s.*\spass\s/.test(l))).toHaveLength(2);
    expect(lines.find((l) => l.startsWith('no-claims'))).toMatch(/no claims\s+ran with every fix on: \[\]/);
    expect(lines.at(-1)).toBe(
      '2 claims, all hold; 1 scenario(s) without claims (run, nothing to check); 1 file(s) did not load (exit 2)',
    );
  });

  it('a path that does not exist and a second scenario of the same name are reported the same way', () => {
    const dir = folder({ 'good.yaml': good, 'twin.yaml': good });
    const r = podrace(['verify', join(dir, 'missing.yaml'), dir]);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(
      /missing\.yaml\s+-\s+INVALID\s+\S*missing\.yaml: cannot read \(ENOENT: no such file or directory\)/,
    );
    expect(r.stdout).toMatch(
      /twin\.yaml\s+-\s+INVALID\s+\S*twin\.yaml: name: "pod-deleted-before-start" is already used by/,
    );
    expect(r.stdout).toContain('2 claims, all hold');
  });

  it('--json: one line per claim, scenario without claims and invalid file, then the summary', () => {
    const dir = folder({ 'a-bad.yaml': bad, 'b-good.yaml': good, 'c-none.yaml': noClaims });
    const r = podrace(['verify', dir, '--json']);
    expect(r.code).toBe(2);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l['type'])).toEqual(['invalid', 'claim', 'claim', 'no-claims', 'summary']);
    expect(lines[1]).toMatchObject({ scenario: 'pod-deleted-before-start', claim: 'fixes: all', pass: true });
    expect(lines.at(-1)).toEqual({
      type: 'summary',
      claims: 2,
      runs: 2,
      passed: 2,
      failed: 0,
      invalid: 1,
      noClaims: 1,
      exitCode: 2,
    });
  });

  it('takes the name of a bundled scenario', () => {
    const r = podrace(['verify', 'pod-deleted-before-start']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('2 claims, all hold');
  });
});

describe('verify without arguments', () => {
  it('checks the scenarios/ folder of the project the current folder is in, from any folder of it', () => {
    expect(defaultScenariosDir(root)).toBe(join(root, 'scenarios'));
    expect(defaultScenariosDir(join(root, 'docs'))).toBe(join(root, 'scenarios'));
    expect(defaultScenariosDir(join(root, 'test', 'cli'))).toBe(join(root, 'scenarios'));
    const project = realpathSync(mkdtempSync(join(temp, 'project-')));
    writeFileSync(join(project, 'package.json'), '{}');
    mkdirSync(join(project, 'scenarios'));
    mkdirSync(join(project, 'sub', 'deeper'), { recursive: true });
    expect(defaultScenariosDir(join(project, 'sub', 'deeper'))).toBe(join(project, 'scenarios'));
  });

  it("falls back to podrace's bundled scenarios outside a project, or in one without scenarios/", () => {
    const bare = realpathSync(mkdtempSync(join(temp, 'bare-')));
    writeFileSync(join(bare, 'package.json'), '{}');
    expect(defaultScenariosDir(bare)).toBe(bundledScenariosDir());
    expect(defaultScenariosDir('/')).toBe(bundledScenariosDir());
  });
});
