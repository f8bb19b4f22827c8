// The slow-teardown profile (src/fuzz/slowTearDown.ts): its placement is valid for every draft, a
// campaign's cases hold the shape it exists for (a volume in use whose pod goes while its TearDown hangs
// past syncTerminatedPod's 2 min WaitForUnmount), and it displaces cases without reshuffling the others.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  draftArbitraryBeforeCrashLoops,
  draftArbitraryBeforeSlowTearDown,
  FUZZ_NODES,
  SLOW_TEARDOWN_ONE_IN,
} from '../../src/fuzz/arbitraries.js';
import { CaseStream } from '../../src/fuzz/caseStream.js';
import { scenariosOfCases } from '../../src/fuzz/shrink.js';
import {
  placeSlowTearDown,
  slowTearDownDraft,
  VOLUME_IN_USE_BY_MS,
  WAIT_FOR_UNMOUNT_MS,
} from '../../src/fuzz/slowTearDown.js';
import { parseScenarioText, scenarioToYaml } from '../../src/scenario/load.js';
import type { Scenario, TearDownFault } from '../../src/scenario/types.js';

const hangOf = (s: Scenario): TearDownFault | undefined => {
  for (const e of s.timeline)
    if (e.action.kind === 'fault' && e.action.fault.kind === 'tearDown' && e.action.fault.delayMs !== null)
      return e.action.fault;
  return undefined;
};
const ends = (s: Scenario) =>
  s.timeline.filter((e) => ['deletePod', 'forceDeletePod', 'evictPod'].includes(e.action.kind));

const SHAPES = {
  'a TearDown hanging past WaitForUnmount, the pod gone after its volume is in use': (s: Scenario) =>
    (hangOf(s)?.delayMs ?? 0) > WAIT_FOR_UNMOUNT_MS && ends(s).some((e) => e.atMs >= VOLUME_IN_USE_BY_MS),
  'a Block volume whose unmap hangs': (s: Scenario) =>
    hangOf(s) !== undefined && s.volumes[0]?.mode === 'Block',
  'the replacement on another node while the TearDown hangs': (s: Scenario) => {
    const creates = s.timeline.flatMap((e) => (e.action.kind === 'createPod' ? [e.action] : []));
    return hangOf(s) !== undefined && creates.length === 2 && creates[0]?.node !== creates[1]?.node;
  },
  'a kubelet restart in a slow-teardown case': (s: Scenario) =>
    hangOf(s) !== undefined && s.timeline.some((e) => e.action.kind === 'restartKubelet'),
} as const;

describe('the slow-teardown profile', () => {
  it('places every draft as a valid scenario that survives the writer and the loader', () => {
    fc.assert(
      fc.property(slowTearDownDraft, fc.integer({ min: 1, max: FUZZ_NODES.length }), (d, n) => {
        const nodes = FUZZ_NODES.slice(0, Math.max(n, d.recreate?.otherNode === true ? 2 : 1));
        const { entries, volumes } = placeSlowTearDown(d, nodes);
        const timeline = [...entries]
          .map((e, seq) => ({ e, seq }))
          .sort((a, b) => a.e.atMs - b.e.atMs || a.seq - b.seq)
          .map(({ e }) => ({ atMs: e.atMs, line: 0, action: e.action }));
        const s: Scenario = {
          file: '',
          name: 'slow-teardown',
          description: '',
          upstream: [],
          seed: 1,
          horizonMs: 3_600_000,
          nodes,
          volumes,
          timeline,
          claims: [],
        };
        const back = parseScenarioText(scenarioToYaml(s), 'slow-teardown.yaml');
        expect(back.timeline.map((e) => e.action)).toEqual(timeline.map((e) => e.action));
      }),
      { seed: 7, numRuns: 300 },
    );
  });

  it('leaves every other case as it was: its draws come after all the earlier ones', () => {
    for (const seed of [1, 2]) {
      const now = new CaseStream(draftArbitraryBeforeCrashLoops, seed);
      const before = new CaseStream(draftArbitraryBeforeSlowTearDown, seed);
      let displaced = 0;
      let eligible = 0;
      for (let i = 0; i < 1_000; i++) {
        const d = now.valueAt(i);
        const was = before.valueAt(i);
        if (was.profile !== 'jobs' && was.profile !== 'slowStaging') eligible++;
        if (d.profile === 'slowTearDown') {
          displaced++;
          expect(was.profile, `case ${i} of seed ${seed}`).not.toBe('jobs');
          expect(was.profile, `case ${i} of seed ${seed}`).not.toBe('slowStaging');
        } else expect(d, `case ${i} of seed ${seed}`).toEqual(was);
      }
      const expected = eligible / SLOW_TEARDOWN_ONE_IN;
      expect(displaced).toBeGreaterThan(expected / 2);
      expect(displaced).toBeLessThan(expected * 2);
    }
  });

  it("gives a campaign's first 3,000 cases each shape, with time for the hangs after the last action", () => {
    const cases = scenariosOfCases(
      1,
      Array.from({ length: 3_000 }, (_, i) => i),
    );
    for (const [name, has] of Object.entries(SHAPES))
      expect(cases.filter((s) => has(s)).length, name).toBeGreaterThan(0);
    for (const s of cases.filter((c) => hangOf(c) !== undefined)) {
      const f = hangOf(s) as TearDownFault;
      const last = s.timeline.at(-1)?.atMs ?? 0;
      expect(s.horizonMs).toBeGreaterThan(last + (f.delayMs ?? 0) * f.times);
    }
  });
});
