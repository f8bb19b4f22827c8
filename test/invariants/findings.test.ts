// Findings: informational invariants are reported apart from violations, never fail a run, and claims
// check them only when they list them.
import { describe, expect, it } from 'vitest';
import { Fixes } from '../../src/fixes.js';
import { resultToJson } from '../../src/report/json.js';
import { checkClaim, runScenario } from '../../src/run/run.js';
import { InputError } from '../../src/scenario/errors.js';
import { parseScenarioText } from '../../src/scenario/load.js';

const shutdown = `name: s
cluster:
  nodes: [{ name: node-a, shutdownGracePeriod: 30s, shutdownGracePeriodCriticalPods: 10s }]
timeline:
  - at: 0s
    createPod: { pod: web, node: node-a, containers: 1 }
  - at: 4s
    shutdownNode: { node: node-a }
`;

describe('findings', () => {
  it('node-shutdown-marked-failed is a finding with #106900 on and absent with it off', () => {
    const s = parseScenarioText(shutdown, 's.yaml');
    const on = runScenario(s, { fixes: Fixes.all() });
    expect(on.violations).toEqual([]);
    expect(on.findings.map((f) => f.invariant)).toEqual(['node-shutdown-marked-failed']);
    expect(resultToJson(on, 0).findings.map((f) => f.invariant)).toEqual(['node-shutdown-marked-failed']);
    expect(resultToJson(on, 0).violations).toEqual([]);
    // From 1.27 TerminatePod marks the finished pod Failed anyway (#115331): off with it for the 1.22.0 shape.
    const off = runScenario(s, {
      fixes: Fixes.all()
        .with('node-shutdown-failed-phase', false)
        .with('status-deletes-finished-pods', false),
    });
    expect(off.findings).toEqual([]);
    const only = runScenario(s, { fixes: Fixes.all().with('node-shutdown-failed-phase', false) });
    expect(only.findings.map((f) => f.invariant)).toEqual(['node-shutdown-marked-failed']);
    // The 1.22.0 regression (#104531) shows as the finding's absence in the 1.23.0 shape of the kubelet;
    // 1.20 marks the pods Failed once its alpha GracefulNodeShutdown gate is on (off by default there).
    expect(runScenario(s, { fixes: Fixes.of('1.20') }).findings.length).toBe(0);
    const gateOn = Fixes.of('1.20').with('graceful-node-shutdown-beta', true);
    expect(runScenario(s, { fixes: gateOn }).findings.length).toBe(1);
  });

  it('a claim checks findings only when it lists them', () => {
    const s = parseScenarioText(
      `${shutdown}claims:\n  - fixes: all\n    violations: []\n  - fixes: {off: [node-shutdown-failed-phase, status-deletes-finished-pods]}\n    violations: []\n    findings: [node-shutdown-marked-failed]\n`,
      's.yaml',
    );
    const [unchecked, wrong] = s.claims.map((c) => checkClaim(s, c));
    expect(unchecked?.pass).toBe(true);
    expect(unchecked?.expectedFindings).toBeNull();
    expect(wrong?.pass).toBe(false);
    expect(wrong?.actualFindings).toEqual([]);
  });

  it('a finding listed under violations is an input error that says where it belongs', () => {
    expect(() =>
      parseScenarioText(
        `${shutdown}claims:\n  - fixes: all\n    violations: [node-shutdown-marked-failed]\n`,
        's.yaml',
      ),
    ).toThrow(InputError);
    try {
      parseScenarioText(
        `${shutdown}claims:\n  - fixes: all\n    violations: [node-shutdown-marked-failed]\n`,
        's.yaml',
      );
    } catch (err) {
      expect(String((err as Error).message)).toBe(
        's.yaml:11:18: claims[0].violations[0]: node-shutdown-marked-failed is a finding, not a violation: list it under findings',
      );
    }
  });
});
