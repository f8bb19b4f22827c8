// Real log excerpts from upstream issues of the races podrace models (test/import/fixtures/, each with its
// source URL on its first line), and what the importer must make of each: the timeline in short form
// (`createPod NAME`, `fault KIND[/STAGE] VOLUME`, ...), the volumes (name, plugin, mode), or the one-line
// error of an excerpt it cannot read.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importLogs } from '../../src/import/importLogs.js';
import type { Action } from '../../src/scenario/types.js';

const dir = join(import.meta.dirname, 'fixtures');

function short(a: Action): string {
  switch (a.kind) {
    case 'createPod':
      return `createPod ${a.pod}${a.static ? ' static' : ''}${a.volumes.length > 0 ? ` [${a.volumes}]` : ''}`;
    case 'fault': {
      const f = a.fault;
      const stage = f.kind === 'unmountDevice' ? `/${f.stage}` : '';
      const target = 'volume' in f ? f.volume : 'pod' in f ? f.pod : f.node;
      return `fault ${f.kind}${stage} ${target}`;
    }
    case 'restartKubelet':
    case 'shutdownNode':
    case 'outOfServiceTaint':
      return `${a.kind} ${a.node}`;
    case 'deletePvc':
      return `${a.kind} ${a.volume}`;
    default:
      return `${a.kind} ${a.pod}`;
  }
}

interface Expected {
  readonly nodes?: string[];
  readonly volumes?: [string, string, string][];
  readonly timeline?: string[];
  readonly error?: RegExp;
}

const EXPECTED: Record<string, Expected> = {
  'k3s-11708-iscsi-waitforattach-failed.log': {
    nodes: ['kubetest'],
    volumes: [['iscsipd-rw', 'iscsi', 'Filesystem']],
    // MountVolume.WaitForAttach failed (the iSCSI login): the waitForAttach fault.
    timeline: ['createPod mariadb-0 [iscsipd-rw]', 'fault waitForAttach iscsipd-rw'],
  },
  'k8s-104785-rbd-unmap-no-header.log': {
    error: /no kubelet or kube-controller-manager line \(no klog, JSON or journald header\)/,
  },
  'k8s-107789-device-in-use-wrapped.log': {
    nodes: ['foobar'],
    volumes: [['pvc-c7f692ab-a5ae-45b3-b2ac-1e2d138f1d8b', 'csi', 'Filesystem']],
    timeline: ['fault unmountDevice/deviceStillOpen pvc-c7f692ab-a5ae-45b3-b2ac-1e2d138f1d8b'],
  },
  'k8s-109132-unmap-block-csi.log': {
    volumes: [['test-bv-volume', 'csi', 'Block']],
    timeline: [
      'createPod 7c5b2ecb-cda5-4e72-95db-4e133ba3a563 [test-bv-volume]',
      'fault tearDown test-bv-volume',
    ],
  },
  'k8s-117373-prestop-beyond-grace.log': {
    // journald without klog headers; the hook not completed in its 300 s grace (preStopHooks.ts).
    timeline: ['createPod app-68c6fc9b7d-26fwh', 'deletePod app-68c6fc9b7d-26fwh'],
  },
  'k8s-129805-force-detach-structured.log': {
    nodes: ['prod-tages-k8s-worker-2'],
    volumes: [['pvc-fb36d4b7-d16d-4e6b-a82f-70cdf5dbf7d0', 'csi', 'Filesystem']],
    timeline: [],
  },
  'k8s-21367-old-pleg-add-remove.log': {
    timeline: [
      'createPod cleanup30-67b6a779-d514-11e5-b81b-42010af01555-lyoph',
      'createPod pod-no-resources',
      'forceDeletePod pod-no-resources',
    ],
  },
  'k8s-22911-old-syncloop-kill.log': { timeline: ['createPod frontend-1jmyn', 'createPod frontend-koi5j'] },
  'k8s-35176-force-detach-old.log': {
    nodes: ['k8s-agentpool2-26612993-1'],
    volumes: [['kubetestdisk0', 'csi', 'Filesystem']],
    timeline: [],
  },
  'k8s-36983-teardown-cinder-old.log': {
    timeline: [
      'createPod 4389375b-acab-11e6-ac07-fa163e411bde [ubuntu-persistent-storage]',
      'fault tearDown ubuntu-persistent-storage',
    ],
  },
  'k8s-45464-reconstruct-not-mounted.log': {
    timeline: [
      'fault constructVolumeSpec pvc-f969cb9e-337e-11e7-b2b1-005056b7dc12',
      'fault constructVolumeSpec pvc-f94ac56f-337e-11e7-b2b1-005056b7dc12',
      'restartKubelet node-a',
    ],
  },
  'k8s-73799-reconstruct-no-plugin.log': {
    nodes: ['red'],
    timeline: ['fault constructVolumeSpec pvc-e74864be-dac9-11e8-aa41-74d4358c6859', 'restartKubelet red'],
  },
  'k8s-92126-delete-remove-same-second.log': {
    nodes: ['host1'],
    timeline: ['createPod metrics-server-8f9559cbb-b67qm', 'deletePod metrics-server-8f9559cbb-b67qm'],
  },
  'k8s-92442-static-remove-file.log': {
    timeline: [
      'createPod kube-apiserver-ip-10-0-147-205.us-west-1.compute.internal static',
      'deletePod kube-apiserver-ip-10-0-147-205.us-west-1.compute.internal',
    ],
  },
  'longhorn-485-orphaned-summary.log': { timeline: ['restartKubelet node-a'] },
  'longhorn-6533-k3s-unmap-block.log': {
    nodes: ['ubuntu2004'],
    volumes: [['pod-data', 'csi', 'Block']],
    timeline: ['createPod f3d02095-1d37-4704-842f-a6bc63d9efb4 [pod-data]', 'fault tearDown pod-data'],
  },
  'mattshma-114-orphaned-journald-no-host.log': { timeline: ['restartKubelet node-a'] },
  'nerd-407-teardown-busy.log': {
    timeline: [
      'createPod 07312048-59c4-11e8-b576-80c16e7a4248 [2f6f7574707574]',
      'fault tearDown 2f6f7574707574',
    ],
  },
  'origin-12073-orphaned-volume-old.log': {
    error: /no kubelet or kube-controller-manager message podrace reads/,
  },
  'rancher-12433-viewer-prefix.log': {
    volumes: [['iscsivol', 'iscsi', 'Filesystem']],
    timeline: ['createPod iscsipd [iscsivol]'],
  },
  'rancher-21535-mount-started.log': {
    volumes: [['pvc-59bb7200-a745-11e9-872e-6cb311233bae', 'iscsi', 'Filesystem']],
    timeline: [
      'createPod postgrescluster-backrest-shared-repo-7c5ccdd49d-29gml [pvc-59bb7200-a745-11e9-872e-6cb311233bae]',
    ],
  },
};

describe('the corpus of upstream log excerpts', () => {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.log'))
    .sort();

  it('has an expectation for every excerpt, and every excerpt names its source', () => {
    expect(files).toEqual(Object.keys(EXPECTED).sort());
    expect(files.length).toBeGreaterThanOrEqual(15);
    for (const f of files)
      expect(readFileSync(join(dir, f), 'utf8')).toMatch(/^# source: https:\/\/github\.com\//);
  });

  for (const f of files) {
    it(f, () => {
      const e = EXPECTED[f]!;
      const run = () => importLogs([{ name: f, bytes: readFileSync(join(dir, f)) }], { name: 'corpus' });
      if (e.error !== undefined) {
        expect(run).toThrow(e.error);
        return;
      }
      const r = run();
      if (e.nodes !== undefined) expect(r.scenario.nodes).toEqual(e.nodes);
      if (e.volumes !== undefined)
        expect(r.scenario.volumes.map((v) => [v.name, v.plugin, v.mode])).toEqual(e.volumes);
      if (e.timeline !== undefined)
        expect(r.scenario.timeline.map((t) => short(t.action))).toEqual(e.timeline);
      // The source line is a comment the reader skips, never a message.
      expect(r.unused.some((u) => u.line === 1)).toBe(true);
    });
  }
});
