// What the recogniser (recognise.ts) reads out of one log message: the events the scenario writer
// (infer.ts) needs, in upstream's terms. A record gives at most one event.

export interface PodRef {
  readonly namespace: string;
  readonly name: string;
  /** '' when the message does not name it. */
  readonly uid: string;
}

/** The kubelet's volume operations and the attach/detach controller's, as operation_generator names them. */
export const VOLUME_OPS = [
  'waitForAttach',
  'mountDevice',
  'setUp',
  'tearDown',
  'unmountDevice',
  'mapDevice',
  'mapPodDevice',
  'unmapPodDevice',
  'unmapDevice',
  'attach',
  'detach',
] as const;
export type VolumeOp = (typeof VOLUME_OPS)[number];

export type LogEvent =
  /** syncLoop's config updates: `SyncLoop ADD source="api"` or `SyncLoop (ADD, "api")`. */
  | {
      readonly kind: 'podOp';
      readonly op: 'ADD' | 'UPDATE' | 'DELETE' | 'REMOVE';
      readonly source: string;
      readonly pods: readonly PodRef[];
    }
  /** kuberuntime killContainer: `Killing container with a grace period`. */
  | {
      readonly kind: 'killContainer';
      readonly pod: PodRef;
      readonly container: string;
      /** The runtime's ID without its scheme (`containerID="containerd://ab"` -> `ab`); '' when absent. */
      readonly containerId: string;
      readonly gracePeriodS: number;
    }
  /**
   * kuberuntime killContainer: `Container termination failed with gracePeriod` (StopContainer returned an
   * error). The pre-1.21 form names only the container ID (`pod` null).
   */
  | {
      readonly kind: 'killContainerFailed';
      readonly pod: PodRef | null;
      readonly container: string;
      readonly containerId: string;
      readonly error: string;
    }
  /**
   * kuberuntime_container.go executePreStopHook: `Running preStop hook` (V(3), the hook starts), `PreStop
   * hook completed` (V(3)), `PreStop hook not completed in grace period` (V(2), `gracePeriod=`: the kubelet
   * stopped waiting), `PreStop hook failed` (the exec failed). Before 1.21 the printf forms name only the
   * container's ID (`preStop hook for container "<id>" completed`), a failure only its name (`pod` null).
   */
  | {
      readonly kind: 'preStopHook';
      readonly phase: 'started' | 'completed' | 'notCompleted' | 'failed';
      readonly pod: PodRef | null;
      readonly container: string;
      /** Without its scheme; '' when absent. */
      readonly containerId: string;
      /** `not completed`'s gracePeriod (seconds); null for the other phases. */
      readonly gracePeriodS: number | null;
    }
  /** PLEG: `SyncLoop (PLEG): event for pod`, ContainerStarted or ContainerDied. */
  | {
      readonly kind: 'pleg';
      readonly pod: PodRef;
      readonly event: 'ContainerStarted' | 'ContainerDied';
      readonly container: string;
    }
  /** PLEG relist: `Generic (PLEG): container finished`, a ContainerDied's exit code (generic.go, V(2)). */
  | {
      readonly kind: 'containerFinished';
      readonly podUid: string;
      readonly containerId: string;
      readonly exitCode: number;
    }
  | { readonly kind: 'evict'; readonly pod: PodRef }
  | { readonly kind: 'shutdown' }
  /** "Creating node shutdown manager": the node's graceful shutdown configuration, whole seconds. */
  | { readonly kind: 'shutdownConfig'; readonly periodS: number; readonly criticalS: number }
  /** The kubelet process started; `version` from `Kubelet version` (`1.23`), '' when the line has none. */
  | { readonly kind: 'kubeletStart'; readonly version: string }
  | {
      readonly kind: 'volumeOp';
      readonly op: VolumeOp;
      readonly ok: boolean;
      /** The spec name (`for volume "..."`). */
      readonly volume: string;
      /** `(UniqueName: "...")`; '' when absent. */
      readonly uniqueName: string;
      readonly pod: PodRef | null;
      /** `on node` / `from node`; '' when absent. */
      readonly node: string;
      /** The error text of a failure; '' otherwise. */
      readonly error: string;
    }
  /** Reconstruction after a restart could not read a volume (`Could not construct volume information`). */
  | {
      readonly kind: 'reconstructFailed';
      readonly volume: string;
      readonly uid: string;
      readonly error: string;
    }
  /**
   * desired_state_of_world_populator.go: `"Error processing volume" err="error processing PVC <ns>/<claim>:
   * failed to fetch PVC from API server: <client error>"` (getPVCExtractPV), or `failed to fetch PV <pv>
   * from API server` (getPVSpec). Before 1.21 the printf form `Error processing volume "<volume>" for pod
   * "<name>_<ns>(<uid>)": error processing PVC ...`.
   */
  | {
      readonly kind: 'pvcLookupFailed';
      readonly pod: PodRef | null;
      /** The pod's name for the volume (`volumeName=`); '' when absent. */
      readonly volumeName: string;
      readonly claim: string;
      /** The PersistentVolume the claim is bound to when its read failed (getPVSpec); '' for the claim's. */
      readonly pv: string;
      /** The API client's error. */
      readonly error: string;
    }
  /** `Orphaned pod ... found, but volume paths are still present on disk`. */
  | { readonly kind: 'orphanVolumePaths'; readonly uid: string }
  /** `could not get consistent content of /proc/mounts`. */
  | { readonly kind: 'inconsistentMounts' }
  /** `multipath -f` refused: `map in use`. */
  | { readonly kind: 'mapInUse'; readonly device: string }
  /** PR #107789: `the device is in use when it was no longer expected to be in use`. */
  | { readonly kind: 'deviceStillOpen'; readonly volume: string }
  /** `Multi-Attach error for volume`. */
  | {
      readonly kind: 'multiAttach';
      readonly volume: string;
      readonly node: string;
      readonly attachedTo: string;
    }
  /** `maxWaitForUnmountDuration ... expired, force detaching`. */
  | { readonly kind: 'forceDetach'; readonly volume: string; readonly node: string };

export type LogEventKind = LogEvent['kind'];
