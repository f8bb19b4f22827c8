// Ported from kubernetes pkg/kubelet/nodeshutdown/nodeshutdown_manager_linux.go (NewManager,
// processShutdownEvent), release-1.23, with release-1.20's status, #106900's Failed phase and #99735's
// feature gate default as switches.
import type { GoError } from '../../api/errors.js';
import { newPodStatus, type Pod } from '../../api/v1.js';
import { assert, type Chan, type Co } from '../../sim/index.js';
import type { Kubelet } from '../kubelet.js';
import { killPodNow } from '../podWorkers.js';

/**
 * KubeletConfiguration shutdownGracePeriod and shutdownGracePeriodCriticalPods (whole seconds; the
 * kubelet's validation keeps the second <= the first). Upstream's defaults are 0 and 0.
 */
export interface ShutdownConfig {
  readonly shutdownGracePeriodS: number;
  readonly shutdownGracePeriodCriticalPodsS: number;
}

/** Upstream's default configuration: no graceful node shutdown at all. */
export const NO_SHUTDOWN_GRACE: ShutdownConfig = {
  shutdownGracePeriodS: 0,
  shutdownGracePeriodCriticalPodsS: 0,
};

/**
 * NewManager's choice: undefined when it builds the real manager, else why it returns managerStub (which
 * ignores the shutdown event: systemd takes the node down with no pod killed gracefully). The gate is
 * GracefulNodeShutdown: alpha and off by default in 1.20, beta and on from 1.21 (#99735, fix
 * graceful-node-shutdown-beta). Read when the event comes, as the configuration never changes in between.
 */
export function shutdownManagerStubReason(kl: Kubelet): string | undefined {
  const c = kl.shutdownConfig;
  // migrateConfig returns nil for a zero shutdownGracePeriod (the configuration is empty).
  if (c.shutdownGracePeriodS === 0) {
    return 'shutdownGracePeriod is 0s (the default): the kubelet has no node shutdown manager';
  }
  if (!kl.fixes.on('graceful-node-shutdown-beta')) {
    return 'the GracefulNodeShutdown feature gate is off (alpha, off by default before 1.21): the kubelet has no node shutdown manager';
  }
  return undefined;
}
/** "Shutdown" in release-1.20, "Terminated" since #102840 (release-1.22). */
const nodeShutdownReasonLegacy = 'Shutdown';
const nodeShutdownReason = 'Terminated';
const nodeShutdownMessage = 'Pod was terminated in response to imminent node shutdown.';

/**
 * processShutdownEvent: kill every active pod through killPodNow, in parallel, with a grace period capped
 * by the non-critical share of ShutdownGracePeriod. Release-1.20 set Phase=Failed; PR #102344 as merged
 * stopped it (1.22.0-1.22.4, 1.23.0: issue #104531), and #106899 / #106900 / #106901 (fix
 * node-shutdown-failed-phase) set it again unless the pod Succeeded.
 */
export function* processShutdownEvent(kl: Kubelet): Co<void> {
  // migrateConfig: the pods below system-critical priority (every simulated pod) get the requested period
  // less the critical pods' share.
  const c = kl.shutdownConfig;
  const maxGraceSeconds = c.shutdownGracePeriodS - c.shutdownGracePeriodCriticalPodsS;
  kl.publish({
    kind: 'nodeShutdownStarted',
    atMs: kl.sim.nowMs,
    node: kl.nodeName,
    podGracePeriodSeconds: maxGraceSeconds,
  });
  const pods = kl.podManager.getPods().filter((p) => !isPodKnownTerminatedForShutdown(kl, p));
  const done = kl.sim.chan<GoError | undefined>(Math.max(1, pods.length), 'shutdown');
  for (const pod of pods) {
    const spec = pod.spec.terminationGracePeriodSeconds ?? 30;
    const gracePeriodOverride = Math.min(spec, maxGraceSeconds);
    kl.sim.spawn(
      `${kl.nodeName}/shutdown ${pod.metadata.name}`,
      shutdownPod(kl, pod, gracePeriodOverride, done),
      kl.group,
    );
  }
  for (let i = 0; i < pods.length; i++) yield* done.recv();
}

/** One pod's goroutine of processShutdownEvent: killPodNow with the shutdown status. */
function* shutdownPod(
  kl: Kubelet,
  pod: Pod,
  gracePeriodOverride: number,
  done: Chan<GoError | undefined>,
): Co {
  let err: GoError | undefined;
  if (kl.legacy !== undefined) {
    const status = newPodStatus({
      phase: 'Failed',
      reason: nodeShutdownReasonLegacy,
      message: nodeShutdownMessage,
      containerStatuses: [],
    });
    err = yield* kl.legacy.killPodNow(pod, status, gracePeriodOverride);
  } else {
    assert(kl.podWorkers !== undefined, 'shutdown without pod workers');
    const failedPhase = kl.fixes.on('node-shutdown-failed-phase');
    err = yield* killPodNow(kl.podWorkers, pod, false, gracePeriodOverride, (s) => {
      // set the pod status to failed (unless it was already in a successful terminal phase)
      if (failedPhase && s.phase !== 'Succeeded') s.phase = 'Failed';
      s.message = nodeShutdownMessage;
      s.reason = nodeShutdownReason;
    });
  }
  yield* done.send(err);
}

function isPodKnownTerminatedForShutdown(kl: Kubelet, pod: Pod): boolean {
  if (kl.podWorkers !== undefined) return kl.podWorkers.isPodKnownTerminated(pod.metadata.uid);
  return kl.legacy?.podIsTerminated(pod) ?? false;
}
