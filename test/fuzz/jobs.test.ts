// The jobs profile (src/fuzz/jobs.ts): its placement is valid for every draft (the horizon may be past the
// default 10 min: it is a bound only), and a campaign's cases now hold the run-to-completion shapes the
// other profiles never build: a container that exits 0 on its own under Never and under OnFailure, a
// finished pod nobody deletes, a name taken over by a new UID right after its delete (on another node),
// a static pod's manifest put back (the same UID) after all its containers completed, and a crash loop
// (the kubelet's crash-loop back-off deciding when the next attempt comes).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  draftArbitraryBeforeAttachAfterRestart,
  draftArbitraryBeforeCrashLoops,
  FUZZ_NODES,
} from '../../src/fuzz/arbitraries.js';
import { CaseStream } from '../../src/fuzz/caseStream.js';
import { CRASH_LOOP_ONE_IN, jobsDraft, placeJobs } from '../../src/fuzz/jobs.js';
import { scenariosOfCases } from '../../src/fuzz/shrink.js';
import { parseScenarioText, scenarioToYaml } from '../../src/scenario/load.js';
import type { CreatePodAction, Scenario } from '../../src/scenario/types.js';

const creates = (s: Scenario): { atMs: number; a: CreatePodAction }[] =>
  s.timeline.flatMap((e) => (e.action.kind === 'createPod' ? [{ atMs: e.atMs, a: e.action }] : []));

const exitsZero = (s: Scenario, policy: string) =>
  creates(s).some(
    (c) =>
      c.a.restartPolicy === policy &&
      s.timeline.some(
        (e) => e.action.kind === 'crashContainer' && e.action.pod === c.a.pod && e.action.exitCode === 0,
      ),
  );

const SHAPES = {
  'a Never container that completes': (s: Scenario) => exitsZero(s, 'Never'),
  'an OnFailure container that completes': (s: Scenario) => exitsZero(s, 'OnFailure'),
  'a finished pod nobody deletes': (s: Scenario) =>
    creates(s).some(
      (c) =>
        c.a.restartPolicy !== 'Always' &&
        s.timeline.some((e) => e.action.kind === 'crashContainer' && e.action.pod === c.a.pod) &&
        !s.timeline.some(
          (e) =>
            (e.action.kind === 'deletePod' || e.action.kind === 'forceDeletePod') && e.action.pod === c.a.pod,
        ),
    ),
  'a finished pod re-created under its name on another node': (s: Scenario) => {
    const cs = creates(s).filter((c) => !c.a.static && c.a.restartPolicy !== 'Always');
    return cs.some((c) => cs.some((d) => d.a.pod === c.a.pod && d.atMs > c.atMs && d.a.node !== c.a.node));
  },
  'a crash loop: an OnFailure container failing every few seconds for minutes': (s: Scenario) =>
    creates(s).some(
      (c) =>
        c.a.restartPolicy === 'OnFailure' &&
        s.timeline.filter(
          (e) => e.action.kind === 'crashContainer' && e.action.pod === c.a.pod && e.action.exitCode === 1,
        ).length >= 40,
    ),
  'a static manifest put back after its containers completed': (s: Scenario) => {
    const cs = creates(s).filter((c) => c.a.static && c.a.restartPolicy !== 'Always');
    return cs.some((c) => cs.some((d) => d.a.pod === c.a.pod && d.atMs > c.atMs)) && exitsZero(s, 'Never');
  },
} as const;

describe('crash loops', () => {
  it('change only the jobs cases they land in: their draws come after all the earlier ones', () => {
    for (const seed of [1, 2]) {
      const now = new CaseStream(draftArbitraryBeforeAttachAfterRestart, seed);
      const before = new CaseStream(draftArbitraryBeforeCrashLoops, seed);
      let looped = 0;
      let jobs = 0;
      for (let i = 0; i < 2_000; i++) {
        const d = now.valueAt(i);
        const was = before.valueAt(i);
        if (was.profile === 'jobs') jobs++;
        if (d.profile === 'jobs' && d.jobs.crashLoop !== undefined) {
          looped++;
          expect(was.profile === 'jobs' && { ...was.jobs, crashLoop: d.jobs.crashLoop }).toEqual(d.jobs);
        } else expect(d, `case ${i} of seed ${seed}`).toEqual(was);
      }
      expect(looped).toBeGreaterThan(jobs / CRASH_LOOP_ONE_IN / 3);
      expect(looped).toBeLessThan((jobs / CRASH_LOOP_ONE_IN) * 2);
    }
  });
});

describe('the jobs profile', () => {
  it('places every draft as a valid scenario that survives the writer and the loader', () => {
    fc.assert(
      fc.property(jobsDraft, fc.integer({ min: 1, max: FUZZ_NODES.length }), (d, n) => {
        const nodes = FUZZ_NODES.slice(0, n);
        const { entries, volumes } = placeJobs(d, nodes);
        const timeline = [...entries]
          .map((e, seq) => ({ e, seq }))
          .sort((a, b) => a.e.atMs - b.e.atMs || a.seq - b.seq)
          .map(({ e }) => ({ atMs: e.atMs, line: 0, action: e.action }));
        const s: Scenario = {
          file: '',
          name: 'jobs',
          description: '',
          upstream: [],
          seed: 1,
          horizonMs: 3_600_000,
          nodes,
          volumes,
          timeline,
          claims: [],
        };
        const back = parseScenarioText(scenarioToYaml(s), 'jobs.yaml');
        expect(back.timeline.map((e) => e.action)).toEqual(timeline.map((e) => e.action));
      }),
      { seed: 7, numRuns: 300 },
    );
  });

  it("gives a campaign's first 1,500 cases each shape", () => {
    const cases = scenariosOfCases(
      1,
      Array.from({ length: 1_500 }, (_, i) => i),
    );
    for (const [name, has] of Object.entries(SHAPES))
      expect(cases.filter((s) => has(s)).length, name).toBeGreaterThan(0);
  });
});
