// The differential oracle: which single switch flip closes a violation, for the fuzzer and run --bisect.
import { describe, expect, it } from 'vitest';
import { Fixes } from '../../src/fixes.js';
import type { CaseLine, FailureLine } from '../../src/fuzz/campaignJson.js';
import { campaignExitCode } from '../../src/fuzz/campaignJson.js';
import { closingSwitches, flippableSwitches, isFixSensitive } from '../../src/fuzz/oracle.js';
import { loadScenarioFile } from '../../src/scenario/load.js';

describe('closingSwitches', () => {
  it('the title race of #102344: with every fix off, turning pod-worker-lifecycle on closes it', () => {
    const s = loadScenarioFile('scenarios/pod-deleted-before-start.yaml');
    const { closedBy, flips } = closingSwitches(s, Fixes.none(), ['container-started-after-terminated']);
    expect(closedBy['container-started-after-terminated']).toEqual(['pod-worker-lifecycle']);
    expect(flips.find((f) => f.fix === 'pod-worker-lifecycle')?.on).toBe(true);
    expect(isFixSensitive(closedBy)).toBe(true);
  });

  it('the 1.23 force detach is closed by #110721 alone', () => {
    const s = loadScenarioFile('scenarios/fc-force-detach-healthy-node.yaml');
    const { closedBy } = closingSwitches(s, Fixes.of('1.23'), ['multi-node-mount']);
    expect(closedBy['multi-node-mount']).toEqual(['no-force-detach-healthy-node']);
  });

  it('#101791, still open: no switch closes it, so the find is not fix-sensitive', () => {
    const s = loadScenarioFile('scenarios/reconstruct-fails-other-error.yaml');
    const { closedBy } = closingSwitches(s, Fixes.all(), ['multi-node-mount']);
    expect(closedBy['multi-node-mount']).toEqual([]);
    expect(isFixSensitive(closedBy)).toBe(false);
  });

  it('switches without code in the fix set are not flipped (1.20 paths with the new pod worker, and back)', () => {
    expect(flippableSwitches(Fixes.all())).not.toContain('mirror-pod-pending-termination');
    expect(flippableSwitches(Fixes.all())).toContain('static-pod-start-exclusion');
    expect(flippableSwitches(Fixes.none())).toContain('mirror-pod-pending-termination');
    expect(flippableSwitches(Fixes.none())).not.toContain('unstarted-static-pod-terminated');
  });
});

describe('the campaign exit code (the CI gate)', () => {
  const line = (
    fired: CaseLine['fired'],
    knownOpen: CaseLine['knownOpen'],
    outcome: CaseLine['outcome'] = 'horizon',
  ): CaseLine => ({ fired, knownOpen, closedBy: null, outcome }) as unknown as CaseLine;
  const none: FailureLine[] = [];
  it('0 when every find is a known-open hazard, 1 with --strict or anything unexplained', () => {
    const known = [line(['termination-stuck'], ['termination-stuck'])];
    expect(campaignExitCode(known, none, false, 10)).toBe(0);
    expect(campaignExitCode(known, none, true, 10)).toBe(1);
    expect(campaignExitCode([...known, line(['multi-node-mount'], [])], none, false, 10)).toBe(1);
    expect(campaignExitCode([], none, true, 10)).toBe(0);
  });

  it('never 0 for a campaign that checked nothing: no case ran, or a case was cut short by its budget', () => {
    expect(campaignExitCode([], none, false, 0)).toBe(1);
    expect(campaignExitCode([line([], [], 'max-events')], none, false, 10)).toBe(1);
  });
});
