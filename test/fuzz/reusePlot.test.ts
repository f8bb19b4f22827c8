// The volume chain's reuse plot (src/fuzz/profiles.ts plotted): the next pod takes the volume on the same
// node right after the first pod's grace period, while the first pod's UnmountDevice fails. The failure
// is the drawn stage when it leaves the node changed, else the plugin's default: a failure before the
// unmount (retried, nothing on the node changed) would give the next pod nothing to race with.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { placeVolumeChain, volumeChainDraft } from '../../src/fuzz/profiles.js';
import { UNMOUNT_DEVICE_STAGES, type UnmountDeviceStage } from '../../src/scenario/types.js';

const REUSE = 1;

function stageOf(stage: UnmountDeviceStage, plugin: 'fc' | 'iscsi' | 'csi'): UnmountDeviceStage | null {
  const d = fc.sample(volumeChainDraft, { seed: 11, numRuns: 1 })[0];
  if (d === undefined) throw new Error('no draft');
  const { entries } = placeVolumeChain(
    { ...d, plot: REUSE, plugin, fault: { step: 0, fault: { kind: 'unmountDevice', stage, times: 2 } } },
    ['node-a'],
    'lun-1',
  );
  for (const e of entries)
    if (e.action.kind === 'fault' && e.action.fault.kind === 'unmountDevice') return e.action.fault.stage;
  return null;
}

describe('the reuse plot', () => {
  it('keeps a drawn stage that leaves the node changed, and takes the default for one before the unmount', () => {
    for (const stage of UNMOUNT_DEVICE_STAGES.filter((s) => s !== 'beforeUnmount'))
      expect(stageOf(stage, 'fc'), stage).toBe(stage);
    expect(stageOf('beforeUnmount', 'fc')).toBe('afterUnmount');
    expect(stageOf('beforeUnmount', 'csi')).toBe('afterUnmount');
    expect(stageOf('beforeUnmount', 'iscsi')).toBe('deviceStillOpen');
  });
});
