// The volume chain's restart plot when its drawn fault is a TearDown failure (src/fuzz/profiles.ts
// staleCleanup): a pod force-deleted while its kubelet is down, its reconstruction and cleanupMounts'
// TearDown both failing, and the next pod taking the volume on the same node, so that pod's UnmountDevice
// meets a bind mount nobody tracks (GetDeviceMountRefs). Every draft of that plot gets the shape, and a
// campaign's first 3,000 cases hold it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { placeVolumeChain, volumeChainDraft } from '../../src/fuzz/profiles.js';
import { scenariosOfCases } from '../../src/fuzz/shrink.js';
import type { Action, Scenario } from '../../src/scenario/types.js';

interface Entry {
  readonly atMs: number;
  readonly action: Action;
}

/** The shape in a timeline: which node holds it, or null. */
function staleCleanupNode(entries: readonly Entry[]): string | null {
  const restart = entries.find((e) => e.action.kind === 'restartKubelet');
  if (restart === undefined || restart.action.kind !== 'restartKubelet') return null;
  const { node, downForMs } = restart.action;
  const back = restart.atMs + (downForMs ?? 0);
  const faults = entries.flatMap((e) => (e.action.kind === 'fault' ? [e.action.fault] : []));
  const construct = faults.some((f) => f.kind === 'constructVolumeSpec' && f.node === node);
  const tearDown = faults.some((f) => f.kind === 'tearDown' && f.node === node && f.times === 1);
  const creates = entries.flatMap((e) => (e.action.kind === 'createPod' ? [e.action] : []));
  const first = creates[0];
  const forced = entries.find((e) => e.action.kind === 'forceDeletePod' && e.action.pod === first?.pod);
  const inWindow = forced !== undefined && forced.atMs >= restart.atMs && forced.atMs < back;
  const next = creates.find((c) => c.pod !== first?.pod && !c.pod.endsWith('s'));
  const sameNode = first?.node === node && next?.node === node;
  return construct && tearDown && inWindow && sameNode ? node : null;
}

describe('the stale-cleanup restart', () => {
  it('gives every restart-plot draft whose fault is a TearDown failure the shape', () => {
    const draft = volumeChainDraft.map((d) => ({
      ...d,
      plot: 2,
      steps: d.steps.length >= 2 ? d.steps : [...d.steps, ...d.steps],
      fault: { step: 0, fault: { kind: 'tearDown' as const, times: 1 } },
    }));
    fc.assert(
      fc.property(draft, (d) => {
        const { entries, volume } = placeVolumeChain(d, ['node-a', 'node-b'], 'lun-1');
        expect(staleCleanupNode(entries)).not.toBeNull();
        expect(volume.block).toBe(false);
      }),
      { seed: 3, numRuns: 300 },
    );
  });

  it('leaves a restart plot with another fault to wait on the other node, as before', () => {
    const d = fc.sample(volumeChainDraft, { seed: 5, numRuns: 1 })[0];
    if (d === undefined) throw new Error('no draft');
    const procMounts = {
      ...d,
      plot: 2,
      fault: { step: 0, fault: { kind: 'procMounts' as const, reads: 1 } },
    };
    expect(staleCleanupNode(placeVolumeChain(procMounts, ['node-a', 'node-b'], 'lun-1').entries)).toBeNull();
  });

  it("holds the shape in a campaign's first 3,000 cases", () => {
    const cases: Scenario[] = scenariosOfCases(
      1,
      Array.from({ length: 3_000 }, (_, i) => i),
    );
    expect(cases.filter((s) => staleCleanupNode(s.timeline) !== null).length).toBeGreaterThan(0);
  });
});
