// The kill-sequence profile (src/fuzz/killSequence.ts): its placement is valid for every draft, and a
// campaign's cases now hold the shapes issue #22 asked for, which the other profiles seldom or never
// build: an override shorter than a pending deletion's grace landing inside that grace, a second manager's
// kill (node shutdown) during a graceful deletion, the StatefulSet pattern (the same name and claim on
// another node right after the delete), and a host process holding the device as its volume unmounts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  draftArbitraryBeforeDetachFails,
  draftArbitraryBeforePreStop,
  draftArbitraryBeforeRuntimeOutage,
  draftArbitraryBeforeSetUpFailures,
  FUZZ_NODES,
} from '../../src/fuzz/arbitraries.js';
import { CaseStream } from '../../src/fuzz/caseStream.js';
import {
  killSequenceDraft,
  PRESTOP_ONE_IN,
  placeKillSequence,
  RUNTIME_OUTAGE_ONE_IN,
  stopFailuresDraft,
} from '../../src/fuzz/killSequence.js';
import { scenariosOfCases } from '../../src/fuzz/shrink.js';
import { parseScenarioText, scenarioToYaml } from '../../src/scenario/load.js';
import type { Scenario, TimelineEntry } from '../../src/scenario/types.js';

function deleteWindows(s: Scenario): { pod: string; fromMs: number; toMs: number }[] {
  const graceOf = new Map<string, number>();
  const out: { pod: string; fromMs: number; toMs: number }[] = [];
  for (const e of s.timeline) {
    if (e.action.kind === 'createPod') graceOf.set(e.action.pod, e.action.gracePeriodS);
    if (e.action.kind === 'deletePod') {
      const g = e.action.gracePeriodS ?? graceOf.get(e.action.pod) ?? 30;
      out.push({ pod: e.action.pod, fromMs: e.atMs, toMs: e.atMs + g * 1000 });
    }
  }
  return out;
}

const within = (e: TimelineEntry, w: { fromMs: number; toMs: number }) =>
  e.atMs > w.fromMs && e.atMs < w.toMs;

const SHAPES = {
  'a shorter eviction inside a graceful deletion': (s: Scenario) =>
    deleteWindows(s).some((w) =>
      s.timeline.some(
        (e) =>
          e.action.kind === 'evictPod' &&
          e.action.pod === w.pod &&
          within(e, w) &&
          e.action.gracePeriodS * 1000 < w.toMs - w.fromMs,
      ),
    ),
  'a node shutdown inside a graceful deletion': (s: Scenario) =>
    deleteWindows(s).some((w) => s.timeline.some((e) => e.action.kind === 'shutdownNode' && within(e, w))),
  'the same name and claim on another node right after the delete': (s: Scenario) =>
    s.timeline.some((d) => {
      if (d.action.kind !== 'deletePod') return false;
      const pod = d.action.pod;
      const first = s.timeline.find((e) => e.action.kind === 'createPod' && e.action.pod === pod);
      return s.timeline.some(
        (e) =>
          e.action.kind === 'createPod' &&
          first?.action.kind === 'createPod' &&
          e.action.pod === pod &&
          e.atMs >= d.atMs &&
          e.atMs - d.atMs <= 2_000 &&
          e.action.node !== first.action.node &&
          e.action.volumes.length > 0 &&
          e.action.volumes.join() === first.action.volumes.join(),
      );
    }),
  'a host process holding the device of a pod that is deleted': (s: Scenario) =>
    s.timeline.some(
      (e) =>
        e.action.kind === 'fault' &&
        e.action.fault.kind === 'unmountDevice' &&
        e.action.fault.stage === 'deviceStillOpen',
    ) && s.timeline.some((e) => e.action.kind === 'deletePod'),
  // #113145's shape: the runtime fails the kill and the pod leaves the config before it goes through.
  'a runtime outage across a force deletion': (s: Scenario) =>
    s.timeline.some((e) => e.action.kind === 'fault' && e.action.fault.kind === 'stopContainer') &&
    s.timeline.some((e) => e.action.kind === 'forceDeletePod'),
} as const;

describe('the kill-sequence profile', () => {
  it('places every draft as a valid scenario that survives the writer and the loader', () => {
    fc.assert(
      fc.property(
        killSequenceDraft,
        fc.option(stopFailuresDraft),
        fc.integer({ min: 1, max: FUZZ_NODES.length }),
        (draft, stopFailures, n) => {
          const d = { ...draft, stopFailures };
          const nodes = FUZZ_NODES.slice(0, n);
          const { entries, volumes } = placeKillSequence(d, nodes);
          const timeline = [...entries]
            .map((e, seq) => ({ e, seq }))
            .sort((a, b) => a.e.atMs - b.e.atMs || a.seq - b.seq)
            .map(({ e }) => ({ atMs: e.atMs, line: 0, action: e.action }));
          const s: Scenario = {
            file: '',
            name: 'kill-sequence',
            description: '',
            upstream: [],
            seed: 1,
            horizonMs: 600_000,
            nodes,
            volumes,
            timeline,
            claims: [],
          };
          const back = parseScenarioText(scenarioToYaml(s), 'kill.yaml');
          const faults = back.timeline.filter(
            (e) => e.action.kind === 'fault' && e.action.fault.kind === 'stopContainer',
          );
          expect(faults.length).toBe(stopFailures === null ? 0 : 1);
        },
      ),
      { seed: 7, numRuns: 300 },
    );
  });

  it('gives one kill-sequence case in RUNTIME_OUTAGE_ONE_IN a runtime outage and leaves every other case as it was', () => {
    for (const seed of [1, 2]) {
      const now = new CaseStream(draftArbitraryBeforeSetUpFailures, seed);
      const before = new CaseStream(draftArbitraryBeforeRuntimeOutage, seed);
      let outages = 0;
      let sequences = 0;
      for (let i = 0; i < 1_500; i++) {
        const d = now.valueAt(i);
        const was = before.valueAt(i);
        if (was.profile === 'killSequence') sequences++;
        if (d.profile === 'killSequence' && (d.sequence.stopFailures ?? null) !== null) {
          outages++;
          expect(
            was.profile === 'killSequence' && { ...was.sequence, stopFailures: d.sequence.stopFailures },
          ).toEqual(d.sequence);
        } else expect(d, `case ${i} of seed ${seed}`).toEqual(was);
      }
      const expected = sequences / RUNTIME_OUTAGE_ONE_IN;
      expect(outages).toBeGreaterThan(expected / 2);
      expect(outages).toBeLessThan(expected * 2);
    }
  });

  it('gives the containers of one kill-sequence case in PRESTOP_ONE_IN a preStop hook and leaves every other case as it was', () => {
    for (const seed of [1, 2]) {
      const now = new CaseStream(draftArbitraryBeforeDetachFails, seed);
      const before = new CaseStream(draftArbitraryBeforePreStop, seed);
      let hooks = 0;
      let sequences = 0;
      for (let i = 0; i < 1_500; i++) {
        const d = now.valueAt(i);
        const was = before.valueAt(i);
        if (was.profile === 'killSequence') sequences++;
        if (d.profile === 'killSequence' && (d.sequence.preStopMs ?? null) !== null) {
          hooks++;
          expect(
            was.profile === 'killSequence' && { ...was.sequence, preStopMs: d.sequence.preStopMs },
          ).toEqual(d.sequence);
          const { entries } = placeKillSequence(d.sequence, FUZZ_NODES);
          const create = entries[0]?.action;
          expect(create?.kind === 'createPod' && create.containers.map((c) => c.preStopMs)).toEqual(
            Array.from({ length: d.sequence.containers }, () => d.sequence.preStopMs),
          );
        } else expect(d, `case ${i} of seed ${seed}`).toEqual(was);
      }
      const expected = sequences / PRESTOP_ONE_IN;
      expect(hooks).toBeGreaterThan(expected / 2);
      expect(hooks).toBeLessThan(expected * 2);
    }
  });

  it("gives a campaign's first 1,500 cases each shape", () => {
    const cases = scenariosOfCases(
      1,
      Array.from({ length: 1_500 }, (_, i) => i),
    );
    const counts = Object.fromEntries(
      Object.entries(SHAPES).map(([name, has]) => [name, cases.filter((s) => has(s)).length]),
    );
    for (const [name, n] of Object.entries(counts)) expect(n, name).toBeGreaterThan(0);
  });
});
