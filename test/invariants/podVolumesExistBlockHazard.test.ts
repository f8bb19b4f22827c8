// The known-open hazard pod-volumes-exist-ignores-block-maps (#61229, #72346): podVolumesExist's disk half
// reads only the pod's volumes/ dir, so after a kubelet restart (the actual state empty until syncStates)
// a terminating pod whose Block volume is still mapped counts as reclaimed. The marker is published only
// where that answer left a Block link unseen: the same race on a Filesystem volume is held back by the
// mount in volumes/, and nothing there is excused.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Fixes } from '../../src/fixes.js';
import { VolumeManager } from '../../src/kubelet/volumemanager/volumeManager.js';
import { runScenario } from '../../src/run/run.js';
import { parseScenarioText } from '../../src/scenario/load.js';

const text = readFileSync(
  join(import.meta.dirname, '..', '..', 'scenarios', 'block-volume-deleted-before-reconstruction.yaml'),
  'utf8',
);

function run(source: string) {
  // Before #115331 (1.27: both halves, its SyncTerminatedPod's wait for podVolumesExist and its status
  // manager's podIsFinished gate, which asks PodResourcesAreReclaimed no more), and with the old
  // reconstruction (KEP-3756's reconstructs the Block volume as the reconciler starts: no window).
  return runScenario(parseScenarioText(source, 'f.yaml'), {
    fixes: Fixes.all()
      .with('terminated-pod-waits-for-volume-cleanup', false)
      .with('status-deletes-finished-pods', false)
      .with('new-volume-reconstruction', false),
    recordFacts: true,
  });
}

describe('pod-volumes-exist-ignores-block-maps', () => {
  it('Block: the deletion after the restart is tied to the marker of that pod and volume', () => {
    const r = run(text);
    const markers = (r.facts ?? []).filter((f) => f.kind === 'podVolumesExistMissedBlockMap');
    expect(markers.length).toBeGreaterThan(0);
    const deleted = r.violations.filter((v) => v.invariant === 'pod-deleted-before-volumes-reclaimed');
    expect(deleted).toHaveLength(1);
    expect(deleted[0]?.knownOpen).toBe('pod-volumes-exist-ignores-block-maps');
    // The marker comes at or before the deletion it explains, on the pod and volume it names.
    expect(
      markers.some((m) => m.atMs <= (deleted[0]?.atMs ?? 0) && 'volume' in m && m.volume === 'lun-1'),
    ).toBe(true);
  });

  it('Filesystem: the mount in volumes/ holds the deletion back, and no marker is published', () => {
    const r = run(text.replace('mode: Block', 'mode: Filesystem'));
    expect((r.facts ?? []).some((f) => f.kind === 'podVolumesExistMissedBlockMap')).toBe(false);
    expect(r.violations.some((v) => v.invariant === 'pod-deleted-before-volumes-reclaimed')).toBe(false);
  });

  afterEach(() => vi.restoreAllMocks());

  it("a podVolumesExist that forgets an uncertain mount is the kubelet's bug: the marker does not excuse it", () => {
    // The planted bug (the mutant vm-pod-volumes-exist-ignores-uncertain): count only certain mounts.
    // Every fix on: the failed unmap leaves the Block volume uncertain in the actual state, and the pod's
    // cgroup and API object go with it still mapped, before any restart.
    vi.spyOn(VolumeManager.prototype, 'podVolumesExist').mockImplementation(function (
      this: VolumeManager,
      uid,
    ) {
      return this.actualStateOfWorld.getMountedVolumesForPod(uid).length > 0;
    });
    const r = runScenario(parseScenarioText(text, 'f.yaml'), { fixes: Fixes.all(), recordFacts: true });
    const deleted = r.violations.filter((v) => v.invariant === 'pod-deleted-before-volumes-reclaimed');
    expect(deleted).toHaveLength(1);
    expect(deleted[0]?.knownOpen).toBeUndefined();
    expect((r.facts ?? []).some((f) => f.kind === 'podVolumesExistMissedBlockMap')).toBe(false);
  });
});
