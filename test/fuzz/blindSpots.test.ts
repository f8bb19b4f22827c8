// The fixed kubelet's CI gate cannot see seven switches (docs/fuzzing.md, "What the gate cannot see"):
// each is guarded by a pair of bundled claims that differ in that switch and expect different violations.
// This test keeps the documented pairs true, so removing one of them (or changing its expectation to the
// other's) turns it red.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FixId } from '../../src/fixes.js';
import { bundledScenariosDir } from '../../src/scenario/bundled.js';
import { loadScenarioFile } from '../../src/scenario/load.js';
import { fixesOfClaim } from '../../src/scenario/types.js';
import { readDoc } from '../docs/docText.js';

const GUARDS: ReadonlyArray<readonly [FixId, readonly string[]]> = [
  ['block-volume-stats', ['block-metrics-nil-provider']],
  ['graceful-node-shutdown-beta', ['node-shutdown-marks-failed']],
  [
    'mirror-pod-pending-termination',
    ['static-pod-uid-reuse', 'static-pod-replaced-before-stop', 'static-pod-rapid-updates'],
  ],
  ['dsw-terminating-pvc-protected', ['terminating-pvc-kubelet-restart']],
  ['status-deletes-finished-pods', ['rejected-pod-deleted-during-restart']],
  ['reconstructed-device-stays-uncertain', ['reconstructed-device-mount-fails']],
  ['zero-request-fits', ['zero-cpu-request-overcommitted']],
];

describe("the gate's blind spots are guarded by bundled claims", () => {
  it.each(GUARDS)('%s: a claim pair differing in it expects different violations', (fix, scenarios) => {
    for (const name of scenarios) {
      const scenario = loadScenarioFile(join(bundledScenariosDir(), `${name}.yaml`));
      const claims = scenario.claims.map((c) => ({
        on: fixesOfClaim(c.fixes).on(fix),
        violations: [...c.violations].sort().join(','),
      }));
      const pair = claims.some((a) => claims.some((b) => a.on && !b.on && a.violations !== b.violations));
      expect(pair, `${name} has no claim pair that tells ${fix} on from off`).toBe(true);
    }
  });

  it('docs/fuzzing.md names each switch and its scenarios', () => {
    const doc = readDoc('docs/fuzzing.md');
    for (const [fix, scenarios] of GUARDS) {
      const row = doc.split('\n').find((l) => l.startsWith(`| \`${fix}\``));
      expect(row, fix).toBeDefined();
      for (const s of scenarios) expect(row).toContain(`\`${s}\``);
    }
  });
});
