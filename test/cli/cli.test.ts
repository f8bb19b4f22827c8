// The CLI as users run it: the built binary, spawned, checked for output and exit codes (docs/cli.md).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FIX_IDS } from '../../src/fixes.js';
import { cli, podrace, root } from './spawnCli.js';

const r1 = 'scenarios/pod-deleted-before-start.yaml';

// Each test's files in a folder of this one, removed at the end.
const temp = mkdtempSync(join(tmpdir(), 'podrace-cli-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

describe('podrace CLI', () => {
  it('--help lists the commands', () => {
    const r = podrace(['--help']);
    expect(r.code).toBe(0);
    for (const cmd of ['run', 'verify', 'list']) expect(r.stdout).toContain(`podrace ${cmd}`);
  });

  it('run: exit 0 with the fix, exit 1 naming the race without it', () => {
    const fixed = podrace(['run', r1, '--quiet']);
    expect(fixed.code).toBe(0);
    expect(fixed.stdout).toContain('no violations');
    const legacy = podrace(['run', r1, '--kubelet', 'legacy']);
    expect(legacy.code).toBe(1);
    expect(legacy.stdout).toContain('container-started-after-terminated');
    const oneOff = podrace(['run', r1, '--fix', 'pod-worker-lifecycle=off', '--quiet']);
    expect(oneOff.code).toBe(1);
  });

  it('run --json prints one JSON result (docs/cli.md), identical across runs but for wallMs', () => {
    const a = podrace(['run', r1, '--kubelet', 'legacy', '--json']);
    const b = podrace(['run', r1, '--kubelet', 'legacy', '--json']);
    expect(a.code).toBe(1);
    const ja = JSON.parse(a.stdout) as Record<string, unknown>;
    const jb = JSON.parse(b.stdout) as Record<string, unknown>;
    expect(Object.keys(ja).slice(0, 9)).toEqual([
      'scenario',
      'seed',
      'fixes',
      'events',
      'virtualTimeMs',
      'wallMs',
      'violations',
      'claims',
      'outcome',
    ]);
    expect(typeof ja['wallMs']).toBe('number');
    expect({ ...ja, wallMs: 0 }).toEqual({ ...jb, wallMs: 0 });
    const v = (ja['violations'] as Record<string, unknown>[])[0];
    expect(v).toMatchObject({
      invariant: 'container-started-after-terminated',
      node: 'node-a',
      pod: 'web',
      volume: null,
    });
  });

  it('run --trace and --timeline write byte-identical files for the same seed', () => {
    const dir = mkdtempSync(join(temp, 'case-'));
    const paths = [0, 1].map((i) => ({ trace: join(dir, `t${i}.json`), html: join(dir, `t${i}.html`) }));
    for (const p of paths)
      podrace(['run', r1, '--kubelet', 'legacy', '--quiet', '--trace', p.trace, '--timeline', p.html]);
    const [a, b] = paths as [(typeof paths)[0], (typeof paths)[0]];
    expect(readFileSync(a.trace, 'utf8')).toBe(readFileSync(b.trace, 'utf8'));
    expect(readFileSync(a.html, 'utf8')).toBe(readFileSync(b.html, 'utf8'));
    expect(JSON.parse(readFileSync(a.trace, 'utf8')).traceEvents.length).toBeGreaterThan(5);
  });

  it('verify: every bundled claim holds (exit 0), run from another folder of the project', () => {
    const v = spawnSync(process.execPath, [cli, 'verify'], {
      cwd: join(root, 'docs'),
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
    });
    const r = { code: v.status, stdout: v.stdout, stderr: v.stderr };
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\d+ claims, all hold/);
  });

  it('verify: a failing claim is exit 1 with file and line', () => {
    const dir = mkdtempSync(join(temp, 'case-'));
    const text = readFileSync(join(root, r1), 'utf8').replace(
      'violations: [container-started-after-terminated]',
      'violations: []',
    );
    writeFileSync(join(dir, 'wrong.yaml'), text);
    const r = podrace(['verify', dir]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('FAIL');
    expect(r.stdout).toMatch(/wrong\.yaml:\d+/);
  });

  it('bad input is exit 2 with one clear line, never a stack trace', () => {
    const dir = mkdtempSync(join(temp, 'case-'));
    writeFileSync(
      join(dir, 'bad.yaml'),
      'name: x\ncluster:\n  nodes: [a]\ntimeline:\n  - at: soon\n    shutdownNode: {node: a}\n',
    );
    const cases: string[][] = [
      ['run', join(dir, 'bad.yaml')],
      ['run', join(dir, 'missing.yaml')],
      ['run', r1, '--seed', 'abc'],
      ['run', r1, '--fix', 'no-such-fix=off'],
      ['run', r1, '--kubelet', 'ancient'],
      ['run', r1, '--no-such-flag'],
      ['run', r1, '--fix'],
      ['replay', '--seed', '42', '--path', '1:999:999'],
      ['replay', '--seed', '42', '--path', '99999999999'],
      ['frobnicate'],
    ];
    for (const args of cases) {
      const r = podrace(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).not.toMatch(/\n\s+at /);
      expect(r.stderr.trim().split('\n').length, args.join(' ')).toBeLessThanOrEqual(4);
    }
    expect(podrace(['run', join(dir, 'bad.yaml')]).stderr).toMatch(/bad\.yaml:5:\d+: timeline\[0\]\.at: /);
  });

  it('a closed pipe (podrace ... | head -1) ends quietly, without a stack trace', () => {
    const r = spawnSync(
      'bash',
      ['-c', `node ${cli} run scenarios/pod-churn.yaml --kubelet legacy | head -1; exit \${PIPESTATUS[0]}`],
      {
        cwd: root,
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1' },
      },
    );
    expect(r.stderr).toBe('');
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    expect(r.status).toBe(1);
  });

  it('list prints one line per invariant and per fix', () => {
    const inv = podrace(['list', 'invariants']);
    expect(inv.code).toBe(0);
    expect(inv.stdout.trim().split('\n')).toHaveLength(15);
    const fixes = podrace(['list', 'fixes']);
    // A header, two lines a switch (the table row, then its summary), a footer.
    expect(fixes.stdout.trim().split('\n')).toHaveLength(2 + 2 * FIX_IDS.length);
    expect(fixes.stdout).toContain('no-force-detach-healthy-node');
    const scenarios = podrace(['list', 'scenarios']);
    expect(scenarios.stdout).toContain('pod-deleted-before-start');
    // The bundled scenarios are found from any folder, one line each, the name first.
    const elsewhere = spawnSync(process.execPath, [cli, 'list', 'scenarios'], {
      cwd: tmpdir(),
      encoding: 'utf8',
    });
    const lines = elsewhere.stdout.trim().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(20);
    for (const line of lines) expect(line).toMatch(/^[a-z0-9-]+ {2,}\S/);
  });

  it('runs as a user without a home directory or passwd entry', () => {
    const r = podrace(['run', r1, '--quiet'], { env: { HOME: '/nonexistent', USER: '' } });
    expect(r.code).toBe(0);
    // As root, also run as a UID that has no passwd entry at all (upstream #99881 panicked there).
    const asNobody = { uid: 54321, gid: 54321, env: { PATH: process.env['PATH'] ?? '' } };
    const probe = spawnSync(
      process.execPath,
      ['-e', `require('fs').accessSync(${JSON.stringify(cli)})`],
      asNobody,
    );
    // Only where that UID can reach the checkout at all (a clone under a 0700 temp dir cannot).
    if (process.getuid?.() === 0 && probe.status === 0) {
      const nobody = spawnSync(process.execPath, [cli, 'run', r1, '--quiet', '--kubelet', 'legacy'], {
        cwd: root,
        encoding: 'utf8',
        uid: 54321,
        gid: 54321,
        env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1' },
      });
      expect(nobody.stderr).toBe('');
      expect(nobody.status).toBe(1);
    }
  });
});
