// A find that is a known-open upstream hazard is written as `hazard-<invariant>-<seed>-<case>.yaml`: a
// campaign that passes (hazards do not fail it) writes no file named like a failure.
import { describe, expect, it } from 'vitest';
import { Fixes } from '../../src/fixes.js';
import { failureFileName, minimalFailure } from '../../src/fuzz/campaign.js';

describe('the file of a known-open hazard', () => {
  it('is named hazard-..., and its description names the hazard', async () => {
    // Case 15 of seed 1 with every fix on: a static pod's orphan runs beside its successor (#112814).
    const f = await minimalFailure(1, 15, Fixes.all(), 'static-pod-overlap', { shrinkRuns: 20 });
    expect(f.reproduces).toBe(true);
    expect(f.run.ok && f.run.result.violations.every((v) => v.knownOpen !== undefined)).toBe(true);
    expect(f.fileName).toBe('hazard-static-pod-overlap-1-15.yaml');
    expect(f.scenario.name).toBe('hazard-static-pod-overlap-1-15');
    expect(f.scenario.description).toContain(
      'static-pod-overlap fires, the known-open upstream hazard static-pod-orphan-after-restart.',
    );
  });

  it('keeps the plain name for any other find', () => {
    expect(failureFileName('concurrent-kill', 3, 9)).toBe('concurrent-kill-3-9.yaml');
    expect(failureFileName('simulator-error', 3, 9)).toBe('simulator-error-3-9.yaml');
    expect(failureFileName('concurrent-kill', 3, 9, true)).toBe('hazard-concurrent-kill-3-9.yaml');
  });
});
