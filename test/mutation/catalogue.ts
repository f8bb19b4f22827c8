// The mutation suite's catalogue (docs/mutation.md): plausible bugs a kubelet developer could plant in
// the port, each a few characters' change in one file of src/ that would pass code review. `npm run
// mutation` builds the CLI once per entry with that change and counts which of them the fuzzer (every fix
// on) and the bundled scenarios' claims catch. Entries mirror upstream regressions where there is one;
// none is the same as turning a fix switch off (src/fixes.ts: the suite's switches cover that already).
// Never the simulated ground truth (rules.ts FORBIDDEN). `find` must occur exactly once in its file: a
// change of src/ that breaks that fails the catalogue test, and the entry is then updated.
/** One planted bug: a small text substitution in one file of src/. */
export interface Mutant {
  /** kebab-case, unique. */
  readonly id: string;
  /** Repository-relative, e.g. 'src/kubelet/podWorkers.ts'. */
  readonly file: string;
  /** Exact source text that occurs exactly once in the file. */
  readonly find: string;
  /** The mutated text: a few characters' change. */
  readonly replace: string;
  /** One line: what a developer would have got wrong, in kubelet terms. */
  readonly why: string;
  /** A real upstream regression of that shape, where there is one (e.g. 'kubernetes/kubernetes#104743'). */
  readonly upstream?: string;
  /** Only if no behaviour can differ: the reason. Such a mutant is not run and counts in no rate. */
  readonly equivalent?: string;
}

export const MUTANTS: readonly Mutant[] = [
  // ---- pod workers (src/kubelet/podWorkers*.ts) ----
  {
    id: 'pw-could-run-once-terminating',
    file: 'src/kubelet/podWorkersState.ts',
    find: 'return status !== undefined ? !status.isTerminated() : !this.podsSynced;',
    replace: 'return status !== undefined ? !status.isTerminationRequested() : !this.podsSynced;',
    why: 'CouldHaveRunningContainers says no as soon as termination is requested, before the kill ran: the status manager may finalise the API deletion while containers still run',
  },
  {
    id: 'pw-runtime-removed-once-terminating',
    file: 'src/kubelet/podWorkersState.ts',
    find: 'return status !== undefined ? status.isTerminated() : this.podsSynced;',
    replace: 'return status !== undefined ? status.isTerminationStarted() : this.podsSynced;',
    why: 'ShouldPodRuntimeBeRemoved says yes once the worker starts terminating, not once it terminated: the volume manager unmounts while the containers are still being killed',
    upstream: 'kubernetes/kubernetes#102344',
  },
  {
    id: 'pw-grace-period-can-grow',
    file: 'src/kubelet/podWorkersStatus.ts',
    find: 'if (deletionGrace !== undefined && (gracePeriod === 0 || deletionGrace < gracePeriod)) {',
    replace: 'if (deletionGrace !== undefined && (gracePeriod === 0 || deletionGrace !== gracePeriod)) {',
    why: "the API's deletionGracePeriodSeconds replaces the effective grace period even when longer: a later update lengthens the grace of an eviction already under way",
  },
  {
    id: 'pw-static-start-ignores-terminating',
    file: 'src/kubelet/podWorkersState.ts',
    find: 'if (startedUID !== undefined) return startedUID === uid;',
    replace:
      'if (startedUID !== undefined && this.podSyncStatuses.get(startedUID)?.isTerminationRequested() !== true) return startedUID === uid;',
    why: 'allowStaticPodStart lets the next static pod of a fullname start once the started one is merely terminating, not terminated',
    upstream: 'kubernetes/kubernetes#104743',
  },
  {
    id: 'pw-purge-terminating-worker',
    file: 'src/kubelet/podWorkersState.ts',
    find: 'if (!status.finished) return; // still running or terminating: keep it even without config',
    replace:
      'if (!status.isTerminationRequested()) return; // still running or terminating: keep it even without config',
    why: 'removeTerminatedWorker forgets a UID that left the config while it is still terminating: the pod worker loses track of a pod whose kill is under way',
  },
  {
    id: 'pw-orphan-terminating-not-requeued',
    file: 'src/kubelet/podWorkersState.ts',
    find: `      }
    }
    this.requeueLastPodUpdate(uid, status);
    return false;`,
    replace: `      }
      this.requeueLastPodUpdate(uid, status);
    }
    return false;`,
    why: "SyncKnownPods wakes an orphan only when it begins terminating it, not one already terminating (#113145's default branch): a force-deleted pod whose kill failed is never retried",
  },
  {
    id: 'pw-failed-kill-counts-as-terminated',
    file: 'src/kubelet/podWorkers.ts',
    find: `      if (err !== undefined) {
        // context.Canceled`,
    replace: `      if (err !== undefined && update.workType !== 'TerminatingPodWork') {
        // context.Canceled`,
    why: 'a SyncTerminatingPod that failed (the runtime refused a StopContainer) is taken as done: the pod moves to terminated with its containers still running',
  },
  {
    id: 'pw-first-sight-half-terminal',
    file: 'src/kubelet/podWorkersStatus.ts',
    find: 'return runningContainers === 0 && runningSandboxes === 0;',
    replace: 'return runningContainers === 0 || runningSandboxes === 0;',
    why: 'a pod first seen in a terminal phase is recorded finished when either its containers or its sandbox are gone, though the other still runs: nothing ever kills what remains',
    equivalent:
      'no pod is first seen half-stopped here: the API shows a terminal phase only once the pod worker finished terminating (mergePodStatus holds it back while CouldHaveRunningContainers, #108366, in every preset of this port), after one KillPod stopped containers and sandbox; 0 such sightings in 13,500 fuzz cases',
    upstream: 'kubernetes/kubernetes#105527',
  },
  {
    id: 'pw-sync-without-newer-status',
    file: 'src/kubelet/podWorkers.ts',
    find: 'podStatus = yield* this.podCache.getNewerThan(uid, lastSyncTime);',
    replace: 'podStatus = this.podCache.get(uid);',
    why: 'the worker syncs from the pod cache as it is instead of waiting for a relist newer than its last sync, so it acts on a status older than its own previous action',
  },
  {
    id: 'pw-terminating-never-acknowledged',
    file: 'src/kubelet/podWorkersState.ts',
    find: 'if (status.terminatingAt !== undefined && !status.startedTerminating) {',
    replace: 'if (status.terminatingAt !== undefined && status.startedTerminating) {',
    why: 'acknowledgeTerminating never records that the worker has seen the termination: ShouldPodContainersBeTerminating stays false, so the populator keeps (re)adding the volumes of a pod being killed',
  },

  // ---- kubelet sync and housekeeping (src/kubelet/kubelet.ts, kubeletPods.ts, kubeletMirrorPods.ts) ----
  {
    id: 'kl-terminating-kill-ignores-grace',
    file: 'src/kubelet/kubelet.ts',
    find: "      convertPodStatusToRunningPod(status),\n      gracePeriod,\n      'syncTerminatingPod',",
    replace: "      convertPodStatusToRunningPod(status),\n      undefined,\n      'syncTerminatingPod',",
    why: "syncTerminatingPod drops the grace period the pod worker settled on (an eviction's or a shortened deletion's) and kills with the pod's own",
  },
  {
    id: 'kl-cleanup-kills-terminating-pods',
    file: 'src/kubelet/kubeletPods.ts',
    find: "    if (state === 'SyncPod' || state === 'TerminatingPod') continue;\n    if (allPodsByUID.has(runningPod.id)) continue;",
    replace: "    if (state === 'SyncPod') continue;\n    if (allPodsByUID.has(runningPod.id)) continue;",
    why: 'HandlePodCleanups treats a deleted pod whose worker is still terminating as an orphan and kills it again with a 1 s grace period',
  },
  {
    id: 'kl-reclaimed-ignores-volumes',
    file: 'src/kubelet/kubeletPods.ts',
    find: '  if (kl.volumeManager.podVolumesExist(uid)) return false;\n  if (kl.host.podCgroups.has(uid)) return false;',
    replace: '  if (kl.host.podCgroups.has(uid)) return false;',
    why: "PodResourcesAreReclaimed forgets the pod's volumes: the status manager finalises the API deletion of a pod whose volumes are still mounted",
  },
  {
    id: 'kl-cgroup-cleanup-ignores-volumes',
    file: 'src/kubelet/kubeletPods.ts',
    find: '    if (kl.volumeManager.podVolumesExist(uid)) continue;\n    kl.host.podCgroups.delete(uid);',
    replace: '    kl.host.podCgroups.delete(uid);',
    why: 'cleanupOrphanedPodCgroups destroys the cgroup of a pod whose volumes still exist, which was the last thing holding PodResourcesAreReclaimed back',
  },
  {
    id: 'kl-restart-succeeded-recreated-pod',
    file: 'src/kubelet/kubeletPods.ts',
    find: "    if (phase === 'Failed' || phase === 'Succeeded') continue;",
    replace: "    if (phase === 'Failed') continue;",
    why: 'housekeeping restarts a reused-UID pod that already Succeeded: a pod leaves its terminal phase',
    upstream: 'kubernetes/kubernetes#104847',
  },
  {
    id: 'kl-mount-wait-inverted',
    file: 'src/kubelet/kubelet.ts',
    find: '    if (!podWorkers.isPodTerminationRequested(uid)) {\n      const err = yield* this.volumeManager.waitForAttachAndMount(pod);',
    replace:
      '    if (podWorkers.isPodTerminationRequested(uid)) {\n      const err = yield* this.volumeManager.waitForAttachAndMount(pod);',
    why: 'syncPod waits for the volumes of a pod being terminated instead of one being started: containers start before their volumes are mounted',
  },
  {
    id: 'kl-failed-pod-keeps-syncing',
    file: 'src/kubelet/kubelet.ts',
    find: "    if (apiPodStatus.phase === 'Succeeded' || apiPodStatus.phase === 'Failed') {",
    replace: "    if (apiPodStatus.phase === 'Succeeded') {",
    why: 'syncPod reports only Succeeded as terminal: a Failed pod is never moved to terminating, so its sandbox, volumes and cgroup stay until someone deletes it',
  },

  {
    id: 'kl-terminated-ignores-unmount-timeout',
    file: 'src/kubelet/kubelet.ts',
    find: '    const err = yield* this.volumeManager.waitForUnmount(pod);\n    if (err !== undefined) return err;\n',
    replace: '    const err = yield* this.volumeManager.waitForUnmount(pod);\n',
    why: 'syncTerminatedPod drops the error of WaitForUnmount: the pod is finalised (cgroup gone, status terminal) while its volumes are still mounted',
  },
  {
    id: 'kl-running-after-kill-off-by-one',
    file: 'src/kubelet/kubelet.ts',
    find: '    if (running.length > 0) {',
    replace: '    if (running.length > 1) {',
    why: 'the CRI-violation check after KillPod tolerates one container still running, so syncTerminatingPod reports the pod terminated',
    equivalent:
      "the check is dead here: the fake runtime's StopContainer always leaves its container stopped before KillPod returns, and with the pod worker nothing else starts a container of the pod meanwhile",
  },
  {
    id: 'kl-mirror-of-other-version-kept',
    file: 'src/kubelet/kubeletMirrorPods.ts',
    find: '    if (mirrorPod.metadata.deletionTimestamp !== undefined || !kl.podManager.isMirrorPodOf(mirrorPod, pod)) {',
    replace: '    if (mirrorPod.metadata.deletionTimestamp !== undefined) {',
    why: "syncMirrorPod no longer asks IsMirrorPodOf: a static pod's new version keeps the previous version's mirror pod, so its own never appears in the API server",
  },
  {
    id: 'kl-orphan-mirror-deleted-while-terminating',
    file: 'src/kubelet/kubeletMirrorPods.ts',
    find: '    if (keep(podFullname)) continue;',
    replace: '',
    why: 'deleteOrphanedMirrorPods deletes the mirror pod of a static pod that is still being killed',
    upstream: 'kubernetes/kubernetes#98103',
  },

  // ---- status manager (src/kubelet/status/) ----
  {
    id: 'sm-terminal-phase-while-running',
    file: 'src/kubelet/status/statusManager.ts',
    find: 'if (!isPodPhaseTerminal(old.phase) && isPodPhaseTerminal(next.phase) && couldRun(pod)) {',
    replace: 'if (!isPodPhaseTerminal(old.phase) && isPodPhaseTerminal(next.phase) && false) {',
    why: 'mergePodStatus publishes a terminal phase while the pod worker says containers may still run (controllers then replace a pod that is still running)',
    upstream: 'kubernetes/kubernetes#108366',
  },
  {
    id: 'sm-status-patched-once',
    file: 'src/kubelet/status/statusManager.ts',
    find: '    if (latest === undefined || latest < status.version) return true;',
    replace: '    if (latest === undefined) return true;',
    why: "needsUpdate only asks whether a status was ever patched, not whether the cached one is newer: after a pod's first patch SetPodStatus's immediate sync sends nothing, and each newer status reaches the API server only at the next syncBatch (10 s), through needsReconcile (the pod manager's copy differs from the cache). A latency bug, seen where the late phase decides something: a pod that completed just before a kubelet restart is still Running in the API, so the restarted kubelet's admission counts it and rejects a pod that fits (pod-rejected-with-room)",
  },

  {
    id: 'sm-illegal-transition-applied',
    file: 'src/kubelet/status/statusManager.ts',
    find: '    if (err !== undefined) return false;\n    if (cached !== undefined && !forceUpdate',
    replace: '    if (cached !== undefined && !forceUpdate',
    why: 'updateStatusInternal logs the illegal container state transition but applies the status anyway: a terminated container can be reported running or waiting again',
  },
  {
    id: 'sm-delete-without-deletion-timestamp',
    file: 'src/kubelet/status/statusManager.ts',
    find: '    if (pod.metadata.deletionTimestamp === undefined || isMirrorPod(pod)) return false;',
    replace: '    if (isMirrorPod(pod)) return false;',
    why: 'canBeDeleted does not check that the pod is being deleted: the kubelet deletes the API object of every pod whose resources are reclaimed, a finished one nobody deleted included',
  },
  {
    id: 'sm-sync-other-pod-of-name',
    file: 'src/kubelet/status/statusManager.ts',
    find: '    if (pod.metadata.uid !== uid) {\n      // "Pod was deleted and then recreated, skipping status update": this status is not the new pod\'s.\n      this.deletePodStatus(uid);\n      return;\n    }\n',
    replace: '',
    why: "syncPod does not check the UID of the pod it fetched by name: a pod re-created under the same name is judged (and deleted) with the other one's state",
  },
  {
    id: 'sm-cached-terminal-phase-lost',
    file: 'src/kubelet/status/generate.ts',
    find: '    if (isPodPhaseTerminal(oldPodStatus.phase)) phase = oldPodStatus.phase;\n    else if (isPodPhaseTerminal(pod.status.phase)) phase = pod.status.phase;',
    replace: '    if (isPodPhaseTerminal(pod.status.phase)) phase = pod.status.phase;',
    why: "generateAPIPodStatus keeps a terminal phase only once the API has it, not the status manager's: an evicted pod goes back from Failed to Running until the patch lands",
  },
  {
    id: 'sm-failed-never-pod-running',
    file: 'src/kubelet/status/generate.ts',
    find: "    if (spec.restartPolicy === 'OnFailure') return 'Running';",
    replace: "    if (spec.restartPolicy !== 'Always') return 'Running';",
    why: 'getPhase reports a Never pod whose container failed as Running instead of Failed: the pod never shows its end in the API server',
  },
  {
    id: 'sm-removed-container-back-to-waiting',
    file: 'src/kubelet/status/generate.ts',
    find: "    if (newest === undefined && old?.state === 'terminated') return old;\n",
    replace: '',
    why: 'a container the runtime no longer lists (garbage-collected) is reported waiting again instead of keeping its terminated status',
  },

  // ---- runtime manager (src/kubelet/kuberuntime/) ----
  {
    id: 'rt-prestop-time-not-taken',
    file: 'src/kubelet/kuberuntime/kuberuntimeManager.ts',
    find: '    if (gracePeriodOverride !== undefined) gracePeriod = gracePeriodOverride;\n    if (preStopMs !== undefined && gracePeriod > 0)\n      gracePeriod -= yield* executePreStopHook(plan, c, gracePeriod);',
    replace:
      '    if (gracePeriodOverride !== undefined) gracePeriod = gracePeriodOverride;\n    if (preStopMs !== undefined && gracePeriod > 0)\n      yield* executePreStopHook(plan, c, gracePeriod);',
    why: "killContainer runs the preStop hook but does not take the time it ran from the grace: the container gets the hook's time on top of its grace (#115817 again)",
  },
  {
    id: 'rt-prestop-waits-past-grace',
    file: 'src/kubelet/kuberuntime/kuberuntimeManager.ts',
    find: '  yield* select([{ recv: hookDone as Chan<unknown> }], gracePeriodSeconds * 1000);',
    replace: '  yield* select([{ recv: hookDone as Chan<unknown> }]);',
    why: 'executePreStopHook waits for the hook to finish however long it runs, not at most the grace period ("PreStop hook not completed in grace period")',
  },
  {
    id: 'ev-hard-eviction-zero-override',
    file: 'src/kubelet/eviction/evictionManager.ts',
    find: "return fixes.on('immediate-eviction-grace') ? immediateEvictionGracePeriodSeconds : 0;",
    replace: "return fixes.on('immediate-eviction-grace') ? 0 : 0;",
    why: 'the eviction manager passes 0 for a hard eviction again, which the pod worker replaces with the spec grace: an evicted pod keeps running for its full grace',
    equivalent:
      "#124063's other half, the pod worker's `overridden` flag (read at v1.31.12), makes an override of 0 the 1 s floor wherever the switch is on, so the eviction manager's 0 and its 1 give the same kill",
    upstream: 'kubernetes/kubernetes#115819',
  },
  {
    id: 'pw-zero-grace-falls-back',
    file: 'src/kubelet/podWorkersStatus.ts',
    find: "specGrace !== undefined && !(overridden && fixes.on('immediate-eviction-grace'))",
    replace: 'specGrace !== undefined',
    why: "calculateEffectiveGracePeriod falls back to the spec's grace for any 0 again, also one the deletion set: a force-deleted pod whose worker had settled on a shorter grace is killed with the longer one (#115819's force-deletion half)",
    upstream: 'kubernetes/kubernetes#115819',
  },
  {
    id: 'rt-kill-returns-before-last-container',
    file: 'src/kubelet/kuberuntime/kuberuntimeManager.ts',
    find: '      for (let i = 0; i < containers.length; i++) {\n        const err = yield* done.recv();',
    replace: '      for (let i = 1; i < containers.length; i++) {\n        const err = yield* done.recv();',
    why: 'killPodWithSyncResult waits for one container fewer than it started killing, so KillPod returns while the last container is still in its grace period',
  },
  {
    id: 'rt-onfailure-inverted',
    file: 'src/kubelet/kuberuntime/kuberuntimeManager.ts',
    find: "  if (pod.spec.restartPolicy === 'OnFailure' && status.exitCode === 0) return false;",
    replace: "  if (pod.spec.restartPolicy === 'OnFailure' && status.exitCode !== 0) return false;",
    why: 'ShouldContainerBeRestarted inverts OnFailure: a container that exited 0 is started again and a failed one is not',
  },
  {
    id: 'rt-deleted-pod-restarts-containers',
    file: 'src/kubelet/kuberuntime/kuberuntimeManager.ts',
    find: '  if (pod.metadata.deletionTimestamp !== undefined) return false;\n  const status = findContainerStatusByName(podStatus, name);',
    replace: '  const status = findContainerStatusByName(podStatus, name);',
    why: 'ShouldContainerBeRestarted forgets that a pod marked deleted must not restart its containers',
    equivalent:
      "no caller decides on the clause here: computePodActions never sees a pod marked deleted (the pod worker sends it to syncTerminatingPod; release-1.20's syncPod kills it first), and the port's convertToAPIContainerStatuses does not ask it (the reasonCache Waiting state is not ported)",
  },
  {
    id: 'rt-back-off-ignored',
    file: 'src/kubelet/kuberuntime/kuberuntimeManager.ts',
    find: '    if (this.backOff.isInBackOffSince(key, ts)) return true;',
    replace: '    if (this.backOff.isInBackOffSince(key, ts)) return false;',
    why: 'doBackOff answers "not in back-off" for a container in back-off: a crash-looping container is started again at every sync, hammering the runtime',
  },
  {
    id: 'rt-back-off-from-start',
    file: 'src/kubelet/kuberuntime/kuberuntimeManager.ts',
    find: '    const ts = exited.finishedAtMs ?? 0;',
    replace: '    const ts = exited.startedAtMs ?? 0;',
    why: "doBackOff counts the window from the exited attempt's StartedAt instead of its FinishedAt: a container that ran a while before crashing is restarted early",
  },
  {
    id: 'rt-back-off-not-doubled',
    file: 'src/kubelet/util/backoff.ts',
    find: '      entry.backoffMs = Math.min(entry.backoffMs * 2, this.maxMs);',
    replace: '      entry.backoffMs = Math.min(entry.backoffMs, this.maxMs);',
    why: 'Backoff.Next keeps the first window instead of doubling it: a crash-looping container restarts every 10 s for ever',
  },
  {
    id: 'rt-exited-container-kept',
    file: 'src/kubelet/kuberuntime/kuberuntimeManager.ts',
    find: "    if (status === undefined || status.state !== 'running') {",
    replace: '    if (status === undefined) {',
    why: 'computePodActions counts an exited container as one to keep, so a crashed container of a restartable pod is never started again',
  },
  {
    id: 'rt-sandbox-left-running',
    file: 'src/kubelet/kuberuntime/kuberuntimeManager.ts',
    find: '      if (!s.ready) continue; // stopping a stopped sandbox is a no-op in the fake runtime',
    replace: '      if (s.ready) continue; // stopping a stopped sandbox is a no-op in the fake runtime',
    why: 'killPodWithSyncResult skips the ready sandboxes instead of the stopped ones: KillPod stops the containers and leaves the pod sandbox running',
  },

  // ---- volume manager (src/kubelet/volumemanager/) ----
  {
    id: 'vm-populator-deleted-pod-terminating',
    file: 'src/kubelet/volumemanager/populator/desiredStateOfWorldPopulator.ts',
    find: '      if (!podStateProvider.shouldPodRuntimeBeRemoved(uid)) continue;\n      const removed',
    replace:
      '      if (!podStateProvider.shouldPodContainersBeTerminating(uid)) continue;\n      const removed',
    why: "findAndRemoveDeletedPods removes a deleted pod's volumes once its worker starts terminating, not once its containers are gone (PR #102344's very race, for pods gone from the pod manager)",
    upstream: 'kubernetes/kubernetes#102344',
  },
  {
    id: 'vm-populator-known-pod-terminating',
    file: 'src/kubelet/volumemanager/populator/desiredStateOfWorldPopulator.ts',
    find: '        // Exclude known pods that we expect to be running\n        if (!podStateProvider.shouldPodRuntimeBeRemoved(uid)) continue;',
    replace:
      '        // Exclude known pods that we expect to be running\n        if (!podStateProvider.shouldPodContainersBeTerminating(uid)) continue;',
    why: 'findAndRemoveDeletedPods asks a known pod whether it is terminating instead of terminated',
    equivalent:
      'the ShouldPodRuntimeBeRemoved check right below applies to every pod, known or not, so a terminating pod is still skipped',
  },
  {
    id: 'vm-unmount-device-while-mounting',
    file: 'src/kubelet/volumemanager/reconciler/reconciler.ts',
    find: '        !dsw.volumeExists(attachedVolume.volumeName) &&\n        !oe.isOperationPending(attachedVolume.volumeName, EmptyUniquePodName, EmptyNodeName)',
    replace: '        !dsw.volumeExists(attachedVolume.volumeName)',
    why: 'unmountDetachDevices does not check for a pending operation: it unmounts, or marks detached, a device whose MountVolume is still running',
    upstream: 'kubernetes/kubernetes#32881',
  },
  {
    id: 'vm-volumes-in-use-skips-uncertain',
    file: 'src/kubelet/volumemanager/volumeManager.ts',
    find: '    for (const v of this.actualStateOfWorld.getAttachedVolumes())',
    replace: '    for (const v of this.actualStateOfWorld.getGloballyMountedVolumes())',
    why: 'GetVolumesInUse lists only devices known to be mounted: a device whose mount is uncertain or not done is reported unused, so the attach/detach controller may detach it',
  },
  {
    id: 'vm-unmounted-volume-kept-attached',
    file: 'src/kubelet/volumemanager/reconciler/reconciler.ts',
    find: '          asw.markVolumeAsDetached(attachedVolume.volumeName, attachedVolume.nodeName);',
    replace: '          // the actual state keeps the volume attached',
    why: 'unmountDetachDevices never marks an unmounted volume detached in the actual state: GetVolumesInUse lists it for ever, so the controller can never detach it from the node',
  },
  {
    id: 'vm-uncertain-device-not-unmounted',
    file: 'src/kubelet/volumemanager/cache/actualStateOfWorld.ts',
    find: 'return av.deviceMountState === DeviceGloballyMounted || av.deviceMountState === DeviceMountUncertain;',
    replace: 'return av.deviceMountState === DeviceGloballyMounted;',
    why: 'DeviceMayBeMounted ignores uncertain devices: the reconciler marks such a volume detached instead of running UnmountDevice',
    upstream: 'kubernetes/kubernetes#100183',
  },
  {
    id: 'vm-uncertain-mount-counts-as-mounted',
    file: 'src/kubelet/volumemanager/cache/actualStateOfWorld.ts',
    find: '      if (podObj.volumeMountStateForPod === VolumeMountUncertain) {\n        return { exists: false,',
    replace:
      '      if (podObj.volumeMountStateForPod === VolumeMountUncertain) {\n        return { exists: true,',
    why: 'PodExistsInVolume reports an uncertain mount as existing: the reconciler never retries a SetUp that may not have happened',
  },
  {
    id: 'vm-uncertain-mounts-never-torn-down',
    file: 'src/kubelet/volumemanager/cache/actualStateOfWorld.ts',
    find: '  getAllMountedVolumes(): MountedVolume[] {\n    return this.collectMounted(\n      (_, p) =>\n        p.volumeMountStateForPod === VolumeMounted || p.volumeMountStateForPod === VolumeMountUncertain,\n    );',
    replace:
      '  getAllMountedVolumes(): MountedVolume[] {\n    return this.collectMounted((_, p) => p.volumeMountStateForPod === VolumeMounted);',
    why: 'GetAllMountedVolumes leaves out uncertain mounts, so the reconciler never tears down a mount whose SetUp or TearDown failed half-way',
  },
  {
    id: 'vm-unmount-device-ignores-mount-refs',
    file: 'src/kubelet/volumemanager/operationexecutor/operationGenerator.ts',
    find: '  if (refs.err !== undefined || hasMountRefs(deviceMountPath, refs.value)) {',
    replace: '  if (refs.err !== undefined) {',
    why: "UnmountDevice drops the GetDeviceMountRefs check: it unmounts the global mount while another pod's bind mount still uses it",
  },
  {
    id: 'vm-device-opened-wrong-path',
    file: 'src/kubelet/volumemanager/operationexecutor/operationGenerator.ts',
    find: "  if (og.opts.host.isDeviceOpened(deviceToDetach.devicePath)) {\n    og.publish({ kind: 'deviceInUseAfterUnmount', volume: deviceToDetach.volumeName });\n    if (og.markUncertainWhenStillOpen) {",
    replace:
      "  if (og.opts.host.isDeviceOpened(deviceMountPath)) {\n    og.publish({ kind: 'deviceInUseAfterUnmount', volume: deviceToDetach.volumeName });\n    if (og.markUncertainWhenStillOpen) {",
    why: 'the isDeviceOpened check after UnmountDevice is given the global mount path instead of the device path, so it never finds the device still open',
  },
  {
    id: 'vm-unmap-device-refs-off-by-one',
    file: 'src/kubelet/volumemanager/operationexecutor/operationGeneratorBlock.ts',
    find: '  if (refs.value.length > 0) {',
    replace: '  if (refs.value.length > 1) {',
    why: "UnmapDevice tolerates one pod's reference on the global map path and tears the device down under it",
  },
  {
    id: 'vm-mount-device-skipped-when-uncertain',
    file: 'src/kubelet/volumemanager/operationexecutor/operationGenerator.ts',
    find: '  if (asw.getDeviceMountState(volumeToMount.volumeName) !== DeviceGloballyMounted) {\n    const deviceMountPath',
    replace:
      '  if (asw.getDeviceMountState(volumeToMount.volumeName) === DeviceNotMounted) {\n    const deviceMountPath',
    why: 'MountVolume calls MountDevice only for a device known unmounted, not for an uncertain one: a new pod bind-mounts a global path whose unmount may have happened',
    upstream: 'kubernetes/kubernetes#100183',
  },
  {
    id: 'vm-verify-attached-ignores-reported-in-use',
    file: 'src/kubelet/volumemanager/operationexecutor/operationGenerator.ts',
    find: '  if (!volumeToMount.reportedInUse) {',
    replace: '  if (!volumeToMount.pluginIsAttachable) {',
    why: "VerifyControllerAttachedVolume no longer waits for the volume to be in the node's volumesInUse before marking it attached",
    equivalent:
      'the reconciler starts VerifyControllerAttachedVolume for an attachable volume only once reportedInUse is set, and the operation reads that snapshot: the check is never reached with false',
  },
  {
    id: 'vm-pod-volumes-exist-ignores-uncertain',
    file: 'src/kubelet/volumemanager/volumeManager.ts',
    find: 'return this.actualStateOfWorld.getPossiblyMountedVolumesForPod(uid).length > 0;',
    replace: 'return this.actualStateOfWorld.getMountedVolumesForPod(uid).length > 0;',
    why: 'podVolumesExist counts only certain mounts: a pod whose volume mount is uncertain counts as having no volumes left',
  },
  {
    id: 'vm-reconstructed-mount-forgotten-on-setup-error',
    file: 'src/kubelet/volumemanager/operationexecutor/operationGenerator.ts',
    find: '        asw.isVolumeReconstructed(volumeToMount.volumeName, volumeToMount.podName)\n      )\n        return;',
    replace:
      '        asw.isVolumeReconstructed(volumeToMount.volumeName, volumeToMount.podName) &&\n        !isOperationFinishedError(mountError)\n      )\n        return;',
    why: 'markVolumeErrorState keeps a reconstructed volume uncertain only for an error that is not final: a SetUp that fails for good after a restart forgets the mount the old kubelet made, which is then never torn down',
    upstream: 'kubernetes/kubernetes#110670',
  },
  {
    id: 'vm-reconstruct-device-uncertain-off-by-one',
    file: 'src/kubelet/volumemanager/reconciler/reconstruct.ts',
    find: '    if (uncertainVolumeCount > 0) {',
    replace: '    if (uncertainVolumeCount > 1) {',
    why: 'processReconstructedVolumes marks the device uncertain only when two or more pods were added uncertain, so a single-pod volume skipped at reconstruction never gets UnmountDevice',
    upstream: 'kubernetes/kubernetes#110670',
  },

  // ---- volume plugins and their utils (src/volume/) ----
  {
    id: 'fc-detach-retry-counts-failure-done',
    file: 'src/volume/fc.ts',
    find: '  return [err === undefined, undefined];',
    replace: '  return [true, undefined];',
    why: "FC UnmountDevice's DetachDisk retry counts a failed flush as done and reports success, leaving the LUN's paths and map behind",
    upstream: 'kubernetes/kubernetes#101862',
  },
  {
    id: 'fc-detach-misses-multipath-map',
    file: 'src/volume/fcUtil.ts',
    find: "  if (dstPath.startsWith('/dev/dm-')) {",
    replace: "  if (dstPath.startsWith('/dev/mapper/')) {",
    why: 'DetachDisk no longer recognises the resolved device as a dm map (wrong prefix), so it deletes one disk and never flushes the map or its other paths',
  },
  {
    id: 'iscsi-session-busy-off-by-one',
    file: 'src/volume/iscsiUtil.ts',
    find: 'count(host.getPluginDir(iscsiPluginName)) + count(host.getVolumeDevicePluginDir(iscsiPluginName)) > 1',
    replace:
      'count(host.getPluginDir(iscsiPluginName)) + count(host.getVolumeDevicePluginDir(iscsiPluginName)) > 2',
    why: 'isSessionBusy needs two other volumes of the target before it keeps the session: DetachDisk logs out while another volume of the target is still mounted',
  },
  {
    id: 'iscsi-detach-returns-early',
    file: 'src/volume/iscsiUtil.ts',
    find: '  const notMnt = host.isLikelyNotMountPoint(mntPath);\n  if (notMnt.err !== undefined) return notMnt.err;',
    replace:
      '  const notMnt = host.isLikelyNotMountPoint(mntPath);\n  if (notMnt.err === undefined) return notMnt.err;',
    why: 'DetachDisk inverts its error check after IsLikelyNotMountPoint and reports success at once: the global mount, the SCSI devices and the session stay, and UnmountDevice is retried for ever',
  },
  {
    id: 'csi-stage-not-idempotent',
    file: 'src/volume/csi.ts',
    find: '    else if (host.mounts.at(deviceMountPath) === undefined) {',
    replace: '    else {',
    why: 'NodeStageVolume mounts the staging path again when it is already staged (MountDevice is not idempotent), stacking a second mount that one NodeUnstage does not remove',
  },
  {
    id: 'csi-reconstruct-wrong-data-dir',
    file: 'src/volume/csi.ts',
    find: "const volDir = basename(mountPath) === 'mount' ? dirname(mountPath) : mountPath;",
    replace:
      "const volDir = basename(mountPath) === 'mount' ? dirname(mountPath) : join(mountPath, 'mount');",
    why: 'ConstructVolumeSpec looks for vol_data.json inside the mount dir instead of beside it: every CSI filesystem volume fails reconstruction after a kubelet restart',
  },
  {
    id: 'util-pod-terminated-without-deletion',
    file: 'src/volume/volumeUtil.ts',
    find: '    (pod.metadata.deletionTimestamp !== undefined && notRunning(podStatus.containerStatuses))',
    replace: '    notRunning(podStatus.containerStatuses)',
    why: 'IsPodTerminated drops the deletionTimestamp clause: a pod with no running container (one still starting) counts as terminated, and the attach/detach controller drops its volumes',
  },
  {
    id: 'nestedops-volume-key-blocks-one-way',
    file: 'src/volume/util/nestedPendingOperations.ts',
    find: '        previousOp.key.podName === EmptyUniquePodName ||\n        key.podName === EmptyUniquePodName ||',
    replace: '        key.podName === EmptyUniquePodName ||',
    why: "an operation keyed on the whole volume (MountVolume, UnmountDevice) no longer blocks a later per-pod one: a pod's TearDown starts while the volume's MountDevice or UnmountDevice runs",
  },

  // ---- attach/detach controller (src/cluster/attachdetach/) ----
  {
    id: 'adc-force-detach-unhealthy-at-once',
    file: 'src/cluster/attachdetach/reconciler.ts',
    find: 'const forceDetach = !isHealthy && forceDetachTimeoutExpired;',
    replace: 'const forceDetach = !isHealthy;',
    why: 'the controller force-detaches a mounted volume from an unhealthy node at once instead of after maxWaitForUnmountDuration (a kubelet restart makes a node NotReady for a while)',
    upstream: 'kubernetes/kubernetes#110721',
  },
  {
    id: 'adc-verify-safe-wrong-field',
    file: 'src/cluster/attachdetach/operations.ts',
    find: '      if (inUseVolume === volumeToDetach.volumeName) {',
    replace: '      if (inUseVolume === volumeToDetach.devicePath) {',
    why: "verifyVolumeIsSafeToDetach compares the node's volumesInUse with the device path instead of the volume name, so it never finds the volume in use",
  },
  {
    id: 'adc-new-attachment-assumed-unmounted',
    file: 'src/cluster/attachdetach/actualStateOfWorld.ts',
    find: 'mountedByNode: true, // Assume mounted, until proven otherwise',
    replace: 'mountedByNode: false, // Assume mounted, until proven otherwise',
    why: 'a new attachment is assumed not mounted until the node says otherwise: a volume can be detached between its attach and the next node status',
  },
  {
    id: 'adc-multi-attach-off-by-one',
    file: 'src/cluster/attachdetach/reconciler.ts',
    find: '        if (nodes.length > 0) {',
    replace: '        if (nodes.length > 1) {',
    why: 'the multi-attach check lets a ReadWriteOnce volume attached to one node be attached to a second one',
  },
  {
    id: 'adc-terminated-pod-volumes-kept',
    file: 'src/cluster/attachdetach/util.ts',
    find: '  if (isPodTerminated(pod, pod.status)) return keepTerminatedPodVolume;',
    replace: '  if (isPodTerminated(pod, pod.status)) return !keepTerminatedPodVolume;',
    why: "DetermineVolumeAction inverts the node's keep-terminated-pod-volumes policy: a finished pod nobody deletes keeps its volumes attached for ever",
  },
  {
    id: 'adc-populator-ignores-uid',
    file: 'src/cluster/attachdetach/desiredStateOfWorldPopulator.ts',
    find: 'if (volumeActionFlag && getUniquePodName(informerPod) === dswPodUID) continue;',
    replace: 'if (volumeActionFlag) continue;',
    why: "the populator keeps a deleted pod's volumes in the desired state while a pod of the same name (another UID) exists, so they stay attached to the old node",
    equivalent:
      "the changed condition differs only for a desired-state entry whose pod left the informer, and none exists here: every DELETE runs podDelete, which resolves the same volumes the add did (a scenario's volume specs never change, nodes never leave the controller)",
  },
  {
    id: 'adc-detach-request-time-not-reset',
    file: 'src/cluster/attachdetach/reconciler.ts',
    find: '        asw.resetDetachRequestTime(volumeToAttach.volumeName, volumeToAttach.nodeName);\n',
    replace: '',
    why: 'a volume wanted again keeps the time of an earlier detach request, so a later one counts as past maxWaitForUnmountDuration at once (no safe-to-detach check)',
  },
  {
    id: 'adc-max-wait-in-seconds',
    file: 'src/cluster/attachdetach/controller.ts',
    find: 'reconcilerMaxWaitForUnmountDurationMs: 6 * 60_000,',
    replace: 'reconcilerMaxWaitForUnmountDurationMs: 6 * 1_000,',
    why: 'maxWaitForUnmountDuration is 6 s instead of 6 min (a units slip): after 6 s the controller detaches without the safe-to-detach check',
  },
];
