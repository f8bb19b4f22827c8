// Cause to effect: a violation's causes, each failed operation after the fault that failed it, ending at
// the violation; in the Chrome trace as flow events bound to slices of their own.
import { describe, expect, it } from 'vitest';
import type { Fact } from '../../src/facts.js';
import { Fixes } from '../../src/fixes.js';
import type { Violation } from '../../src/invariants/types.js';
import { actionWindow } from '../../src/report/actionWindow.js';
import { toChromeTrace } from '../../src/report/chromeTrace.js';
import { buildTimeline } from '../../src/report/spans.js';
import { runScenario } from '../../src/run/run.js';
import { loadScenarioFile } from '../../src/scenario/load.js';
import { fact, sampleResult } from './fixtures.js';

const p = { pod: 'web', uid: 'web-1' };

function chain(faultAtMs: number): { facts: Fact[]; v: Violation } {
  const failed = fact('unmountDevice', 1000, { volume: 'data', ok: false });
  const bind = fact('bindMountOfUnmountedGlobalPath', 1500, { ...p, volume: 'data' });
  const facts: Fact[] = [
    fact('kubeletStarted', 0, {}),
    fact('faultInjected', faultAtMs, { fault: 'unmountDevice/afterUnmount', volume: 'data' }),
    // A fault of another volume is not this failure's.
    fact('faultInjected', 999, { fault: 'unmountDevice/afterUnmount', volume: 'other' }),
    failed,
    bind,
  ];
  const v: Violation = {
    invariant: 'mount-device-skipped-after-failure',
    atMs: 1500,
    node: 'node-a',
    ...p,
    volume: 'data',
    message: 'skipped',
    causes: [failed, bind],
  };
  return { facts, v };
}

describe('cause-to-effect flows', () => {
  it('put the fault before the operation it failed, and end at the violation', () => {
    const { facts, v } = chain(1000);
    const t = buildTimeline(sampleResult({ facts, violations: [v], virtualTimeMs: 2000 }));
    expect(t.flows).toHaveLength(1);
    expect(t.flows[0]?.steps.map((s) => [s.atMs, s.name])).toEqual([
      [1000, 'volume data faultInjected unmountDevice/afterUnmount'],
      [1000, 'volume data unmountDevice FAILED'],
      [1500, 'pod web bindMountOfUnmountedGlobalPath data'],
      [1500, 'VIOLATION mount-device-skipped-after-failure'],
    ]);
    const labels = new Map(t.tracks.map((tr) => [tr.id, tr.label]));
    expect(t.flows[0]?.steps.map((s) => labels.get(s.track))).toEqual([
      'faults',
      'device data: kubelet (actual state)',
      'pod web (web-1) volume data: kubelet',
      'pod web (web-1) worker',
    ]);
  });

  it('leave out a fault too long before the failure to have made it', () => {
    const { facts, v } = chain(-6000 + 1000);
    const t = buildTimeline(sampleResult({ facts, violations: [v], virtualTimeMs: 2000 }));
    expect(t.flows[0]?.steps.map((s) => s.name)[0]).toBe('volume data unmountDevice FAILED');
  });

  it('are flow events in the trace: one zero-length slice per step, in order, tied by bind_id', () => {
    const r = runScenario(loadScenarioFile('scenarios/csi-nodeunstage-timeout.yaml'), {
      fixes: Fixes.none(),
      seed: 1,
      recordFacts: true,
    });
    const events = (JSON.parse(toChromeTrace(r)) as { traceEvents: Record<string, unknown>[] }).traceEvents;
    const flow = events.filter((e) => e['cat'] === 'flow');
    expect(flow.length).toBeGreaterThanOrEqual(4);
    expect(flow.map((e) => (e['args'] as Record<string, number>)['step'])).toEqual(flow.map((_, i) => i + 1));
    for (const [i, e] of flow.entries()) {
      expect(e).toMatchObject({ ph: 'X', dur: 0, bind_id: 1 });
      expect(e['flow_in'] === true).toBe(i > 0);
      expect(e['flow_out'] === true).toBe(i < flow.length - 1);
    }
    expect(flow[0]?.['name']).toBe('volume vol-1 mountDevice');
    expect(flow.at(-1)?.['name']).toBe('VIOLATION mount-device-skipped-after-failure');
    expect(flow.some((e) => e['name'] === 'volume vol-1 faultInjected unmountDevice/afterUnmount')).toBe(
      true,
    );
  });
});

describe('actionWindow', () => {
  it('spans the first to the last thing that happened, with a margin, not the idle tail', () => {
    const facts = [
      fact('kubeletStarted', 1000, {}),
      fact('containerStarted', 5000, { ...p, container: 'app' }),
      fact('nodeVolumesInUse', 90_000, { volumes: [] }),
      fact('procMountsRead', 95_000, { purpose: 'List', attempts: 1, consistent: true }),
      fact('actionNoop', 100_000, { action: 'fault', line: 3, reason: 'it never fired' }),
    ];
    expect(actionWindow(facts, [], 100_000)).toEqual({ startMs: 750, endMs: 5250 });
  });

  it('takes violations found during the run, not a liveness check reported at its end', () => {
    const facts = [fact('kubeletStarted', 0, {})];
    const at = (atMs: number): Violation => ({ ...chain(0).v, atMs });
    expect(actionWindow(facts, [at(20_000), at(100_000)], 100_000)).toEqual({ startMs: 0, endMs: 21_000 });
  });

  it('is the whole run when nothing happened', () => {
    expect(actionWindow([fact('nodeVolumesInUse', 5, { volumes: [] })], [], 3000)).toEqual({
      startMs: 0,
      endMs: 3000,
    });
  });
});
