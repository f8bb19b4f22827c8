// The fix switches: each modelled upstream change is a named switch with its PRs, the release that first
// shipped it, and where each release's last patch stands on it. Code asks `fixes.on('...')` at the place
// where the upstream diff sits; a release preset (`--kubelet 1.23`) sets every switch as that release
// shipped it, so bisecting a behaviour across releases is one command per release.

/** The release presets `--kubelet` accepts besides `fixed` (every switch on) and `legacy` (every switch off). */
export const RELEASE_PRESETS = [
  '1.20',
  '1.21',
  '1.22',
  '1.23',
  '1.24',
  '1.25',
  '1.26',
  '1.27',
  '1.28',
  '1.29',
  '1.30',
  '1.31',
] as const;
export type ReleasePreset = (typeof RELEASE_PRESETS)[number];
export const KUBELET_NAMES = ['fixed', 'legacy', ...RELEASE_PRESETS] as const;
export type KubeletName = (typeof KUBELET_NAMES)[number];

export interface FixDef {
  /** Upstream pull requests: the change on master first, then its parts and backports. */
  readonly prs: readonly number[];
  /** The minor release whose .0 first shipped it from master. */
  readonly release: string;
  /** Backports to older release branches: the first patch release of each and the cherry-pick PR. */
  readonly backports: readonly string[];
  /** What it changes, in one line. */
  readonly summary: string;
  /** In the last patch release of each preset's minor version. */
  readonly presets: Readonly<Record<ReleasePreset, boolean>>;
  /**
   * The switch only has code to act on when `pod-worker-lifecycle` is in this state (a follow-up of
   * PR #102344, or a release-1.20 path that PR removed); elsewhere `podrace list fixes` shows n/a.
   */
  readonly needsPodWorkerLifecycle?: boolean;
}

const shippedFrom = (first: ReleasePreset): Record<ReleasePreset, boolean> => {
  const i = RELEASE_PRESETS.indexOf(first);
  return Object.fromEntries(RELEASE_PRESETS.map((p, k) => [p, k >= i])) as Record<ReleasePreset, boolean>;
};

/**
 * The table, in the order `podrace list fixes` prints it: the changes this project starts from, then
 * the upstream history around them. Sources for every release and backport: docs/fixes.md.
 */
export const FIX_TABLE = {
  'pod-worker-lifecycle': {
    prs: [102344],
    release: '1.22',
    backports: [],
    summary:
      'the pod worker owns sync / terminating / terminated; every kill goes through UpdatePod(SyncPodKill); other loops ask it by UID',
    presets: shippedFrom('1.22'),
  },
  'unmount-device-uncertain': {
    prs: [100183, 107014],
    release: '1.22',
    backports: ['1.21.9 (#107014)'],
    summary: 'a failed UnmountDevice / TearDown / unmap marks the mount uncertain, so MountDevice runs again',
    presets: shippedFrom('1.21'),
  },
  'reconstruct-reliable-mount-refs': {
    prs: [102059, 102656],
    release: '1.22',
    backports: ['1.21.7 (#102656)'],
    summary:
      'FC and iSCSI ConstructVolumeSpec retry inconsistent /proc/mounts reads (10 ms steps, up to 1 min)',
    presets: shippedFrom('1.21'),
  },
  'fc-unmount-retry': {
    prs: [101862, 102656],
    release: '1.22',
    backports: ['1.21.7 (#102656)'],
    summary: 'FC UnmountDevice retries its device clean-up every 10 s for up to 2 min after unmounting',
    presets: shippedFrom('1.21'),
  },
  'block-volume-stats': {
    prs: [97972],
    release: '1.22',
    backports: [],
    summary: 'the stats collector also gathers Block volumes (ListBlockVolumesForPod), for CSI block PVCs',
    presets: shippedFrom('1.22'),
  },
  'block-metrics': {
    prs: [101587],
    release: '1.22',
    backports: [],
    summary:
      'BlockVolume.SupportsMetrics(); the stats collector only calls GetMetrics where it is true; MetricsBlock for FC / iSCSI',
    presets: shippedFrom('1.22'),
  },
  'reconstruct-every-pod-of-volume': {
    prs: [110670, 111636],
    release: '1.25',
    backports: ['1.24 (#111636); 1.23 (#113300) closed'],
    summary:
      'reconstruction keeps every pod of a shared volume (not only the last one found), volumes skipped because a pod wanted them become uncertain, and a failed SetUp leaves them uncertain (IsVolumeReconstructed)',
    presets: shippedFrom('1.24'),
  },
  'mirror-pod-pending-termination': {
    prs: [98103, 98316],
    release: '1.21',
    backports: ['1.20.3 (#98316)'],
    summary:
      'release-1.20 paths: deletePod marks a static pod with a mirror pod pending termination; its successor waits',
    presets: shippedFrom('1.20'),
    needsPodWorkerLifecycle: false,
  },
  // A feature gate's default rather than a fix: 1.20's kubelet builds no shutdown manager unless the
  // alpha gate is turned on. Before #102344's pod worker, so it applies in every preset.
  'graceful-node-shutdown-beta': {
    prs: [99735],
    release: '1.21',
    backports: [],
    summary:
      'GracefulNodeShutdown is beta and on by default (alpha and off in 1.20): a node with shutdownGracePeriod > 0 kills its pods gracefully on a shutdown',
    presets: shippedFrom('1.21'),
  },
  'static-pod-start-exclusion': {
    prs: [104743, 106394],
    release: '1.23',
    backports: ['1.22.5 (#106394)'],
    summary:
      'pod worker: one static pod per fullname may start (allowStaticPodStart), the next waits its turn',
    presets: shippedFrom('1.22'),
    needsPodWorkerLifecycle: true,
  },
  'pod-uid-reuse-restart': {
    prs: [104847, 105075],
    release: '1.23',
    backports: ['1.22.3 (#105075)'],
    summary: 'pod worker: a create for a terminating UID restarts the pod once it has terminated',
    presets: shippedFrom('1.22'),
    needsPodWorkerLifecycle: true,
  },
  'terminal-pod-on-first-sight': {
    prs: [105527, 105560],
    release: '1.23',
    backports: ['1.22.3 (#105560)'],
    summary: 'pod worker: a pod first seen terminal with nothing running is finished at once, never active',
    presets: shippedFrom('1.22'),
    needsPodWorkerLifecycle: true,
  },
  // #104817 merged for 1.23.0 (CHANGELOG-1.23, v1.23.0); its manual pick #104918 is in v1.22.5
  // (CHANGELOG-1.22). Before it, 1.22.0-1.22.4 ran #104577's filter: known terminated, or a terminal phase in
  // the API (read from #104817's diff in its review thread). Release-1.20's podIsTerminated read the
  // status manager's phase first, so a rejected pod was never counted there.
  'admission-rejected-pod-inactive': {
    prs: [104817, 104918],
    release: '1.23',
    backports: ['1.22.5 (#104918)'],
    summary:
      'filterOutInactivePods leaves out a pod the kubelet already marked terminal (isAdmittedPodTerminal: one it rejected, whose Failed has not come back from the API yet) and keeps one with a terminal API phase that is still terminating',
    presets: shippedFrom('1.22'),
    needsPodWorkerLifecycle: true,
  },
  // It changes the start gate #104743 added: with `static-pod-start-exclusion` off there is no gate and
  // this switch has nothing to act on (the presets never combine the two that way).
  'unstarted-static-pod-terminated': {
    prs: [107900, 107931, 108303],
    release: '1.24',
    backports: ['1.23.5 (#107931)', '1.22.8 (#108303)'],
    summary: 'pod worker: a static pod terminated before it started leaves the start queue to its successor',
    presets: shippedFrom('1.22'),
    needsPodWorkerLifecycle: true,
  },
  // #107670's second half (its first, getPodContainerStatuses skipping a container removed between
  // ListContainers and ContainerStatus, has no window here: the fake runtime's status is one read). Its
  // picks' release note: "Fix a 1.22 regression with static pod restarts in cases where the container is
  // not present"; none to 1.21. Sources: docs/fixes.md.
  'stop-container-not-found': {
    prs: [107670, 108164, 108189],
    release: '1.24',
    backports: ['1.23.5 (#108164)', '1.22 (#108189)'],
    summary:
      'killContainer takes a CRI StopContainer answering NotFound (the container already removed, #106734) as stopped (crierror.IsNotFound), so KillPod no longer fails on it',
    presets: shippedFrom('1.22'),
  },
  'node-shutdown-failed-phase': {
    prs: [106901, 106900, 106899],
    release: '1.24',
    backports: ['1.23.1 (#106900)', '1.22.5 (#106899)'],
    summary: 'graceful node shutdown sets Phase=Failed again, as before #102344 (issue #104531)',
    presets: shippedFrom('1.22'),
    needsPodWorkerLifecycle: true,
  },
  'unmount-device-open-uncertain': {
    prs: [107789, 107791, 107792, 108012],
    release: '1.24',
    backports: ['1.23 (#107791)', '1.22 (#107792)', '1.21 (#108012)'],
    summary: 'UnmountDevice marks the device uncertain when it is still open after the unmount',
    presets: shippedFrom('1.21'),
  },
  // Upstream's master merge came after v1.26.0 (December 2022), so 1.27.0 is the first .0 with it; the
  // cherry-picks carry no release note, so only their minor versions are known.
  'dsw-terminating-pod-on-restart': {
    prs: [114326, 114730, 114732, 114733],
    release: '1.27',
    backports: ['1.26 (#114730)', '1.25 (#114732)', '1.24 (#114733)'],
    summary:
      'populator: before its first full pass after a restart (hasAddedPods) it adds a terminating pod whose runtime may still run, so reconstruction does not tear its volumes down (#113979)',
    presets: shippedFrom('1.24'),
    needsPodWorkerLifecycle: true,
  },
  'no-force-detach-healthy-node': {
    prs: [110721],
    release: '1.25',
    backports: ['1.24 (#114168)'],
    summary: 'attach/detach controller: no force detach after maxWaitForUnmountDuration from a healthy node',
    presets: shippedFrom('1.24'),
  },
  // One part of the v1.27 pod worker rework (#113145, no cherry-picks): SyncKnownPods drives a worker
  // whose pod left the config (an orphan) to completion itself. The rest of the rework (pendingUpdate /
  // activeUpdate, SyncTerminatingRuntimePod, restarting desired pods the worker does not know) is not
  // ported: docs/fixes.md.
  'orphan-pod-worker-terminates': {
    prs: [113145],
    release: '1.27',
    backports: [],
    summary:
      'pod worker: SyncKnownPods terminates a started worker whose pod left the config (removeTerminatedWorker, orphaned), so a REMOVE dropped before sources were ready still stops the pod',
    presets: shippedFrom('1.27'),
    needsPodWorkerLifecycle: true,
  },
  // The rest of the v1.27 pod worker rework (#113145, no upstream cherry-picks; its orphan half is the
  // switch above): pendingUpdate / activeUpdate as the worker's only queue, and HandlePodCleanups
  // restarting every admitted pod the worker does not know. Its follow-up #116995 (1.28.0, picked to
  // 1.27 as #117369) keeps pendingUpdate for a pod that cannot start yet; podrace ports the 1.28 code.
  'pod-worker-pending-update': {
    prs: [113145, 116995, 117369],
    release: '1.27',
    backports: [],
    summary:
      "pod worker: one pendingUpdate per pod, taken when the worker is free and run as the status's phase (a sync queued before a kill is not run), kept across the worker's own phase changes; a runtime pod's worker is forgotten once killed; housekeeping refreshes the runtime cache first and restarts every admitted pod the worker does not know",
    presets: shippedFrom('1.27'),
    needsPodWorkerLifecycle: true,
  },
  // A follow-up of #113145 in HandlePodCleanups. Its thread: "Not for 1.28" (written while 1.27 was
  // frozen: "a latency issue only"); v1.28.0 has the filter after SyncKnownPods; no cherry-pick found.
  // With `pod-worker-pending-update` off, housekeeping restarts only TerminatedAndRecreatedPod, and this
  // switch has nothing to act on (the presets never combine the two that way).
  'housekeeping-restart-same-round': {
    prs: [116690],
    release: '1.28',
    backports: [],
    summary:
      'HandlePodCleanups picks the admitted pods to restart (filterOutInactivePods) after SyncKnownPods, so a UID reused while it terminated restarts in the round that forgets its worker, not 2 s later',
    presets: shippedFrom('1.28'),
    needsPodWorkerLifecycle: true,
  },
  // It changes #105527's first-sight branch: with `terminal-pod-on-first-sight` off there is no such
  // branch and this switch has nothing to act on (the presets never combine the two that way).
  'terminal-pod-first-sight-synced': {
    prs: [117019, 117433],
    release: '1.28',
    backports: ['1.27.2 (#117433)'],
    summary:
      'pod worker: a pod first seen terminal is recorded terminated but not finished, so SyncTerminatedPod still runs (the status manager finishes its API deletion, #116954)',
    presets: shippedFrom('1.27'),
    needsPodWorkerLifecycle: true,
  },
  // The status manager half of #115331 (its SyncTerminatedPod half is the switch after this one). Read in
  // v1.28.0's status_manager.go against v1.23.13's; which PR of the 1.27 cycle added podIsFinished was
  // taken from #115331's review (the status manager "just checks" that the pod worker finished) and from
  // #118841's release note ("Fix 1.27 regression"), not from a diff. Not a fix: the change that made a pod
  // no pod worker drives (rejected at admission) undeletable, which #118497 repaired.
  'status-deletes-finished-pods': {
    prs: [115331],
    release: '1.27',
    backports: [],
    summary:
      "status manager: canBeDeleted waits for SyncTerminatedPod's TerminatePod (podIsFinished) and a terminal API phase instead of PodResourcesAreReclaimed; TerminatePod marks a non-static pod still Pending or Running Failed",
    presets: shippedFrom('1.27'),
    needsPodWorkerLifecycle: true,
  },
  'terminated-pod-waits-for-volume-cleanup': {
    prs: [115331],
    release: '1.27',
    backports: [],
    summary:
      "SyncTerminatedPod waits after WaitForUnmount until podVolumesExist is false (uncertain mounts and the pod's volume dirs on disk too) before it destroys the pod's cgroup",
    presets: shippedFrom('1.27'),
    needsPodWorkerLifecycle: true,
  },
  // Merged on master for 1.28.0 (CHANGELOG-1.28: "Fixed deletion of non-admissible pods that are deleted
  // during Kubelet restart"); its pick #118841 is in v1.27.4 (CHANGELOG-1.27), release note "Fix 1.27
  // regression". None to 1.26 or earlier: they delete such a pod through PodResourcesAreReclaimed.
  'rejected-pod-deletion-after-restart': {
    prs: [118497, 118841],
    release: '1.28',
    backports: ['1.27.4 (#118841)'],
    summary:
      'HandlePodCleanups hands every deleted terminal pod the pod workers do not know and the runtime does not run (filterTerminalPodsToDelete: one rejected at admission) to the pod worker as SyncPodKill, so SyncTerminatedPod runs and the status manager deletes it (#118472)',
    presets: shippedFrom('1.27'),
    needsPodWorkerLifecycle: true,
  },
  // Both halves of #124063 as merged (CHANGELOG-1.31, v1.31.0: "hard evictions ... This bug also affected
  // force deleted pods. Both cases now receive a termination grace period of 1 second"): the eviction
  // manager's constant and pod_workers.go's `overridden` flag. Read at v1.31.12 against v1.30.7.
  'immediate-eviction-grace': {
    prs: [124063],
    release: '1.31',
    backports: [],
    summary:
      "a hard eviction passes immediateEvictionGracePeriodSeconds (1 s) as the override, not 0, and calculateEffectiveGracePeriod lets a 0 the deletion or an override set (force delete) become 1 s; before, the pod worker took such a 0 as 'none' and replaced it with the spec's grace (#115819)",
    presets: shippedFrom('1.31'),
    needsPodWorkerLifecycle: true,
  },
  // Merged on master for 1.32.0 (CHANGELOG-1.32, v1.32.0-alpha.1) and picked to four branches, each pick's
  // release note in its patch's CHANGELOG: v1.31.1, v1.30.5, v1.29.9, v1.28.14. Release-1.20's
  // HandlePodAdditions skipped admission for a terminal pod (podIsTerminated); #102344 (1.22) asked only
  // IsPodTerminationRequested, so 1.22 to 1.27 re-admit one after a restart.
  'terminal-pod-not-readmitted': {
    prs: [126343, 127207, 127208, 127209, 127210],
    release: '1.32',
    backports: ['1.31.1 (#127207)', '1.30.5 (#127208)', '1.29.9 (#127209)', '1.28.14 (#127210)'],
    summary:
      'HandlePodAdditions runs no admission for a pod whose API phase is terminal (IsPodPhaseTerminal), so a kubelet restart no longer rejects a completed pod and turns it Failed (#126341)',
    presets: shippedFrom('1.28'),
    needsPodWorkerLifecycle: true,
  },
  // Merged for 1.28.0 (CHANGELOG-1.28: "Fixed the preStop hook. This will now block the pod termination
  // grace period"); never cherry-picked. The 1.28.0 source has override, preStop, minimum; 1.27 and earlier
  // minimum before the override, the hook run within the deletion's or the spec's grace.
  'prestop-counts-against-grace': {
    prs: [115835],
    release: '1.28',
    backports: [],
    summary:
      "the container kill (killContainer) applies the override before the preStop hook, which runs within it and is taken from it, and the 2 s minimum last; before, the hook ran within the deletion's or the spec's grace and the override (every pod worker kill has one since #102344) replaced what it left, so a pod with a hook lived the hook's time past its grace (#115817)",
    presets: shippedFrom('1.28'),
  },
  // Merged for 1.28.0 (CHANGELOG-1.28: "Kubelet will now skip pod resource checks when the request is
  // zero"); no cherry-pick found in CHANGELOG-1.25 to 1.27. v1.20.4 and v1.23.13 compare every resource.
  'zero-request-fits': {
    prs: [116408],
    release: '1.28',
    backports: [],
    summary:
      'fitsRequest checks cpu and memory only when the pod requests some (`podRequest.MilliCPU > 0 &&`): a pod that asks for no cpu is no longer OutOfcpu on a node whose admitted pods already request more cpu than it has',
    presets: shippedFrom('1.28'),
  },
  // A feature gate's default rather than a fix, like graceful-node-shutdown-beta. #113262 (1.26) wrote
  // reconstruct_new.go behind the alpha SELinuxMountReadWriteOncePod gate; #115268 gave it its own gate,
  // NewVolumeManagerReconstruction, beta and on by default in 1.27.0; #117752 turned the default off again
  // in 1.27.2 (regression #117745, fixed by #117804, whose 1.27 cherry-pick #119363 left it off); on by
  // default from 1.28, GA and locked on in 1.30 (#123442, which removed the old reconstruction).
  'new-volume-reconstruction': {
    prs: [115268, 113262, 117752, 117804, 123442],
    release: '1.27',
    backports: ['1.27.2 turned the default off again (#117752); on by default from 1.28.0'],
    summary:
      'KEP-3756 (NewVolumeManagerReconstruction): the reconciler reconstructs at start-up, adds what it finds to the actual state as uncertain (the reconciler settles and retries it), and cleans up volumes that failed reconstruction once the desired state is populated',
    presets: shippedFrom('1.28'),
  },
  // Merged on master for 1.33.0 and picked to the three supported branches; each pick's release note is in
  // that patch's CHANGELOG ("Fix kubelet restart unmounts volumes of running pods if the referenced PVC
  // is being deleted by the user"): v1.32.4, v1.31.8, v1.30.12. The check it relaxes is older than every
  // preset (StorageObjectInUseProtection, 1.9; GA and on by default from 1.11).
  'dsw-terminating-pvc-protected': {
    prs: [130335, 130684, 130685, 130686],
    release: '1.33',
    backports: ['1.32.4 (#130684)', '1.31.8 (#130685)', '1.30.12 (#130686)'],
    summary:
      "populator: getPVCExtractPV lets a claim being deleted through while kubernetes.io/pvc-protection still holds it (a pod uses it), so a kubelet restart does not leave a running pod's volume out of the desired state and unmount it",
    presets: shippedFrom('1.30'),
  },
  // Merged on master for 1.30.0 and picked to four branches (#122345 to 1.29, #122396 to 1.28, #122397
  // to 1.27, #122398 to 1.26, all merged in January 2024). Release note "Allow deletion of pods that use
  // raw block volumes on node reboot" in CHANGELOG-1.29.md, v1.29.1; the picks to 1.26-1.28 carry no note,
  // so only their minor versions are given (the v1.28.6 tree has the code, v1.28.0 does not). Read in
  // operation_generator.go markDeviceErrorState at v1.31.12 against v1.28.0.
  'reconstructed-device-stays-uncertain': {
    prs: [122211, 122345, 122396, 122397, 122398],
    release: '1.30',
    backports: ['1.29.1 (#122345)', '1.28 (#122396)', '1.27 (#122397)', '1.26 (#122398)'],
    summary:
      'markDeviceErrorState leaves a device that reconstruction found uncertain when MountDevice / SetUpDevice fails with a final error after a restart (IsVolumeDeviceReconstructed), instead of marking it unmounted, so it is still unmounted / unmapped once no pod wants it',
    presets: shippedFrom('1.26'),
  },
  // Merged on master in May 2024 (1.31.0: the v1.31.12 tree lacks volumesNeedReportedInUse, the v1.30.7
  // tree has it); release note NONE, so in no CHANGELOG; kind/feature, not cherry-picked.
  'no-reconstructed-reported-in-use': {
    prs: [125014],
    release: '1.31',
    backports: [],
    summary:
      "the reconciler no longer marks the reconstructed volumes reported in use once the desired state is populated (volumesNeedReportedInUse); before, that MarkVolumesReportedInUse also cleared the flag of every other volume the node status had reported, so a new pod's attachable volume waited for the next node status update to verify its attachment",
    presets: shippedFrom('1.31'),
  },
  // The attach/detach controller's half of operation_generator.go. Merged on master for 1.29.0 and picked
  // to three branches (#121079 to 1.28, #121087 to 1.26, #121080 to 1.27, all merged in October 2023); its
  // release note "Fixed attaching volumes after detach errors" is in v1.28.3's notes; the 1.27 and 1.26
  // picks' patches were not read from a CHANGELOG (the v1.27.7 tree has the code). Read at v1.31.12.
  'detach-error-uncertain': {
    prs: [120595, 121079, 121080, 121087],
    release: '1.29',
    backports: ['1.28.3 (#121079)', '1.27 (#121080)', '1.26 (#121087)'],
    summary:
      'attach/detach controller: a failed Detach (or a failed verifyVolumeIsSafeToDetach) marks the volume uncertain on the node instead of reporting it attached again, so it is attached again before a pod may use it',
    presets: shippedFrom('1.26'),
  },
} as const satisfies Record<string, FixDef>;

export type FixId = keyof typeof FIX_TABLE;
export const FIX_IDS = Object.keys(FIX_TABLE) as unknown as readonly [FixId, ...FixId[]];

export function fixDef(id: FixId): FixDef {
  return FIX_TABLE[id];
}

/** Whether the switch has code to act on in a preset (see FixDef.needsPodWorkerLifecycle). */
export function fixApplies(id: FixId, preset: ReleasePreset): boolean {
  const d: FixDef = FIX_TABLE[id];
  return (
    d.needsPodWorkerLifecycle === undefined ||
    FIX_TABLE['pod-worker-lifecycle'].presets[preset] === d.needsPodWorkerLifecycle
  );
}

export function isFixId(id: string): id is FixId {
  return Object.hasOwn(FIX_TABLE, id);
}

/**
 * `1.24`, `v1.19.3`: a Kubernetes release podrace has no preset for. Said as such (with where to see the
 * modelled ones), not as a typo of the nearest preset: 1.24 is not a misspelt 1.20.
 */
export function looksLikeRelease(text: string): boolean {
  return /^v?1\.\d+(\.\d+)?$/.test(text.trim());
}

export const UNMODELLED_RELEASE_HINT =
  ' (not modelled: `npx podrace list fixes` shows what each modelled release ships)';

export function isKubeletName(name: string): name is KubeletName {
  return (KUBELET_NAMES as readonly string[]).includes(name);
}

/** The change's own PR on master (its backports are listed in `backports`). */
export function fixPrs(id: FixId): string {
  return `#${FIX_TABLE[id].prs[0]}`;
}

export class Fixes {
  private readonly enabled: ReadonlySet<FixId>;
  /**
   * Where a recording copy (`recording`) notes every switch the simulation reads, with the virtual time
   * of its first read. A run is a function of its scenario, seed and the switches it read, and it is the
   * same run up to its first read of a switch: flipping one it never read gives the same run, and
   * flipping one read only after a violation gives that violation again. That is how the differential
   * oracle (src/fuzz/oracle.ts) skips flips that cannot matter.
   */
  private readonly reads: Map<FixId, number> | undefined;
  private readonly nowMs: () => number;
  /**
   * The kubelet the set was made from (`Fixes.of`), kept through `with`: two releases may ship the same
   * switches (the last patch of 1.22 has every modelled backport of 1.23), and then `--kubelet 1.22` must
   * still print as `1.22`, not as the other name of the same set. It names the set; it never changes
   * which switches are on. It also names the kube-controller-manager's release, which decides the flags
   * a scenario may give it (src/controllerManagerFlags.ts).
   */
  readonly base: KubeletName | undefined;

  constructor(
    enabled: Iterable<FixId>,
    reads?: Map<FixId, number>,
    nowMs: () => number = () => 0,
    base?: KubeletName,
  ) {
    this.enabled = new Set(enabled);
    this.reads = reads;
    this.nowMs = nowMs;
    this.base = base;
  }

  /**
   * The same switches, noting into `reads` each one read through this object from now on, with the
   * virtual time (`nowMs`) of its first read.
   */
  recording(reads: Map<FixId, number>, nowMs: () => number): Fixes {
    return new Fixes(this.enabled, reads, nowMs, this.base);
  }

  static all(): Fixes {
    return new Fixes(FIX_IDS);
  }

  static none(): Fixes {
    return new Fixes([]);
  }

  /** `fixed`, `legacy` or a release preset: every switch as that release's last patch shipped it. */
  static of(kubelet: KubeletName): Fixes {
    if (kubelet === 'fixed') return new Fixes(FIX_IDS, undefined, undefined, kubelet);
    if (kubelet === 'legacy') return new Fixes([], undefined, undefined, kubelet);
    return new Fixes(
      FIX_IDS.filter((id) => FIX_TABLE[id].presets[kubelet]),
      undefined,
      undefined,
      kubelet,
    );
  }

  on(id: FixId): boolean {
    if (this.reads !== undefined && !this.reads.has(id)) this.reads.set(id, this.nowMs());
    return this.enabled.has(id);
  }

  /** Every switch counts as read: the caller saw the whole set. */
  private readAll(): void {
    if (this.reads === undefined) return;
    for (const id of FIX_IDS) if (!this.reads.has(id)) this.reads.set(id, this.nowMs());
  }

  with(id: FixId, value: boolean): Fixes {
    const next = new Set(this.enabled);
    if (value) next.add(id);
    else next.delete(id);
    return new Fixes(next, undefined, undefined, this.base);
  }

  equals(other: Fixes): boolean {
    return FIX_IDS.every((id) => this.on(id) === other.on(id));
  }

  /** The switches that are on, in the table's order. */
  ids(): FixId[] {
    this.readAll();
    return FIX_IDS.filter((id) => this.enabled.has(id));
  }

  /** Every fix ID with its state, in the table's order (for the JSON result). */
  toRecord(): Record<FixId, boolean> {
    this.readAll();
    const out = {} as Record<FixId, boolean>;
    for (const id of FIX_IDS) out[id] = this.enabled.has(id);
    return out;
  }

  /**
   * The shortest description: the kubelet name (`all` for fixed, `none` for legacy, or a release) and
   * the switches that differ from it, `-id` off and `+id` on: `all`, `1.23`, `-fc-unmount-retry`,
   * `1.22,+static-pod-start-exclusion`.
   */
  label(): string {
    let best: { base: KubeletName; diff: string[] } | undefined;
    for (const base of this.baseOrder()) {
      const ref = Fixes.of(base);
      const diff = FIX_IDS.filter((id) => ref.on(id) !== this.on(id)).map(
        (id) => `${this.on(id) ? '+' : '-'}${id}`,
      );
      if (best === undefined || diff.length < best.diff.length) best = { base, diff };
    }
    const b = best ?? { base: 'fixed', diff: [] };
    const name = b.base === 'fixed' ? 'all' : b.base === 'legacy' ? 'none' : b.base;
    if (b.diff.length === 0) return name;
    return b.base === 'fixed' || b.base === 'legacy' ? b.diff.join(',') : `${name},${b.diff.join(',')}`;
  }

  /**
   * The bases a description may start from, the preferred first (the first of those with the fewest
   * differences wins): the kubelet the set was made from, then fixed and legacy, then the releases, the
   * newest first (a set nobody named after a release, equal to two of them, names the newer).
   */
  baseOrder(): KubeletName[] {
    const order: KubeletName[] = ['fixed', 'legacy', ...[...RELEASE_PRESETS].reverse()];
    return this.base === undefined ? order : [this.base, ...order.filter((k) => k !== this.base)];
  }
}
