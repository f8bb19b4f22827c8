// The setUp fault and #110670's "mount fails" half: a volume reconstruction put into the actual state as
// uncertain stays uncertain when its SetUp then fails (actual_state_of_world.go foundDuringReconstruction,
// IsVolumeReconstructed; operation_generator.go markVolumeErrorState "leaving volume uncertain"), so it is
// still torn down once its pod goes. Before the fix a failed SetUp forgot the mount the old kubelet made.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Fixes } from '../../../src/fixes.js';
import {
  VolumeMounted,
  VolumeMountUncertain,
} from '../../../src/kubelet/volumemanager/operationexecutor/operationExecutor.js';
import { runScenario } from '../../../src/run/run.js';
import { parseScenarioText } from '../../../src/scenario/load.js';
import { makeSpec, newASW, podMountOpts } from './fakes.js';

const opts = podMountOpts(VolumeMountUncertain);

describe('IsVolumeReconstructed', () => {
  it('only an uncertain mount that reconstruction added, until a mount confirms it or the pod leaves', () => {
    const asw = newASW();
    asw.markVolumeAsAttached('', makeSpec('lun-1'), 'node-a', '');
    asw.markVolumeMountAsUncertain(opts);
    expect(asw.isVolumeReconstructed('lun-1', 'uid-a')).toBe(false); // uncertain, but not reconstructed
    asw.markVolumeAsUnmounted('uid-a', 'lun-1');
    expect(asw.checkAndMarkVolumeAsUncertainViaReconstruction(opts)).toBe(true);
    expect(asw.isVolumeReconstructed('lun-1', 'uid-a')).toBe(true);
    expect(asw.isVolumeReconstructed('lun-1', 'uid-b')).toBe(false);
    asw.markVolumeAsMounted({ ...opts, volumeMountState: VolumeMounted });
    expect(asw.isVolumeReconstructed('lun-1', 'uid-a')).toBe(false);
    // Uncertain again (a later timeout): no longer reconstruction's.
    asw.markVolumeMountAsUncertain(opts);
    expect(asw.isVolumeReconstructed('lun-1', 'uid-a')).toBe(false);
    asw.markVolumeAsUnmounted('uid-a', 'lun-1');
    expect(asw.checkAndMarkVolumeAsUncertainViaReconstruction(opts)).toBe(true);
    asw.markVolumeAsUnmounted('uid-a', 'lun-1');
    expect(asw.checkAndMarkVolumeAsUncertainViaReconstruction(opts)).toBe(true);
    expect(asw.isVolumeReconstructed('lun-1', 'uid-a')).toBe(true);
  });
});

const bundled = readFileSync(
  join(import.meta.dirname, '..', '..', '..', 'scenarios', 'reconstructed-volume-setup-fails.yaml'),
  'utf8',
);
const run = (text: string, fixes: Fixes) =>
  runScenario(parseScenarioText(text, 'f.yaml'), { fixes, recordFacts: true });
const tearDowns = (facts: ReturnType<typeof run>['facts']) =>
  (facts ?? []).filter((f) => f.kind === 'volumeTearDown' && f.ok).map((f) => f.atMs);

describe('fault.setUp after a kubelet restart (#110670)', () => {
  it('with the fix: the failed SetUps leave the volume uncertain, and it is torn down once the pod is gone', () => {
    const r = run(bundled, Fixes.all());
    const fired = (r.facts ?? []).filter((f) => f.kind === 'faultInjected' && f.fault === 'setUp');
    expect(fired.length).toBeGreaterThanOrEqual(8);
    expect(tearDowns(r.facts)).toHaveLength(1);
    expect(r.violations).toEqual([]);
  });

  it('without it: the volume is forgotten, never torn down while SetUp fails, and the deletion never ends', () => {
    const r = run(bundled, Fixes.all().with('reconstruct-every-pod-of-volume', false));
    expect(tearDowns(r.facts)).toEqual([]);
    expect(r.violations.map((v) => v.invariant)).toEqual(['termination-stuck']);
  });

  it('an uncertain CSI SetUp (DeadlineExceeded) of a new pod is marked uncertain and torn down on delete', () => {
    const text = `
name: setup-uncertain
horizon: 3m
cluster:
  nodes: [node-a]
  volumes:
    - {name: lun-1, plugin: csi, capacity: 10Gi}
timeline:
  - at: 0s
    fault: {setUp: {node: node-a, volume: lun-1, error: uncertain, times: 50}}
  - at: 0s
    createPod: {pod: web, node: node-a, containers: 1, volumes: [lun-1]}
  - at: 20s
    deletePod: {pod: web, gracePeriod: 1s}
`;
    const r = run(text, Fixes.all());
    // Upstream's Test_UncertainVolumeMountState: a timed-out mount is uncertain, so UnmountVolume runs.
    expect(tearDowns(r.facts)).toHaveLength(1);
    expect((r.facts ?? []).some((f) => f.kind === 'containerStarted')).toBe(false);
  });

  it('the loader refuses an uncertain SetUp of an in-tree volume, and a setUp of an FC Block volume', () => {
    const base = (vol: string, fault: string) => `
name: bad
cluster:
  nodes: [node-a]
  volumes:
    - ${vol}
timeline:
  - at: 0s
    fault: {setUp: {node: node-a, volume: lun-1${fault}}}
`;
    expect(() =>
      parseScenarioText(base('{name: lun-1, plugin: fc, capacity: 1Gi}', ', error: uncertain'), 'b.yaml'),
    ).toThrow(
      /setUp\.error: volume "lun-1" is an fc volume, whose SetUp fails with mount-utils' final errors only/,
    );
    expect(() =>
      parseScenarioText(base('{name: lun-1, plugin: fc, mode: Block, capacity: 1Gi}', ''), 'b.yaml'),
    ).toThrow(/setUp\.volume: volume "lun-1" is an fc Block volume/);
  });
});
