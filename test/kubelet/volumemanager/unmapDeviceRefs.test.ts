// UnmapDevice's GetDeviceBindMountRefs check (operation_generator.go GenerateUnmapDeviceFunc,
// volume_path_handler.go): a pod's reference on a Block volume's global map path (`<mapPath>/{uid}`, a
// bind mount of the device) keeps the device from being torn down. Pod v0's UnmapBlockVolume is cut by a
// kubelet restart after it removed the pod's link and before it unmounted the reference (#85476's
// one-shot gap: nothing reconstructs it); pod v1 shares the volume and is deleted later, so the
// reconciler's UnmapDevice runs beside v0's orphaned reference.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Fixes } from '../../../src/fixes.js';
import { runScenario } from '../../../src/run/run.js';
import { parseScenarioText } from '../../../src/scenario/load.js';
import { Host } from '../../../src/storage/host.js';

afterEach(() => {
  vi.restoreAllMocks();
});

const yaml = [
  'name: unmap-refs',
  'seed: 4',
  'horizon: 200s',
  'cluster:',
  '  nodes: [node-a]',
  '  volumes:',
  '    - { name: lun-1, plugin: fc, mode: Block, capacity: 10Gi, accessMode: ReadWriteMany }',
  'timeline:',
  '  - at: 0s',
  '    createPod: { pod: v0, node: node-a, containers: 1, volumes: [lun-1], gracePeriod: 5s }',
  '  - at: 0s',
  '    createPod: { pod: v1, node: node-a, containers: 1, volumes: [lun-1], gracePeriod: 5s }',
  '  - at: 10780ms',
  '    deletePod: { pod: v0 }',
  '  - at: 11420ms',
  '    restartKubelet: { node: node-a, downFor: 18990ms }',
  '  - at: 60s',
  '    deletePod: { pod: v1 }',
].join('\n');

function run() {
  return runScenario(parseScenarioText(yaml, 'unmap-refs.yaml'), {
    fixes: Fixes.all(),
    recordFacts: true,
  });
}

describe('UnmapDevice and the pods’ references on the global map path', () => {
  it('leaves the device alone while another pod’s reference remains', () => {
    const facts = run().facts ?? [];
    // The second reconstruction, after the restart (the first ran at the kubelet's first start).
    const finished = facts.filter((f) => f.kind === 'reconstructionFinished').at(-1);
    expect(finished?.kind === 'reconstructionFinished' && finished.unreconstructedPodMaps).toEqual([
      { uid: 'v0-1', volume: 'lun-1' },
    ]);
    // TearDownDevice never ran: no flush of the map v0's reference holds, no unmount of the device.
    expect(facts.filter((f) => f.kind === 'multipathFlushFailed' || f.kind === 'unmountDevice')).toEqual([]);
  });

  it('tears the device down under the reference when the check sees none (the check blind)', () => {
    vi.spyOn(Host.prototype, 'deviceBindMountRefs').mockReturnValue([]);
    expect((run().facts ?? []).some((f) => f.kind === 'multipathFlushFailed')).toBe(true);
  });
});
