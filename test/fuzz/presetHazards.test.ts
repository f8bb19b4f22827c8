// A campaign under a release preset judges known-open hazards as that release: the preset's name reaches
// the worker's fix set (WorkerSetup.base), so a hazard upstream fixed in that release or before excuses
// nothing there (src/invariants/hazards.ts fixedIn).
import { describe, expect, it } from 'vitest';
import { FIX_IDS, Fixes } from '../../src/fixes.js';
import { runCaseChunk } from '../../src/fuzz/campaign.js';

describe('fuzz under a release preset', () => {
  it('case 113 of seed 1: remove-before-sources-ready (#113145, 1.27) excuses termination-stuck under 1.26, not 1.31', () => {
    const ids = FIX_IDS.filter((id) => Fixes.all().on(id));
    const knownOpen = (base: '1.26' | '1.31' | undefined) =>
      runCaseChunk({ seed: 1, fixes: ids, base, oracle: false }, [113])[0]?.knownOpen ?? [];
    expect(knownOpen('1.26')).toContain('termination-stuck');
    expect(knownOpen(undefined)).toContain('termination-stuck');
    expect(knownOpen('1.31')).not.toContain('termination-stuck');
  });
});
