// `podrace explore FILE`: exit 0 when no schedule within the bound violates, 1 with the first violating
// schedule and its replay command, 2 for bad input; the same output for the same input.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { podrace } from './spawnCli.js';

const dir = mkdtempSync(join(tmpdir(), 'podrace-explore-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('podrace explore', () => {
  it('clean within the budget: exit 0, INCOMPLETE when the budget cut it, the same output twice', () => {
    const args = ['explore', 'pod-deleted-before-start', '--bound', '1', '--max-schedules', '5'];
    const a = podrace(args);
    expect(a.code).toBe(0);
    expect(a.stdout).toMatch(/^pod-deleted-before-start {2}seed 7 {2}fixes all {2}bound 1\n/);
    expect(a.stdout).toMatch(
      /explored 5 schedule\(s\) \(by deviations 0: 1, 1: 4\), [1-5] distinct run\(s\); \d+ reordering/,
    );
    expect(a.stdout).toMatch(/INCOMPLETE: stopped by --max-schedules 5; no violation/);
    expect(podrace(args).stdout).toBe(a.stdout);
    const zero = podrace(['explore', 'pod-deleted-before-start', '--bound', '0']);
    expect(zero.stdout).toMatch(/complete: no schedule within 0 deviation\(s\) violates an invariant/);
  });

  it('a violation: exit 1, the schedule and the command that replays it (which exits 1 too)', () => {
    const r = podrace(['explore', 'pod-deleted-before-start', '--kubelet', 'legacy', '--json']);
    expect(r.code).toBe(1);
    const json = JSON.parse(r.stdout);
    expect(json.violation.schedule).toBe('default');
    expect(json.violation.invariants).toContain('container-started-after-terminated');
    expect(json.violation.replay).toBe(
      'npx podrace run pod-deleted-before-start --schedule default --kubelet legacy',
    );
    const replay = podrace([
      'run',
      'pod-deleted-before-start',
      '--schedule',
      'default',
      '--kubelet',
      'legacy',
    ]);
    expect(replay.code).toBe(1);
  });

  it('--latencies: a race that lies in a latency, found with one latency deviation that replays', () => {
    // Seed 2's container exits on its SIGTERM, so the eviction's kill ends before housekeeping looks:
    // no reordering of one instant changes that; the container ignoring the signal (`never`) does.
    const args = [
      'explore',
      'eviction-and-housekeeping-kill',
      '--seed',
      '2',
      '--fix',
      'pod-worker-lifecycle=off',
      '--latencies',
      '--json',
    ];
    const r = podrace(args);
    expect(r.code).toBe(1);
    const json = JSON.parse(r.stdout);
    expect([json.latencies, json.violation.deviations, json.violation.latencyDeviations]).toEqual([
      true,
      1,
      1,
    ]);
    expect(json.violation.schedule).toMatch(/^L\d+=never$/);
    expect(json.withLatencyDeviations).toBeGreaterThan(0);
    expect(json.violation.invariants).toContain('concurrent-kill');
    expect(json.violation.replay).toBe(
      `npx podrace run eviction-and-housekeeping-kill --seed 2 --schedule ${json.violation.schedule} --fix pod-worker-lifecycle=off`,
    );
    const replay = podrace([
      'run',
      'eviction-and-housekeeping-kill',
      '--seed',
      '2',
      '--schedule',
      json.violation.schedule,
      '--fix',
      'pod-worker-lifecycle=off',
    ]);
    expect(replay.code).toBe(1);
    expect(
      podrace(['run', 'eviction-and-housekeeping-kill', '--seed', '2', '--fix', 'pod-worker-lifecycle=off'])
        .code,
    ).toBe(0);
    const text = podrace(args.filter((a) => a !== '--json'));
    expect(text.stdout).toMatch(/bound 1 {2}latencies\n/);
    expect(text.stdout).toMatch(/; \d+ with a latency deviation\)/);
  });

  it('--checkpoint: stopped by a limit, the same command goes on where it stopped; another search is refused', () => {
    const file = join(dir, 'tiny.yaml');
    writeFileSync(
      file,
      'name: tiny\nseed: 1\nhorizon: 1500ms\ncluster: {nodes: [node-a]}\ntimeline:\n' +
        '  - {at: 0s, createPod: {pod: web, node: node-a, containers: 1}}\n  - {at: 1s, deletePod: {pod: web}}\n',
    );
    const ckpt = join(dir, 'tiny.ckpt');
    const whole = podrace(['explore', file, '--bound', '2', '--max-schedules', '5000']);
    expect(whole.stdout).toMatch(/explored 266 schedule\(s\) .*\n(.|\n)*complete: no schedule within 2/);
    const first = podrace(['explore', file, '--bound', '2', '--max-schedules', '100', '--checkpoint', ckpt]);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/INCOMPLETE: stopped by --max-schedules 100/);
    expect(JSON.parse(readFileSync(ckpt, 'utf8')).explored).toBe(100);
    const rest = podrace(['explore', file, '--bound', '2', '--max-schedules', '5000', '--checkpoint', ckpt]);
    expect(rest.code).toBe(0);
    expect(rest.stdout).toContain(`resumed from ${ckpt}: 100 schedule(s) explored before\n`);
    expect(rest.stdout.replace(/resumed from .*\n/, '')).toBe(whole.stdout);
    const other = podrace(['explore', file, '--bound', '1', '--checkpoint', ckpt]);
    expect([other.code, other.stdout]).toEqual([2, '']);
    expect(other.stderr).toContain(`${ckpt}: --checkpoint: was written for bound 2, not 1`);
  });

  it('bad input is exit 2 naming the flag', () => {
    for (const [flag, value, message] of [
      ['--bound', '9', /--bound: expected a whole number from 0 to 5, got "9"/],
      ['--max-schedules', '0', /--max-schedules: expected a positive whole number/],
      ['--time-limit', '10', /--time-limit: "10" needs a unit/],
    ] as const) {
      const r = podrace(['explore', 'pod-deleted-before-start', flag, value]);
      expect([r.code, r.stdout], flag).toEqual([2, '']);
      expect(r.stderr).toMatch(message);
    }
    expect(podrace(['explore', 'no-such-scenario']).code).toBe(2);
  });
});
