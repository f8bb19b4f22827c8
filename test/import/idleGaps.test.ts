// A log longer than a day (a pod stuck for days, the same line every few seconds): its idle stretches are
// cut to 10 minutes so that the scenario fits in a scenario's day, a kubelet's down time with them, and
// what is still past the day is left out and said so. A log that fits keeps the log's own times.
import { describe, expect, it } from 'vitest';
import { summaryLines } from '../../src/cli/importRun.js';
import { IDLE_GAP_KEPT_MS, SPAN_MAX_MS, TimeMap } from '../../src/import/idleGaps.js';
import { importLogs } from '../../src/import/importLogs.js';
import { PRELUDE_MS } from '../../src/import/importState.js';

const H = 3_600_000;
const M = 60_000;
const run = (text: string) => importLogs([{ name: 'k.log', bytes: Buffer.from(text) }], { name: 't' });
const actions = (r: ReturnType<typeof run>) => r.scenario.timeline.map((e) => [e.atMs, e.action.kind]);

/** A klog header at `ms` after 23 May 09:00:00 (the synthetic clock has no year; May has 31 days). */
function at(ms: number, pid = 268): string {
  const d = new Date(Date.UTC(2024, 4, 23, 9, 0, 0) + ms);
  const two = (n: number) => String(n).padStart(2, '0');
  return `I${two(d.getUTCMonth() + 1)}${two(d.getUTCDate())} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}.${String(d.getUTCMilliseconds() * 1000).padStart(6, '0')}     ${pid}`;
}
const add = (ms: number, pod: string, pid = 268) =>
  `${at(ms, pid)} kubelet.go:2100] "SyncLoop ADD" source="api" pods=[default/${pod}]`;
const del = (ms: number, pod: string, pid = 268) =>
  `${at(ms, pid)} kubelet.go:2130] "SyncLoop DELETE" source="api" pods=[default/${pod}]`;
const orphan = (ms: number) =>
  `${at(ms)} kubelet_volumes.go:160] "Orphaned pod found, but volume paths are still present on disk" numErrs=1 podUID=u-gone`;

describe('TimeMap', () => {
  it('keeps the log times of a log that fits in a day', () => {
    const m = TimeMap.of([0, 5 * H, SPAN_MAX_MS]);
    expect(m.cuts).toEqual([]);
    expect(m.map(5 * H + 3)).toBe(5 * H + 3);
  });

  it('cuts each stretch longer than 10 minutes to 10 minutes, and maps a time inside one to its kept end', () => {
    const m = TimeMap.of([0, 1 * M, 30 * H, 30 * H + 5 * M, 50 * H]);
    expect(m.cuts).toEqual([
      { atMs: 1 * M + IDLE_GAP_KEPT_MS, removedMs: 30 * H - 1 * M - IDLE_GAP_KEPT_MS },
      {
        atMs: 1 * M + IDLE_GAP_KEPT_MS + 5 * M + IDLE_GAP_KEPT_MS,
        removedMs: 20 * H - 5 * M - IDLE_GAP_KEPT_MS,
      },
    ]);
    expect(m.map(1 * M)).toBe(1 * M);
    expect(m.map(1 * M + 3 * M)).toBe(4 * M); // within the kept 10 minutes
    expect(m.map(20 * H)).toBe(1 * M + IDLE_GAP_KEPT_MS); // inside the cut: its kept end
    expect(m.map(30 * H)).toBe(11 * M);
    expect(m.map(30 * H + 5 * M)).toBe(16 * M);
    expect(m.map(50 * H)).toBe(26 * M);
    // Monotonic over the whole log.
    let previous = -1;
    for (let t = 0; t <= 50 * H; t += 7 * M) {
      expect(m.map(t)).toBeGreaterThanOrEqual(previous);
      previous = m.map(t);
    }
  });
});

describe('a log longer than a day', () => {
  it('imports, with the idle stretch cut to 10 minutes and the entry after it saying so', () => {
    const r = run(
      [add(0, 'web-0'), add(5 * M, 'db-0'), del(2 * 24 * H, 'web-0'), del(2 * 24 * H + 10_000, 'db-0')].join(
        '\n',
      ),
    );
    expect(actions(r)).toEqual([
      [0, 'createPod'],
      [5 * M, 'createPod'],
      [15 * M, 'deletePod'],
      [15 * M + 10_000, 'deletePod'],
    ]);
    expect(r.inferred.cuts).toHaveLength(1);
    expect(r.yaml).toContain('stretch(es) with nothing to replay, longer than 10m, were cut to 10m');
    expect(r.yaml).toMatch(/# the log has nothing to replay for 47h 55m before this: cut to 10m/);
    expect(r.scenario.horizonMs).toBeLessThanOrEqual(24 * H);
  });

  it('cuts the stretch from a kubelet restart whose node was down for two days too (its re-list has both pods)', () => {
    const r = run(
      [add(0, 'web-0', 268), add(60_000, 'db-0', 268), add(2 * 24 * H, 'web-0 default/db-0', 4242)].join(
        '\n',
      ),
    );
    const restart = r.scenario.timeline.find((e) => e.action.kind === 'restartKubelet');
    expect(restart?.atMs).toBe(60_000);
    expect(restart?.action).toMatchObject({ downForMs: IDLE_GAP_KEPT_MS });
  });

  it('a day of the same orphan line every 2 s then more: what is past the day is left out and said so', () => {
    const lines = [add(0, 'web-0')];
    for (let t = 2_000; t < 30 * H; t += 2_000) lines.push(orphan(t));
    lines.push(del(30 * H, 'web-0'));
    const r = run(lines.join('\n'));
    // The orphan lines are read (observed, no entry of their own; the first process reports orphans, so
    // the kubelet restarted before the log began, and web-0 ran before it): nothing to replay between
    // them and the deletion, so the 30 h are cut and the deletion stays in.
    expect(actions(r)).toEqual([
      [0, 'createPod'],
      [PRELUDE_MS - 1_000, 'restartKubelet'],
      [PRELUDE_MS - 1_000 + IDLE_GAP_KEPT_MS, 'deletePod'],
    ]);

    const busy = [add(0, 'web-0')];
    // A pod added every 5 minutes for 30 hours: no idle stretch to cut.
    for (let k = 1; k <= 360; k++) busy.push(add(k * 5 * M, `p-${k}`));
    const b = run(busy.join('\n'));
    expect(b.inferred.cuts).toEqual([]);
    expect(b.inferred.beyond.length).toBeGreaterThan(0);
    const kept = b.scenario.timeline.length;
    expect(kept + b.inferred.beyond.length).toBe(361);
    expect(Math.max(...b.scenario.timeline.map((e) => e.atMs))).toBeLessThanOrEqual(SPAN_MAX_MS);
    expect(b.yaml).toMatch(
      new RegExp(`${b.inferred.beyond.length} entries past the first day, from k\\.log:\\d+ on, left out`),
    );
    expect(summaryLines(b, undefined)).toContain(
      `the log is longer than a day: 0 idle stretch(es) cut to 10m, ${b.inferred.beyond.length} entries past the day left out (the file's header says where)`,
    );
  });

  it('a log that fits keeps its own times', () => {
    const r = run([add(0, 'web-0'), del(20 * H, 'web-0')].join('\n'));
    expect(actions(r)).toEqual([
      [0, 'createPod'],
      [20 * H, 'deletePod'],
    ]);
    expect(r.yaml).not.toContain('cut to');
  });
});
