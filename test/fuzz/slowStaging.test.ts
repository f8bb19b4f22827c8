// The slow-staging profile (src/fuzz/slowStaging.ts): its placement is valid for every draft, it was added
// without changing any other case (its draws come after every existing one), and a campaign's cases now
// hold what issue #22's survivor vm-unmount-device-while-mounting needs and no other profile builds: a
// MountDevice slower than syncPod's WaitForAttachAndMount with the pod deleted while it runs (often with its
// replacement on another node), and CSI stagings that fail final, uncertain, or past the 2 min deadline.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  draftArbitraryBeforeSlowStaging,
  draftArbitraryBeforeSlowTearDown,
  FUZZ_NODES,
  SLOW_STAGING_ONE_IN,
} from '../../src/fuzz/arbitraries.js';
import { CaseStream } from '../../src/fuzz/caseStream.js';
import { scenariosOfCases } from '../../src/fuzz/shrink.js';
import { placeSlowStaging, STAGING_STARTS_AFTER_MS, slowStagingDraft } from '../../src/fuzz/slowStaging.js';
import { parseScenarioText, scenarioToYaml } from '../../src/scenario/load.js';
import type { MountDeviceFault, Scenario } from '../../src/scenario/types.js';
import { CSI_TIMEOUT_MS } from '../../src/volume/stagingFault.js';

/** syncPod's WaitForAttachAndMount timeout (volume_manager.go podAttachAndMountTimeout). */
const WAIT_FOR_ATTACH_AND_MOUNT_MS = 123_000;

const stagingOf = (s: Scenario): MountDeviceFault | undefined => {
  for (const e of s.timeline)
    if (e.action.kind === 'fault' && e.action.fault.kind === 'mountDevice') return e.action.fault;
  return undefined;
};
const plugin = (s: Scenario) => s.volumes[0]?.plugin;

const SHAPES = {
  'a staging that outlives WaitForAttachAndMount, the pod deleted while it runs': (s: Scenario) => {
    const f = stagingOf(s);
    if (f === undefined || f.delayMs === null) return false;
    const endsAt = STAGING_STARTS_AFTER_MS + f.delayMs;
    return (
      f.delayMs > WAIT_FOR_ATTACH_AND_MOUNT_MS - STAGING_STARTS_AFTER_MS &&
      s.timeline.some((e) => e.action.kind === 'deletePod' && e.atMs < endsAt)
    );
  },
  'the replacement on another node while the first one stages': (s: Scenario) => {
    const creates = s.timeline.flatMap((e) => (e.action.kind === 'createPod' ? [e.action] : []));
    return stagingOf(s) !== undefined && creates.length === 2 && creates[0]?.node !== creates[1]?.node;
  },
  'an fc or iscsi staging that fails': (s: Scenario) =>
    stagingOf(s)?.error === 'final' && plugin(s) !== 'csi',
  'a csi staging past its 2 min deadline': (s: Scenario) =>
    plugin(s) === 'csi' && (stagingOf(s)?.delayMs ?? 0) >= CSI_TIMEOUT_MS,
  'a csi staging whose answer is lost': (s: Scenario) => stagingOf(s)?.error === 'uncertain',
  'a csi Block volume staging': (s: Scenario) => stagingOf(s) !== undefined && s.volumes[0]?.mode === 'Block',
  'a kubelet restart in a slow staging case': (s: Scenario) =>
    stagingOf(s) !== undefined && s.timeline.some((e) => e.action.kind === 'restartKubelet'),
} as const;

describe('the slow-staging profile', () => {
  it('places every draft as a valid scenario that survives the writer and the loader', () => {
    fc.assert(
      fc.property(slowStagingDraft, fc.integer({ min: 1, max: FUZZ_NODES.length }), (d, n) => {
        const nodes = FUZZ_NODES.slice(0, Math.max(n, d.recreate?.otherNode === true ? 2 : 1));
        const { entries, volumes } = placeSlowStaging(d, nodes);
        const timeline = [...entries]
          .map((e, seq) => ({ e, seq }))
          .sort((a, b) => a.e.atMs - b.e.atMs || a.seq - b.seq)
          .map(({ e }) => ({ atMs: e.atMs, line: 0, action: e.action }));
        const s: Scenario = {
          file: '',
          name: 'slow-staging',
          description: '',
          upstream: [],
          seed: 1,
          horizonMs: 3_600_000,
          nodes,
          volumes,
          timeline,
          claims: [],
        };
        const back = parseScenarioText(scenarioToYaml(s), 'slow-staging.yaml');
        expect(back.timeline.map((e) => e.action)).toEqual(timeline.map((e) => e.action));
      }),
      { seed: 7, numRuns: 300 },
    );
  });

  it('leaves every other case as it was: its draws come after all the earlier ones', () => {
    for (const seed of [1, 2]) {
      // The generator the slow-staging profile made (the slow-teardown one displaces more cases after it).
      const now = new CaseStream(draftArbitraryBeforeSlowTearDown, seed);
      const before = new CaseStream(draftArbitraryBeforeSlowStaging, seed);
      let slow = 0;
      let jobs = 0;
      for (let i = 0; i < 1_000; i++) {
        const d = now.valueAt(i);
        const was = before.valueAt(i);
        if (was.profile === 'jobs') jobs++;
        if (d.profile === 'slowStaging') {
          slow++;
          expect(was.profile, `case ${i} of seed ${seed}`).not.toBe('jobs');
        } else expect(d, `case ${i} of seed ${seed}`).toEqual(was);
      }
      // One in SLOW_STAGING_ONE_IN of the cases that are not jobs cases, give or take.
      const expected = (1_000 - jobs) / SLOW_STAGING_ONE_IN;
      expect(slow).toBeGreaterThan(expected / 2);
      expect(slow).toBeLessThan(expected * 2);
    }
  });

  it("gives a campaign's first 3,000 cases each shape", () => {
    const cases = scenariosOfCases(
      1,
      Array.from({ length: 3_000 }, (_, i) => i),
    );
    for (const [name, has] of Object.entries(SHAPES))
      expect(cases.filter((s) => has(s)).length, name).toBeGreaterThan(0);
  });

  it('gives the case time for the staging and its clean-up after its last action', () => {
    const cases = scenariosOfCases(
      2,
      Array.from({ length: 1_500 }, (_, i) => i),
    ).filter((s) => stagingOf(s) !== undefined);
    expect(cases.length).toBeGreaterThan(0);
    for (const s of cases) {
      const f = stagingOf(s) as MountDeviceFault;
      expect(s.horizonMs).toBeGreaterThan(STAGING_STARTS_AFTER_MS + (f.delayMs ?? 0) * f.times);
    }
  });
});
