// The admission profile (src/fuzz/admission.ts): its placement is valid for every draft (node labels,
// allocatable, requests, nodeSelector and deletePvc included), it displaces cases without reshuffling the
// others (its draws come after every existing one), and a campaign's cases hold each plot's shape: a
// completed pod and one that fits only beside nothing else across a restart, a rejected pod followed at
// once by one that fits only if the rejected one is not counted (some asking for no cpu), a pod the
// restarted kubelet rejects that was deleted while it was down, a claim deleted under a running pod
// across a restart.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ADMISSION_PLOTS, admissionDraft } from '../../src/fuzz/admission.js';
import {
  ADMISSION_ONE_IN,
  draftArbitraryBeforeAdmission,
  draftArbitraryBeforeDetachFails,
  FUZZ_NODES,
  scenarioFromDraft,
} from '../../src/fuzz/arbitraries.js';
import { CaseStream } from '../../src/fuzz/caseStream.js';
import { scenariosOfCases } from '../../src/fuzz/shrink.js';
import { parseScenarioText, scenarioToYaml } from '../../src/scenario/load.js';
import type { CreatePodAction, Scenario } from '../../src/scenario/types.js';

const creates = (s: Scenario): CreatePodAction[] =>
  s.timeline.flatMap((e) => (e.action.kind === 'createPod' ? [e.action] : []));
const cpuOf = (c: CreatePodAction): number => c.containers[0]?.requests?.cpuMilli ?? 0;
const atOf = (s: Scenario, kind: string, pod?: string): number | undefined =>
  s.timeline.find(
    (e) => e.action.kind === kind && (pod === undefined || ('pod' in e.action && e.action.pod === pod)),
  )?.atMs;

const SHAPES = {
  // #105523 / #126341: a completed pod, then one that fits only if it is not counted, then a restart
  // (relabelling the node under the completed pod's nodeSelector, for #126341).
  'a completed pod and a pod that fits only beside nothing else, then a restart': (s: Scenario) => {
    const [job, web] = creates(s);
    const alloc = s.nodeAllocatable?.['node-a']?.cpuMilli ?? 0;
    const done = s.timeline.find((e) => e.action.kind === 'crashContainer' && e.action.exitCode === 0);
    const restart = atOf(s, 'restartKubelet');
    return (
      job !== undefined &&
      web !== undefined &&
      job.restartPolicy !== 'Always' &&
      cpuOf(job) + cpuOf(web) > alloc &&
      cpuOf(web) <= alloc &&
      done !== undefined &&
      restart !== undefined &&
      restart > done.atMs
    );
  },
  'a restart relabelling the node under a completed pod': (s: Scenario) =>
    s.timeline.some((e) => e.action.kind === 'crashContainer' && e.action.exitCode === 0) &&
    creates(s).some((c) => c.nodeSelector?.['pool'] === 'blue') &&
    s.timeline.some((e) => e.action.kind === 'restartKubelet' && e.action.labels?.['pool'] === 'green'),
  // #104817: a pod rejected, then within a second one that fits only if the rejected one is not counted.
  'a rejected pod and right after it one that fits only without it': (s: Scenario) => {
    const [big, web] = creates(s);
    const alloc = s.nodeAllocatable?.['node-a']?.cpuMilli ?? 0;
    const rejected = big !== undefined && (cpuOf(big) > alloc || big.nodeSelector?.['pool'] === 'green');
    const gap = (atOf(s, 'createPod', 'a1') ?? 0) - (atOf(s, 'createPod', 'a0') ?? 0);
    return (
      rejected && web !== undefined && big !== undefined && cpuOf(big) + cpuOf(web) > alloc && gap <= 1_000
    );
  },
  // #116408: a zero cpu request right after a pod rejected for asking more cpu than the node has.
  'a zero cpu request after a pod too big for the node': (s: Scenario) => {
    const [big, web] = creates(s);
    const alloc = s.nodeAllocatable?.['node-a']?.cpuMilli ?? 0;
    return (
      big !== undefined &&
      web !== undefined &&
      cpuOf(big) > alloc &&
      cpuOf(web) === 0 &&
      (web.containers[0]?.requests?.memoryBytes ?? 0) > 0
    );
  },
  // #118472: created (or running, then relabelled away) and deleted while the kubelet is down.
  'a pod the restart rejects, deleted while the kubelet is down': (s: Scenario) =>
    s.timeline.some((r) => {
      if (r.action.kind !== 'restartKubelet' || r.action.downForMs === null) return false;
      const back = r.atMs + r.action.downForMs;
      const del = atOf(s, 'deletePod', 'a0');
      return del !== undefined && del > r.atMs && del < back;
    }),
  // #130335: a claim deleted under a running pod, then a restart.
  'a claim deleted under its running pod before a restart': (s: Scenario) => {
    const pvc = atOf(s, 'deletePvc');
    const restart = atOf(s, 'restartKubelet');
    return pvc !== undefined && restart !== undefined && restart > pvc;
  },
  'a claim deleted, its pod deleted while the kubelet is down': (s: Scenario) => {
    const r = s.timeline.find((e) => e.action.kind === 'restartKubelet');
    const del = atOf(s, 'deletePod', 'a0');
    return (
      atOf(s, 'deletePvc') !== undefined &&
      r?.action.kind === 'restartKubelet' &&
      del !== undefined &&
      del >= r.atMs &&
      del < r.atMs + (r.action.downForMs ?? 0)
    );
  },
} as const;

describe('the admission profile', () => {
  it('places every draft as a valid scenario that survives the writer and the loader', () => {
    fc.assert(
      fc.property(admissionDraft, fc.integer({ min: 1, max: FUZZ_NODES.length }), (admission, nodeCount) => {
        const s = scenarioFromDraft({ profile: 'admission', seed: 1, nodeCount, admission });
        const back = parseScenarioText(scenarioToYaml(s), 'admission.yaml');
        expect(back.timeline.map((e) => e.action)).toEqual(s.timeline.map((e) => e.action));
        expect(back.nodeLabels).toEqual(s.nodeLabels);
        expect(back.nodeAllocatable).toEqual(s.nodeAllocatable);
        expect(back.volumes).toEqual(s.volumes);
        // The plot's story on one node, whatever else the draft says.
        expect(new Set(creates(s).map((c) => c.node))).toEqual(new Set(['node-a']));
      }),
      { seed: 7, numRuns: 500 },
    );
  });

  it('leaves every other case as it was: its draws come after all the earlier ones', () => {
    for (const seed of [1, 2]) {
      // The admission step alone: the detach story after it (draftArbitraryAfterWarmUp) has its own test.
      const now = new CaseStream(draftArbitraryBeforeDetachFails, seed);
      const before = new CaseStream(draftArbitraryBeforeAdmission, seed);
      let displaced = 0;
      let eligible = 0;
      for (let i = 0; i < 1_500; i++) {
        const d = now.valueAt(i);
        const was = before.valueAt(i);
        const rare = ['jobs', 'slowStaging', 'slowTearDown', 'attachAfterRestart'].includes(was.profile);
        if (!rare) eligible++;
        if (d.profile === 'admission') {
          displaced++;
          expect(rare, `case ${i} of seed ${seed}`).toBe(false);
        } else expect(d, `case ${i} of seed ${seed}`).toEqual(was);
      }
      const expected = eligible / ADMISSION_ONE_IN;
      expect(displaced).toBeGreaterThan(expected / 2);
      expect(displaced).toBeLessThan(expected * 2);
    }
  });

  it("gives a campaign's first 3,000 cases each plot's shape", () => {
    const cases = scenariosOfCases(
      1,
      Array.from({ length: 3_000 }, (_, i) => i),
    ).filter((s) => s.nodeAllocatable !== undefined);
    expect(cases.length).toBeGreaterThan(3_000 / ADMISSION_ONE_IN / 2);
    for (const [name, has] of Object.entries(SHAPES)) {
      expect(cases.filter((s) => has(s)).length, name).toBeGreaterThan(0);
    }
    // Every plot is drawn.
    expect(ADMISSION_PLOTS.length).toBe(4);
  });
});
