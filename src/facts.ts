// Facts: what components publish to the event bus as they act. Invariant checkers and traces read them;
// facts observe, they never steer. Every fact carries the virtual time and the node (or '' for
// cluster-wide components).
import type { ContainerStatus, PodPhase, UID } from './api/v1.js';

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
  /** StopPodSandbox (or RemovePodSandbox) took a ready sandbox down: the pod's network and pause process are gone. */
  | (Base & PodRef & { kind: 'sandboxStopped' })
  | (Base & PodRef & { kind: 'containerCreated'; container: string })
  | (Base & PodRef & { kind: 'containerStarted'; container: string; staticFullname?: string | undefined })
  | (Base & PodRef & { kind: 'containerExited'; container: string; exitCode: number })
  /** StartContainer failed (an injected error, the request's deadline): the container is exited, 128, never ran. */
  | (Base & PodRef & { kind: 'containerStartFailed'; container: string; error: string })
  | (Base & PodRef & { kind: 'containerRemoved'; container: string })
  /**
   * StopContainer reached a running container: SIGTERM now, SIGKILL when `gracePeriodSeconds` ends (the
   * runtime's ground truth; a SIGKILLed container exits 137).
   */
  | (Base & PodRef & { kind: 'containerStopping'; container: string; gracePeriodSeconds: number })
  | (Base & PodRef & { kind: 'killPodStarted'; gracePeriodSeconds: number; source: string })
  // The runtime began a container's preStop hook (the kill's exec of lifecycle.preStop): the kill's grace
  // counts from here (#115835), not from the SIGTERM that follows the hook.
  | (Base & PodRef & { kind: 'preStopHookStarted'; container: string })
  // The desired state of world populator could not get a pod's volume from its PVC (getPVCExtractPV
  // failed): the volume stays out of the desired state until a later pass reads it. `cause` is `fetch`
  // when the API server did not give the claim (or its PV), `deleting` when the claim is being deleted
  // ("PVC is being deleted").
  | (Base &
      PodRef & { kind: 'podVolumeLookupFailed'; volume: string; error: string; cause: 'fetch' | 'deleting' })
  | (Base & PodRef & { kind: 'killPodFinished' })
  /** The host destroyed the pod's cgroup (pcm.Destroy: syncTerminatedPod or cleanupOrphanedPodCgroups). */
  | (Base & PodRef & { kind: 'podCgroupDestroyed' })
  /**
   * The pod worker handed its goroutine a kill (release-1.23: a TerminatingPodWork; release-1.20: a
   * SyncPodKill update): the grace the kill carries was settled by what the pod worker had been asked by now.
   */
  | (Base & PodRef & { kind: 'podKillDispatched' })
  // ---- kubelet decisions ----
  /** The kubelet treated the pod as terminated: no running containers, none coming. */
  | (Base & PodRef & { kind: 'podTerminated'; reason: string })
  /** A pod worker phase change (sync / terminating / terminated / finished), for traces. */
  | (Base & PodRef & { kind: 'podWorkerPhase'; phase: 'sync' | 'terminating' | 'terminated' | 'finished' })
  /** Termination of the pod was requested (deletion, eviction, kill) as the kubelet saw it. */
  | (Base & PodRef & { kind: 'podTerminationRequested'; reason: string })
  /** UpdatePod's first-sight branch (#105527): a terminal pod recorded finished, no worker, no SyncTerminatedPod. */
  | (Base & PodRef & { kind: 'podFinishedOnFirstSight' })
  /**
   * syncPod starts a static pod while the runtime still runs containers of another UID with its fullname
   * that no pod worker knows (an orphan of the previous kubelet: allowStaticPodStart cannot see it).
   */
  | (Base & PodRef & { kind: 'staticPodStartedBesideOrphan'; orphanUid: string })
  /** deletePod: "skipping delete because sources aren't ready yet": the REMOVE reaches no pod worker. */
  | (Base & PodRef & { kind: 'podRemoveDropped' })
  /**
   * calculateEffectiveGracePeriod settled on 0 (a deletion grace or an override of 0) and fell back to the
   * spec's terminationGracePeriodSeconds, longer than the grace the pod worker had settled on (#115819).
   */
  | (Base &
      PodRef & {
        kind: 'gracePeriodFellBack';
        fromSeconds: number;
        toSeconds: number;
        /** deletion: the API's deletionGracePeriodSeconds of 0 (a force delete); override: a kill's 0. */
        cause: 'deletion' | 'override';
      })
  /**
   * HandlePodAdditions handed a pod new to this kubelet process to the pod workers: canAdmitPod admitted
   * it, or it skipped admission (its termination already requested; a terminal pod under #126343 or
   * release-1.20's podIsTerminated).
   */
  | (Base & PodRef & { kind: 'podAdmitted' })
  /**
   * rejectPod: canAdmitPod refused a pod (reason: the failed predicate, e.g. NodeAffinity); the status
   * manager is told phase Failed, and no pod worker hears of the pod.
   */
  | (Base & PodRef & { kind: 'podRejected'; reason: string; message: string })
  /**
   * Simulator observation, the known-open hazard `rejected-pod-counted-as-terminating` (#135296): while
   * admitting this pod, filterOutInactivePods counted `countedPod`, a pod this kubelet rejected, as actively
   * terminating (a pod worker took it after the rejection and was asked to terminate it).
   */
  | (Base & PodRef & { kind: 'rejectedPodCountedActive'; countedUid: UID; countedPod: string })
  /**
   * Simulator observation, the known-open hazard `rejected-running-pod-killed-as-orphan` (#124586): from
   * 1.27 housekeeping kills, as an orphaned runtime pod (a 1 s grace override), the running containers of a
   * pod the config still has and this kubelet rejected at admission (no pod worker knows it).
   */
  | (Base & PodRef & { kind: 'rejectedPodKilledAsOrphan' })
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
        /** The spec's terminationGracePeriodSeconds. */
        gracePeriodSeconds: number;
        /**
         * What the pod requests of its node (the sum of its containers' requests, as the kubelet's fit check
         * counts it); absent when no container gives resources.
         */
        requests?: { cpuMilli: number; memoryBytes: number } | undefined;
      })
  | (Base & PodRef & { kind: 'apiPodDeletionRequested'; gracePeriodSeconds: number })
  /**
   * The node's kubelet watch delivered the pod marked for deletion, with its deletionGracePeriodSeconds (a
   * MODIFIED / DELETED event, or the LIST of a kubelet that starts): the moment the kubelet can know it.
   */
  | (Base & PodRef & { kind: 'podDeletionDelivered'; gracePeriodSeconds: number })
  /**
   * The eviction manager was asked to evict the pod with this grace-period override (scenario `evictPod`:
   * the request, published before the kubelet acts on it).
   */
  | (Base & PodRef & { kind: 'podEvictionRequested'; gracePeriodSeconds: number })
  /**
   * A user's DELETE of the volume's PVC was accepted: with `finalizers` left (kubernetes.io/pvc-protection)
   * the claim stays, deletionTimestamp set, until the pvc-protection controller removes them.
   */
  | (Base & { kind: 'apiPvcDeletionRequested'; volume: string; finalizers: readonly string[] })
  /** The pvc-protection controller removed its finalizer from a claim being deleted: no pod uses it. */
  | (Base & { kind: 'apiPvcFinalizerRemoved'; volume: string })
  /** The PVC object left the API server (deleted with no finalizer left). */
  | (Base & { kind: 'apiPvcDeleted'; volume: string })
  /** The pod object left the API server; `by` says who finalised it. */
  | (Base & PodRef & { kind: 'apiPodDeleted'; by: 'kubelet' | 'user-force' })
  | (Base &
      PodRef & { kind: 'apiPodPhase'; phase: PodPhase; reason?: string | undefined; restartable: boolean })
  /**
   * A status write changed a container's state or exit code in the pod object (published only then, as
   * apiPodPhase only when the phase or reason changed): the written containers, as stored, and the
   * spec's restart policy.
   */
  | (Base &
      PodRef & {
        kind: 'apiContainerStates';
        restartPolicy: string;
        containers: readonly ContainerStatus[];
      })
  /**
   * The kubelet's mirror client created or deleted the mirror pod of a static pod (uid is the mirror
   * pod's own, staticUid the static pod's it mirrors). Mirror pods publish no apiPod* facts.
   */
  | (Base & PodRef & { kind: 'mirrorPod'; op: 'created' | 'deleted'; staticUid: UID })
  | (Base & {
      kind: 'nodeShutdownStarted';
      /** The cap on each pod's grace period: shutdownGracePeriod less shutdownGracePeriodCriticalPods. */
      podGracePeriodSeconds: number;
    })
  | (Base & { kind: 'nodeVolumesInUse'; volumes: readonly string[] })
  /**
   * The attach/detach controller patched node.status.volumesAttached (its node status updater): the
   * volumes the node object now lists as attached, which the kubelet's VerifyControllerAttachedVolume
   * reads. Published on every successful patch, changed or not.
   */
  | (Base & { kind: 'nodeVolumesAttached'; volumes: readonly string[] })
  /**
   * The API server answered the attach/detach controller's GET of the node (verifyVolumeIsSafeToDetach
   * reads it): the node object's volumesInUse as served at that moment.
   */
  | (Base & { kind: 'nodeStatusRead'; volumesInUse: readonly string[] })
  // ---- volumes: kubelet operations ----
  | (Base & PodRef & { kind: 'volumeSetUp'; volume: string })
  | (Base & PodRef & { kind: 'volumeTearDown'; volume: string; ok: boolean })
  | (Base & { kind: 'mountDevice'; volume: string; ok: boolean })
  | (Base & { kind: 'unmountDevice'; volume: string; ok: boolean })
  /**
   * WaitForUnmount returned while some of the pod's mounts were only uncertain (a failed TearDown):
   * upstream's check counts VolumeMounted alone (#113563).
   */
  | (Base & PodRef & { kind: 'unmountWaitIgnoredUncertain'; volumes: readonly string[] })
  /**
   * Simulator observation, the known-open hazard `pod-volumes-exist-ignores-block-maps` (#61229): the
   * kubelet's podVolumesExist answered false while the pod's dir still held a Block volume's device link
   * (volumeDevices/), which its disk check (the pod's volumes/ dir only) never reads. Once per kubelet
   * process, pod and volume.
   */
  | (Base & PodRef & { kind: 'podVolumesExistMissedBlockMap'; volume: string })
  /**
   * Simulator observation, the known-open hazard `terminal-pod-volume-kept-desired`: the populator's
   * findAndRemoveDeletedPods kept a volume of a pod whose runtime is removed in the desired state, because
   * the actual state never had it mounted for the pod and the pod manager still has the pod (`kept`), or
   * later removed it after all (`kept: false`). Once per pod and volume each way.
   */
  | (Base & PodRef & { kind: 'terminatedPodVolumeKeptDesired'; volume: string; kept: boolean })
  /** SetUp bind-mounted a global path that was not mounted (MountDevice skipped after a failure). */
  | (Base & PodRef & { kind: 'bindMountOfUnmountedGlobalPath'; volume: string })
  /**
   * Ground truth (CSI NodePublish): SetUp bind-mounted a global (staging) mount made at `mountedAtMs` whose
   * device the node lost to a detach (ControllerUnpublish fenced its path) at `fencedAtMs`, after the
   * mount: the pod gets a dead filesystem (I/O errors) although the volume is attached again (#119273).
   */
  | (Base &
      PodRef & {
        kind: 'bindMountOfFencedGlobalPath';
        volume: string;
        mountedAtMs: number;
        fencedAtMs: number;
      })
  // ---- volume reconstruction after a kubelet start (reconciler syncStates, release-1.23) ----
  /** syncStates began: how many volume dirs it found under the pods dir. */
  | (Base & { kind: 'reconstructionStarted'; volumeDirs: number })
  /**
   * One volume dir: reconstructVolume's result and what syncStates did with it: put into the actual
   * state (`addedToActualState`), marked reported in use for a pod that still wants it
   * (`reportedInUse`), left to the pod's own mount (`skippedDesired`, failed but desired), or
   * `cleanupMounts` (failed and not desired: only the pod's UnmountVolume runs, the global mount stays).
   * The new reconstruction (fix new-volume-reconstruction) decides that only once the desired state is
   * populated; a failure is published when it happens too, as `failedReconstruction` (the volume is then
   * in neither state of the world until cleanOrphanVolumes).
   */
  | (Base &
      PodRef & {
        kind: 'volumeReconstruction';
        volume: string;
        mode: 'Filesystem' | 'Block';
        ok: boolean;
        /** The error of a failed reconstruction; `inconsistentRead` when it was an InconsistentReadError. */
        error?: string | undefined;
        inconsistentRead: boolean;
        outcome:
          | 'addedToActualState'
          | 'reportedInUse'
          | 'skippedDesired'
          | 'cleanupMounts'
          | 'failedReconstruction'
          /** Release-1.23 (#110547): a later pod of the same volume replaced this one before updateStates. */
          | 'lostToAnotherPod';
        /** Whether the kubelet's pod manager knows the pod (it is still in the API, maybe terminating). */
        podKnown: boolean;
        /**
         * Whether the pod worker had the pod's containers terminating then (ShouldPodContainersBeTerminating):
         * the reason release-1.23's populator leaves a known pod out of the desired state (#113979).
         */
        podTerminating: boolean;
        /**
         * Simulator observation (ground truth): the pod's volume path (CSI: its mount/ dir) was a mount
         * point when the reconstruction read it; false for a dir a kubelet killed inside SetUp left
         * unmounted, whose FC / iSCSI ConstructVolumeSpec then finds no global mount ("couldn't fetch
         * globalPDPath"). Absent: not observed (a Block volume, a volume lost to another pod).
         */
        podPathMounted?: boolean | undefined;
      })
  /**
   * syncStates ended. `unreconstructedDevices`: volumes whose device is still mounted or mapped on the
   * node (ground truth) but that neither the actual nor the desired state holds: one-shot
   * reconstruction only looks at pod volume dirs, so nothing will ever unmount these.
   * `unreconstructedPodMaps`: per-pod references to a block volume's global map (pod UID and volume)
   * whose pod dir no longer links the volume (a kubelet stopped inside UnmapBlockVolume): never removed.
   */
  | (Base & {
      kind: 'reconstructionFinished';
      unreconstructedDevices: readonly string[];
      unreconstructedPodMaps: readonly { readonly uid: string; readonly volume: string }[];
      /**
       * Ground truth: every pod volume dir on the node when syncStates read them (pod UID and volume), for
       * telling #85476's gap (no dir named the volume) from a reconstruction that missed a dir.
       */
      podDirVolumes: readonly { readonly uid: string; readonly volume: string }[];
    })
  // ---- storage ground truth (per node host) ----
  /** One utilio.ConsistentRead of /proc/mounts: how many attempts it took and whether it succeeded. */
  | (Base & { kind: 'procMountsRead'; purpose: string; attempts: number; consistent: boolean })
  /**
   * The node's mount table changed for a LUN's device (ground truth, whatever the kubelet believes): a
   * mount appeared (`mounted`) or went at `path`. `scope`: `global`, a mount outside the pods dir (the
   * global mount, a CSI staging path); `pod`, a mount under pods/{uid}/ (SetUp's bind mount, NodePublish);
   * `podMap`, a pod's reference on a Block volume's global map (`<global map path>/{uid}`). `uid` and `pod`
   * name the pod of the last two. A bind of a directory that is not a mount point binds the node's root
   * disk, no LUN: it publishes nothing.
   */
  | (Base & {
      kind: 'hostMount';
      volume: string;
      path: string;
      mounted: boolean;
      scope: 'global' | 'pod' | 'podMap';
      uid?: string | undefined;
      pod?: string | undefined;
    })
  /**
   * The LUN's block devices on the node changed (ground truth): how many SCSI paths (/dev/sdX) and
   * multipath maps (/dev/dm-N) of it the node has now. Published on every change of the counts: a rescan
   * or login finds a path, multipathd assembles a map, a path is deleted, a map flushed, a session logged out.
   */
  | (Base & { kind: 'hostDevices'; volume: string; scsiPaths: number; multipathMaps: number })
  /** A read-write (or read-only) global mount or block map of a LUN appeared / went on a node. */
  | (Base & { kind: 'lunAccessOpened'; volume: string; readWrite: boolean })
  | (Base & { kind: 'lunAccessClosed'; volume: string })
  /** A node's path to a LUN was fenced (real detach) or restored. */
  | (Base & { kind: 'lunFenced'; volume: string; fenced: boolean })
  /** `multipath -f` failed (map in use); `fellThrough`: the caller went on as if it had worked (iSCSI). */
  | (Base & { kind: 'multipathFlushFailed'; volume: string; device: string; fellThrough: boolean })
  /**
   * The node took away something the LUN's device needs: a SCSI path deleted (a write to
   * /sys/block/sdX/device/delete: `scsiDelete`), the iSCSI session it was found through logged out
   * (`logout`: the kernel deletes the session's disks), or the node's path fenced by a real detach
   * (`fence`: ControllerUnpublish). What held the LUN's device open on the node at that moment, as
   * the host knows it: `mounts` of it (a global mount, pod bind mounts, block maps), the pods whose
   * running containers hold it in their mount namespace or /dev (`pods`, one UID per container), and
   * whether a host process holds it (`hostProcess`, the deviceStillOpen fault). `holders` is their sum.
   * `multipath -f` is not a release: the kernel refuses to flush an open map.
   */
  | (Base & {
      kind: 'deviceReleased';
      volume: string;
      action: 'scsiDelete' | 'logout' | 'fence';
      /** The disk deleted ('/dev/sdb'); for a logout, the portal; for a fence, ''. */
      device: string;
      holders: number;
      mounts: number;
      pods: readonly UID[];
      hostProcess: boolean;
    })
  /** iSCSI detach skipped the logout because another volume keeps the session busy (isSessionBusy). */
  | (Base & { kind: 'iscsiLogoutSkipped'; volume: string; block: boolean })
  /**
   * iSCSI detach logs out of the volume's target (no other volume keeps the session busy): DetachDisk
   * after deleteDevices, or (`block`) DetachBlockISCSIDisk, which flushes and deletes nothing first.
   */
  | (Base & { kind: 'iscsiLogout'; volume: string; block: boolean })
  /**
   * The kubelet marked a device unmounted (UnmountDevice / UnmapDevice succeeded and isDeviceOpened saw
   * nothing): what device state is left on the node, and what still holds the LUN's device open there as
   * the host knows it (the deviceReleased fact's fields): `mounts` of it, the pods whose running
   * containers hold it (`pods`), a host process (`hostProcess`, the deviceStillOpen fault).
   * `devicePathIsDevice`: whether the device path the kubelet held for the volume (the one its
   * isDeviceOpened check was given) names a device on the node; false when it is empty or gone (a
   * reconstructed FC / iSCSI volume's path from node status is ''), and upstream's isDeviceOpened then
   * skips the check ("The path isn't device path or doesn't exist", TODO #36092).
   */
  | (Base & {
      kind: 'deviceResidue';
      volume: string;
      scsiPaths: number;
      multipathMaps: number;
      mounts: number;
      pods: readonly UID[];
      hostProcess: boolean;
      devicePathIsDevice: boolean;
    })
  /**
   * UnmountDevice / TearDownDevice succeeded but the kubelet's isDeviceOpened check found the device
   * still open: the operation fails and is retried (uncertain with PR #107789, else still mounted).
   */
  | (Base & { kind: 'deviceInUseAfterUnmount'; volume: string })
  /** The host mounted something on a path that was already a mount point (Linux stacks the two). */
  | (Base & { kind: 'mountStacked'; volume: string; path: string; device: string })
  /**
   * FC UnmountDevice (PR #101862) retried DetachDisk for its 2 minutes and gave up with the global path
   * already unmounted: the next UnmountDevice finds no device name there and succeeds without DetachDisk.
   */
  | (Base & { kind: 'fcDetachRetryExhausted'; volume: string; device: string })
  // ---- attach/detach controller ----
  | (Base & { kind: 'volumeAttached'; volume: string })
  /** A detach operation succeeded; `forced`: the node still had it mounted when maxWaitForUnmountDuration ran out. */
  | (Base & { kind: 'volumeDetached'; volume: string; forced: boolean })
  // ---- attach/detach controller, release-1.23 port (src/cluster/attachdetach): reconciler and operations.
  // `node` is the node the volume is (to be) attached to; volumes are the scenario's volume names. ----
  /**
   * reportMultiAttachError: `node` wants a volume that does not allow multi-attach while it is attached
   * (confirmed) to `attachedTo`; `uids` / `pods` are the pods on `node` that wait for it, `usedBy` the
   * pods (namespace/name) that want it on the other nodes. Once per (volume, node) and desire.
   */
  | (Base & {
      kind: 'multiAttachError';
      volume: string;
      attachedTo: readonly string[];
      uids: readonly string[];
      pods: readonly string[];
      usedBy: readonly string[];
    })
  /** An Attach failed (a timeout): the attachment is uncertain (MarkVolumeAsUncertain), maybe half done. */
  | (Base & { kind: 'volumeAttachUncertain'; volume: string; error: string })
  /**
   * The reconciler started a detach operation. `verifySafeToDetach`: the operation first checks the node
   * object's volumesInUse (false once maxWaitForUnmountDuration passed); `forced`: past that timeout
   * while the node still had the volume mounted.
   */
  | (Base & {
      kind: 'volumeDetachStarted';
      volume: string;
      forced: boolean;
      verifySafeToDetach: boolean;
      /**
       * The node carried the node.kubernetes.io/out-of-service taint (KEP-2268): the detach skipped the
       * wait for the node to unmount and the safe-to-detach check ("node has out-of-service taint, force
       * detaching"). Absent otherwise.
       */
      outOfService?: true;
    })
  /**
   * Simulator observation, the known-open hazard `force-detach-unhealthy-node`: the attach/detach
   * controller's reconciler started a forced detach (maxWaitForUnmountDuration passed, the node still
   * reporting the volume mounted) from a node its node informer had not Ready. Published with the
   * volumeDetachStarted it goes with.
   */
  | (Base & { kind: 'forceDetachUnhealthyNode'; volume: string })
  /**
   * The API server stored a change of a node's taints (`kubectl taint node`): `taint` set (`present`) or
   * removed. Only the out-of-service taint of non-graceful node shutdown is modelled.
   */
  | (Base & { kind: 'nodeTainted'; taint: string; effect: 'NoExecute'; present: boolean })
  /** A detach operation failed; the volume is reported attached again and retried after a backoff. */
  | (Base & { kind: 'volumeDetachFailed'; volume: string; error: string })
  // ---- scenario actions (src/cluster/world.ts) ----
  /**
   * A timeline entry that changed nothing (a delete of a pod already gone, a crashContainer of a pod with
   * no running container, an eviction or node shutdown without a kubelet to carry it out) or, published
   * at the end of the run, one whose effect never came: a fault still armed (it never fired, or fewer
   * times than asked) or a createPod still waiting for its name. `line`: the entry's line in the scenario
   * file (0 for a generated case); `action`: the entry's action kind; `fault`: a fault's kind.
   */
  | (Base & {
      kind: 'actionNoop';
      action: string;
      line: number;
      pod?: string | undefined;
      volume?: string | undefined;
      fault?: string | undefined;
      reason: string;
    })
  /**
   * createPod of a name whose earlier object still exists (the API server answers AlreadyExists, "object
   * is being deleted" while it terminates): like a StatefulSet controller, the create waits until the
   * name is free and then happens (apiPodCreated). `heldBy`: the UID that holds the name.
   */
  | (Base & { kind: 'podCreateWaiting'; pod: string; heldBy: UID; line: number; reason: string })
  // ---- faults ----
  /**
   * Ground truth (the network): the node is cut off from the API server until `untilMs` (the
   * nodePartition fault); its kubelet's requests fail, its watch delivers nothing, its Lease is not renewed.
   */
  | (Base & { kind: 'nodePartitioned'; untilMs: number })
  /** The node's partition healed: its kubelet reaches the API server again. */
  | (Base & { kind: 'nodePartitionHealed' })
  | (Base & {
      kind: 'faultInjected';
      fault: string;
      volume?: string | undefined;
      pod?: string | undefined;
      /** stopContainer: the pod's UID, the container whose StopContainer failed and the grace it asked. */
      uid?: UID | undefined;
      container?: string | undefined;
      gracePeriodSeconds?: number | undefined;
      /**
       * containerStart: the delay added to the pod's next container start, and the error it fails with;
       * mountDevice: the delay added to the staging, and how it then fails (final, uncertain);
       * stopContainer: the error the runtime answered.
       */
      delayMs?: number | undefined;
      error?: string | undefined;
    });

export type FactKind = Fact['kind'];
