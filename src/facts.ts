// Facts: what components publish to the event bus as they act. Invariant checkers and traces read them;
// facts observe, they never steer. Every fact carries the virtual time and the node (or '' for
// cluster-wide components).
import type { PodPhase, UID } from './api/v1.js';

interface Base {
  atMs: number;
  node: string;
}
interface PodRef {
  uid: UID;
  /** The pod's name (for a static pod, its name; fullname is name_namespace). */
  pod: string;
}

export type Fact =
  // ---- container runtime (ground truth) ----
  | (Base & PodRef & { kind: 'sandboxCreated' })
  | (Base & PodRef & { kind: 'containerCreated'; container: string })
  | (Base & PodRef & { kind: 'containerStarted'; container: string; staticFullname?: string | undefined })
  | (Base & PodRef & { kind: 'containerExited'; container: string; exitCode: number })
  | (Base & PodRef & { kind: 'containerRemoved'; container: string })
  | (Base & PodRef & { kind: 'killPodStarted'; gracePeriodSeconds: number; source: string })
  | (Base & PodRef & { kind: 'killPodFinished' })
  // ---- kubelet decisions ----
  /** The kubelet treated the pod as terminated: no running containers, none coming. */
  | (Base & PodRef & { kind: 'podTerminated'; reason: string })
  /** A pod worker phase change (sync / terminating / terminated / finished), for traces. */
  | (Base & PodRef & { kind: 'podWorkerPhase'; phase: 'sync' | 'terminating' | 'terminated' | 'finished' })
  /** Termination of the pod was requested (deletion, eviction, kill) as the kubelet saw it. */
  | (Base & PodRef & { kind: 'podTerminationRequested'; reason: string })
  /**
   * HandlePodAdditions handed a pod new to this kubelet process to the pod workers (admission proper,
   * canAdmitPod, is not modelled: every pod is admitted).
   */
  | (Base & PodRef & { kind: 'podAdmitted' })
  | (Base & { kind: 'kubeletStarted' })
  | (Base & { kind: 'kubeletStopped' })
  | (Base & { kind: 'kubeletPanic'; component: string; message: string })
  // ---- API server ----
  | (Base &
      PodRef & {
        kind: 'apiPodCreated';
        static: boolean;
        restartPolicy: string;
        /** The spec's container names. */
        containers: readonly string[];
        /** The sum of the containers' configured start delays (what the runtime adds to their starts). */
        startDelayMs: number;
        /** The spec's volumes (PersistentVolume names). */
        volumes: readonly string[];
      })
  | (Base & PodRef & { kind: 'apiPodDeletionRequested'; gracePeriodSeconds: number })
  /** The pod object left the API server; `by` says who finalised it. */
  | (Base & PodRef & { kind: 'apiPodDeleted'; by: 'kubelet' | 'user-force' })
  | (Base &
      PodRef & { kind: 'apiPodPhase'; phase: PodPhase; reason?: string | undefined; restartable: boolean })
  | (Base & { kind: 'nodeShutdownStarted' })
  | (Base & { kind: 'nodeVolumesInUse'; volumes: readonly string[] })
  // ---- volumes: kubelet operations ----
  | (Base & PodRef & { kind: 'volumeSetUp'; volume: string })
  | (Base & PodRef & { kind: 'volumeTearDown'; volume: string; ok: boolean })
  | (Base & { kind: 'mountDevice'; volume: string; ok: boolean })
  | (Base & { kind: 'unmountDevice'; volume: string; ok: boolean })
  /** SetUp bind-mounted a global path that was not mounted (MountDevice skipped after a failure). */
  | (Base & PodRef & { kind: 'bindMountOfUnmountedGlobalPath'; volume: string })
  // ---- storage ground truth (per node host) ----
  /** A read-write (or read-only) global mount or block map of a LUN appeared / went on a node. */
  | (Base & { kind: 'lunAccessOpened'; volume: string; readWrite: boolean })
  | (Base & { kind: 'lunAccessClosed'; volume: string })
  /** A node's path to a LUN was fenced (real detach) or restored. */
  | (Base & { kind: 'lunFenced'; volume: string; fenced: boolean })
  /** After an UnmountDevice that reported success: what device state is left on the node. */
  | (Base & { kind: 'deviceResidue'; volume: string; scsiPaths: number; multipathMaps: number })
  // ---- attach/detach controller ----
  | (Base & { kind: 'volumeAttached'; volume: string })
  | (Base & { kind: 'volumeDetached'; volume: string; forced: boolean })
  // ---- faults ----
  | (Base & {
      kind: 'faultInjected';
      fault: string;
      volume?: string | undefined;
      pod?: string | undefined;
      /** containerStart: the delay added to the pod's next container start, and the error it fails with. */
      delayMs?: number | undefined;
      error?: string | undefined;
    });

export type FactKind = Fact['kind'];
