// The tests of reconciler_test.go at v1.28.0 that were added or changed after v1.23.13, on the release
// presets, and the one release-1.30 added for DisableForceDetachOnTimeout (PR #120344; read in the
// release-1.31 reconciler_test.go that passes the option to NewReconciler). The reconciler's only switch,
// no-force-detach-healthy-node (PR #110721), is on in every preset from 1.24 on, so the 1.25, 1.28 and
// 1.31 presets run the same reconciler code; the other changes are in the tests and their helpers. The
// node.kubernetes.io/out-of-service taint (KEP-2268) is set through the simulated API server
// (setOutOfServiceTaint), as upstream's tests put it in the node informer's store. The detach failure that leaves the attachment uncertain (PR
// #120595, release-1.29, picked to 1.28.3) is the switch detach-error-uncertain:
// Test_Run_OneVolumeDetachFailNodeWithReadWriteOnce below is v1.28.0's form, run with it off; its later
// form is in reconciler.test.ts. The tests whose body is the same as at v1.23.13 are in reconciler.test.ts.
import { describe, expect, it } from 'vitest';
import {
  AttachStateAttached,
  AttachStateUncertain,
} from '../../../src/cluster/attachdetach/actualStateOfWorld.js';
import { Fixes } from '../../../src/fixes.js';
import {
  addPod,
  deletePod,
  testForceDetachMetric,
  verifyNewAttacherCallCount,
  verifyNewDetacherCallCount,
  verifyVolumeAttachedToNode,
  verifyVolumeNoStatusUpdateNeeded,
  verifyVolumeReportedAsAttachedToNode,
  volumeName,
  waitForAttachCallCount,
  waitForDetachCallCount,
  waitForNewAttacherCallCount,
  waitForNewDetacherCallCount,
  waitForVolumeAddedToNode,
  waitForVolumeAttachedToNode,
  waitForVolumeRemovedFromNode,
} from './assertions.js';
import {
  FailDetachNode,
  Harness,
  maxWaitForUnmountDurationMs,
  TimeoutAttachNode,
  UncertainAttachNode,
} from './fakes.js';

describe('reconciler_test.go (release-1.25, release-1.28 and release-1.31)', () => {
  const maxLongWaitForUnmountDurationMs = 4200 * 1000;
  const volumeAttachedCheckTimeoutMs = 5 * 1000;

  // Populates desiredStateOfWorld cache with one node/volume/pod tuple.
  // Calls Run()
  // Verifies there is one attach call and no detach calls.
  // Deletes the node/volume/pod tuple from desiredStateOfWorld cache without first marking the node/volume as unmounted.
  // Verifies there is one detach call and no (new) attach calls.
  it('Test_Run_Positive_OneDesiredVolumeAttachThenDetachWithMountedVolume', () => {
    // The node is not in the node lister (upstream's informer never saw it): nodeIsHealthy fails, so the
    // node counts as unhealthy and the volume is force-detached once maxWaitForUnmountDuration passed.
    const h = new Harness({ fixes: Fixes.of('1.28') });
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

    // Force detach metric due to timeout
    testForceDetachMetric(h, 1, 'timeout');
  });

  // Creates a volume with accessMode ReadWriteOnce
  // First create a pod which will try to attach the volume to the a node named "uncertain-node". The attach call for this node will
  // fail for timeout, but the volume will be actually attached to the node after the call.
  // Secondly, delete this pod.
  // Lastly, create a pod scheduled to a normal node which will trigger attach volume to the node. The attach should return successfully.
  it('Test_Run_OneVolumeAttachAndDetachUncertainNodesWithReadWriteOnce', () => {
    const h = new Harness({ fixes: Fixes.of('1.28') });
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
    verifyVolumeReportedAsAttachedToNode(
      h,
      generatedVolumeName,
      nodeName1,
      true,
      volumeAttachedCheckTimeoutMs,
    );

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
    // Upstream's fake node status updater, swapped for a failing one below; the node is not in the node
    // lister, so it counts as unhealthy and its volume is force-detached after maxWaitForUnmountDuration.
    const h = new Harness({ fixes: Fixes.of('1.28') });
    const podName1 = 'pod-uid1';
    const nodeName1 = 'node-name1';
    h.dsw.addNode(nodeName1, false);

    // Add the pod in which the volume is attached to the FailDetachNode
    const generatedVolumeName = addPod(h, podName1, volumeName, nodeName1);

    h.reconciliationLoopFunc();

    // Volume is added to asw, volume should be reported as attached to the node.
    waitForVolumeAddedToNode(h, generatedVolumeName, nodeName1);
    verifyVolumeAttachedToNode(h, generatedVolumeName, nodeName1, AttachStateAttached);
    verifyVolumeReportedAsAttachedToNode(
      h,
      generatedVolumeName,
      nodeName1,
      true,
      volumeAttachedCheckTimeoutMs,
    );

    // Delete the pod
    h.dsw.deletePod(podName1, generatedVolumeName, nodeName1);

    // Mock NodeStatusUpdate fail
    h.setFakeNodeStatusUpdaterError(true);
    h.reconciliationLoopFunc();
    // The first detach will be triggered after at least 50ms (maxWaitForUnmountDuration in test).
    h.sleep(100);
    h.reconciliationLoopFunc();
    // Right before detach operation is performed, the volume will be first removed from being reported
    // as attached on node status (RemoveVolumeFromReportAsAttached). After UpdateNodeStatus operation which is expected to fail,
    // controller then added the volume back as attached.
    // verifyVolumeReportedAsAttachedToNode will check volume is in the list of volume attached that needs to be updated
    // in node status. By calling this function (GetVolumesToReportAttached), node status should be updated, and the volume
    // will not need to be updated until new changes are applied (detach is triggered again)
    verifyVolumeAttachedToNode(h, generatedVolumeName, nodeName1, AttachStateAttached);
    verifyVolumeReportedAsAttachedToNode(
      h,
      generatedVolumeName,
      nodeName1,
      true,
      volumeAttachedCheckTimeoutMs,
    );
    // Simulator addition: the detach was due (a detach request older than maxWaitForUnmountDuration on an
    // unhealthy node) and only the failed status update kept it from starting.
    expect(h.factsOf('volumeDetachStarted')).toEqual([]);
    expect(h.plugin.newDetacherCallCount).toBe(0);
    h.setFakeNodeStatusUpdaterError(false);
    h.reconciliationLoopFunc();
    expect(h.factsOf('volumeDetachStarted')).toMatchObject([{ verifySafeToDetach: false }]);
  });

  it('Test_Run_OneVolumeDetachFailNodeWithReadWriteOnce', () => {
    // v1.28.0 (before #120595's pick in 1.28.3).
    const h = new Harness({ fixes: Fixes.of('1.28').with('detach-error-uncertain', false) });
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

    // Volume is added to asw, volume should be reported as attached to the node.
    waitForVolumeAddedToNode(h, generatedVolumeName, nodeName1);
    verifyVolumeAttachedToNode(h, generatedVolumeName, nodeName1, AttachStateAttached);
    verifyVolumeReportedAsAttachedToNode(
      h,
      generatedVolumeName,
      nodeName1,
      true,
      volumeAttachedCheckTimeoutMs,
    );

    // Delete the pod, but detach will fail
    h.dsw.deletePod(podName1, generatedVolumeName, nodeName1);

    // The first detach will be triggered after at least 50ms (maxWaitForUnmountDuration in test).
    // Right before detach operation is performed, the volume will be first removed from being reported
    // as attached on node status (RemoveVolumeFromReportAsAttached). After detach operation which is expected to fail,
    // controller then added the volume back as attached.
    // Here it sleeps 100ms so that detach should be triggered already at this point.
    // verifyVolumeReportedAsAttachedToNode will check volume is in the list of volume attached that needs to be updated
    // in node status. By calling this function (GetVolumesToReportAttached), node status should be updated, and the volume
    // will not need to be updated until new changes are applied (detach is triggered again)
    h.sleep(100);
    verifyVolumeAttachedToNode(h, generatedVolumeName, nodeName1, AttachStateAttached);
    verifyVolumeReportedAsAttachedToNode(
      h,
      generatedVolumeName,
      nodeName1,
      true,
      volumeAttachedCheckTimeoutMs,
    );
    // Simulator addition: the detach did run and fail (upstream infers it from the report).
    expect(h.factsOf('volumeDetachFailed')).toMatchObject([{ node: nodeName1, volume: generatedVolumeName }]);

    // Add a second pod which tries to attach the volume to the same node.
    // After adding pod to the same node, detach will not be triggered any more.
    generatedVolumeName = addPod(h, podName2, volumeName, nodeName1);
    // Sleep 1s to verify no detach are triggered after second pod is added in the future.
    h.sleep(1000);
    verifyVolumeAttachedToNode(h, generatedVolumeName, nodeName1, AttachStateAttached);
    // verifyVolumeNoStatusUpdateNeeded(t, logger, generatedVolumeName, nodeName1, asw)

    // Add a third pod which tries to attach the volume to a different node.
    // At this point, volume is still attached to first node. There are no status update for both nodes.
    generatedVolumeName = addPod(h, podName3, volumeName, nodeName2);
    verifyVolumeAttachedToNode(h, generatedVolumeName, nodeName1, AttachStateAttached);
    verifyVolumeNoStatusUpdateNeeded(h, generatedVolumeName, nodeName1);
    verifyVolumeNoStatusUpdateNeeded(h, generatedVolumeName, nodeName2);
    // Simulator addition: the second pod stopped the retries (backoff 500 ms: one attempt only).
    expect(h.factsOf('volumeDetachFailed').length).toBe(1);
  });

  // Creates a volume with accessMode ReadWriteOnce
  // First create a pod which will try to attach the volume to the a node named "timeout-node". The attach call for this node will
  // fail for timeout, but the volume will be actually attached to the node after the call.
  // Secondly, delete the this pod.
  // Lastly, create a pod scheduled to a normal node which will trigger attach volume to the node. The attach should return successfully.
  it('Test_Run_OneVolumeAttachAndDetachTimeoutNodesWithReadWriteOnce', () => {
    const h = new Harness({ fixes: Fixes.of('1.28') });
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
    verifyVolumeReportedAsAttachedToNode(
      h,
      generatedVolumeName,
      nodeName1,
      false,
      volumeAttachedCheckTimeoutMs,
    );

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

  // Populates desiredStateOfWorld cache with one node/volume/pod tuple.
  // The node does not have the node.kubernetes.io/out-of-service taint present.
  //
  // The maxWaitForUnmountDuration is longer (in this case it is 4200 * time.Second so that detach does not happen
  // immediately due to timeout.
  //
  // Calls Run()
  // Verifies there is one attach call and no detach calls.
  // Deletes the pod from desiredStateOfWorld cache without first marking the node/volume as unmounted.
  // Verifies there is no detach call and no (new) attach calls.
  it('Test_Run_OneVolumeDetachOnNoOutOfServiceTaintedNode', () => {
    const podName1 = 'pod-uid1';
    const volumeName1 = 'volume-name1';
    const nodeName1 = 'worker-0';
    // The node is in the node lister, without taints (the simulator models none). Upstream's node has no
    // Ready condition, so it is unhealthy: here its Lease is let age until the node is NotReady.
    const h = new Harness({
      nodes: [nodeName1],
      fixes: Fixes.of('1.28'),
      maxWaitForUnmountDurationMs: maxLongWaitForUnmountDurationMs,
    });
    h.sleepUntilNodeNotReady(nodeName1);
    h.dsw.addNode(nodeName1, false);
    expect(h.dsw.volumeExists(volumeName1, nodeName1)).toBe(false);
    const generatedVolumeName = addPod(h, podName1, volumeName1, nodeName1);
    h.run();
    waitForNewAttacherCallCount(h, 1);
    verifyNewAttacherCallCount(h, false);
    waitForAttachCallCount(h, 1);
    verifyNewDetacherCallCount(h, true);
    waitForDetachCallCount(h, 0);

    // Delete the pod and the volume will be detached only after the maxLongWaitForUnmountDuration expires as volume is
    // not unmounted. Here maxLongWaitForUnmountDuration is used to mimic that node is out of service.
    // But in this case the node does not have the node.kubernetes.io/out-of-service taint and hence it will wait for
    // maxLongWaitForUnmountDuration and will not be detached immediately.
    h.dsw.deletePod(podName1, generatedVolumeName, nodeName1);
    // Simulator addition: upstream checks at once; here the reconciler first runs for maxWaitForUnmountDuration
    // of the other tests five times over (25 loops), as Test_Run_OneVolumeDetachOnUnhealthyNode waits.
    h.sleep(maxWaitForUnmountDurationMs * 5);
    // Assert -- Detach will be triggered only after maxLongWaitForUnmountDuration expires
    waitForNewDetacherCallCount(h, 0);
    verifyNewAttacherCallCount(h, false);
    waitForAttachCallCount(h, 1);
    verifyNewDetacherCallCount(h, true);
    waitForDetachCallCount(h, 0);
  });

  // Populates desiredStateOfWorld cache with one node/volume/pod tuple.
  // The node starts as healthy.
  //
  // Calls Run()
  // Verifies there is one attach call and no detach calls.
  // Deletes the pod from desiredStateOfWorld cache without first marking the node/volume as unmounted.
  // Verifies that the volume is NOT detached after maxWaitForUnmountDuration.
  // Marks the node as unhealthy.
  // Verifies that the volume is detached after maxWaitForUnmountDuration.
  it('Test_Run_OneVolumeDetachOnUnhealthyNode', () => {
    const podName1 = 'pod-uid1';
    const volumeName1 = 'volume-name1';
    const nodeName1 = 'worker-0';
    // Added with PR #110721 in release-1.25. The node registers on the API server: Ready (its Lease is fresh).
    const h = new Harness({ nodes: [nodeName1], fixes: Fixes.of('1.25') });
    h.dsw.addNode(nodeName1, false);
    expect(h.dsw.volumeExists(volumeName1, nodeName1)).toBe(false);
    const generatedVolumeName = addPod(h, podName1, volumeName1, nodeName1);
    h.run();
    waitForNewAttacherCallCount(h, 1);
    verifyNewAttacherCallCount(h, false);
    waitForAttachCallCount(h, 1);
    verifyNewDetacherCallCount(h, true);
    waitForDetachCallCount(h, 0);

    // Delete the pod and the volume will be detached even after the maxWaitForUnmountDuration expires as volume is
    // not unmounted and the node is healthy.
    h.dsw.deletePod(podName1, generatedVolumeName, nodeName1);
    h.sleep(maxWaitForUnmountDurationMs * 5);
    waitForNewDetacherCallCount(h, 0);
    verifyNewAttacherCallCount(h, false);
    waitForAttachCallCount(h, 1);
    verifyNewDetacherCallCount(h, true);
    waitForDetachCallCount(h, 0);

    // Mark the node unhealthy (here: its Lease ages past node-monitor-grace-period)
    h.sleepUntilNodeNotReady(nodeName1);
    // Assert -- Detach was triggered after maxWaitForUnmountDuration
    waitForNewDetacherCallCount(h, 1);
    verifyNewAttacherCallCount(h, false);
    waitForAttachCallCount(h, 1);
    verifyNewDetacherCallCount(h, false);
    waitForDetachCallCount(h, 1);
  });
  // Populates desiredStateOfWorld cache with one node/volume/pod tuple.
  // The node starts as healthy.
  //
  // Calls Run()
  // Verifies there is one attach call and no detach calls.
  // Deletes the pod from desiredStateOfWorld cache without first marking the node/volume as unmounted.
  // Verifies that the volume is NOT detached after maxWaitForUnmountDuration.
  // Marks the node as unhealthy.
  // Sets forceDetachOnUmountDisabled to true.
  // Verifies that the volume is not detached after maxWaitForUnmountDuration.
  //
  // Then applies the node.kubernetes.io/out-of-service taint.
  // Verifies that there is still just one attach call.
  // Verifies there is now one detach call.
  it('Test_Run_OneVolumeDetachOnUnhealthyNodeWithForceDetachOnUnmountDisabled', () => {
    const podName1 = 'pod-uid1';
    const volumeName1 = 'volume-name1';
    const nodeName1 = 'worker-0';
    // NewReconciler(..., false /* disableReconciliationSync */, true /* disableForceDetachOnTimeout */, ...)
    const h = new Harness({ nodes: [nodeName1], fixes: Fixes.of('1.31'), disableForceDetachOnTimeout: true });
    h.dsw.addNode(nodeName1, false);
    expect(h.dsw.volumeExists(volumeName1, nodeName1)).toBe(false);
    const generatedVolumeName = addPod(h, podName1, volumeName1, nodeName1);
    h.run();
    waitForNewAttacherCallCount(h, 1);
    verifyNewAttacherCallCount(h, false);
    waitForAttachCallCount(h, 1);
    verifyNewDetacherCallCount(h, true);
    waitForDetachCallCount(h, 0);

    // Delete the pod and the volume will be detached even after the maxWaitForUnmountDuration expires as volume is
    // not unmounted and the node is healthy.
    h.dsw.deletePod(podName1, generatedVolumeName, nodeName1);
    h.sleep(maxWaitForUnmountDurationMs * 5);
    waitForNewDetacherCallCount(h, 0);
    verifyNewAttacherCallCount(h, false);
    waitForAttachCallCount(h, 1);
    verifyNewDetacherCallCount(h, true);
    waitForDetachCallCount(h, 0);

    // Mark the node unhealthy (here: its Lease ages past node-monitor-grace-period)
    h.sleepUntilNodeNotReady(nodeName1);
    // Simulator addition: upstream asserts at once (a wait for at least 0 calls); here the reconciler first
    // runs on for maxWaitForUnmountDuration five times over with the node not Ready.
    h.sleep(maxWaitForUnmountDurationMs * 5);
    // Assert -- Detach was not triggered after maxWaitForUnmountDuration
    waitForNewDetacherCallCount(h, 0);
    verifyNewAttacherCallCount(h, false);
    waitForAttachCallCount(h, 1);
    verifyNewDetacherCallCount(h, true);
    waitForDetachCallCount(h, 0);
    // Simulator addition: the reconciler did pass over the volume with the timeout expired and the node
    // unhealthy (the case #110721 force-detaches), and kept it: no detach started, none forced.
    expect(h.factsOf('volumeDetachStarted')).toEqual([]);

    // Force detach metric due to out-of-service taint
    // We shouldn't see any additional force detaches, so only consider the initial count
    testForceDetachMetric(h, 0, 'timeout');
    testForceDetachMetric(h, 0, 'out-of-service');

    // Taint the node
    h.api.setOutOfServiceTaint(nodeName1, true);
    // Simulator addition: the reconciler's next passes (upstream polls the detach count).
    h.sleep(maxWaitForUnmountDurationMs);
    // Assert -- Detach was triggered after the node was tainted
    waitForNewDetacherCallCount(h, 1);
    verifyNewAttacherCallCount(h, false);
    waitForAttachCallCount(h, 1);
    verifyNewDetacherCallCount(h, false);
    waitForDetachCallCount(h, 1);
    // Force detach metric due to out-of-service taint
    testForceDetachMetric(h, 1, 'out-of-service');
  });

  // Populates desiredStateOfWorld cache with one node/volume/pod tuple.
  // The node has node.kubernetes.io/out-of-service taint present.
  //
  // The maxWaitForUnmountDuration is longer (in this case it is 4200 * time.Second so that detach does not happen
  // immediately due to timeout.
  //
  // Calls Run()
  // Verifies there is one attach call and no detach calls.
  // Deletes the pod from desiredStateOfWorld cache without first marking the node/volume as unmounted.
  // Verifies there is one detach call and no (new) attach calls.
  it('Test_Run_OneVolumeDetachOnOutOfServiceTaintedNode', () => {
    const podName1 = 'pod-uid1';
    const volumeName1 = 'volume-name1';
    const nodeName1 = 'worker-0';
    // Upstream's node has the taint and no Ready condition: here its Lease is let age until NotReady, as in
    // Test_Run_OneVolumeDetachOnNoOutOfServiceTaintedNode (the taint alone decides; see the next test).
    const h = new Harness({
      nodes: [nodeName1],
      fixes: Fixes.of('1.28'),
      maxWaitForUnmountDurationMs: maxLongWaitForUnmountDurationMs,
    });
    h.api.setOutOfServiceTaint(nodeName1, true);
    h.sleepUntilNodeNotReady(nodeName1);
    h.dsw.addNode(nodeName1, false);
    expect(h.dsw.volumeExists(volumeName1, nodeName1)).toBe(false);
    const generatedVolumeName = addPod(h, podName1, volumeName1, nodeName1);
    h.run();
    waitForNewAttacherCallCount(h, 1);
    verifyNewAttacherCallCount(h, false);
    waitForAttachCallCount(h, 1);
    verifyNewDetacherCallCount(h, true);
    waitForDetachCallCount(h, 0);

    // Delete the pod and the volume will be detached only after the maxLongWaitForUnmountDuration expires as volume is
    //not unmounted. Here maxLongWaitForUnmountDuration is used to mimic that node is out of service.
    // But in this case the node has the node.kubernetes.io/out-of-service taint and hence it will not wait for
    // maxLongWaitForUnmountDuration and will progress to detach immediately.
    h.dsw.deletePod(podName1, generatedVolumeName, nodeName1);
    h.sleep(maxWaitForUnmountDurationMs);
    // Assert -- Detach will be triggered if node has out of service taint
    waitForNewDetacherCallCount(h, 1);
    verifyNewAttacherCallCount(h, false);
    waitForAttachCallCount(h, 1);
    verifyNewDetacherCallCount(h, false);
    waitForDetachCallCount(h, 1);

    // Force detach metric due to out-of-service taint
    testForceDetachMetric(h, 1, 'out-of-service');
    // Simulator addition: without the safe-to-detach check, as upstream's "node has out-of-service taint,
    // force detaching", and not published as the known-open hazard of the timeout's force detach.
    expect(h.factsOf('volumeDetachStarted')).toMatchObject([
      { forced: true, verifySafeToDetach: false, outOfService: true },
    ]);
    expect(h.factsOf('forceDetachUnhealthyNode')).toEqual([]);
  });

  it('simulator check: the taint detaches at once from a Ready node too, and removing it stops that', () => {
    // reconciler.go (v1.28.0) reads only the taint, not the node's health: the administrator vouches that
    // the node is down. A Ready node (fresh Lease) keeps a mounted volume without the taint (#110721).
    const nodeName1 = 'worker-0';
    const h = new Harness({
      nodes: [nodeName1],
      fixes: Fixes.of('1.28'),
      maxWaitForUnmountDurationMs: maxLongWaitForUnmountDurationMs,
    });
    h.dsw.addNode(nodeName1, false);
    const generated = addPod(h, 'pod-uid1', 'volume-name1', nodeName1);
    h.run();
    waitForAttachCallCount(h, 1);
    h.api.setOutOfServiceTaint(nodeName1, true);
    h.api.setOutOfServiceTaint(nodeName1, false);
    h.dsw.deletePod('pod-uid1', generated, nodeName1);
    h.sleep(maxWaitForUnmountDurationMs * 5);
    waitForDetachCallCount(h, 0);
    h.api.setOutOfServiceTaint(nodeName1, true);
    h.sleep(maxWaitForUnmountDurationMs);
    waitForDetachCallCount(h, 1);
    expect(h.factsOf('volumeDetachStarted')).toMatchObject([{ forced: true, outOfService: true }]);
  });
});
