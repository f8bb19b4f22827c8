// podrace explore's search (src/explore/explore.ts): the default order is the first schedule explored,
// schedules come in order of their deviations, limits make it incomplete, and a reordering that the
// footprints call commuting gives the very run it was skipped for.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkpointText, readCheckpoint } from '../../src/explore/checkpoint.js';
import { type ExploreState, explore, INITIAL_STATE, mustExplore } from '../../src/explore/explore.js';
import { Fixes } from '../../src/fixes.js';
import { firedInvariants, runScenario } from '../../src/run/run.js';
import { loadScenarioFile, parseScenarioText } from '../../src/scenario/load.js';
import { tailAfter } from './runTail.js';

const dir = join(import.meta.dirname, '..', '..', 'scenarios');
const load = (name: string) => loadScenarioFile(join(dir, `${name}.yaml`));
const unlimited = { deadlineMs: Number.POSITIVE_INFINITY, clock: () => 0 };

describe('explore', () => {
  it('the default order is the first schedule explored: its violation is the default run’s', () => {
    const scenario = load('pod-deleted-before-start');
    const fixes = Fixes.none();
    const r = explore(scenario, { fixes, bound: 2, maxSchedules: 10, ...unlimited });
    expect(r.explored).toBe(1);
    expect(r.perDepth).toEqual([1]);
    expect(r.violation?.schedule).toEqual([]);
    const plain = runScenario(scenario, { fixes });
    expect(firedInvariants(plain).length).toBeGreaterThan(0);
    expect(r.violation === undefined ? [] : firedInvariants(r.violation.result)).toEqual(
      firedInvariants(plain),
    );
  });

  it('bound 0 runs the default order alone, and is complete', () => {
    const r = explore(load('pod-deleted-before-start'), {
      fixes: Fixes.all(),
      bound: 0,
      maxSchedules: 10,
      ...unlimited,
    });
    expect([r.explored, r.complete, r.violation]).toEqual([1, true, undefined]);
  });

  it('the schedule budget and the time limit stop it incomplete, deterministically', () => {
    const scenario = load('pod-deleted-before-start');
    const o = { fixes: Fixes.all(), bound: 1, maxSchedules: 4, ...unlimited };
    const a = explore(scenario, o);
    expect([a.explored, a.perDepth, a.complete, a.stoppedBy]).toEqual([4, [1, 3], false, 'max-schedules']);
    const b = explore(scenario, o);
    expect(b.skippedCommuting).toBe(a.skippedCommuting);
    expect(a.skippedCommuting).toBeGreaterThan(0);
    let now = 0;
    const timed = explore(scenario, { ...o, maxSchedules: 100, deadlineMs: 2, clock: () => now++ });
    expect([timed.complete, timed.stoppedBy]).toEqual([false, 'time-limit']);
  });

  for (const name of ['pod-deleted-before-start', 'csi-reconstruct-fails-contrast']) {
    it(`${name}: a reordering judged commuting gives the parent's run, fact for fact`, () => {
      const scenario = load(name);
      const fixes = Fixes.all();
      const parent = runScenario(scenario, { fixes, recordFacts: true, schedule: [] });
      const log = parent.choices?.log;
      if (log === undefined) throw new Error('no log');
      const index = new Map(log.seq.map((s, j) => [s, j]));
      const skipped: [number, number][] = [];
      for (let c = 0; c < log.points; c++)
        for (let i = 1; i < log.readyCount(c); i++) if (!mustExplore(log, index, c, i)) skipped.push([c, i]);
      expect(skipped.length).toBeGreaterThan(100);
      // Twenty spread over the run (each is a whole run).
      const facts = JSON.stringify(parent.facts);
      for (let k = 0; k < 20; k++) {
        const [point, pick] = skipped[Math.floor((k * skipped.length) / 20)] as [number, number];
        const r = runScenario(scenario, { fixes, recordFacts: true, schedule: [{ point, pick }] });
        expect(JSON.stringify(r.facts), `${point}:${pick}`).toBe(facts);
        const atMs = log.timeMs[log.pointEvent[point] as number] as number;
        const childLog = r.choices?.log;
        if (childLog === undefined) throw new Error('no log');
        expect(tailAfter(childLog, atMs), `${point}:${pick}`).toBe(tailAfter(log, atMs));
      }
    });
  }
});

describe('explore: resuming from a checkpoint', () => {
  // A pod created and deleted within 1.5 s: 26 one-deviation schedules, 239 with two.
  const tiny = parseScenarioText(
    [
      'name: tiny',
      'seed: 1',
      'horizon: 1500ms',
      'cluster: {nodes: [node-a]}',
      'timeline:',
      '  - {at: 0s, createPod: {pod: web, node: node-a, containers: 1}}',
      '  - {at: 1s, deletePod: {pod: web}}',
    ].join('\n'),
    'tiny.yaml',
  );
  const fixes = Fixes.all();
  const key = {
    scenario: 'tiny',
    scenarioSha256: 'x',
    seed: 1,
    fixes: fixes.label(),
    bound: 2,
    latencies: false,
    reduction: true,
    maxEvents: null,
  };

  it('stopped by its budget again and again and resumed through the file, it ends as one that never stopped', () => {
    const o = { fixes, bound: 2, maxSchedules: 100_000, ...unlimited };
    const whole = explore(tiny, o);
    expect([whole.complete, whole.perDepth]).toEqual([true, [1, 26, 239]]);
    let text = checkpointText(key, INITIAL_STATE);
    let checkpoints = 0;
    let last: ReturnType<typeof explore> | undefined;
    // Budgets that stop it within depth 1, across the step to depth 2, and within depth 2.
    for (const budget of [20, 60, 200, 400, 100_000]) {
      const read = readCheckpoint(text, key);
      if (!read.ok) throw new Error(read.error);
      last = explore(tiny, {
        ...o,
        maxSchedules: budget,
        resume: read.state,
        checkpointEvery: 50,
        onCheckpoint: (s) => {
          text = checkpointText(key, s);
          checkpoints++;
        },
      });
      expect(last.explored).toBe(Math.min(budget, whole.explored));
    }
    expect(checkpoints).toBeGreaterThan(whole.explored / 50);
    expect([
      last?.explored,
      last?.perDepth,
      last?.skippedCommuting,
      last?.distinctOutcomes,
      last?.complete,
    ]).toEqual([whole.explored, whole.perDepth, whole.skippedCommuting, whole.distinctOutcomes, true]);
    // Most reorderings change nothing a user can see: far fewer distinct runs than schedules.
    expect(whole.distinctOutcomes).toBeGreaterThan(1);
    expect(whole.distinctOutcomes).toBeLessThan(whole.explored);
    // A finished checkpoint resumed: the verdict again, nothing run.
    const read = readCheckpoint(text, key);
    if (!read.ok) throw new Error(read.error);
    expect(read.state.finished).toBe(true);
    const again = explore(tiny, { ...o, resume: read.state });
    expect([again.explored, again.complete]).toEqual([whole.explored, true]);
  });

  it('a violation found after a resume is the one found without stopping', () => {
    const legacy = Fixes.none();
    const o = { fixes: legacy, bound: 1, maxSchedules: 100_000, ...unlimited };
    const whole = explore(load('pod-deleted-before-start'), o);
    expect(whole.violation?.schedule).toEqual([]);
    let state: ExploreState | undefined;
    explore(load('pod-deleted-before-start'), { ...o, onCheckpoint: (s) => (state = s) });
    expect([state?.finished, state?.violation]).toEqual([true, []]);
    const resumed = explore(load('pod-deleted-before-start'), { ...o, resume: state });
    expect(resumed.violation?.schedule).toEqual([]);
    expect(firedInvariants(resumed.violation?.result ?? whole.violation!.result)).toEqual(
      firedInvariants(whole.violation!.result),
    );
  });

  it('a checkpoint of another exploration, or not a checkpoint, is refused naming why', () => {
    const other = checkpointText({ ...key, bound: 1 }, INITIAL_STATE);
    expect(readCheckpoint(other, key)).toEqual({
      ok: false,
      error:
        'was written for bound 1, not 2: it explores another tree (use another file, or the same options)',
    });
    expect(readCheckpoint('{', key)).toEqual({ ok: false, error: 'is not a checkpoint (not JSON)' });
    const broken = JSON.parse(checkpointText(key, INITIAL_STATE));
    broken.parents = ['1:1', 'x'];
    expect(readCheckpoint(JSON.stringify(broken), key)).toEqual({
      ok: false,
      error: 'field parents: item 2 is not a schedule',
    });
  });
});
