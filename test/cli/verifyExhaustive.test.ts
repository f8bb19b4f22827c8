// `verify --exhaustive`: a `violations: []` claim holds only if every schedule within the bound was
// explored and none violates; claims that list violations are checked as before.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { podrace } from './spawnCli.js';

const temp = mkdtempSync(join(tmpdir(), 'podrace-exhaustive-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const file = 'scenarios/pod-deleted-before-start.yaml';

describe('verify --exhaustive', () => {
  it('bound 0: the default order alone, explored and clean; the JSON line says what was explored', () => {
    const r = podrace(['verify', file, '--exhaustive', '--bound', '0', '--json']);
    expect(r.code).toBe(0);
    const [clean, listed] = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(clean.exhaustive).toEqual({
      bound: 0,
      latencies: false,
      explored: 1,
      complete: true,
      stoppedBy: null,
      schedule: null,
      invariants: [],
    });
    expect(clean.pass).toBe(true);
    // A claim that lists violations is not explored.
    expect(listed.exhaustive).toBeUndefined();
    const table = podrace(['verify', file, '--exhaustive', '--bound', '0']);
    expect(table.stdout).toMatch(
      /fixes: all {17}pass {2}\[\] {2}clean over all 1 schedule\(s\) within 0 deviation\(s\)/,
    );
  });

  it('an exploration cut short proves nothing: the claim fails', () => {
    const r = podrace(['verify', file, '--exhaustive', '--max-schedules', '3']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /fixes: all .*FAIL {2}\[\] {2}INCOMPLETE: stopped by max-schedules after 3 schedule\(s\) within 1 deviation\(s\); nothing proved {2}\(scenarios\/pod-deleted-before-start\.yaml:21\)/,
    );
    expect(r.stdout).toMatch(/1 of 2 claims failed/);
    expect(podrace(['verify', file]).code).toBe(0);
  });

  it('bad limits are exit 2 naming the flag', () => {
    const r = podrace(['verify', file, '--exhaustive', '--bound', 'x']);
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toMatch(/--bound: expected a whole number from 0 to 5, got "x"/);
  });

  it("a claim with exhaustive: true is explored without the flag, with the flags' limits", () => {
    const marked = join(temp, 'marked.yaml');
    const text = readFileSync(file, 'utf8').replace(
      '  - fixes: all\n    violations: []\n',
      '  - fixes: all\n    violations: []\n    exhaustive: true\n',
    );
    expect(text).toContain('exhaustive: true');
    writeFileSync(marked, text);
    const cut = podrace(['verify', marked, '--max-schedules', '3']);
    expect(cut.code).toBe(1);
    expect(cut.stdout).toMatch(/FAIL {2}\[\] {2}INCOMPLETE: stopped by max-schedules after 3 schedule/);
    const zero = podrace(['verify', marked, '--bound', '0', '--json']);
    expect(zero.code).toBe(0);
    expect(JSON.parse(zero.stdout.split('\n')[0] as string).exhaustive.explored).toBe(1);
  });

  it('--latencies: a claim clean on its default run and on every reordering fails on a latency pick', () => {
    // Seed 73 of terminating-pod-volume-removal without pod-worker-lifecycle: the default run is clean;
    // one storage operation quicker than drawn fires the race (test/explore/latency.test.ts).
    const source = readFileSync(
      join(import.meta.dirname, '..', '..', 'scenarios', 'terminating-pod-volume-removal.yaml'),
      'utf8',
    );
    const text = source
      .replace('seed: 1\n', 'seed: 73\n')
      .replace(
        '  - fixes: { off: [pod-worker-lifecycle] }\n    violations: [volume-torn-down-while-running, container-started-after-terminated]\n',
        '  - fixes: { off: [pod-worker-lifecycle] }\n    violations: []\n',
      );
    expect(text).toContain('seed: 73');
    const seeded = join(temp, 'seed73.yaml');
    writeFileSync(seeded, text);
    expect(podrace(['verify', seeded]).code).toBe(0);
    const r = podrace(['verify', seeded, '--exhaustive', '--latencies', '--max-schedules', '600', '--json']);
    expect(r.code).toBe(1);
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    // The other claim (fixes: all) is cut short by the budget: it fails too, with no schedule.
    const failed = rows.find((row) => row.pass === false && row.exhaustive.schedule !== null);
    expect(failed?.exhaustive.latencies).toBe(true);
    expect(failed?.exhaustive.schedule).toMatch(/^L\d+=\d+$/);
    expect(failed?.exhaustive.invariants).toContain('container-started-after-terminated');
  });
});
