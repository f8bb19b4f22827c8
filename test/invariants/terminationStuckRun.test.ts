// termination-stuck as `podrace run` judges it: the run's checker has the documented 120 s budget past a
// deletion's grace (it ran with none, so a pod deleted just before the horizon was "stuck"), and a kill the
// kubelet started with the spec's longer grace (#115819) has that grace before it is stuck.
import { describe, expect, it } from 'vitest';
import { Fixes } from '../../src/fixes.js';
import { runScenario } from '../../src/run/run.js';
import { parseScenarioText } from '../../src/scenario/load.js';

const run = (lines: readonly string[]) =>
  runScenario(parseScenarioText(lines.join('\n'), 'stuck.yaml'), { fixes: Fixes.all() }).violations.map(
    (v) => `${v.invariant}@${v.atMs}`,
  );

describe('termination-stuck in a run', () => {
  it('does not judge a pod deleted just before the horizon', () => {
    const scenario = (deleteAt: string) => [
      'name: late-delete',
      'horizon: 60s',
      'cluster: {nodes: [node-a]}',
      'timeline:',
      '  - at: 0s',
      '    createPod: {pod: web, node: node-a, containers: 1}',
      `  - at: ${deleteAt}`,
      '    forceDeletePod: {pod: web}',
    ];
    expect(run(scenario('59995ms'))).toEqual([]);
  });

  it('waits for a force-deleted pod killed with its 40 min grace, which then finishes', () => {
    const scenario = (horizon: string) => [
      'name: long-grace',
      `horizon: ${horizon}`,
      'seed: 3',
      'cluster: {nodes: [node-a]}',
      'timeline:',
      '  - at: 0s',
      '    createPod: {pod: db, node: node-a, containers: 3, gracePeriod: 2400s}',
      '  - at: 10s',
      '    forceDeletePod: {pod: db}',
    ];
    // Seed 3: one of the containers ignores SIGTERM, so the kill takes the whole 2400 s.
    expect(run(scenario('30m'))).toEqual([]);
    expect(run(scenario('60m'))).toEqual([]);
  });
});
