// Upstream's assertion helpers of reconciler_test.go (waitFor*, verify*, addPod, deletePod), shared by the
// ports of the file at v1.23.13 (reconciler.test.ts) and at v1.28.0 (reconcilerNewer.test.ts).
import { expect } from 'vitest';
import {
  type AttachState,
  AttachStateAttached,
} from '../../../src/cluster/attachdetach/actualStateOfWorld.js';
import { getTestVolumeSpec, type Harness, newPod } from './fakes.js';

export function waitForNewAttacherCallCount(h: Harness, expectedCallCount: number): void {
  const ok = h.retryWithExponentialBackOff(5, () => h.plugin.newAttacherCallCount >= expectedCallCount);
  expect(ok, `Timed out waiting for NewAttacherCallCount. Expected: <${expectedCallCount}>`).toBe(true);
}

export function waitForNewDetacherCallCount(h: Harness, expectedCallCount: number): void {
  const ok = h.retryWithExponentialBackOff(5, () => h.plugin.newDetacherCallCount >= expectedCallCount);
  expect(ok, `Timed out waiting for NewDetacherCallCount. Expected: <${expectedCallCount}>`).toBe(true);
}

export function waitForAttachCallCount(h: Harness, expectedAttachCallCount: number): void {
  if (h.plugin.attachers.length === 0 && expectedAttachCallCount === 0) return;
  const ok = h.retryWithExponentialBackOff(5, () =>
    h.plugin.attachers.some((a) => a.attachCallCount === expectedAttachCallCount),
  );
  expect(ok, `No attachers have expected AttachCallCount. Expected: <${expectedAttachCallCount}>`).toBe(true);
}

export function waitForTotalAttachCallCount(h: Harness, expectedAttachCallCount: number): void {
  if (h.plugin.attachers.length === 0 && expectedAttachCallCount === 0) return;
  const ok = h.retryWithExponentialBackOff(
    5,
    () => h.plugin.attachers.reduce((n, a) => n + a.attachCallCount, 0) === expectedAttachCallCount,
  );
  expect(
    ok,
    `Total AttachCallCount does not match expected value. Expected: <${expectedAttachCallCount}>`,
  ).toBe(true);
}

export function waitForDetachCallCount(h: Harness, expectedDetachCallCount: number): void {
  if (h.plugin.detachers.length === 0 && expectedDetachCallCount === 0) return;
  const ok = h.retryWithExponentialBackOff(5, () =>
    h.plugin.detachers.some((d) => d.detachCallCount === expectedDetachCallCount),
  );
  expect(ok, `No detachers have expected DetachCallCount. Expected: <${expectedDetachCallCount}>`).toBe(true);
}

export function waitForTotalDetachCallCount(h: Harness, expectedDetachCallCount: number): void {
  if (h.plugin.detachers.length === 0 && expectedDetachCallCount === 0) return;
  const ok = h.retryWithExponentialBackOff(
    5,
    () => h.plugin.detachers.reduce((n, d) => n + d.detachCallCount, 0) === expectedDetachCallCount,
  );
  expect(
    ok,
    `Total DetachCallCount does not match expected value. Expected: <${expectedDetachCallCount}>`,
  ).toBe(true);
}

export function waitForAttachedToNodesCount(h: Harness, expectedNodeCount: number, volumeName: string): void {
  h.retryWithExponentialBackOff(
    5,
    () => h.asw.getNodesForAttachedVolume(volumeName).length === expectedNodeCount,
  );
  expect(h.asw.getNodesForAttachedVolume(volumeName).length, `nodes having <${volumeName}> attached`).toBe(
    expectedNodeCount,
  );
}

export function verifyNewAttacherCallCount(h: Harness, expectZeroNewAttacherCallCount: boolean): void {
  if (expectZeroNewAttacherCallCount) expect(h.plugin.newAttacherCallCount, 'NewAttacherCallCount').toBe(0);
}

export function verifyNewDetacherCallCount(h: Harness, expectZeroNewDetacherCallCount: boolean): void {
  if (expectZeroNewDetacherCallCount) expect(h.plugin.newDetacherCallCount, 'NewDetacherCallCount').toBe(0);
}

export function waitForMultiAttachErrorOnNode(h: Harness, attachedNode: string): void {
  const ok = h.retryWithExponentialBackOff(100, () =>
    h.dsw.getVolumesToAttach().some((v) => v.nodeName !== attachedNode && v.multiAttachErrorReported),
  );
  expect(ok, 'Timed out waiting for MultiAttach Error to be set on non-attached node').toBe(true);
}

export function waitForVolumeAttachedToNode(h: Harness, volumeName: string, nodeName: string): void {
  h.retryWithExponentialBackOff(
    500,
    () => h.asw.getAttachState(volumeName, nodeName) === AttachStateAttached,
  );
  expect(
    h.asw.getAttachState(volumeName, nodeName),
    `Volume <${volumeName}> is not attached to node <${nodeName}>`,
  ).toBe(AttachStateAttached);
}

export function waitForVolumeAddedToNode(h: Harness, volumeName: string, nodeName: string): void {
  const ok = h.retryWithExponentialBackOff(500, () =>
    h.asw.getAttachedVolumes().some((v) => v.volumeName === volumeName && v.nodeName === nodeName),
  );
  expect(ok, `Volume <${volumeName}> is not added to node <${nodeName}>`).toBe(true);
}

export function waitForVolumeRemovedFromNode(h: Harness, volumeName: string, nodeName: string): void {
  const ok = h.retryWithExponentialBackOff(
    500,
    () => !h.asw.getAttachedVolumes().some((v) => v.volumeName === volumeName && v.nodeName === nodeName),
  );
  expect(ok, `Volume <${volumeName}> is not removed from node <${nodeName}>`).toBe(true);
}

export function verifyVolumeAttachedToNode(
  h: Harness,
  volumeName: string,
  nodeName: string,
  expectedAttachState: AttachState,
): void {
  expect(h.asw.getAttachState(volumeName, nodeName), `attach state of <${volumeName}> on <${nodeName}>`).toBe(
    expectedAttachState,
  );
}

/**
 * Reads (and so resets) the actual state's to-report lists, as upstream's helper does. With `timeoutMs`
 * (release-1.27 on, #116675: the helper's `timeout` argument, volumeAttachedCheckTimeout in the tests) it
 * polls as wait.PollUntilContextTimeout(50 ms, timeout, immediate=false) does: a read every 50 ms, the
 * first after 50 ms, until the answer is `isAttached`; `result` is kept from one read to the next, as
 * upstream's.
 */
export function verifyVolumeReportedAsAttachedToNode(
  h: Harness,
  volumeName: string,
  nodeName: string,
  isAttached: boolean,
  timeoutMs?: number,
): void {
  const reported = (): boolean =>
    (h.asw.getVolumesToReportAttached().get(nodeName) ?? []).some((v) => v.name === volumeName);
  if (timeoutMs === undefined) {
    expect(reported(), `volume <${volumeName}> reported as attached to node <${nodeName}>`).toBe(isAttached);
    return;
  }
  let result = false;
  let done = false;
  for (let waitedMs = 0; !done && waitedMs < timeoutMs; waitedMs += 50) {
    h.sleep(50);
    if (reported()) result = true;
    done = result === isAttached;
  }
  expect(
    done,
    `Check volume <${volumeName}> is reported as attached to node <${nodeName}>, got ${result}, expected ${isAttached}`,
  ).toBe(true);
}

/**
 * testForceDetachMetric (release-1.28, #119185): the attachdetach_controller_forced_detaches counter of a
 * reason. The simulator has no metrics. Upstream counts reason "timeout" for a detach started without the
 * safe-to-detach check because maxWaitForUnmountDuration expired: a volumeDetachStarted fact with
 * verifySafeToDetach false, and "out-of-service" for one the node.kubernetes.io/out-of-service taint
 * started so (the fact's outOfService; upstream counts a detach with both as "timeout", which the fact
 * does not tell apart, and no test here has both). Upstream's counter is global to the test binary; a
 * harness counts its own.
 */
export function testForceDetachMetric(
  h: Harness,
  inputForceDetachMetricCounter: number,
  reason: 'timeout' | 'out-of-service',
): void {
  const actual = h
    .factsOf('volumeDetachStarted')
    .filter(
      (f) => !f.verifySafeToDetach && (f.outOfService === true) === (reason === 'out-of-service'),
    ).length;
  expect(actual, `forced detaches, reason ${reason}`).toBe(inputForceDetachMetricCounter);
}

export function verifyVolumeNoStatusUpdateNeeded(h: Harness, volumeName: string, nodeName: string): void {
  const volumes = h.asw.getVolumesToReportAttached().get(nodeName) ?? [];
  expect(
    volumes.some((v) => v.name === volumeName),
    `volume <${volumeName}> needs a status update on node <${nodeName}>`,
  ).toBe(false);
}

export function addPod(
  h: Harness,
  podName: string,
  volumeName: string,
  nodeName: string,
  accessMode = 'ReadWriteOnce',
): string {
  const spec = getTestVolumeSpec(volumeName, accessMode as 'ReadWriteOnce' | 'ReadWriteMany');
  const r = h.dsw.addPod(podName, newPod(podName, podName), spec, nodeName);
  expect(r.err, `AddPod failed. Expected: <no error> Actual: <${r.err?.message}>`).toBeUndefined();
  return r.value;
}

export function deletePod(h: Harness, podName: string, volumeName: string, nodeName: string): void {
  h.dsw.deletePod(podName, volumeName, nodeName);
  expect(
    h.dsw.volumeExists(volumeName, nodeName),
    `Deleted pod "${podName}" from volume "${volumeName}"/node "${nodeName}". Volume should also be deleted but it still exists.`,
  ).toBe(false);
}

export const volumeName = 'volume-name';
