// What CI sees of the built binary: --junit XML (one test case per claim for verify, per case for fuzz;
// failures carry the invariants and the replay command; a write failure is exit 2) and, on a terminal,
// the fuzz progress line with its total.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, podrace as podraceIn, root } from './spawnCli.js';

const dir = mkdtempSync(join(tmpdir(), 'podrace-junit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
/** The CLI run in this file's folder, where the reports are written. */
const podrace = (args: string[]) => podraceIn(args, { cwd: dir });

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
    const r = podrace(['verify', 'wrong.yaml', '--junit', 'verify.xml']);
    expect(r.code).toBe(1);
    const xml = readFileSync(join(dir, 'verify.xml'), 'utf8');
    expect(xml.startsWith('<?xml')).toBe(true);
    expect(count(xml, /<testcase /g)).toBe(claims);
    expect(attr(xml, 'tests')).toBe(claims);
    expect(attr(xml, 'failures')).toBe(1);
    expect(xml).toMatch(/<failure message="expected \[\], got \[container-started-after-terminated\]"/);
    // The file as CI resolves it (the test's folder is in no repository: relative to the working folder)
    // and the claim's line, each in its own attribute; the replay command inside <failure>.
    // The failing claim is the second; its entry is the line above its (now empty) violations.
    const line = text.split('\n').findLastIndex((l) => l.includes('violations: []'));
    expect(xml).toContain(`file="wrong.yaml" line="${line}"`);
    expect(xml).toMatch(
      /<failure [^>]*><!\[CDATA\[[\s\S]*\nreplay: npx podrace run wrong\.yaml --fix pod-worker-lifecycle=off\]\]><\/failure>/,
    );
  });

  it('fuzz: one test case per case that ran, failures with the replay command, no temporary file left', () => {
    const r = podrace(['fuzz', '--runs', '6', '--kubelet', 'legacy', '--shrink', '0', '--junit', 'fuzz.xml']);
    expect(r.code).toBe(1);
    const xml = readFileSync(join(dir, 'fuzz.xml'), 'utf8');
    expect(count(xml, /<testcase /g)).toBe(6);
    expect(attr(xml, 'failures')).toBeGreaterThan(0);
    expect(xml).toContain('replay: npx podrace replay --seed 1 --path 0 --kubelet legacy');
    expect(xml).toContain('<property name="fixes" value="none"/>');
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('fuzz --junit-cases failing: only failures, errors and hazards; the shrunk case points at its file', () => {
    const args = ['fuzz', '--runs', '40', '--kubelet', 'legacy', '--shrink-runs', '10', '--out', 'found'];
    const r = podrace([...args, '--junit', 'failing.xml', '--junit-cases', 'failing']);
    expect(r.code).toBe(1);
    const xml = readFileSync(join(dir, 'failing.xml'), 'utf8');
    const written = count(xml, /<testcase /g);
    const omitted = Number(/<property name="omittedPassingCases" value="(\d+)"\/>/.exec(xml)?.[1]);
    expect(written).toBeGreaterThan(0);
    expect(omitted).toBeGreaterThan(0);
    expect(written + omitted).toBe(40);
    expect(count(xml, /<testcase [^>]*\/>/g)).toBe(0); // no case that passed with nothing to say
    const file = /<testcase [^>]* file="(found\/[^"]+\.yaml)" line="(\d+)">/.exec(xml);
    expect(file).not.toBeNull();
    const yaml = readFileSync(join(dir, file?.[1] ?? ''), 'utf8').split('\n');
    expect(yaml[Number(file?.[2]) - 1]).toMatch(/^ {2}- fixes: none/);
    expect(xml).toMatch(
      /<failure [^>]*><!\[CDATA\[[^\]]*replay: npx podrace replay --seed 1 --path \d+ --kubelet legacy/,
    );
    // Every case written has its own time.
    const times = [...xml.matchAll(/ time="([\d.]+)"/g)].map((m) => m[1]);
    expect(new Set(times).size).toBeGreaterThan(1);
    // Only with --junit.
    const alone = podrace(['fuzz', '--runs', '3', '--junit-cases', 'failing']);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toBe(
      'podrace: --junit-cases: only with --junit FILE (it says which cases FILE holds)\n',
    );
  });

  it('fuzz --check-determinism says that it ran and what it compared: summary, JSON and JUnit', () => {
    const args = ['fuzz', '--runs', '20', '--shrink', '0', '--check-determinism'];
    const text = podrace([...args, '--junit', 'det.xml']);
    expect(text.code).toBe(0);
    const line =
      /^--check-determinism: ran each of 20 case\(s\) a second time .* compared digests of the facts a run published \(in order\), its event count, virtual time, outcome and violations: equal in every case; campaign digest ([0-9a-f]{8})$/m.exec(
        text.stdout,
      );
    expect(line).not.toBeNull();
    const digest = line?.[1] ?? '';
    const xml = readFileSync(join(dir, 'det.xml'), 'utf8');
    expect(xml).toContain('<property name="checkDeterminism" value="true"/>');
    expect(xml).toContain('<property name="determinismRerun" value="20"/>');
    expect(xml).toContain('<property name="determinismDiffered" value="0"/>');
    expect(xml).toContain(`<property name="determinismDigest" value="${digest}"/>`);
    const json = podrace([...args, '--json']);
    const summary = JSON.parse(json.stdout.trim().split('\n').pop() ?? '{}') as Record<string, unknown>;
    expect(summary['determinism']).toEqual({
      rerun: 20,
      differed: 0,
      digest,
      compared: 'the facts a run published (in order), its event count, virtual time, outcome and violations',
    });
    // Without the flag: said too, and nothing claimed.
    const plain = podrace(['fuzz', '--runs', '20', '--shrink', '0', '--junit', 'plain.xml']);
    expect(plain.stdout).not.toContain('--check-determinism');
    expect(readFileSync(join(dir, 'plain.xml'), 'utf8')).toContain(
      '<property name="checkDeterminism" value="false"/>',
    );
  });

  it('a report that cannot be written is exit 2 naming the path', () => {
    const r = podrace([
      'verify',
      join(root, 'scenarios/pod-deleted-before-start.yaml'),
      '--junit',
      'no/such/dir/v.xml',
    ]);
    expect(r.code).toBe(2);
    // Checked before anything runs: nothing on standard output.
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('podrace: --junit no/such/dir/v.xml: cannot write there (ENOENT)\n');
  });

  // A terminal is needed for the progress line: util-linux `script` gives the CLI one (skipped without it).
  const script = spawnSync('script', ['--version'], { encoding: 'utf8' });
  it.skipIf(script.status !== 0)('fuzz on a terminal shows progress with the total', () => {
    const r = spawnSync(
      'script',
      ['-qec', `${process.execPath} ${cli} fuzz --runs 20 --shrink 0`, '/dev/null'],
      {
        cwd: dir,
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1' },
      },
    );
    expect(r.stdout).toMatch(/fuzz: 16\/20 cases, \d+ with violations/);
    expect(r.stdout).toMatch(/fuzz: 20\/20 cases/);
  });
});
