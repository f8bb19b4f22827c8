// A run cut short by its event budget checked nothing after that point: it never passes. The default
// budget is sized from the scenario, so a long quiet scenario (one node, a deletion at 20 h) completes.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Fixes } from '../../src/fixes.js';
import { checkClaim, DEFAULT_MAX_EVENTS, defaultMaxEvents, runScenario } from '../../src/run/run.js';
import { parseScenarioText } from '../../src/scenario/load.js';

const text = `name: long-idle
horizon: 21h
cluster:
  nodes: [node-a]
timeline:
  - at: 0s
    createPod: {pod: web, node: node-a, containers: 1}
  - at: 20h
    deletePod: {pod: web}
claims:
  - fixes: all
    violations: []
`;
const scenario = parseScenarioText(text, 'long-idle.yaml');
const dir = mkdtempSync(join(tmpdir(), 'podrace-cut-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const cli = join(import.meta.dirname, '..', '..', 'dist', 'cli.js');

describe('a run cut short', () => {
  it('the default budget grows with horizon, nodes and pods, so a 21 h quiet scenario reaches its horizon', () => {
    expect(defaultMaxEvents(scenario)).toBeGreaterThan(DEFAULT_MAX_EVENTS);
    // The budget is sized for the plain way (--no-elide), where every idle loop round is an event.
    const plain = runScenario(scenario, { fixes: Fixes.all(), elide: false });
    expect(plain.outcome).toBe('horizon');
    expect(plain.complete).toBe(true);
    // The deletion at 20 h was checked: the pod is gone by the horizon.
    expect(plain.events).toBeGreaterThan(DEFAULT_MAX_EVENTS);
    // Elided, the same run is a fraction of the events, well inside the budget.
    const elided = runScenario(scenario, { fixes: Fixes.all() });
    expect(elided.complete).toBe(true);
    expect(elided.events * 10).toBeLessThan(plain.events);
  });

  it('is not complete, and its claim fails even though no invariant fired', () => {
    const r = runScenario(scenario, { fixes: Fixes.all(), maxEvents: 10_000 });
    expect(r.outcome).toBe('max-events');
    expect(r.complete).toBe(false);
    expect(r.violations).toEqual([]);
    const claim = scenario.claims[0];
    if (claim === undefined) throw new Error('no claim');
    expect(checkClaim(scenario, claim).pass).toBe(true);
    const cut = checkClaim(scenario, claim, 10_000);
    expect(cut.actual).toEqual([]);
    expect(cut.pass).toBe(false);
  });

  it('run and verify: exit 1 with the INCOMPLETE line and how to raise the budget; --json says complete: false', () => {
    const file = join(dir, 'long-idle.yaml');
    writeFileSync(file, text);
    const podrace = (args: string[]) =>
      spawnSync(process.execPath, [cli, ...args], {
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1' },
      });
    const run = podrace(['run', file, '--quiet', '--max-events', '10000']);
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(
      /no violations .*max-events\)\nINCOMPLETE: the event budget \(10000 events\) ran out at [\d.]+s of the 75600s horizon; .*--max-events N/,
    );
    const json = JSON.parse(podrace(['run', file, '--json', '--max-events', '10000']).stdout) as Record<
      string,
      unknown
    >;
    expect(json['complete']).toBe(false);
    expect(json['maxEvents']).toBe(10_000);
    const verify = podrace(['verify', file, '--max-events', '10000']);
    expect(verify.status).toBe(1);
    expect(verify.stdout).toMatch(/FAIL {2}INCOMPLETE/);
    expect(podrace(['run', file, '--max-events', 'lots']).status).toBe(2);
  });
});
