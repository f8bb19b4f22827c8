// --junit: the JUnit XML that CI systems read, from the built binary. One test case per claim (verify)
// and per fuzz case; failures carry the invariants and the replay command; a write failure is exit 2.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');
const dir = mkdtempSync(join(tmpdir(), 'podrace-junit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function podrace(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [cli, ...args], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const count = (xml: string, re: RegExp): number => (xml.match(re) ?? []).length;
const attr = (xml: string, name: string): number =>
  Number(new RegExp(`<testsuites [^>]*${name}="(\\d+)"`).exec(xml)?.[1]);

describe('--junit', () => {
  it('verify: one test case per claim; a failing claim is a <failure> naming what fired', () => {
    const text = readFileSync(join(root, 'scenarios/pod-deleted-before-start.yaml'), 'utf8').replace(
      'violations: [container-started-after-terminated]',
      'violations: []',
    );
    writeFileSync(join(dir, 'wrong.yaml'), text);
    const claims = count(text, /^ {2}- (fixes|kubelet|off|on):/gm);
    const r = podrace(['verify', join(dir, 'wrong.yaml'), '--junit', 'verify.xml']);
    expect(r.code).toBe(1);
    const xml = readFileSync(join(dir, 'verify.xml'), 'utf8');
    expect(xml.startsWith('<?xml')).toBe(true);
    expect(count(xml, /<testcase /g)).toBe(claims);
    expect(attr(xml, 'tests')).toBe(claims);
    expect(attr(xml, 'failures')).toBe(1);
    expect(xml).toMatch(/<failure message="expected \[\], got \[container-started-after-terminated\]"/);
    expect(xml).toMatch(/file="[^"]*wrong\.yaml:\d+"/);
  });

  it('fuzz: one test case per case that ran, failures with the replay command, no temporary file left', () => {
    const r = podrace(['fuzz', '--runs', '6', '--kubelet', 'legacy', '--shrink', '0', '--junit', 'fuzz.xml']);
    expect(r.code).toBe(1);
    const xml = readFileSync(join(dir, 'fuzz.xml'), 'utf8');
    expect(count(xml, /<testcase /g)).toBe(6);
    expect(attr(xml, 'failures')).toBeGreaterThan(0);
    expect(xml).toContain('replay: podrace replay --seed 1 --path 0 --kubelet legacy');
    expect(xml).toContain('<property name="fixes" value="none"/>');
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('a report that cannot be written is exit 2 naming the path', () => {
    const r = podrace([
      'verify',
      join(root, 'scenarios/pod-deleted-before-start.yaml'),
      '--junit',
      'no/such/dir/v.xml',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^podrace: no\/such\/dir\/v\.xml: cannot write file \(ENOENT\)/);
  });
});
