import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { podrace } from './spawnCli.js';

/** This file's temporary folders, removed when it ends (the suite checks that nothing is left). */
const temp = mkdtempSync(join(tmpdir(), 'podrace-watch-commands-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const r1 = 'scenarios/pod-deleted-before-start.yaml';
const fc = 'scenarios/fc-kubelet-restart-reconstruct-procmounts.yaml';

describe('run --events', () => {
  it('prints the filtered stream between the header and the verdict, exit code as run', () => {
    const r = podrace([
      'run',
      fc,
      '--kubelet',
      'legacy',
      '--events',
      '--node',
      'node-a',
      '--pod',
      'db1',
      '--since',
      '80s',
      '--until',
      '110s',
    ]);
    expect(r.code).toBe(1);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^fc-kubelet-restart-reconstruct-procmounts {2}seed 1 {2}fixes none$/);
    expect(lines.at(-1)).toMatch(/^4 violation\(s\)/);
    expect(r.stdout).toContain('procMountsRead INCONSISTENT');
    expect(r.stdout).toContain('reconstructionStarted');
    expect(lines.slice(1, -1).every((l) => /^ *(8\d|9\d|10\d|110)\.\d{3}s /.test(l))).toBe(true);
  });

  it('without --events prints the timeline as before; a bad kind is exit 2 with a hint', () => {
    expect(podrace(['run', r1]).stdout).not.toContain('reconstructionStarted (0 volume dirs');
    expect(podrace(['run', r1, '--events']).stdout).toContain('reconstructionStarted (0 volume dirs');
    const bad = podrace(['run', r1, '--kind', 'containerStart']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('did you mean "containerStarted"?');
  });
});

describe('run --seeds', () => {
  it('sweeps in one process and prints JSON with --json', () => {
    const r = podrace(['run', r1, '--kubelet', 'legacy', '--seeds', '1..30', '--json']);
    expect(r.code).toBe(1);
    const j = JSON.parse(r.stdout) as {
      seeds: number;
      invariants: Record<string, { seeds: number; firstSeed: number }>;
    };
    expect(j.seeds).toBe(30);
    expect(j.invariants['container-started-after-terminated']).toMatchObject({ seeds: 30, firstSeed: 1 });
    expect(podrace(['run', r1, '--seeds', '1..5']).code).toBe(0);
    expect(podrace(['run', r1, '--seeds', '1..5', '--trace', 'x.json']).code).toBe(2);
  });
});

describe('diff', () => {
  it('of a scenario and flags for run B: exit 1 and the divergence; same run: exit 2', () => {
    const r = podrace(['diff', r1, '--fix', 'pod-worker-lifecycle=off']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('first divergence: node-a pod web');
    expect(podrace(['diff', r1]).code).toBe(2);
    expect(podrace(['diff', r1, '--seed', '7']).code).toBe(2);
  });

  it('of two events files: exit 0 when alike, 1 when they diverge', () => {
    const dir = mkdtempSync(join(temp, 'diff-'));
    const write = (name: string, args: string[]) => {
      const file = join(dir, name);
      writeFileSync(file, podrace(['run', r1, '--events', '--json', ...args]).stdout);
      return file;
    };
    const a = write('a.jsonl', []);
    const b = write('b.jsonl', ['--kubelet', 'legacy']);
    expect(podrace(['diff', a, a]).code).toBe(0);
    const r = podrace(['diff', a, b, '--json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ diverged: true });
  });
});
