// A campaign under a release preset judges known-open hazards as that release: the preset's name reaches
// the worker's fix set (WorkerSetup.base), so a hazard upstream fixed in that release or before excuses
// nothing there (src/invariants/hazards.ts fixedIn), and a hazard whose fix is a switch excuses what it
// explains exactly while that switch is off (fixedBy), whatever the set is named.
import { describe, expect, it } from 'vitest';
import { FIX_IDS, Fixes } from '../../src/fixes.js';
import { runCaseChunk } from '../../src/fuzz/campaign.js';

describe('fuzz under a release preset', () => {
  it('case 113 of seed 1: remove-before-sources-ready excuses termination-stuck under 1.26; 1.27 (#113145) has no such violation', () => {
    const run = (kubelet: '1.26' | '1.31' | undefined) => {
      const fixes = kubelet === undefined ? Fixes.all() : Fixes.of(kubelet);
      const ids = FIX_IDS.filter((id) => fixes.on(id));
      return runCaseChunk({ seed: 1, fixes: ids, base: kubelet, oracle: false }, [113])[0];
    };
    expect(run('1.26')?.knownOpen).toContain('termination-stuck');
    expect(run('1.31')?.fired ?? []).not.toContain('termination-stuck');
    expect(run(undefined)?.fired ?? []).not.toContain('termination-stuck');
  });

  it('case 113 under 1.31 with orphan-pod-worker-terminates off: the hazard excuses it (the switch, not the name, closes it)', () => {
    const ids = FIX_IDS.filter((id) => Fixes.of('1.31').on(id) && id !== 'orphan-pod-worker-terminates');
    const r = runCaseChunk({ seed: 1, fixes: ids, base: '1.31', oracle: false }, [113])[0];
    expect(r?.knownOpen).toContain('termination-stuck');
  });
});
