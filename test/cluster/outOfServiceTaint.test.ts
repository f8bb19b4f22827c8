// The out-of-service taint of non-graceful node shutdown (KEP-2268) end to end: the timeline action, the
// release gate the loader and the world hold it to (src/controllerManagerGates.ts), and what the attach/
// detach controller does with it in the two bundled scenarios, against the same timelines without it.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Fact } from '../../src/facts.js';
import { Fixes } from '../../src/fixes.js';
import { runScenario } from '../../src/run/run.js';
import { bundledScenariosDir } from '../../src/scenario/bundled.js';
import { InputError } from '../../src/scenario/errors.js';
import { loadScenarioFile, parseScenarioText } from '../../src/scenario/load.js';
import type { Scenario } from '../../src/scenario/types.js';
import { stripSourcePositions } from '../../src/scenario/types.js';
import { scenarioToYaml } from '../../src/scenario/write.js';

const bundled = (name: string): Scenario => loadScenarioFile(join(bundledScenariosDir(), `${name}.yaml`));
const withoutTaint = (s: Scenario): Scenario => ({
  ...s,
  timeline: s.timeline.filter((e) => e.action.kind !== 'outOfServiceTaint'),
});
const facts = (s: Scenario, fixes = Fixes.all()) => {
  const r = runScenario(s, { fixes, recordFacts: true });
  return { facts: (r.facts ?? []) as readonly Fact[], violations: r.violations.map((v) => v.invariant) };
};
const detachStarts = (fs: readonly Fact[]) =>
  fs.filter((f): f is Extract<Fact, { kind: 'volumeDetachStarted' }> => f.kind === 'volumeDetachStarted');

describe('outOfServiceTaint', () => {
  it('round-trips through the writer, remove: true included', () => {
    const text =
      "name: t\ncluster:\n  nodes: [node-a]\ntimeline:\n  - at: 1s\n    outOfServiceTaint: {node: node-a}\n  - at: 2s\n    outOfServiceTaint: {node: node-a, remove: true}\nclaims:\n  - kubelet: '1.26'\n    violations: []\n";
    const s = parseScenarioText(text, 't.yaml');
    expect(s.timeline.map((e) => e.action)).toEqual([
      { kind: 'outOfServiceTaint', node: 'node-a', remove: false },
      { kind: 'outOfServiceTaint', node: 'node-a', remove: true },
    ]);
    expect(s.timeline[0]?.col).toBe(24);
    expect(stripSourcePositions(parseScenarioText(scenarioToYaml(s), 'u.yaml'))).toEqual({
      ...stripSourcePositions(s),
      file: '',
    });
  });

  it('is refused under a release whose NodeOutOfServiceVolumeDetach gate is off by default, at the entry', () => {
    const s = bundled('out-of-service-taint-on-running-node');
    for (const kubelet of ['1.25', '1.24', '1.23', 'legacy'] as const) {
      const run = () => runScenario(s, { fixes: Fixes.of(kubelet) });
      expect(run).toThrow(InputError);
      expect(run).toThrow(
        /out-of-service-taint-on-running-node\.yaml:\d+:24: timeline\[2\]\.outOfServiceTaint: /,
      );
    }
    expect(() => runScenario(s, { fixes: Fixes.of('1.26') })).not.toThrow();
  });

  it('a taint already set, or removed when absent, is an actionNoop', () => {
    const text =
      'name: t\ncluster:\n  nodes: [node-a]\ntimeline:\n  - at: 1s\n    outOfServiceTaint: {node: node-a, remove: true}\n  - at: 2s\n    outOfServiceTaint: {node: node-a}\n  - at: 3s\n    outOfServiceTaint: {node: node-a}\n';
    const { facts: fs } = facts(parseScenarioText(text, 't.yaml'));
    expect(fs.filter((f) => f.kind === 'actionNoop').map((f) => f.atMs)).toEqual([1_000, 3_000]);
    expect(fs.filter((f) => f.kind === 'nodeTainted').map((f) => f.atMs)).toEqual([2_000]);
  });

  it('on a node that still runs its pod: detached at once, and the replacement corrupts the LUN (multi-node-mount)', () => {
    const s = bundled('out-of-service-taint-on-running-node');
    const tainted = facts(s);
    expect(tainted.violations).toEqual(['multi-node-mount']);
    const [start] = detachStarts(tainted.facts);
    // Right after pod GC's force deletion (140 s), without the safe-to-detach check.
    expect(start).toMatchObject({
      node: 'node-a',
      forced: true,
      verifySafeToDetach: false,
      outOfService: true,
    });
    expect(start?.atMs).toBeLessThan(141_000);
    expect(tainted.facts.some((f) => f.kind === 'forceDetachUnhealthyNode')).toBe(false);
    // Without the taint node-a keeps lun-1 until maxWaitForUnmountDuration (6 min after 140 s) passed: the
    // replacement waits with a Multi-Attach error, and its mount comes after node-a's kubelet, back from
    // the partition (330 s), has unmounted it. Nothing fires.
    const untainted = facts(withoutTaint(s));
    expect(untainted.violations).toEqual([]);
    expect(untainted.facts.some((f) => f.kind === 'multiAttachError')).toBe(true);
    expect(detachStarts(untainted.facts).every((f) => f.outOfService === undefined)).toBe(true);
  });

  it('after the node is shut down: detached at once, and nothing fires', () => {
    const s = bundled('out-of-service-taint-after-shutdown');
    const tainted = facts(s);
    expect(tainted.violations).toEqual([]);
    expect(detachStarts(tainted.facts)[0]).toMatchObject({ outOfService: true });
    const mountB = (fs: readonly Fact[]) =>
      fs.find((f) => f.kind === 'mountDevice' && f.node === 'node-b' && f.ok)?.atMs ?? Number.NaN;
    expect(mountB(tainted.facts)).toBeLessThan(170_000);
    // Without it the replacement waits for the force detach of maxWaitForUnmountDuration or for node-a's
    // kubelet to report lun-1 unused once the partition heals: minutes later.
    expect(mountB(facts(withoutTaint(s)).facts)).toBeGreaterThan(330_000);
  });
});
