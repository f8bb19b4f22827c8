// kubelet_volumes.go podVolumesExist, the disk half (getPodVolumePathListFromDisk): a CSI volume is
// mounted at <volume dir>/mount, not at the volume dir, so that is the path whose mount point counts.
// Found by podrace fuzz --kubelet 1.31 (seed 1, case 1145): the restarted kubelet could not reconstruct
// the force-deleted pod's CSI volume and cleanupMounts' TearDown failed, so the pod's mount stayed on
// disk; checking the volume dir instead of mount/ let cleanupOrphanedPodCgroups destroy the cgroup.
import { describe, expect, it } from 'vitest';
import { Fixes } from '../../src/fixes.js';
import { runScenario } from '../../src/run/run.js';
import { parseScenarioText } from '../../src/scenario/load.js';

const scenario = (plugin: string) => `
name: orphan-mount-held
seed: 0
horizon: 120s
cluster:
  nodes: [node-a]
  volumes:
    - {name: lun-1, plugin: ${plugin}, capacity: 10Gi}
timeline:
  - at: 0s
    createPod: {pod: v0, node: node-a, containers: 1, volumes: [lun-1]}
  - at: 0s
    fault: {constructVolumeSpec: {node: node-a, volume: lun-1}}
  - at: 0s
    fault: {tearDown: {node: node-a, volume: lun-1}}
  - at: 20s
    forceDeletePod: {pod: v0}
  - at: 20s
    restartKubelet: {node: node-a, downFor: 30s}
`;

function cgroupDestroyed(plugin: string): boolean {
  const r = runScenario(parseScenarioText(scenario(plugin), 'f.yaml'), {
    fixes: Fixes.of('1.26'),
    recordFacts: true,
  });
  // The TearDown of cleanupMounts failed: the pod's mount is still on disk at the end.
  expect(r.facts?.some((f) => f.kind === 'volumeTearDown' && !f.ok)).toBe(true);
  return (r.facts ?? []).some((f) => f.kind === 'podCgroupDestroyed' && f.pod === 'v0');
}

describe('podVolumesExist on disk', () => {
  it('a CSI mount left under <volume dir>/mount keeps the orphaned pod cgroup', () => {
    expect(cgroupDestroyed('csi')).toBe(false);
  });

  it('as an iSCSI mount at the volume dir does', () => {
    expect(cgroupDestroyed('iscsi')).toBe(false);
  });
});
