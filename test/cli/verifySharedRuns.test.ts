// Claims of one scenario share a run when their fix sets differ only in switches that run never read: a run
// is a function of its scenario, seed and the switches it read (src/fixes.ts). A file with 100 claims on
// 1,000 idle nodes ran 100 times before; what decides now is how many distinct runs the claims ask for.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { verifyScenarios, verifySummary } from '../../src/cli/verify.js';
import { Fixes } from '../../src/fixes.js';
import { runScenario, sameRunUnder } from '../../src/run/run.js';
import { parseScenarioText } from '../../src/scenario/load.js';
import { root } from './spawnCli.js';

const base = readFileSync(join(root, 'scenarios', 'pod-deleted-before-start.yaml'), 'utf8').replace(
  /\nclaims:[\s\S]*$/,
  '\n',
);

describe('verify shares a run between claims that differ only in unread switches', () => {
  it('runs once per distinct run, and a shared claim is judged exactly as its own run would be', () => {
    const probe = runScenario(parseScenarioText(base, 'f.yaml'), { fixes: Fixes.all() });
    const unread = ['block-metrics', 'block-volume-stats', 'fc-unmount-retry'].filter(
      (id) => !probe.fixesRead.includes(id as never),
    );
    expect(unread.length).toBeGreaterThan(0); // a pod without volumes never asks the volume switches
    expect(probe.fixesRead).toContain('pod-worker-lifecycle');
    const text = `${base}claims:
  - fixes: all
    violations: []
  - fixes: { off: [${unread.join(', ')}] }
    violations: []
  - fixes: { off: [${unread[0]}] }
    violations: [termination-stuck]
  - fixes: { off: [pod-worker-lifecycle] }
    violations: []
`;
    const scenario = parseScenarioText(text, 'f.yaml');
    const rows = verifyScenarios([scenario]);
    const summary = verifySummary(rows);
    expect(summary.claims).toBe(4);
    expect(summary.runs).toBe(2); // all (shared by the two off-unread claims) and pod-worker-lifecycle off
    const [all, offUnread, wrong, offPwl] = rows.map((r) => r.claim);
    expect(all?.result.sharedWith).toBeUndefined();
    expect(offUnread?.result.sharedWith).toBe(all?.result.fixes);
    expect(offPwl?.result.sharedWith).toBeUndefined();
    // The shared verdict is the one the claim's own run gives: same events, same violations.
    for (const row of [offUnread, wrong]) {
      const own = runScenario(scenario, { fixes: row?.fixes as Fixes });
      expect(row?.result.events).toBe(own.events);
      expect(row?.actual).toEqual(own.violations.map((v) => v.invariant));
    }
    // A shared run still fails a claim that expects otherwise.
    expect(wrong?.pass).toBe(false);
    expect(all?.pass).toBe(true);
    expect(offUnread?.pass).toBe(true);
  });

  it('sameRunUnder: switches the run read must match; others may differ', () => {
    const scenario = parseScenarioText(base, 'f.yaml');
    const run = runScenario(scenario, { fixes: Fixes.all() });
    expect(sameRunUnder(run, Fixes.all())).toBe(true);
    expect(sameRunUnder(run, Fixes.none())).toBe(false);
    const read = run.fixesRead[0];
    expect(read).toBeDefined();
    if (read !== undefined) expect(sameRunUnder(run, Fixes.all().with(read, false))).toBe(false);
  });
});
