// The attach-after-restart profile (src/fuzz/attachAfterRestart.ts): its placement is valid for every
// draft, it displaces cases without reshuffling the others (its draws come after every existing one), and
// a campaign's cases hold the shape it exists for: a volume in use, a kubelet restart, its WaitForAttach
// failing from then on for longer than syncPod's WaitForAttachAndMount, and its pod deleted meanwhile.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ATTACH_AFTER_RESTART_ONE_IN,
  draftArbitraryBeforeAttachAfterRestart,
  draftArbitraryBeforePreStop,
  draftArbitraryBeforeRuntimeOutage,
  draftArbitraryBeforeSetUpFailures,
  FUZZ_NODES,
} from '../../src/fuzz/arbitraries.js';
import {
  attachAfterRestartDraft,
  failingCalls,
  placeAttachAfterRestart,
  SETUP_FAILS_ONE_IN,
  WAIT_FOR_ATTACH_AND_MOUNT_MS,
} from '../../src/fuzz/attachAfterRestart.js';
import { CaseStream } from '../../src/fuzz/caseStream.js';
import { scenariosOfCases } from '../../src/fuzz/shrink.js';
import { parseScenarioText, scenarioToYaml } from '../../src/scenario/load.js';
import type { Scenario, WaitForAttachFault } from '../../src/scenario/types.js';

const faultOf = (s: Scenario): WaitForAttachFault | undefined => {
  for (const e of s.timeline)
    if (e.action.kind === 'fault' && e.action.fault.kind === 'waitForAttach') return e.action.fault;
  return undefined;
};
const restartAt = (s: Scenario) => s.timeline.find((e) => e.action.kind === 'restartKubelet')?.atMs;
const ends = (s: Scenario) =>
  s.timeline.filter((e) => ['deletePod', 'forceDeletePod', 'evictPod'].includes(e.action.kind));
const pods = (s: Scenario) => s.timeline.filter((e) => e.action.kind === 'createPod').length;

describe('the attach-after-restart profile', () => {
  it('counts the failing calls of a window under the reconciler back-off (500 ms doubling to 2 min 2 s)', () => {
    expect(failingCalls(0, 0)).toBe(1);
    expect(failingCalls(400, 0)).toBe(1);
    expect(failingCalls(500, 0)).toBe(2);
    // 0, 0.5, 1.5, 3.5, 7.5, 15.5, 31.5, 63.5, 127.5 s: the nine calls of the bundled scenario.
    expect(failingCalls(WAIT_FOR_ATTACH_AND_MOUNT_MS + 5_000, 0)).toBe(9);
    expect(failingCalls(3_000, 10_000)).toBe(1);
    expect(failingCalls(10_500, 10_000)).toBe(2);
  });

  it('places every draft as a valid scenario that survives the writer and the loader', () => {
    fc.assert(
      fc.property(attachAfterRestartDraft, fc.integer({ min: 1, max: FUZZ_NODES.length }), (d, n) => {
        const nodes = FUZZ_NODES.slice(0, n);
        const { entries, volumes } = placeAttachAfterRestart(d, nodes);
        const timeline = [...entries]
          .map((e, seq) => ({ e, seq }))
          .sort((a, b) => a.e.atMs - b.e.atMs || a.seq - b.seq)
          .map(({ e }) => ({ atMs: e.atMs, line: 0, action: e.action }));
        const s: Scenario = {
          file: '',
          name: 'attach-after-restart',
          description: '',
          upstream: [],
          seed: 1,
          horizonMs: 3_600_000,
          nodes,
          volumes,
          timeline,
          claims: [],
        };
        const back = parseScenarioText(scenarioToYaml(s), 'attach-after-restart.yaml');
        expect(back.timeline.map((e) => e.action)).toEqual(timeline.map((e) => e.action));
      }),
      { seed: 7, numRuns: 300 },
    );
  });

  it('leaves every other case as it was: its draws come after all the earlier ones', () => {
    for (const seed of [1, 2]) {
      const now = new CaseStream(draftArbitraryBeforeRuntimeOutage, seed);
      const before = new CaseStream(draftArbitraryBeforeAttachAfterRestart, seed);
      let displaced = 0;
      let eligible = 0;
      for (let i = 0; i < 1_000; i++) {
        const d = now.valueAt(i);
        const was = before.valueAt(i);
        const rare = ['jobs', 'slowStaging', 'slowTearDown'].includes(was.profile);
        if (!rare) eligible++;
        if (d.profile === 'attachAfterRestart') {
          displaced++;
          expect(rare, `case ${i} of seed ${seed}`).toBe(false);
        } else expect(d, `case ${i} of seed ${seed}`).toEqual(was);
      }
      const expected = eligible / ATTACH_AFTER_RESTART_ONE_IN;
      expect(displaced).toBeGreaterThan(expected / 2);
      expect(displaced).toBeLessThan(expected * 2);
    }
  });

  it('fails SetUp instead in one attach-after-restart case in SETUP_FAILS_ONE_IN, and leaves every other case as it was', () => {
    for (const seed of [1, 2]) {
      const now = new CaseStream(draftArbitraryBeforePreStop, seed);
      const before = new CaseStream(draftArbitraryBeforeSetUpFailures, seed);
      let attach = 0;
      let setUp = 0;
      for (let i = 0; i < 3_000; i++) {
        const d = now.valueAt(i);
        const was = before.valueAt(i);
        if (was.profile === 'attachAfterRestart') attach++;
        if (d.profile === 'attachAfterRestart' && d.attach.failingCall === 'setUp') {
          setUp++;
          expect(was.profile === 'attachAfterRestart' && { ...was.attach, failingCall: 'setUp' }).toEqual(
            d.attach,
          );
        } else expect(d, `case ${i} of seed ${seed}`).toEqual(was);
      }
      expect(setUp).toBeGreaterThan(attach / SETUP_FAILS_ONE_IN / 2);
      expect(setUp).toBeLessThan((attach / SETUP_FAILS_ONE_IN) * 2);
    }
    // Only a CSI volume's SetUp fails: an FC or iSCSI pod dir still mounted never reaches its mount.
    const d = fc.sample(attachAfterRestartDraft, { seed: 3, numRuns: 200 });
    for (const draft of d) {
      const faults = placeAttachAfterRestart({ ...draft, failingCall: 'setUp' }, ['node-a']).entries.flatMap(
        (e) => (e.action.kind === 'fault' ? [e.action.fault.kind] : []),
      );
      expect(faults).toEqual([draft.plugin === 'csi' ? 'setUp' : 'waitForAttach']);
    }
  });

  it("gives a campaign's first 3,000 cases the shape: failures past WaitForAttachAndMount, the pod deleted meanwhile", () => {
    const cases = scenariosOfCases(
      1,
      Array.from({ length: 3_000 }, (_, i) => i),
    ).filter((s) => faultOf(s) !== undefined);
    const shaped = cases.filter((s) => {
      const f = faultOf(s) as WaitForAttachFault;
      const at = restartAt(s) ?? 0;
      return (
        f.times >= 9 &&
        pods(s) === 1 &&
        ends(s).some((e) => e.atMs > at && e.atMs < at + WAIT_FOR_ATTACH_AND_MOUNT_MS)
      );
    });
    expect(shaped.length).toBeGreaterThan(10);
    expect(cases.some((s) => ends(s).some((e) => e.action.kind === 'forceDeletePod'))).toBe(true);
    expect(cases.some((s) => s.volumes[0]?.mode === 'Block')).toBe(true);
    expect(cases.some((s) => pods(s) === 2)).toBe(true);
    for (const s of cases) {
      const last = s.timeline.at(-1)?.atMs ?? 0;
      expect(s.horizonMs).toBeGreaterThan(last + WAIT_FOR_ATTACH_AND_MOUNT_MS);
    }
  });
});
