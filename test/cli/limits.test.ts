// The campaign's limits as a user meets them, from the built binary: one bound on --runs that every
// printed path respects, cases generated lazily (a huge --runs costs no memory), a campaign that checked
// nothing is not a pass, --out checked before the campaign, write errors on standard output, and
// SIGINT / SIGTERM that stop with the partial results (exit 130 / 143) or, twice, at once.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');
const dir = mkdtempSync(join(tmpdir(), 'podrace-limits-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function podrace(args: string[], stdout: 'pipe' | number = 'pipe') {
  const r = spawnSync(process.execPath, [cli, ...args], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', stdout, 'pipe'],
  });
  return { code: r.status, stdout: r.stdout ?? '', stderr: r.stderr };
}

/** Starts a campaign, waits until it has run some cases, sends `signals`, and collects the outcome. */
function interrupt(
  signals: NodeJS.Signals[],
  extra: readonly string[] = [],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(
      process.execPath,
      [cli, 'fuzz', '--runs', '100000', '--kubelet', 'legacy', '--no-oracle', ...extra],
      {
        cwd: dir,
        env: { ...process.env, NO_COLOR: '1' },
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    // The first signal goes once the campaign has said it started (its handlers are in place) and has had
    // time to run some cases; signals of one kind do not queue, so the next goes once the first was handled.
    let sent = 0;
    let started = false;
    child.stderr.on('data', () => {
      if (!started && stderr.includes('fuzz: 100000 case(s)')) {
        started = true;
        setTimeout(() => child.kill(signals[sent++]), 1_000);
      }
      if (sent > 0 && sent < signals.length && stderr.includes('again to quit')) child.kill(signals[sent++]);
    });
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

describe('campaign limits', () => {
  it('--runs has one bound, the one --path has; a shard with no case is refused', () => {
    const tooMany = podrace(['fuzz', '--runs', '1000000000000', '--time-limit', '5s']);
    expect(tooMany.code).toBe(2);
    expect(tooMany.stderr).toMatch(/--runs: at most 10000000 cases/);
    expect(podrace(['replay', '--seed', '1', '--path', '10000000']).stderr).toMatch(/at most 9999999/);
    const empty = podrace(['fuzz', '--runs', '5', '--shard', '7/8']);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/shard 7\/8 of --runs 5 has no case/);
  });

  it('the largest campaign starts at once and runs within its time limit (cases are generated lazily)', () => {
    const r = podrace(['fuzz', '--runs', '10000000', '--time-limit', '1s', '--json', '--shrink', '0']);
    const summary = JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
    expect(summary['planned']).toBe(10_000_000);
    expect(summary['ran']).toBeGreaterThan(0);
    expect(summary['stoppedBy']).toBe('time-limit');
  });

  it('--workers is at most 64 (exit 2 beyond)', () => {
    const r = podrace(['fuzz', '--runs', '3', '--workers', '65']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^podrace: --workers: at most 64 worker threads, got 65 /);
  });

  it('worker start-up counts against --time-limit: many workers stop at the limit, not after starting', () => {
    const start = Date.now();
    const r = podrace([
      'fuzz',
      '--runs',
      '100000',
      '--workers',
      '24',
      '--time-limit',
      '1s',
      '--json',
      '--shrink',
      '0',
    ]);
    const wall = Date.now() - start;
    const summary = JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
    expect(summary['stoppedBy']).toBe('time-limit');
    // 24 workers on this machine's cores take far longer than 1 s to start and each run a chunk.
    expect(wall).toBeLessThan(12_000);
  });

  it('a campaign stopped by its time limit says so in the JSON summary and the JUnit report', () => {
    const junit = join(dir, 'stopped.xml');
    const r = podrace(['fuzz', '--runs', '50', '--time-limit', '0s', '--json', '--junit', junit]);
    const summary = JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
    expect(summary['stopped']).toBe('stopped after 0 of 50 cases (--time-limit): the rest were not checked');
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toMatch(/<testsuites tests="1" failures="0" errors="1"/);
    expect(xml).toContain('<property name="stoppedBy" value="time-limit"/>');
    expect(xml).toContain(
      '<error message="stopped after 0 of 50 cases (--time-limit): the rest were not checked" type="error">',
    );
  });

  it('a campaign that ran no case is not a pass', () => {
    const r = podrace(['fuzz', '--runs', '50', '--time-limit', '0s']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/ran 0 of 50 case\(s\): nothing was checked/);
  });

  it('--out is checked before the campaign runs', () => {
    writeFileSync(join(dir, 'a-file'), 'x');
    const r = podrace(['fuzz', '--runs', '3', '--out', 'a-file/failures']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^podrace: --out a-file\/failures: .*a-file is not a folder/);
  });

  it('a write error on standard output is one line and exit 2, not a verdict', () => {
    for (const args of [
      ['run', join(root, 'scenarios/pod-churn.yaml')],
      ['fuzz', '--runs', '2', '--json'],
    ]) {
      const r = podrace(args, openSync('/dev/full', 'w'));
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim()).toBe('podrace: cannot write standard output (ENOSPC)');
    }
  });

  it('SIGINT: stops starting cases, prints what it found so far, exits 130', async () => {
    const r = await interrupt(['SIGINT']);
    expect(r.code).toBe(130);
    expect(r.stdout).toMatch(/ran \d+ of 100000 case\(s\)/);
    expect(r.stdout).toMatch(/stopped by SIGINT before cases \d+ \.\.\. 99999/);
    expect(r.stdout).toMatch(/replay it with either of:/);
  });

  it('SIGINT with --junit: the report is written and marked stopped, never all green', async () => {
    const junit = join(dir, 'sigint.xml');
    const r = await interrupt(['SIGINT'], ['--junit', junit]);
    expect(r.code).toBe(130);
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toContain('<property name="stoppedBy" value="SIGINT"/>');
    expect(xml).toMatch(
      /<error message="stopped after \d+ of 100000 cases \(SIGINT\): the rest were not checked"/,
    );
    expect(xml).toMatch(/errors="1"/);
  });

  it('SIGTERM twice: exits 143 at once', async () => {
    const r = await interrupt(['SIGTERM', 'SIGTERM']);
    // Either the second signal ended it at once, or (on a loaded machine) the first had already let it
    // print and exit: 143 both ways, never a stack or another code.
    expect(r.code).toBe(143);
    expect(r.stderr).not.toMatch(/internal error|at .*\.js:\d+/);
  });
});
