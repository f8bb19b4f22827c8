// Ranking finds by what the user asked (src/fuzz/rank.ts): the finds a switch the user changed closes come
// first, then podrace bugs, other fix-sensitive finds, unexplained ones, and known-open hazards last; the
// ranking is a pure function of the case results (ties by case index), and a campaign shrinks, writes and
// names in its exit reason the find it ranks first.
import { describe, expect, it } from 'vitest';
import { Fixes } from '../../src/fixes.js';
import type { CaseOutcome } from '../../src/fuzz/campaign.js';
import { failurePicks, runCampaign } from '../../src/fuzz/campaign.js';
import { campaignLines } from '../../src/fuzz/campaignJson.js';
import { changedSwitches, findTier, rankFinds } from '../../src/fuzz/rank.js';
import type { InvariantId } from '../../src/invariants/types.js';
import type { ViolationJson } from '../../src/report/json.js';

function violation(invariant: InvariantId, knownOpen: string | null = null): ViolationJson {
  return { invariant, atMs: 0, node: null, pod: null, uid: null, volume: null, message: '', knownOpen };
}

/** A failing case: `fired` in this order, `knownOpen` of them explained, `closedBy` from the oracle. */
function outcome(
  index: number,
  fired: readonly InvariantId[],
  o: { knownOpen?: readonly InvariantId[]; closedBy?: CaseOutcome['closedBy']; error?: boolean } = {},
): CaseOutcome {
  const knownOpen = o.knownOpen ?? [];
  return {
    index,
    scenarioSeed: index,
    fired,
    knownOpen,
    violations: fired.map((id) => violation(id, knownOpen.includes(id) ? 'some-hazard' : null)),
    events: 10,
    virtualTimeMs: 1000,
    outcome: o.error === true ? 'error' : 'horizon',
    error: o.error === true ? 'boom' : null,
    closedBy: o.closedBy === undefined ? {} : o.closedBy,
    wallMs: 0,
  };
}

describe('rankFinds', () => {
  // What `fuzz --fix unmount-device-uncertain=off` met at seed 1 before: a hazard closed by turning the
  // pod worker off came first (case 32) and was the only find shrunk, while the find the user's switch
  // closes (case 65) was neither shrunk nor written.
  const results = [
    outcome(3, ['termination-stuck']),
    outcome(10, ['static-pod-overlap'], { closedBy: { 'static-pod-overlap': ['pod-uid-reuse-restart'] } }),
    outcome(32, ['volume-torn-down-while-running'], {
      knownOpen: ['volume-torn-down-while-running'],
      closedBy: { 'volume-torn-down-while-running': ['pod-worker-lifecycle'] },
    }),
    outcome(40, ['multi-node-mount', 'mount-device-skipped-after-failure'], {
      closedBy: { 'mount-device-skipped-after-failure': ['pod-worker-lifecycle'] },
    }),
    outcome(50, ['kubelet-panic'], { error: true }),
    outcome(65, ['mount-device-skipped-after-failure'], {
      closedBy: {
        'mount-device-skipped-after-failure': ['pod-worker-lifecycle', 'unmount-device-uncertain'],
      },
    }),
  ];
  const changed = ['unmount-device-uncertain'] as const;

  it('puts what the changed switch closes first, then podrace bugs, fix-sensitive, unexplained, hazards', () => {
    expect(rankFinds(results, changed)).toEqual([
      {
        kind: 'mount-device-skipped-after-failure',
        tier: 'asked',
        caseIndex: 65,
        closedBy: 'unmount-device-uncertain',
      },
      { kind: 'simulator-error', tier: 'podrace-bug', caseIndex: 50, closedBy: null },
      { kind: 'static-pod-overlap', tier: 'fix-sensitive', caseIndex: 10, closedBy: 'pod-uid-reuse-restart' },
      { kind: 'termination-stuck', tier: 'unexplained', caseIndex: 3, closedBy: null },
      // Same tier and case as nothing else; its place in case 40 breaks no tie here.
      { kind: 'multi-node-mount', tier: 'unexplained', caseIndex: 40, closedBy: null },
      {
        kind: 'volume-torn-down-while-running',
        tier: 'known-open',
        caseIndex: 32,
        closedBy: 'pod-worker-lifecycle',
      },
    ]);
    // Without a changed switch the same find is fix-sensitive, from its first fix-sensitive case.
    expect(rankFinds(results, []).find((f) => f.kind === 'mount-device-skipped-after-failure')).toEqual({
      kind: 'mount-device-skipped-after-failure',
      tier: 'fix-sensitive',
      caseIndex: 40,
      closedBy: 'pod-worker-lifecycle',
    });
  });

  it('is a function of the case results only: any order gives the same ranking', () => {
    const ranked = rankFinds(results, changed);
    for (let k = 1; k < results.length; k++) {
      const rotated = [...results.slice(k), ...results.slice(0, k)];
      expect(rankFinds(rotated, changed)).toEqual(ranked);
      expect(rankFinds([...rotated].reverse(), changed)).toEqual(ranked);
    }
  });

  it("breaks ties by case index, then by the kinds' order within the case", () => {
    const tied = [
      outcome(9, ['multi-node-mount', 'termination-stuck']),
      outcome(4, ['termination-stuck', 'concurrent-kill']),
    ];
    expect(rankFinds(tied, []).map((f) => [f.kind, f.caseIndex])).toEqual([
      ['termination-stuck', 4],
      ['concurrent-kill', 4],
      ['multi-node-mount', 9],
    ]);
  });

  it('a hazard stays last even when the changed switch closes it, keeping that switch', () => {
    const hazard = outcome(1, ['pod-cgroup-destroyed-with-volumes'], {
      knownOpen: ['pod-cgroup-destroyed-with-volumes'],
      closedBy: { 'pod-cgroup-destroyed-with-volumes': ['pod-worker-lifecycle', 'unmount-device-uncertain'] },
    });
    expect(findTier(hazard, 'pod-cgroup-destroyed-with-volumes', changed)).toEqual({
      tier: 'known-open',
      closedBy: 'unmount-device-uncertain',
    });
  });

  it('never picks nondeterminism to shrink', () => {
    const ranked = rankFinds([{ ...outcome(0, []), outcome: 'nondeterministic', error: 'x' }], []);
    expect(ranked.map((f) => f.kind)).toEqual(['nondeterminism']);
    expect(failurePicks(ranked, 5)).toEqual([]);
  });

  it('the changed switches are the ones --fix moved away from the --kubelet preset', () => {
    const preset = Fixes.of('1.23');
    expect(changedSwitches(preset, preset)).toEqual([]);
    expect(changedSwitches(preset, preset.with('unmount-device-uncertain', false))).toEqual([
      'unmount-device-uncertain',
    ]);
    expect(changedSwitches(Fixes.none(), Fixes.none().with('pod-worker-lifecycle', true))).toEqual([
      'pod-worker-lifecycle',
    ]);
  });
});

describe('a campaign with one switch turned off', () => {
  // Seed 1 with unmount-device-open-uncertain off: hazards closed by turning the pod worker off fire
  // in the cases before; the find that switch closes first shows in case 39.
  const fixes = Fixes.all().with('unmount-device-open-uncertain', false);

  it('shrinks and writes the find that switch closes, and its exit reason names both', async () => {
    const report = await runCampaign({
      seed: 1,
      runs: 70,
      fixes,
      changed: ['unmount-device-open-uncertain'],
      shrink: 1,
      shrinkRuns: 20,
    });
    expect(report.ranked[0]).toMatchObject({ kind: 'mount-device-skipped-after-failure', tier: 'asked' });
    const f = report.failures[0];
    expect(f?.kind).toBe('mount-device-skipped-after-failure');
    expect(f?.caseIndex).toBe(39);
    expect(f?.closedBy).toBe('unmount-device-open-uncertain');
    expect(f?.reproduces).toBe(true);
    const lines = campaignLines(report, {
      files: report.failures.map((x) => x.fileName),
      wallMs: 0,
      version: 'test',
      shrink: 1,
      shrinkRuns: 20,
      strict: false,
    });
    expect(lines.summary.exitCode).toBe(1);
    expect(lines.summary.changedFixes).toEqual(['unmount-device-open-uncertain']);
    expect(lines.summary.exitReason).toMatch(
      /^exit 1: mount-device-skipped-after-failure fired in \d+ case\(s\) that no known-open hazard explains; in case 39 turning unmount-device-open-uncertain back on \(--fix turned it off\) closes it$/,
    );
  });

  it('keeps the changed switch closed while shrinking, where another switch closes the find too', async () => {
    // Seed 1, case 3 with static-pod-start-exclusion off: mirror-pod-deleted-while-running, closed both
    // by turning the pod worker off and by turning the user's switch back on (and static-pod-overlap,
    // ranked first, which only the user's switch closes).
    const report = await runCampaign({
      seed: 1,
      runs: 4,
      fixes: Fixes.all().with('static-pod-start-exclusion', false),
      changed: ['static-pod-start-exclusion'],
      shrink: 2,
      shrinkRuns: 10,
    });
    const f = report.failures.find((x) => x.kind === 'mirror-pod-deleted-while-running');
    expect(f?.kind).toBe('mirror-pod-deleted-while-running');
    expect(f?.closedBy).toBe('static-pod-start-exclusion');
  });
});
