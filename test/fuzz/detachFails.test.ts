// The detach story of the volume chain profile (src/fuzz/profiles.ts ChainDetachDraft): one CSI chain in
// DETACH_FAILS_ONE_IN after the warm-up arms a detach fault on the first pod's node and brings the next
// pod to that node around the detach; every other case is the case it was, draw for draw.
import { describe, expect, it } from 'vitest';
import {
  draftArbitraryAfterWarmUp,
  draftArbitraryBeforeDetachFails,
  scenarioFromDraft,
} from '../../src/fuzz/arbitraries.js';
import { CaseStream } from '../../src/fuzz/caseStream.js';
import { DETACH_FAILS_ONE_IN } from '../../src/fuzz/profiles.js';
import { parseScenarioText, scenarioToYaml } from '../../src/scenario/load.js';

describe('the volume chain profile: the detach story', () => {
  it('turns one CSI chain in DETACH_FAILS_ONE_IN into a detach story and leaves every other case as it was', () => {
    let stories = 0;
    let csiChains = 0;
    for (const seed of [1, 2]) {
      const now = new CaseStream(draftArbitraryAfterWarmUp, seed);
      const before = new CaseStream(draftArbitraryBeforeDetachFails, seed);
      for (let i = 0; i < 1_500; i++) {
        const d = now.valueAt(i);
        const was = before.valueAt(i);
        if (was.profile === 'volumeChain' && was.chain.plugin === 'csi') csiChains++;
        if (d.profile !== 'volumeChain' || (d.chain.detach ?? null) === null) {
          expect(d, `case ${i} of seed ${seed}`).toEqual(was);
          continue;
        }
        stories++;
        expect(was.profile === 'volumeChain' && { ...was.chain, detach: d.chain.detach }).toEqual(d.chain);
        // The story as a scenario: a valid one (it round-trips through the loader), the fault on the first
        // pod's node, the next pod (and its sibling) on the same node after the deletion, never deleted.
        const s = parseScenarioText(scenarioToYaml(scenarioFromDraft(d)), 'detach.yaml');
        expect(s.volumes.map((v) => v.plugin)).toEqual(['csi']);
        const creates = s.timeline.flatMap((e) => (e.action.kind === 'createPod' ? [e] : []));
        const deletes = s.timeline.filter((e) => e.action.kind === 'deletePod');
        const faults = s.timeline.flatMap((e) =>
          e.action.kind === 'fault' && e.action.fault.kind === 'detach' ? [e.action.fault] : [],
        );
        const home = creates[0]?.action.kind === 'createPod' ? creates[0].action.node : '';
        expect(faults).toHaveLength(1);
        expect(faults[0]?.node).toBe(home);
        const last = creates.at(-1);
        expect(last?.action.kind === 'createPod' && last.action.node).toBe(home);
        expect(last?.action.kind === 'createPod' && last.action.pod.startsWith('v1')).toBe(true);
        expect(deletes.every((e) => e.action.kind === 'deletePod' && !e.action.pod.startsWith('v1'))).toBe(
          true,
        );
        expect(last?.atMs).toBeGreaterThan(deletes[0]?.atMs ?? Number.POSITIVE_INFINITY);
      }
    }
    const expected = csiChains / DETACH_FAILS_ONE_IN;
    expect(stories).toBeGreaterThan(expected / 2);
    expect(stories).toBeLessThan(expected * 2);
  });
});
