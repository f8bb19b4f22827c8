// The recogniser, one upstream message form at a time (texts as pkg/kubelet and operation_generator.go
// of release-1.23 and release-1.20 write them).
import { describe, expect, it } from 'vitest';
import { importLogs } from '../../src/import/importLogs.js';
import { parseObjectList, parseStructured } from '../../src/import/keyValues.js';
import { recognise } from '../../src/import/recognise.js';

describe('parseStructured', () => {
  it('reads the message, quoted values with escapes, lists and bare values', () => {
    const s = parseStructured(
      '"Killing container with a grace period" pod="default/web-0" podUID=abc containerName="app" err="a \\"b\\"\\nc" pods=[default/a kube-system/b] gracePeriod=30',
    );
    expect(s?.message).toBe('Killing container with a grace period');
    expect(Object.fromEntries(s!.values)).toEqual({
      pod: 'default/web-0',
      podUID: 'abc',
      containerName: 'app',
      err: 'a "b"\nc',
      pods: '[default/a kube-system/b]',
      gracePeriod: '30',
    });
    expect(parseObjectList('[default/a kube-system/b]')).toEqual([
      { namespace: 'default', name: 'a' },
      { namespace: 'kube-system', name: 'b' },
    ]);
  });
  it('a text that does not open with a quote is not structured', () => {
    expect(parseStructured('SyncLoop (ADD, "api")')).toBeNull();
  });
});

describe('recognise: pods', () => {
  it('SyncLoop ADD / DELETE / REMOVE, structured and old', () => {
    expect(recognise('"SyncLoop ADD" source="api" pods=[default/web-0]')).toEqual({
      kind: 'podOp',
      op: 'ADD',
      source: 'api',
      pods: [{ namespace: 'default', name: 'web-0', uid: '' }],
    });
    expect(recognise('"SyncLoop REMOVE" source="file" pods=[kube-system/etcd-m1]')).toMatchObject({
      op: 'REMOVE',
      source: 'file',
    });
    expect(recognise('SyncLoop (DELETE, "api"): "web-0_default(3c1e-44)"')).toEqual({
      kind: 'podOp',
      op: 'DELETE',
      source: 'api',
      pods: [{ namespace: 'default', name: 'web-0', uid: '3c1e-44' }],
    });
  });
  it('kills with a grace period, structured and old', () => {
    expect(
      recognise(
        '"Killing container with a grace period" pod="default/web-0" podUID=u1 containerName="app" containerID="containerd://ab" gracePeriod=30',
      ),
    ).toEqual({
      kind: 'killContainer',
      pod: { namespace: 'default', name: 'web-0', uid: 'u1' },
      container: 'app',
      containerId: 'ab',
      gracePeriodS: 30,
    });
    // 1.2's docker manager names the pod; a later printf form names none, and then there is nothing to use.
    expect(
      recognise('Killing container "e0f0 frontend default/frontend-1jmyn" with 30 second grace period'),
    ).toEqual({
      kind: 'killContainer',
      pod: { namespace: 'default', name: 'frontend-1jmyn', uid: '' },
      container: 'frontend',
      containerId: '',
      gracePeriodS: 30,
    });
    expect(recognise('Killing container "docker://abc" with 12 second grace period')).toBeNull();
  });
  it('PLEG events, structured and old', () => {
    expect(
      recognise(
        '"SyncLoop (PLEG): event for pod" pod="default/web-0" event=&{ID:6f1a2b3c-0000 Type:ContainerStarted Data:abcdef012345}',
      ),
    ).toEqual({
      kind: 'pleg',
      pod: { namespace: 'default', name: 'web-0', uid: '6f1a2b3c-0000' },
      event: 'ContainerStarted',
      container: 'abcdef012345',
    });
    expect(
      recognise(
        'SyncLoop (PLEG): "web-0_default(6f1a2b3c-0000)", event: &pleg.PodLifecycleEvent{ID:"6f1a2b3c-0000", Type:"ContainerDied", Data:"abcdef0"}',
      ),
    ).toMatchObject({
      kind: 'pleg',
      event: 'ContainerDied',
      pod: { name: 'web-0' },
    });
  });
  it('eviction, shutdown, kubelet start with its version', () => {
    expect(
      recognise('"Evicting pod" pod="default/web-0" podUID=u1 message="The node was low on resource"'),
    ).toMatchObject({ kind: 'evict', pod: { name: 'web-0' } });
    expect(
      recognise('"Shutdown manager detected new shutdown event, isNodeShuttingDownNow" event=true'),
    ).toEqual({ kind: 'shutdown' });
    // NewManager's configuration line (1.21+): the node's shutdownGracePeriod and its critical-pods share.
    expect(
      recognise(
        '"Creating node shutdown manager" shutdownGracePeriodRequested="1m0s" shutdownGracePeriodCriticalPods="10s" shutdownGracePeriodByPodPriority=[]',
      ),
    ).toEqual({ kind: 'shutdownConfig', periodS: 60, criticalS: 10 });
    // A critical share over the period is a configuration the kubelet refuses: not read.
    expect(
      recognise(
        '"Creating node shutdown manager" shutdownGracePeriodRequested="5s" shutdownGracePeriodCriticalPods="10s"',
      ),
    ).toBeNull();
    expect(recognise('"Kubelet version" kubeletVersion="v1.23.13"')).toEqual({
      kind: 'kubeletStart',
      version: '1.23',
    });
    expect(recognise('Version: v1.20.15')).toEqual({ kind: 'kubeletStart', version: '1.20' });
  });
});

describe('recognise: volumes', () => {
  it('operation_generator successes with volume, UniqueName, pod and UID', () => {
    expect(
      recognise(
        '"MountVolume.MountDevice succeeded for volume \\"pvc-1\\" (UniqueName: \\"kubernetes.io/iscsi/10.0.0.1:3260:iqn.x:lun-0\\") pod \\"web-0\\" (UID: \\"u1\\") device mount path \\"/var/lib/kubelet/plugins/kubernetes.io/iscsi/iface-default/10.0.0.1:3260-iqn.x-lun-0\\"" pod="default/web-0"',
      ),
    ).toEqual({
      kind: 'volumeOp',
      op: 'mountDevice',
      ok: true,
      volume: 'pvc-1',
      uniqueName: 'kubernetes.io/iscsi/10.0.0.1:3260:iqn.x:lun-0',
      pod: { namespace: '', name: 'web-0', uid: 'u1' },
      node: '',
      error: '',
    });
  });
  it("UnmountVolume.TearDown's own line: the volume is its InnerVolumeSpecName, the unique name comes first", () => {
    const line =
      'UnmountVolume.TearDown succeeded for volume "kubernetes.io/csi/ebs.csi.aws.com^vol-0abc" (OuterVolumeSpecName: "data") pod "4657c2b5" (UID: "4657c2b5"). InnerVolumeSpecName "pvc-5f1c". PluginName "kubernetes.io/csi", VolumeGidValue ""';
    expect(recognise(line)).toMatchObject({
      kind: 'volumeOp',
      op: 'tearDown',
      ok: true,
      volume: 'pvc-5f1c',
      uniqueName: 'kubernetes.io/csi/ebs.csi.aws.com^vol-0abc',
    });
    // So a log that mounted the volume by its PV name and tears it down so names one volume, not two.
    const mount =
      'I0327 20:10:02.100000   23955 operation_generator.go:712] "MountVolume.SetUp succeeded for volume \\"pvc-5f1c\\" (UniqueName: \\"kubernetes.io/csi/ebs.csi.aws.com^vol-0abc\\") pod \\"web-0\\" (UID: \\"4657c2b5\\") " pod="default/web-0"';
    const log = [
      'I0327 20:10:00.000000   23955 kubelet.go:2100] "SyncLoop ADD" source="api" pods=[default/web-0]',
      mount,
      'I0327 20:11:00.000000   23955 kubelet.go:2110] "SyncLoop DELETE" source="api" pods=[default/web-0]',
      `I0327 20:11:05.500000   23955 operation_generator.go:910] ${line}`,
      '',
    ].join('\n');
    const r = importLogs([{ name: 'k.log', bytes: Buffer.from(log) }], { name: 't' });
    expect(r.scenario.volumes.map((v) => v.name)).toEqual(['pvc-5f1c']);
  });
  it('a failure inside nestedpendingoperations, with its error text', () => {
    const e = recognise(
      'Operation for "{volumeName:kubernetes.io/fc/wwn-0 podName: nodeName:}" failed. No retries permitted until 2022-05-23 09:51:00 (durationBeforeRetry 500ms). Error: UnmountDevice failed for volume "pvc-2" (UniqueName: "kubernetes.io/fc/wwn-0") on node "node-1" : the device is in use when it was no longer expected to be in use',
    );
    expect(e).toMatchObject({
      kind: 'volumeOp',
      op: 'unmountDevice',
      ok: false,
      volume: 'pvc-2',
      node: 'node-1',
      error: 'the device is in use when it was no longer expected to be in use',
    });
  });
  it('the reconciler restating a failure is not a second operation', () => {
    expect(
      recognise(
        'operationExecutor.UnmountDevice failed (controllerAttachDetachEnabled true) for volume "pvc-2"',
      ),
    ).toBeNull();
  });
  it('reconstruction, orphans, /proc/mounts, map in use', () => {
    expect(
      recognise(
        '"Could not construct volume information, cleaning up mounts" podName=u9 volumeSpecName="pvc-3" err="failed to get volume plugin"',
      ),
    ).toEqual({
      kind: 'reconstructFailed',
      volume: 'pvc-3',
      uid: 'u9',
      error: 'failed to get volume plugin',
    });
    expect(
      recognise('Orphaned pod "5b3c9f7e-1111" found, but volume paths are still present on disk'),
    ).toEqual({ kind: 'orphanVolumePaths', uid: '5b3c9f7e-1111' });
    expect(recognise('could not get consistent content of /proc/mounts after 3 attempts')).toEqual({
      kind: 'inconsistentMounts',
    });
    expect(recognise('multipath -f 3600a0980: map in use')).toMatchObject({ kind: 'mapInUse' });
  });
  it('the controller manager: attach, detach, Multi-Attach, force detach', () => {
    expect(
      recognise(
        'AttachVolume.Attach succeeded for volume "pvc-4" (UniqueName: "kubernetes.io/csi/ebs^vol-1") from node "node-2"',
      ),
    ).toMatchObject({ op: 'attach', ok: true, node: 'node-2' });
    expect(
      recognise(
        'Multi-Attach error for volume "pvc-4" (UniqueName: "kubernetes.io/csi/ebs^vol-1") from node "node-2" Volume is already exclusively attached to node node-1 and can\'t be attached to another',
      ),
    ).toEqual({
      kind: 'multiAttach',
      volume: 'pvc-4',
      node: 'node-2',
      attachedTo: 'node-1',
    });
    expect(
      recognise(
        'attacherDetacher.DetachVolume started for volume "pvc-4" (UniqueName: "x") on node "node-1" This volume is not safe to detach, but maxWaitForUnmountDuration 6m0s expired, force detaching',
      ),
    ).toEqual({
      kind: 'forceDetach',
      volume: 'pvc-4',
      node: 'node-1',
    });
  });
  it('anything else is nothing', () => {
    expect(recognise('"Updating node status"')).toBeNull();
  });
});
