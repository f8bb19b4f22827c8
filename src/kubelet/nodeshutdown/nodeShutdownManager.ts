// Ported from kubernetes pkg/kubelet/nodeshutdown/nodeshutdown_manager_linux.go (processShutdownEvent),
// release-1.23, with release-1.20's status and #106900's Failed phase as switches.
import type { GoError } from '../../api/errors.js';
import { newPodStatus, type Pod } from '../../api/v1.js';
import { assert, type Chan, type Co } from '../../sim/index.js';
import type { Kubelet } from '../kubelet.js';
import { killPodNow } from '../podWorkers.js';

/** nodeshutdown defaults used by the simulator: ShutdownGracePeriod 30 s, of which 10 s for critical pods. */
export const shutdownGracePeriodRequestedSeconds = 30;
export const shutdownGracePeriodCriticalPodsSeconds = 10;
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
  kl.publish({ kind: 'nodeShutdownStarted', atMs: kl.sim.nowMs, node: kl.nodeName });
  const maxGraceSeconds = shutdownGracePeriodRequestedSeconds - shutdownGracePeriodCriticalPodsSeconds;
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
