// The populator's getPVCExtractPV and a claim being deleted: refused ("PVC is being deleted") in every
// release up to #130335; with it (fix dsw-terminating-pvc-protected) a claim kubernetes.io/pvc-protection
// still holds is let through, one without the finalizer is still refused. (#130335's own test is an e2e
// test, test/e2e/storage/csi_mock/csi_kubelet_restart.go; these check the port's getPVCExtractPV.)
import { describe, expect, it } from 'vitest';
import type { Fact } from '../../../src/facts.js';
import { Fixes, type FixId } from '../../../src/fixes.js';
import { boundClaim, Harness, makePod } from './fakes.js';

const SWITCH = 'dsw-terminating-pvc-protected';

/** A pod of lun-1 added to a populator whose claim is as `claim` leaves it; two seconds of rounds. */
function populate(fixes: Fixes, claim: (h: Harness) => void): Harness {
  const h = new Harness({ fixes });
  claim(h);
  h.addPod(makePod('a', ['lun-1']));
  h.runUntil(2_000);
  return h;
}

const deleting = (h: Harness) => h.claims.set('lun-1', boundClaim('lun-1', 1_000));
const deletingNoFinalizer = (h: Harness) =>
  h.claims.set('lun-1', {
    ...boundClaim('lun-1', 1_000),
    metadata: { name: 'lun-1', namespace: 'default', finalizers: [], deletionTimestamp: 1_000 },
  });

const lookups = (h: Harness) =>
  h.facts.filter(
    (f): f is Extract<Fact, { kind: 'podVolumeLookupFailed' }> => f.kind === 'podVolumeLookupFailed',
  );

describe('getPVCExtractPV and a claim being deleted (#130335)', () => {
  it('without the fix: the claim is refused, the pod errors and its volume stays out of the desired state', () => {
    const h = populate(Fixes.all().with(SWITCH, false), deleting);
    const dsw = h.vm.desiredStateOfWorld;
    expect(dsw.podExistsInVolume('uid-a', 'lun-1')).toBe(false);
    expect(h.plugin.calls).toEqual([]);
    expect(dsw.popPodErrors('uid-a')).toContain('error processing PVC default/lun-1: PVC is being deleted');
    const failed = lookups(h);
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.every((f) => f.cause === 'deleting' && f.error === 'PVC is being deleted')).toBe(true);
  });

  it('with the fix: a claim the pvc-protection finalizer holds is let through and the volume mounts', () => {
    for (const fixes of [Fixes.all(), Fixes.of('1.30'), Fixes.of('1.31')]) {
      const h = populate(fixes, deleting);
      expect(h.vm.desiredStateOfWorld.podExistsInVolume('uid-a', 'lun-1'), fixes.label()).toBe(true);
      expect(h.vm.getMountedVolumesForPod('uid-a').size, fixes.label()).toBe(1);
      expect(lookups(h)).toEqual([]);
    }
  });

  it('with the fix: a claim being deleted without the finalizer is still refused', () => {
    const h = populate(Fixes.all(), deletingNoFinalizer);
    expect(h.vm.desiredStateOfWorld.podExistsInVolume('uid-a', 'lun-1')).toBe(false);
    expect(lookups(h)[0]?.cause).toBe('deleting');
  });

  it('a claim that is gone is a failed fetch (NotFound), under every fix set', () => {
    for (const fixes of [Fixes.all(), Fixes.none()]) {
      // The fakes have no claim of a volume they do not know: NotFound.
      const h = new Harness({ fixes });
      h.addPod(makePod('a', ['lun-9']));
      h.runUntil(2_000);
      expect(lookups(h)[0]).toMatchObject({
        cause: 'fetch',
        error: 'failed to fetch PVC from API server: persistentvolumeclaims "lun-9" not found',
      });
    }
  });

  it('reads the switch only for a claim being deleted', () => {
    const reads = new Map<FixId, number>();
    const h = new Harness({ fixes: Fixes.all().recording(reads, () => 0) });
    h.addPod(makePod('a', ['lun-1']));
    h.runUntil(2_000);
    expect(h.vm.getMountedVolumesForPod('uid-a').size).toBe(1);
    expect(reads.has(SWITCH)).toBe(false);
  });
});
