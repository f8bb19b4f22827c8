// The HTML timeline of a run given --schedule: it names the schedule and lists each deviation from the
// default order (a choice point whose pick is not the first ready event) at the instant it was taken, as
// a row that zooms the timeline there; a schedule that does not fit says which deviation and why.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Fixes } from '../../src/fixes.js';
import { toTimelineHtml } from '../../src/report/timelineHtml.js';
import { runScenario } from '../../src/run/run.js';
import { loadScenarioFile } from '../../src/scenario/load.js';
import type { Schedule } from '../../src/sim/index.js';

const scenario = loadScenarioFile(
  join(import.meta.dirname, '..', '..', 'scenarios', 'pod-deleted-before-start.yaml'),
);
const run = (schedule: Schedule) =>
  runScenario(scenario, { fixes: Fixes.all(), recordFacts: true, schedule });
const rows = (html: string) => [
  ...html.matchAll(
    /<tr class="dev-row" data-t="(\d+)"[^>]*><td>[^<]*<\/td><td>(\d+)<\/td><td>(\d+) of (\d+) ready/g,
  ),
];

describe('deviations in the HTML timeline', () => {
  it('the default order: the schedule is named, no deviation row', () => {
    const r = run([]);
    const html = toTimelineHtml(r);
    expect(html).toContain(
      `Schedule <code>default</code>: 0 deviations from the default order and the drawn latencies, ${r.choices?.points} choice points, ${r.choices?.latency.points} latency points`,
    );
    expect(rows(html)).toEqual([]);
  });

  it('each deviation at the instant its choice point was met, with its pick', () => {
    const base = run([]);
    const log = base.choices?.log;
    if (log === undefined) throw new Error('no choice log');
    const r = run([
      { point: 1, pick: 1 },
      { point: 3, pick: 1 },
    ]);
    const found = rows(toTimelineHtml(r)).map((m) => [Number(m[1]), Number(m[2]), Number(m[3])]);
    expect(found.map((f) => [f[1], f[2]])).toEqual([
      [1, 2],
      [3, 2],
    ]);
    const after = r.choices?.log;
    for (const [atMs, point] of found)
      expect(atMs).toBe(after?.timeMs[after.pointEvent[point as number] ?? -1]);
    expect(toTimelineHtml(r)).toContain('<code>1:1,3:1</code>');
  });

  it('a latency deviation: its row names the draw, the value taken, the one drawn and the range', () => {
    const base = run([]);
    const lat = base.choices?.latency;
    if (lat === undefined || lat.points < 3) throw new Error('no latency points');
    const l = 2;
    const lo = lat.loMs[l] as number;
    const hi = lat.hiMs[l] as number;
    const taken = lat.drawnMs[l] === hi ? lo : hi;
    const html = toTimelineHtml(run([{ latencyPoint: l, latencyMs: taken }]));
    const m = /<tr class="dev-row" data-t="(\d+)"[^>]*><td>[^<]*<\/td><td>L(\d+)<\/td><td>([^<]*)<\/td>/.exec(
      html,
    );
    expect(m?.[1]).toBe(String(lat.timeMs[l]));
    expect(m?.[2]).toBe(String(l));
    expect(m?.[3]).toBe(
      `${lat.what[l]} latency ${taken} ms (drawn ${lat.drawnMs[l]} ms, range ${lo}..${hi} ms)`,
    );
    expect(html).toContain(`<code>L${l}=${taken}</code>: 1 deviation from`);
  });

  it('a schedule that does not fit: which deviation and why', () => {
    const html = toTimelineHtml(run([{ point: 10_000_000, pick: 1 }]));
    expect(html).toMatch(/deviation 1 of the schedule does not fit: choice point 10000000 is never reached/);
  });

  it('a run without a schedule has no schedule section', () => {
    const r = runScenario(scenario, { fixes: Fixes.all(), recordFacts: true });
    expect(toTimelineHtml(r)).not.toContain('<tr class="dev-row"');
    expect(toTimelineHtml(r)).not.toContain('Schedule <code>');
  });
});
