// Ported from kubernetes pkg/kubelet/kubelet_pods.go, release-1.20 (PodKiller, podKillerWithChannel).
// The pre-PR-#102344 podKiller: HandlePodCleanups and deletePod send runtime pods to kill on a channel;
// one goroutine reads it and starts a killing goroutine per pod unless one of ITS OWN kills of that
// runtime pod ID is still in flight. It knows nothing of the pod workers, so a kill through the pod
// worker (syncPod with SyncPodKill) and a podKiller kill of the same pod can run at once (the concurrent-kill race), and
// it kills with no grace period override (the spec's value), whatever an eviction already used.

import { getPodFullName, type Pod, type RuntimePod, type UID } from '../../api/v1.js';
import { type Chan, CLOSED, type Co, type ProcessGroup, type Sim, sleep } from '../../sim/index.js';
import type { PodKillerKillPod, PodPair } from './types.js';

/** podKillingChannelCapacity: the capacity of the channel for receiving pod kill requests. */
export const podKillingChannelCapacity = 50;

/** The period of `go wait.Until(kl.podKiller.PerformPodKillingWork, 1*time.Second, wait.NeverStop)`. */
export const podKillerRestartPeriodMs = 1000;

export interface PodKillerOptions {
  readonly sim: Sim;
  /** The kubelet's goroutines: the reader and the killing goroutines are spawned into it. */
  readonly group: ProcessGroup;
  /** What a kill calls: kl.killPod(apiPod, runningPod, nil status, nil gracePeriodOverride). */
  readonly kubelet: PodKillerKillPod;
  readonly nodeName: string;
}

/** podKillerWithChannel (1.20): a PodKiller that receives pod killing requests via a channel. */
export class PodKiller {
  /** Channel for getting pods to kill. */
  private readonly podKillingCh: Chan<PodPair>;
  /**
   * mirrorPodTerminationMap keeps track of the progress of mirror pod termination. The key is the UID of
   * the pod and the value is the full name of the pod. (Every access is atomic: that was podKillingLock.)
   */
  private readonly mirrorPodTerminationMap = new Map<string, string>();
  private readonly sim: Sim;
  private readonly group: ProcessGroup;
  private readonly kubelet: PodKillerKillPod;
  private readonly nodeName: string;

  constructor(o: PodKillerOptions) {
    this.sim = o.sim;
    this.group = o.group;
    this.kubelet = o.kubelet;
    this.nodeName = o.nodeName;
    this.podKillingCh = o.sim.chan<PodPair>(podKillingChannelCapacity, `${o.nodeName}/podKillingCh`);
  }

  /** IsMirrorPodPendingTerminationByUID: whether the pod for the given uid is pending termination. */
  isMirrorPodPendingTerminationByUID(uid: UID): boolean {
    return this.mirrorPodTerminationMap.has(uid);
  }

  /** IsMirrorPodPendingTerminationByPodName: whether the given pod is in grace period of termination. */
  isMirrorPodPendingTerminationByPodName(podFullname: string): boolean {
    for (const name of this.mirrorPodTerminationMap.values()) {
      if (name === podFullname) return true;
    }
    return false;
  }

  private markMirrorPodTerminated(uid: string): void {
    this.mirrorPodTerminationMap.delete(uid);
  }

  /** MarkMirrorPodPendingTermination: marks the pod entering grace period of termination. */
  markMirrorPodPendingTermination(pod: Pod): void {
    const fullname = getPodFullName(pod);
    this.mirrorPodTerminationMap.set(pod.metadata.uid, fullname);
  }

  /** Close closes the channel through which requests are delivered. */
  close(): void {
    this.podKillingCh.close();
  }

  /** KillPod sends a pod killing request to the killer; blocks while the channel's 50 slots are full. */
  *killPod(pair: PodPair): Co<void> {
    yield* this.podKillingCh.send(pair);
  }

  /**
   * PerformPodKillingWork launches a goroutine to kill a pod received from the channel if another
   * goroutine isn't already in action. Returns once Close was called and the channel is drained.
   */
  *performPodKillingWork(): Co<void> {
    const killing = new Set<string>();
    for (;;) {
      const podPair = yield* this.podKillingCh.recv();
      if (podPair === CLOSED) return;
      const runningPod = podPair.RunningPod;
      const apiPod = podPair.APIPod;

      const exists = killing.has(runningPod.id);
      if (!exists) killing.add(runningPod.id);

      if (!exists) {
        this.sim.spawn(
          `${this.nodeName}/podKiller/kill/${runningPod.id}`,
          this.killUnwantedPod(killing, apiPod, runningPod),
          this.group,
        );
      }
    }
  }

  /** The body of PerformPodKillingWork's `go func(apiPod, runningPod)`. */
  private *killUnwantedPod(killing: Set<string>, apiPod: Pod | undefined, runningPod: RuntimePod): Co<void> {
    // "Killing unwanted pod"
    yield* this.kubelet.killPod(apiPod, runningPod, undefined);
    // (upstream logs "Failed killing the pod" on an error, and carries on)
    killing.delete(runningPod.id);
    this.markMirrorPodTerminated(runningPod.id);
  }

  /**
   * Starts the reader as kl.Run does: `go wait.Until(PerformPodKillingWork, 1s, wait.NeverStop)`.
   * Upstream would call PerformPodKillingWork again every second after Close (ranging over a closed
   * channel returns at once); Close is test-only upstream, so here the loop ends instead, which keeps a
   * finished simulation idle.
   */
  start(): void {
    this.sim.spawn(`${this.nodeName}/podKiller`, this.podKillerLoop(), this.group);
  }

  /** wait.Until(podKiller.PerformPodKillingWork, 1 s) */
  private *podKillerLoop(): Co<void> {
    for (;;) {
      yield* this.performPodKillingWork();
      if (this.podKillingCh.closed) return;
      yield* sleep(podKillerRestartPeriodMs);
    }
  }
}
