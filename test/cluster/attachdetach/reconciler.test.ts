// Ported from kubernetes pkg/controller/volume/attachdetach/reconciler/reconciler_test.go, v1.23.13: every
// Test_Run_* test and Test_ReportMultiAttachError, on the simulator's ported reconciler, caches,
// operation executor (nestedpendingoperations with exponential backoff) and node status updater, with a
// fake attachable plugin like volumetesting's. Upstream runs the reconciler in real time and sleeps; here
// the same sleeps and polls (retryWithExponentialBackOff) advance virtual time. reconcilerLoopPeriod is
// 10 ms and maxWaitForUnmountDuration 50 ms, as upstream's. The node status updater is upstream's fake
// where upstream uses the fake; the two UpdateStatusFail tests use the real updater against the simulated
// API server with its failNodeStatusUpdates hook (upstream swaps in a failing fake).
//
// Every upstream test of the file is ported; none is left out. The tests added or changed after v1.23.13
// are ported in reconcilerNewer.test.ts. The last describe block adds the simulator's own checks of the
// release-1.23 / PR #110721 force-detach rules, the backoff timing and the facts.
import { describe, expect, it } from 'vitest';
import {
  AttachStateAttached,
  AttachStateUncertain,
} from '../../../src/cluster/attachdetach/actualStateOfWorld.js';
import { Fixes } from '../../../src/fixes.js';
import {
  addPod,
  deletePod,
  verifyNewAttacherCallCount,
  verifyNewDetacherCallCount,
  verifyVolumeAttachedToNode,
  verifyVolumeNoStatusUpdateNeeded,
  verifyVolumeReportedAsAttachedToNode,
  volumeName,
  waitForAttachCallCount,
  waitForAttachedToNodesCount,
  waitForDetachCallCount,
  waitForMultiAttachErrorOnNode,
  waitForNewAttacherCallCount,
  waitForNewDetacherCallCount,
  waitForTotalAttachCallCount,
  waitForTotalDetachCallCount,
  waitForVolumeAddedToNode,
  waitForVolumeAttachedToNode,
  waitForVolumeRemovedFromNode,
} from './assertions.js';
import {
  FailDetachNode,
  getTestVolumeSpec,
  Harness,
  MultiAttachNode,
  newPod,
  TimeoutAttachNode,
  UncertainAttachNode,
} from './fakes.js';

describe('reconciler_test.go (release-1.23)', () => {
  // Calls Run()
  // Verifies there are no calls to attach or detach.
  it('Test_Run_Positive_DoNothing', () => {
    // Upstream builds the real node status updater here, over an informer that never started.
    const h = new Harness({ nodeStatusUpdater: 'api' });
    h.run();
    waitForNewAttacherCallCount(h, 0);
    verifyNewAttacherCallCount(h, true);
    verifyNewDetacherCallCount(h, true);
    waitForAttachCallCount(h, 0);
    waitForDetachCallCount(h, 0);
  });

  // Populates desiredStateOfWorld cache with one node/volume/pod tuple.
  // Calls Run()
  // Verifies there is one attach call and no detach calls.
  it('Test_Run_Positive_OneDesiredVolumeAttach', () => {
    const h = new Harness();
    const podName = 'pod-uid';
    const nodeName = 'node-name';
    h.dsw.addNode(nodeName, false);
    expect(h.dsw.volumeExists(volumeName, nodeName)).toBe(false);
    addPod(h, podName, volumeName, nodeName);
    h.run();
    waitForNewAttacherCallCount(h, 1);
    waitForAttachCallCount(h, 1);
    verifyNewDetacherCallCount(h, true);
  });

  // Populates desiredStateOfWorld cache with one node/volume/pod tuple.
  // Calls Run()
  // Verifies there is one attach call and no detach calls.
  // Marks the node/volume as unmounted.
  // Deletes the node/volume/pod tuple from desiredStateOfWorld cache.
  // Verifies there is one detach call and no (new) attach calls.
  it('Test_Run_Positive_OneDesiredVolumeAttachThenDetachWithUnmountedVolume', () => {
    const h = new Harness();
    const podName = 'pod-uid';
    const nodeName = 'node-name';
    h.dsw.addNode(nodeName, false);
    expect(h.dsw.volumeExists(volumeName, nodeName)).toBe(false);
    const generatedVolumeName = addPod(h, podName, volumeName, nodeName);
    h.run();
    waitForNewAttacherCallCount(h, 1);
    verifyNewAttacherCallCount(h, false);
    waitForAttachCallCount(h, 1);
    verifyNewDetacherCallCount(h, true);
    waitForDetachCallCount(h, 0);

    deletePod(h, podName, generatedVolumeName, nodeName);
    h.asw.setVolumeMountedByNode(generatedVolumeName, nodeName, true);
    h.asw.setVolumeMountedByNode(generatedVolumeName, nodeName, false);

    waitForNewDetacherCallCount(h, 1);
    verifyNewAttacherCallCount(h, false);
    waitForAttachCallCount(h, 1);
    verifyNewDetacherCallCount(h, false);
    waitForDetachCallCount(h, 1);
  });

  // Populates desiredStateOfWorld cache with one node/volume/pod tuple.
  // Calls Run()
  // Verifies there is one attach call and no detach calls.
  // Deletes the node/volume/pod tuple from desiredStateOfWorld cache without first marking the node/volume as unmounted.
  // Verifies there is one detach call and no (new) attach calls.
  it('Test_Run_Positive_OneDesiredVolumeAttachThenDetachWithMountedVolume', () => {
    const h = new Harness();
    const podName = 'pod-uid';
    const nodeName = 'node-name';
    h.dsw.addNode(nodeName, false);
    expect(h.dsw.volumeExists(volumeName, nodeName)).toBe(false);
    const generatedVolumeName = addPod(h, podName, volumeName, nodeName);
    h.run();
    waitForNewAttacherCallCount(h, 1);
    verifyNewAttacherCallCount(h, false);
    waitForAttachCallCount(h, 1);
    verifyNewDetacherCallCount(h, true);
    waitForDetachCallCount(h, 0);

    deletePod(h, podName, generatedVolumeName, nodeName);

    // Assert -- Timer will trigger detach
    waitForNewDetacherCallCount(h, 1);
    verifyNewAttacherCallCount(h, false);
    waitForAttachCallCount(h, 1);
    verifyNewDetacherCallCount(h, false);
    waitForDetachCallCount(h, 1);
  });

  // Populates desiredStateOfWorld cache with one node/volume/pod tuple.
  // Has node update fail
  // Calls Run()
  // Verifies there is one attach call and no detach calls.
  // Marks the node/volume as unmounted.
  // Deletes the node/volume/pod tuple from desiredStateOfWorld cache.
  // Verifies there are NO detach call and no (new) attach calls.
  it('Test_Run_Negative_OneDesiredVolumeAttachThenDetachWithUnmountedVolumeUpdateStatusFail', () => {
    const nodeName = 'node-name';
    // Upstream: NewFakeNodeStatusUpdater(true). Here every status patch of the node fails on the API server.
    const h = new Harness({ nodes: [nodeName], nodeStatusUpdater: 'api' });
    h.api.failNodeStatusUpdates(nodeName, Number.MAX_SAFE_INTEGER);
    const podName = 'pod-uid';
    h.dsw.addNode(nodeName, false);
    expect(h.dsw.volumeExists(volumeName, nodeName)).toBe(false);
    const generatedVolumeName = addPod(h, podName, volumeName, nodeName);
    h.run();
    waitForNewAttacherCallCount(h, 1);
    verifyNewAttacherCallCount(h, false);
    waitForAttachCallCount(h, 1);
    verifyNewDetacherCallCount(h, true);
    waitForDetachCallCount(h, 0);

    deletePod(h, podName, generatedVolumeName, nodeName);
    h.asw.setVolumeMountedByNode(generatedVolumeName, nodeName, true);
    h.asw.setVolumeMountedByNode(generatedVolumeName, nodeName, false);

    verifyNewDetacherCallCount(h, true);
    verifyNewAttacherCallCount(h, false);
    waitForAttachCallCount(h, 1);
    verifyNewDetacherCallCount(h, false);
    waitForDetachCallCount(h, 0);
    // Simulator addition: upstream's checks run right after the deletion; a second later (many detach
    // attempts' worth of loops) there is still no detacher, and the node's status was never written.
    h.sleep(1000);
    expect(h.plugin.newDetacherCallCount).toBe(0);
    expect(h.api.getNode(nodeName).status.volumesAttached).toEqual([]);
    verifyVolumeAttachedToNode(h, generatedVolumeName, nodeName, AttachStateAttached);
  });

  // Creates a volume with accessMode ReadWriteMany
  // Populates desiredStateOfWorld cache with two node/volume/pod tuples pointing to the created volume
  // Calls Run()
  // Verifies there are two attach calls and no detach calls.
  // Deletes the first node/volume/pod tuple from desiredStateOfWorld cache without first marking the node/volume as unmounted.
  // Verifies there is one detach call and no (new) attach calls.
  // Deletes the second node/volume/pod tuple from desiredStateOfWorld cache without first marking the node/volume as unmounted.
  // Verifies there are two detach calls and no (new) attach calls.
  it('Test_Run_OneVolumeAttachAndDetachMultipleNodesWithReadWriteMany', () => {
    const h = new Harness();
    const podName1 = 'pod-uid1';
    const podName2 = 'pod-uid2';
    const nodeName1 = 'node-name1';
    const nodeName2 = MultiAttachNode;
    h.dsw.addNode(nodeName1, false);
    h.dsw.addNode(nodeName2, false);
    const generatedVolumeName = addPod(h, podName1, volumeName, nodeName1, 'ReadWriteMany');
    addPod(h, podName2, volumeName, nodeName2, 'ReadWriteMany');
    h.run();
    waitForNewAttacherCallCount(h, 2);
    verifyNewAttacherCallCount(h, false);
    waitForTotalAttachCallCount(h, 2);
    verifyNewDetacherCallCount(h, true);
    waitForDetachCallCount(h, 0);
    waitForAttachedToNodesCount(h, 2, generatedVolumeName);

    deletePod(h, podName1, generatedVolumeName, nodeName1);
    // Assert -- Timer will trigger detach
    waitForNewDetacherCallCount(h, 1);
    verifyNewAttacherCallCount(h, false);
    waitForTotalAttachCallCount(h, 2);
    verifyNewDetacherCallCount(h, false);
    waitForTotalDetachCallCount(h, 1);

    deletePod(h, podName2, generatedVolumeName, nodeName2);
    // Assert -- Timer will trigger detach
    waitForNewDetacherCallCount(h, 2);
    verifyNewAttacherCallCount(h, false);
    waitForTotalAttachCallCount(h, 2);
    verifyNewDetacherCallCount(h, false);
    waitForTotalDetachCallCount(h, 2);
  });

  // Creates a volume with accessMode ReadWriteOnce
  // Populates desiredStateOfWorld cache with two ode/volume/pod tuples pointing to the created volume
  // Calls Run()
  // Verifies there is one attach call and no detach calls.
  // Deletes the node/volume/pod tuple from desiredStateOfWorld which succeeded in attaching
  // Verifies there are two attach call and one detach call.
  it('Test_Run_OneVolumeAttachAndDetachMultipleNodesWithReadWriteOnce', () => {
    const h = new Harness();
    const podName1 = 'pod-uid1';
    const podName2 = 'pod-uid2';
    const nodeName1 = 'node-name1';
    const nodeName2 = 'node-name2';
    h.dsw.addNode(nodeName1, false);
    h.dsw.addNode(nodeName2, false);
    // Add both pods at the same time to provoke a potential race condition in the reconciler
    const generatedVolumeName = addPod(h, podName1, volumeName, nodeName1);
    addPod(h, podName2, volumeName, nodeName2);
    h.run();
    waitForNewAttacherCallCount(h, 1);
    verifyNewAttacherCallCount(h, false);
    waitForTotalAttachCallCount(h, 1);
    verifyNewDetacherCallCount(h, true);
    waitForDetachCallCount(h, 0);
    waitForAttachedToNodesCount(h, 1, generatedVolumeName);

    const nodesForVolume = h.asw.getNodesForAttachedVolume(generatedVolumeName);
    // check if multiattach is marked
    // at least one volume+node should be marked with multiattach error
    const nodeAttachedTo = nodesForVolume[0] ?? '';
    waitForMultiAttachErrorOnNode(h, nodeAttachedTo);

    let podToDelete = '';
    if (nodeAttachedTo === nodeName1) podToDelete = podName1;
    else if (nodeAttachedTo === nodeName2) podToDelete = podName2;
    else expect.fail('Volume attached to unexpected node');
    deletePod(h, podToDelete, generatedVolumeName, nodeAttachedTo);

    waitForNewDetacherCallCount(h, 1);
    verifyNewDetacherCallCount(h, false);
    waitForTotalDetachCallCount(h, 1);
    waitForNewAttacherCallCount(h, 2);
    verifyNewAttacherCallCount(h, false);
    waitForTotalAttachCallCount(h, 2);
  });

  // Creates a volume with accessMode ReadWriteOnce
  // First create a pod which will try to attach the volume to the a node named "uncertain-node". The attach call for this node will
  // fail for timeout, but the volume will be actually attached to the node after the call.
  // Secondly, delete this pod.
  // Lastly, create a pod scheduled to a normal node which will trigger attach volume to the node. The attach should return successfully.
  it('Test_Run_OneVolumeAttachAndDetachUncertainNodesWithReadWriteOnce', () => {
    const h = new Harness();
    const podName1 = 'pod-uid1';
    const podName2 = 'pod-uid2';
    const nodeName1 = UncertainAttachNode;
    const nodeName2 = 'node-name2';
    h.dsw.addNode(nodeName1, false);
    h.dsw.addNode(nodeName2, false);
    h.run();

    // Add the pod in which the volume is attached to the uncertain node
    let generatedVolumeName = addPod(h, podName1, volumeName, nodeName1);
    h.sleep(1000);
    // Volume is added to asw. Because attach operation fails, volume should not be reported as attached to the node.
    waitForVolumeAddedToNode(h, generatedVolumeName, nodeName1);
    verifyVolumeAttachedToNode(h, generatedVolumeName, nodeName1, AttachStateAttached);
    verifyVolumeReportedAsAttachedToNode(h, generatedVolumeName, nodeName1, true);

    // When volume is added to the node, it is set to mounted by default. Then the status will be updated by checking node status VolumeInUse.
    // Without this, the delete operation will be delayed due to mounted status
    h.asw.setVolumeMountedByNode(generatedVolumeName, nodeName1, false);
    h.dsw.deletePod(podName1, generatedVolumeName, nodeName1);
    waitForVolumeRemovedFromNode(h, generatedVolumeName, nodeName1);

    // Add a second pod which tries to attach the volume to a different node.
    generatedVolumeName = addPod(h, podName2, volumeName, nodeName2);
    waitForVolumeAttachedToNode(h, generatedVolumeName, nodeName2);
    verifyVolumeAttachedToNode(h, generatedVolumeName, nodeName2, AttachStateAttached);
  });

  it('Test_Run_UpdateNodeStatusFailBeforeOneVolumeDetachNodeWithReadWriteOnce', () => {
    const nodeName1 = 'node-name1';
    // The real node status updater over the simulated API server; upstream starts with a fake that succeeds.
    const h = new Harness({ nodes: [nodeName1], nodeStatusUpdater: 'api' });
    const podName1 = 'pod-uid1';
    h.dsw.addNode(nodeName1, false);
    // Add the pod in which the volume is attached to the FailDetachNode
    const generatedVolumeName = addPod(h, podName1, volumeName, nodeName1);

    h.reconciliationLoopFunc();
    // Volume is added to asw, volume should be reported as attached to the node.
    waitForVolumeAddedToNode(h, generatedVolumeName, nodeName1);
    verifyVolumeAttachedToNode(h, generatedVolumeName, nodeName1, AttachStateAttached);
    verifyVolumeReportedAsAttachedToNode(h, generatedVolumeName, nodeName1, true);

    // Delete the pod
    h.dsw.deletePod(podName1, generatedVolumeName, nodeName1);

    // Mock NodeStatusUpdate fail (upstream swaps in NewFakeNodeStatusUpdater(true))
    h.api.failNodeStatusUpdates(nodeName1, Number.MAX_SAFE_INTEGER);
    h.reconciliationLoopFunc();
    // The first detach will be triggered after at leaset 50ms (maxWaitForUnmountDuration in test).
    h.sleep(100);
    h.reconciliationLoopFunc();
    // Right before detach operation is performed, the volume will be first removed from being reported
    // as attached on node status (RemoveVolumeFromReportAsAttached). After UpdateNodeStatus operation which is expected to fail,
    // controller then added the volume back as attached.
    // verifyVolumeReportedAsAttachedToNode will check volume is in the list of volume attached that needs to be updated
    // in node status. By calling this function (GetVolumesToReportAttached), node status should be updated, and the volume
    // will not need to be updated until new changes are applied (detach is triggered again)
    verifyVolumeAttachedToNode(h, generatedVolumeName, nodeName1, AttachStateAttached);
    verifyVolumeReportedAsAttachedToNode(h, generatedVolumeName, nodeName1, true);
    // Simulator addition: the failed status update kept the detach from starting.
    expect(h.plugin.newDetacherCallCount).toBe(0);
  });

  it('Test_Run_OneVolumeDetachFailNodeWithReadWriteOnce', () => {
    const h = new Harness();
    const podName1 = 'pod-uid1';
    const podName2 = 'pod-uid2';
    const podName3 = 'pod-uid3';
    const nodeName1 = FailDetachNode;
    const nodeName2 = 'node-name2';
    h.dsw.addNode(nodeName1, false);
    h.dsw.addNode(nodeName2, false);
    h.run();

    // Add the pod in which the volume is attached to the FailDetachNode
    let generatedVolumeName = addPod(h, podName1, volumeName, nodeName1);
    h.sleep(1000);
    // Volume is added to asw, volume should be reported as attached to the node.
    waitForVolumeAddedToNode(h, generatedVolumeName, nodeName1);
    verifyVolumeAttachedToNode(h, generatedVolumeName, nodeName1, AttachStateAttached);
    verifyVolumeReportedAsAttachedToNode(h, generatedVolumeName, nodeName1, true);

    // Delete the pod, but detach will fail
    h.dsw.deletePod(podName1, generatedVolumeName, nodeName1);

    // The first detach will be triggered after at leaset 50ms (maxWaitForUnmountDuration in test).
    // Right before detach operation is performed, the volume will be first removed from being reported
    // as attached on node status (RemoveVolumeFromReportAsAttached). After detach operation which is expected to fail,
    // controller then added the volume back as attached.
    // Here it sleeps 100ms so that detach should be triggered already at this point.
    // verifyVolumeReportedAsAttachedToNode will check volume is in the list of volume attached that needs to be updated
    // in node status. By calling this function (GetVolumesToReportAttached), node status should be updated, and the volume
    // will not need to be updated until new changes are applied (detach is triggered again)
    h.sleep(100);
    verifyVolumeAttachedToNode(h, generatedVolumeName, nodeName1, AttachStateAttached);
    verifyVolumeReportedAsAttachedToNode(h, generatedVolumeName, nodeName1, true);

    // After the first detach fails, reconciler will wait for a period of time before retrying to detach.
    // The wait time is increasing exponentially from initial value of 0.5s (0.5, 1, 2, 4, ...).
    // The test here waits for 100 Millisecond to make sure it is in exponential backoff period after
    // the first detach operation. At this point, volumes status should not be updated
    h.sleep(100);
    verifyVolumeAttachedToNode(h, generatedVolumeName, nodeName1, AttachStateAttached);
    verifyVolumeNoStatusUpdateNeeded(h, generatedVolumeName, nodeName1);

    // Wait for 600ms to make sure second detach operation triggered. Again, The volume will be
    // removed from being reported as attached on node status and then added back as attached.
    // The volume will be in the list of attached volumes that need to be updated to node status.
    h.sleep(600);
    verifyVolumeAttachedToNode(h, generatedVolumeName, nodeName1, AttachStateAttached);
    verifyVolumeReportedAsAttachedToNode(h, generatedVolumeName, nodeName1, true);

    // Add a second pod which tries to attach the volume to the same node.
    // After adding pod to the same node, detach will not be triggered any more.
    generatedVolumeName = addPod(h, podName2, volumeName, nodeName1);
    // Sleep 1s to verify no detach are triggered after second pod is added in the future.
    h.sleep(1000);
    verifyVolumeAttachedToNode(h, generatedVolumeName, nodeName1, AttachStateAttached);
    verifyVolumeNoStatusUpdateNeeded(h, generatedVolumeName, nodeName1);

    // Add a third pod which tries to attach the volume to a different node.
    // At this point, volume is still attached to first node. There are no status update for both nodes.
    generatedVolumeName = addPod(h, podName3, volumeName, nodeName2);
    verifyVolumeAttachedToNode(h, generatedVolumeName, nodeName1, AttachStateAttached);
    verifyVolumeNoStatusUpdateNeeded(h, generatedVolumeName, nodeName1);
    verifyVolumeNoStatusUpdateNeeded(h, generatedVolumeName, nodeName2);
  });

  // Creates a volume with accessMode ReadWriteOnce
  // First create a pod which will try to attach the volume to the a node named "timeout-node". The attach call for this node will
  // fail for timeout, but the volume will be actually attached to the node after the call.
  // Secondly, delete the this pod.
  // Lastly, create a pod scheduled to a normal node which will trigger attach volume to the node. The attach should return successfully.
  it('Test_Run_OneVolumeAttachAndDetachTimeoutNodesWithReadWriteOnce', () => {
    const h = new Harness();
    const podName1 = 'pod-uid1';
    const podName2 = 'pod-uid2';
    const nodeName1 = TimeoutAttachNode;
    const nodeName2 = 'node-name2';
    h.dsw.addNode(nodeName1, false);
    h.dsw.addNode(nodeName2, false);
    h.run();

    // Add the pod in which the volume is attached to the timeout node
    let generatedVolumeName = addPod(h, podName1, volumeName, nodeName1);
    // Volume is added to asw. Because attach operation fails, volume should not be reported as attached to the node.
    waitForVolumeAddedToNode(h, generatedVolumeName, nodeName1);
    verifyVolumeAttachedToNode(h, generatedVolumeName, nodeName1, AttachStateUncertain);
    verifyVolumeReportedAsAttachedToNode(h, generatedVolumeName, nodeName1, false);

    // When volume is added to the node, it is set to mounted by default. Then the status will be updated by checking node status VolumeInUse.
    // Without this, the delete operation will be delayed due to mounted status
    h.asw.setVolumeMountedByNode(generatedVolumeName, nodeName1, false);
    h.dsw.deletePod(podName1, generatedVolumeName, nodeName1);
    waitForVolumeRemovedFromNode(h, generatedVolumeName, nodeName1);

    // Add a second pod which tries to attach the volume to a different node.
    generatedVolumeName = addPod(h, podName2, volumeName, nodeName2);
    waitForVolumeAttachedToNode(h, generatedVolumeName, nodeName2);
    verifyVolumeAttachedToNode(h, generatedVolumeName, nodeName2, AttachStateAttached);
  });

  it('Test_ReportMultiAttachError', () => {
    const tests: { name: string; nodes: { name: string; podNames: string[] }[]; expectedEvents: string[] }[] =
      [
        {
          name: 'no pods use the volume',
          nodes: [{ name: 'node1', podNames: ['ns1/pod1'] }],
          expectedEvents: [
            'Warning FailedAttachVolume Multi-Attach error for volume "volume-name" Volume is already exclusively attached to one node and can\'t be attached to another',
          ],
        },
        {
          name: 'pods in the same namespace use the volume',
          nodes: [
            { name: 'node1', podNames: ['ns1/pod1'] },
            { name: 'node2', podNames: ['ns1/pod2'] },
          ],
          expectedEvents: [
            'Warning FailedAttachVolume Multi-Attach error for volume "volume-name" Volume is already used by pod(s) pod2',
          ],
        },
        {
          name: 'pods in another namespace use the volume',
          nodes: [
            { name: 'node1', podNames: ['ns1/pod1'] },
            { name: 'node2', podNames: ['ns2/pod2'] },
          ],
          expectedEvents: [
            'Warning FailedAttachVolume Multi-Attach error for volume "volume-name" Volume is already used by 1 pod(s) in different namespaces',
          ],
        },
        {
          name: 'pods both in the same and another namespace use the volume',
          nodes: [
            { name: 'node1', podNames: ['ns1/pod1'] },
            { name: 'node2', podNames: ['ns2/pod2'] },
            { name: 'node3', podNames: ['ns1/pod3'] },
          ],
          expectedEvents: [
            'Warning FailedAttachVolume Multi-Attach error for volume "volume-name" Volume is already used by pod(s) pod3 and 1 pod(s) in different namespaces',
          ],
        },
      ];
    for (const test of tests) {
      const h = new Harness();
      const nodes: string[] = [];
      for (const n of test.nodes) {
        h.dsw.addNode(n.name, false);
        nodes.push(n.name);
        for (const podName of n.podNames) {
          const uid = `${n.name}-${podName}`; // unique UID
          const [namespace = '', name = ''] = podName.split('/');
          const r = h.dsw.addPod(uid, newPod(uid, name, namespace), getTestVolumeSpec(volumeName), n.name);
          expect(r.err, `Error adding pod ${podName} to DSW`).toBeUndefined();
        }
      }
      for (const vol of h.dsw.getVolumesToAttach())
        if (vol.nodeName === 'node1') h.reconciler.reportMultiAttachError(vol, nodes);
      expect(h.recorder.events, test.name).toEqual(test.expectedEvents);
    }
  });
});

describe('simulator checks of the ported reconciler', () => {
  /** A pod on `node` attached and then deleted while the controller still believes it mounted. */
  function attachThenDelete(h: Harness, nodeName: string): void {
    h.dsw.addNode(nodeName, false);
    addPod(h, 'pod-uid', volumeName, nodeName);
    h.run();
    waitForVolumeAttachedToNode(h, volumeName, nodeName);
    deletePod(h, 'pod-uid', volumeName, nodeName);
  }

  it('release-1.23 force-detaches a volume still mounted on a healthy node once maxWaitForUnmountDuration passed', () => {
    // The node is registered on the API server with a fresh Lease: Ready for node-monitor-grace-period.
    const h = new Harness({ nodes: ['node-a'], fixes: Fixes.of('1.23') });
    attachThenDelete(h, 'node-a');
    h.sleep(200);
    expect(h.asw.getAttachState(volumeName, 'node-a')).toBe('Detached');
    expect(h.factsOf('volumeDetachStarted')).toMatchObject([
      { node: 'node-a', volume: volumeName, forced: true, verifySafeToDetach: false },
    ]);
    expect(h.factsOf('volumeDetached')).toMatchObject([{ node: 'node-a', volume: volumeName, forced: true }]);
  });

  it('PR #110721 keeps it on the healthy node, and force-detaches once the node lost Ready (40 s without status)', () => {
    const h = new Harness({ nodes: ['node-a'], fixes: Fixes.of('1.25') });
    attachThenDelete(h, 'node-a');
    h.sleep(30_000);
    expect(h.asw.getAttachState(volumeName, 'node-a')).toBe('Attached');
    expect(h.factsOf('volumeDetachStarted')).toEqual([]);
    // The node registered at 0 and its Lease was never renewed: NotReady from 40 s on.
    h.sleep(10_100);
    expect(h.asw.getAttachState(volumeName, 'node-a')).toBe('Detached');
    const started = h.factsOf('volumeDetachStarted');
    expect(started).toMatchObject([{ forced: true, verifySafeToDetach: false }]);
    expect(started[0]?.atMs).toBeGreaterThanOrEqual(40_000);
    expect(started[0]?.atMs).toBeLessThan(40_100);
  });

  it('PR #110721 still detaches a volume the node reports unmounted, at once, with the safe-to-detach check', () => {
    const h = new Harness({ nodes: ['node-a'], fixes: Fixes.of('1.25') });
    attachThenDelete(h, 'node-a');
    h.asw.setVolumeMountedByNode(volumeName, 'node-a', false);
    h.sleep(100);
    expect(h.factsOf('volumeDetachStarted')).toMatchObject([{ forced: false, verifySafeToDetach: true }]);
    expect(h.asw.getAttachState(volumeName, 'node-a')).toBe('Detached');
  });

  it('a failed detach is retried after 0.5 s, 1 s, 2 s, 4 s, ... (not every loop), writing the node status only around each attempt', () => {
    const h = new Harness({ nodes: [FailDetachNode], nodeStatusUpdater: 'api' });
    let statusWrites = 0;
    h.api.watchNodes(
      'test',
      () => statusWrites++,
      () => {},
    );
    attachThenDelete(h, FailDetachNode);
    h.sleep(1000);
    const writesBefore = statusWrites;
    h.sleep(30_000);
    const failed = h.factsOf('volumeDetachFailed').map((f) => f.atMs);
    const gaps = failed.slice(1).map((t, i) => t - (failed[i] ?? 0));
    // 31 s hold the attempts at t, t+0.5, t+1.5, t+3.5, t+7.5, t+15.5 and t+31.5 (just past the end).
    expect(failed.length).toBe(6);
    for (const [i, gap] of gaps.entries()) {
      const backoff = 500 * 2 ** i;
      expect(gap).toBeGreaterThan(backoff);
      // The next loop (10 ms) plus the status write before the detach (5-30 ms) and the detach itself.
      expect(gap).toBeLessThan(backoff + 50);
    }
    // Each attempt writes the status twice: without the volume before the detach, with it after the failure.
    expect(statusWrites - writesBefore).toBeLessThanOrEqual(2 * failed.length);
    expect(h.asw.getAttachState(volumeName, FailDetachNode)).toBe('Attached');
    expect(h.api.getNode(FailDetachNode).status.volumesAttached.map((v) => v.name)).toEqual([volumeName]);
  });

  const totalAttaches = (h: Harness): number => h.plugin.attachers.reduce((n, a) => n + a.attachCallCount, 0);

  // #120595 (1.29; picked to 1.28.3, 1.27 and 1.26: fix detach-error-uncertain), GenerateDetachVolumeFunc
  // read at v1.31.12: a failed Detach marks the volume uncertain instead of reporting it attached again.
  it('#120595: a failed detach leaves the volume uncertain and unreported; a pod that wants it again gets a new attach', () => {
    const h = new Harness({ fixes: Fixes.of('1.31') });
    h.dsw.addNode(FailDetachNode, false);
    h.run();
    const generated = addPod(h, 'pod-uid1', volumeName, FailDetachNode);
    h.sleep(1000);
    waitForVolumeAddedToNode(h, generated, FailDetachNode);
    verifyVolumeAttachedToNode(h, generated, FailDetachNode, AttachStateAttached);
    const attachesBefore = totalAttaches(h);
    h.dsw.deletePod('pod-uid1', generated, FailDetachNode);
    h.sleep(100);
    expect(h.factsOf('volumeDetachFailed').length).toBeGreaterThanOrEqual(1);
    verifyVolumeAttachedToNode(h, generated, FailDetachNode, AttachStateUncertain);
    verifyVolumeReportedAsAttachedToNode(h, generated, FailDetachNode, false);
    // The pod comes back: the controller attaches the uncertain volume again before reporting it.
    addPod(h, 'pod-uid2', volumeName, FailDetachNode);
    h.sleep(2000);
    expect(totalAttaches(h)).toBeGreaterThan(attachesBefore);
    verifyVolumeAttachedToNode(h, generated, FailDetachNode, AttachStateAttached);
    verifyVolumeReportedAsAttachedToNode(h, generated, FailDetachNode, true);
  });

  it('#120595 off (1.25): the failed detach reports the volume attached again, and no new attach runs', () => {
    const h = new Harness({ fixes: Fixes.of('1.25') });
    h.dsw.addNode(FailDetachNode, false);
    h.run();
    const generated = addPod(h, 'pod-uid1', volumeName, FailDetachNode);
    h.sleep(1000);
    waitForVolumeAddedToNode(h, generated, FailDetachNode);
    const attachesBefore = totalAttaches(h);
    h.dsw.deletePod('pod-uid1', generated, FailDetachNode);
    h.sleep(100);
    verifyVolumeAttachedToNode(h, generated, FailDetachNode, AttachStateAttached);
    verifyVolumeReportedAsAttachedToNode(h, generated, FailDetachNode, true);
    addPod(h, 'pod-uid2', volumeName, FailDetachNode);
    h.sleep(2000);
    expect(totalAttaches(h)).toBe(attachesBefore);
  });

  it('an attach that times out is kept uncertain (not reported attached) and published; it does not count as attached for the multi-attach check', () => {
    const h = new Harness();
    h.dsw.addNode(TimeoutAttachNode, false);
    h.dsw.addNode('node-b', false);
    addPod(h, 'pod-uid1', volumeName, TimeoutAttachNode);
    h.run();
    h.sleep(100);
    expect(h.asw.getAttachState(volumeName, TimeoutAttachNode)).toBe(AttachStateUncertain);
    expect(h.asw.getNodesForAttachedVolume(volumeName)).toEqual([]);
    expect(h.factsOf('volumeAttachUncertain')).toMatchObject([
      { node: TimeoutAttachNode, volume: volumeName, error: expect.stringContaining('timed out') },
    ]);
    // A second node that wants it gets no Multi-Attach error: only confirmed attachments count. Its attach
    // shares the volume's operation key and waits out the failed attach's backoff.
    addPod(h, 'pod-uid2', volumeName, 'node-b');
    h.sleep(3000);
    expect(h.factsOf('multiAttachError')).toEqual([]);
    expect(h.factsOf('volumeAttachUncertain').length).toBeGreaterThan(1);
  });

  it('publishes a Multi-Attach error once per volume and node, naming the nodes it is attached to', () => {
    const h = new Harness();
    h.dsw.addNode('node-a', false);
    h.dsw.addNode('node-b', false);
    addPod(h, 'pod-uid1', volumeName, 'node-a');
    h.run();
    waitForVolumeAttachedToNode(h, volumeName, 'node-a');
    addPod(h, 'pod-uid2', volumeName, 'node-b');
    h.sleep(1000);
    expect(h.factsOf('multiAttachError')).toMatchObject([
      {
        node: 'node-b',
        volume: volumeName,
        attachedTo: ['node-a'],
        uids: ['pod-uid2'],
        pods: ['pod-uid2'],
        usedBy: ['mynamespace/pod-uid1'],
      },
    ]);
    expect(h.recorder.events).toEqual([
      'Warning FailedAttachVolume Multi-Attach error for volume "volume-name" Volume is already used by pod(s) pod-uid1',
    ]);
  });
});
