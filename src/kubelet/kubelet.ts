// Ported from kubernetes pkg/kubelet/kubelet.go, release-1.23 (syncLoop, the pod handlers, the three sync
// phases) with the release-1.20 code paths behind fix `pod-worker-lifecycle` (legacy/kubeletLegacy.ts):
// one kubelet process of one node. Its goroutines live in one ProcessGroup, so a kubelet restart loses
// every in-memory structure while the runtime and the host keep theirs.
import { GoError } from '../api/errors.js';
import {
  getPodFullName,
  isMirrorPod,
  isStaticPod,
  newPodStatus,
  type Pod,
  type PodStatus,
  type ResourceList,
  type RuntimePod,
  type RuntimePodStatus,
  sortPodsByCreationTime,
  type UID,
} from '../api/v1.js';
import {
  WRITES_NONE,
  WRITES_PODS,
  WRITES_QUEUE,
  WRITES_RUNTIME,
  WRITES_RUNTIME_CACHE_TIME,
  WRITES_STATUS,
  WRITES_SYNC_LOOP,
  WRITES_VOLUMES,
} from '../elisionMasks.js';
import type { Fact } from '../facts.js';
import type { Fixes } from '../fixes.js';
import type { FakeRuntime } from '../runtime/fakeRuntime.js';
import {
  assert,
  type Chan,
  type Co,
  type Context,
  ProcessGroup,
  type Rng,
  type SelectCase,
  type Sim,
  select,
  sleep,
  Ticker,
  type VersionedSet,
  WRITES_ALL,
} from '../sim/index.js';
import type { BlockVolumeMapper, MetricsProvider } from '../volume/volume.js';
import { admitPod } from './admission.js';
import { PodConfig, type PodSource, type PodUpdate, podUpdatesChannelCapacity } from './config/podConfig.js';
import { Cache } from './container/cache.js';
import type { KubeClient } from './kubeClient.js';
import { syncMirrorPod } from './kubeletMirrorPods.js';
import { NodeStatusReporter } from './kubeletNodeStatus.js';
import { handlePodCleanups, podResourcesAreReclaimed, runContainerGC } from './kubeletPods.js';
import { convertPodStatusToRunningPod, KubeGenericRuntimeManager } from './kuberuntime/kuberuntimeManager.js';
import { LegacyKubelet } from './legacy/kubeletLegacy.js';
import { type PodAdmitHandler, PredicateAdmitHandler } from './lifecycle/predicate.js';
import {
  NO_SHUTDOWN_GRACE,
  processShutdownEvent,
  type ShutdownConfig,
} from './nodeshutdown/nodeShutdownManager.js';
import { GenericPLEG, type PodLifecycleEvent, plegChannelCapacity } from './pleg/genericPleg.js';
import { BasicMirrorClient } from './pod/mirrorClient.js';
import { BasicPodManager } from './pod/podManager.js';
import { killPodNow, PodWorkers } from './podWorkers.js';
import { FsResourceAnalyzer, statsProviderFromMountedVolumes } from './stats/fsResourceAnalyzer.js';
import { generateAPIPodStatus } from './status/generate.js';
import { StatusManager } from './status/statusManager.js';
import type { MutablePodStatus, PodStatusFunc, SyncPodType } from './types.js';
import { WorkQueue } from './workQueue.js';

/** kubelet.go constants. */
export const housekeepingPeriodMs = 2000;
export const syncLoopPeriodMs = 1000; // syncCh ticker: time.NewTicker(time.Second)
export const backOffPeriodMs = 10_000;
export const resyncIntervalMs = 60_000; // kubeCfg.SyncFrequency default 1m
export const containerGCPeriodMs = 60_000; // ContainerGCPeriod
/** SyncTerminatedPod's wait for the pod's volume paths (#115331): wait.PollUntilContextCancel(100ms). */
const terminatedVolumesPollMs = 100;

/** A coroutine step that performs no effect (keeps a `*` handler a generator). */
function* noEffects(): Co<void> {}

/** What the kubelet needs of the volume manager (pkg/kubelet/volumemanager VolumeManager). */
export interface KubeletVolumeManager {
  run(): void;
  waitForAttachAndMount(pod: Pod): Co<GoError | undefined>;
  waitForUnmount(pod: Pod): Co<GoError | undefined>;
  podVolumesExist(uid: UID): boolean;
  getVolumesInUse(): string[];
  /** True if some volume's reportedInUse changed. */
  markVolumesAsReportedInUse(volumes: readonly string[]): boolean;
  /** Until reconstruction has run, volumesInUse is left as it was (setters.go VolumesInUse). */
  reconcilerStatesHasBeenSynced(): boolean;
  getMountedVolumesForPod(
    uid: UID,
  ): ReadonlyMap<
    string,
    { mounter?: MetricsProvider | undefined; blockVolumeMapper?: BlockVolumeMapper | undefined }
  >;
}

/** The node's persistent state a kubelet restart does not lose: runtime, pod cgroups, manifests. */
export interface NodeHostState {
  readonly runtime: FakeRuntime;
  /**
   * Pod cgroups (pcm.Exists / EnsureExists / Destroy): kernel state, survives the kubelet. Versioned:
   * housekeeping's idle check counts its changes (src/sim/versioned.ts).
   */
  readonly podCgroups: VersionedSet<UID>;
  /** The static pod manifest directory: fullname -> pod. */
  readonly staticManifests: Map<string, Pod>;
}

export interface KubeletOptions {
  sim: Sim;
  rng: Rng;
  nodeName: string;
  /** The node's elision domain (src/sim/process.ts ProcessGroup), 0 if none. */
  domain?: number | undefined;
  fixes: Fixes;
  kubeClient: KubeClient;
  /** The API server's watch for this node: the LIST (`onList`, once), then every change. */
  watch(
    handler: (type: 'ADDED' | 'MODIFIED' | 'DELETED', pod: Pod) => void,
    onList: (pods: Pod[]) => void,
  ): void;
  unwatch(): void;
  host: NodeHostState;
  publish: (fact: Fact) => void;
  /** Builds the volume manager for this kubelet process (it needs the kubelet's pod state). */
  newVolumeManager(kl: Kubelet): KubeletVolumeManager;
  /** The kubelet process died (a Go panic): systemd restarts it. */
  onCrash(): void;
  /** Graceful node shutdown configuration; default upstream's (0 s: none). */
  shutdown?: ShutdownConfig | undefined;
  /** The node object's labels, as admission reads them now (default: none). */
  nodeLabels?: (() => Readonly<Record<string, string>>) | undefined;
  /** The node's status.allocatable, as admission reads it; undefined: every pod fits (default). */
  allocatable?: ResourceList | undefined;
}

export class Kubelet {
  readonly sim: Sim;
  readonly nodeName: string;
  readonly fixes: Fixes;
  readonly shutdownConfig: ShutdownConfig;
  readonly group: ProcessGroup;
  readonly podManager: BasicPodManager;
  /** Upstream's basicManager embeds the mirror client; here it sits next to the pod manager. */
  readonly mirrorClient: BasicMirrorClient;
  readonly podCache: Cache;
  readonly runtimeManager: KubeGenericRuntimeManager;
  readonly statusManager: StatusManager;
  readonly workQueue: WorkQueue;
  readonly kubeClient: KubeClient;
  readonly host: NodeHostState;
  readonly publish: (fact: Fact) => void;
  /** release-1.23 pod workers (fix on) or the release-1.20 kubelet paths (fix off); exactly one is set. */
  readonly podWorkers: PodWorkers | undefined;
  readonly legacy: LegacyKubelet | undefined;
  readonly volumeManager: KubeletVolumeManager;
  /** kl.admitHandlers: canAdmitPod asks each in turn (only the predicate handler is modelled). */
  readonly admitHandlers: readonly PodAdmitHandler[];
  private readonly resourceAnalyzer: FsResourceAnalyzer;
  readonly rng: Rng;
  private readonly podConfig: PodConfig;
  private readonly updates: Chan<PodUpdate>;
  private readonly plegCh: Chan<PodLifecycleEvent>;
  private readonly pleg: GenericPLEG;
  private readonly readySources = new Set<PodSource>();
  private readonly opts: KubeletOptions;
  /** kubecontainer.RuntimeCache: GetPods cached for up to 2 s. */
  private runtimeCacheTimeMs = Number.NEGATIVE_INFINITY;
  private runtimeCachePods: RuntimePod[] = [];
  /** The runtime's version when the cache was filled (src/sim/elision.ts). */
  private runtimeCacheRuntimeVersion = -1;

  constructor(o: KubeletOptions) {
    this.opts = o;
    this.sim = o.sim;
    this.podManager = new BasicPodManager(() => o.sim.touch(WRITES_PODS));
    this.rng = o.rng;
    this.nodeName = o.nodeName;
    this.fixes = o.fixes;
    this.shutdownConfig = o.shutdown ?? NO_SHUTDOWN_GRACE;
    this.kubeClient = o.kubeClient;
    this.mirrorClient = new BasicMirrorClient(o.kubeClient);
    this.host = o.host;
    this.publish = o.publish;
    this.group = new ProcessGroup(`kubelet/${o.nodeName}`, o.domain ?? 0);
    this.podCache = new Cache(o.sim);
    this.workQueue = new WorkQueue(o.sim);
    this.runtimeManager = new KubeGenericRuntimeManager(
      o.sim,
      o.host.runtime,
      this.group,
      o.nodeName,
      o.publish,
      o.fixes.on('prestop-counts-against-grace'),
      o.fixes.on('stop-container-not-found'),
    );
    this.updates = o.sim.chan<PodUpdate>(podUpdatesChannelCapacity, 'updates');
    this.podConfig = new PodConfig(this.updates, o.sim, this.group);
    this.plegCh = o.sim.chan<PodLifecycleEvent>(plegChannelCapacity, 'plegCh');
    this.pleg = new GenericPLEG(o.sim, o.host.runtime, this.podCache, this.plegCh);
    this.statusManager = new StatusManager(o.sim, this.group, o.kubeClient, this.podManager, {
      podResourcesAreReclaimed: (pod, status) => podResourcesAreReclaimed(this, pod, status),
      podCouldHaveRunningContainers: o.fixes.on('pod-worker-lifecycle')
        ? (pod) => this.podWorkers?.couldHaveRunningContainers(pod.metadata.uid) ?? true
        : undefined,
      deletesFinishedPodsOnly: o.fixes.on('pod-worker-lifecycle')
        ? () => o.fixes.on('status-deletes-finished-pods')
        : undefined,
    });
    if (o.fixes.on('pod-worker-lifecycle')) {
      this.podWorkers = new PodWorkers({
        sim: o.sim,
        rng: o.rng.fork('podWorkers'),
        group: this.group,
        syncer: this,
        workQueue: this.workQueue,
        podCache: this.podCache,
        resyncIntervalMs,
        backOffPeriodMs,
        nodeName: o.nodeName,
        publish: o.publish,
        fixes: o.fixes,
      });
      this.legacy = undefined;
    } else {
      this.podWorkers = undefined;
      this.legacy = new LegacyKubelet(this);
    }
    this.volumeManager = o.newVolumeManager(this);
    const nodeLabels = o.nodeLabels ?? (() => ({}));
    const fixes = o.fixes;
    this.admitHandlers = [
      new PredicateAdmitHandler(nodeLabels, o.allocatable, () => fixes.on('zero-request-fits')),
    ];
    const volumeManager = this.volumeManager;
    this.resourceAnalyzer = new FsResourceAnalyzer({
      sim: o.sim,
      group: this.group,
      node: o.nodeName,
      fixes: o.fixes,
      rng: o.rng.fork('stats'),
      publish: o.publish,
      podUIDs: () => this.podManager.getPods().map((p) => p.metadata.uid),
      statsProvider: statsProviderFromMountedVolumes((uid) => volumeManager.getMountedVolumesForPod(uid)),
      onPanic: () => this.crash(),
    });
  }

  /** A Go panic in any kubelet goroutine ends the whole process. */
  crash(): void {
    if (!this.alive) return;
    this.sim.touch(WRITES_ALL); // whatever the crashing goroutine could change, its process is gone
    this.stop();
    this.opts.onCrash();
  }

  // ---- process lifecycle ----

  /** Run: the kubelet's goroutines, the config sources, and the first relist. */
  start(): void {
    this.startedAtMs = this.sim.nowMs;
    this.publish({ kind: 'kubeletStarted', atMs: this.sim.nowMs, node: this.nodeName });
    this.sim.spawn(`${this.nodeName}/pleg`, this.pleg.run(), this.group).writeMask = WRITES_RUNTIME;
    this.statusManager.start();
    this.volumeManager.run();
    this.resourceAnalyzer.start();
    this.legacy?.start();
    // What handling an update, a PLEG event or a tick changes besides the pod set and the pod workers'
    // lifecycle (both touched where they change): src/elisionMasks.ts.
    this.sim.spawn(`${this.nodeName}/syncLoop`, this.syncLoop(), this.group).writeMask = WRITES_SYNC_LOOP;
    // Node status and the Lease change nothing a loop of this node reads (reportedInUse is touched where
    // it changes).
    const nodeStatus = new NodeStatusReporter(this.sim, this.nodeName, this.kubeClient, this.volumeManager);
    const status = this.sim.spawn(`${this.nodeName}/nodeStatus`, nodeStatus.syncNodeStatusLoop(), this.group);
    status.writeMask = WRITES_NONE;
    // It reads the volume manager (the VolumesInUse setter) and the API server's node, nothing else.
    status.readMask = WRITES_VOLUMES;
    // The Lease renewal reads nothing of the node either: it commutes with every writer of the node's
    // state (src/sim/choices.ts), and with none that talks to the API server.
    const lease = this.sim.spawn(`${this.nodeName}/nodeLease`, nodeStatus.leaseControllerLoop(), this.group);
    lease.writeMask = WRITES_NONE;
    lease.readMask = WRITES_NONE;
    const gc = this.sim.spawn(`${this.nodeName}/containerGC`, this.containerGCLoop(), this.group);
    gc.writeMask = WRITES_RUNTIME;
    // Most of its rounds remove nothing: its footprint writes the runtime only where a removal changes it
    // (the fake runtime touches it there).
    gc.footprintWriteMask = WRITES_NONE;
    // It reads the runtime, whether the sources are ready and the pod workers' (release-1.20: the pod
    // manager's and the statuses') verdict on each pod: nothing of the volume manager or the work queue.
    gc.readMask = WRITES_PODS | WRITES_STATUS | WRITES_RUNTIME;
    // The file source lists the manifest directory at start (file name order) as one SET; the API source
    // does the same with its LIST. A source counts as ready once the sync loop has handled its update.
    const manifests: Pod[] = [];
    for (const fullname of [...this.host.staticManifests.keys()].sort()) {
      const pod = this.host.staticManifests.get(fullname);
      if (pod !== undefined) manifests.push(pod);
    }
    this.podConfig.onSourceList('file', manifests);
    this.opts.watch(
      (type, pod) => this.podConfig.onAPIEvent(type, pod),
      (pods) => this.podConfig.onSourceList('api', pods),
    );
  }

  /** The kubelet process dies: every goroutine and in-memory structure is gone. */
  stop(): void {
    this.opts.unwatch();
    this.group.kill();
    this.publish({ kind: 'kubeletStopped', atMs: this.sim.nowMs, node: this.nodeName });
  }

  get alive(): boolean {
    return this.group.alive;
  }

  /** A static pod manifest was added or removed on this node while the kubelet runs. */
  staticPodEvent(op: 'ADD' | 'REMOVE', pod: Pod): void {
    if (this.alive) this.podConfig.onFileEvent(op, pod);
  }

  sourcesReadyAllReady(): boolean {
    return this.readySources.has('api') && this.readySources.has('file');
  }

  // ---- syncLoop ----

  private *syncLoop(): Co<void> {
    // time.NewTicker: a tick handled without effect lets elision skip the ticks after it (src/sim/elision.ts).
    // A syncCh tick reads the work queue; housekeeping reads a little of everything.
    const syncCh = new Ticker(
      this.sim,
      `${this.nodeName}/syncCh`,
      syncLoopPeriodMs,
      this.group,
      undefined,
      WRITES_QUEUE,
    );
    const housekeepingCh = new Ticker(
      this.sim,
      `${this.nodeName}/housekeepingCh`,
      housekeepingPeriodMs,
      this.group,
      (roundMs) => this.housekeepingSkipped(roundMs),
      WRITES_ALL,
      WRITES_RUNTIME_CACHE_TIME,
    );
    const cases: SelectCase[] = [
      { recv: this.updates },
      { recv: this.plegCh },
      { recv: syncCh.ch },
      { recv: housekeepingCh.ch },
    ];
    for (;;) {
      const r = yield* select(cases);
      switch (r.index) {
        case 0:
          this.handleUpdate(r.value as PodUpdate);
          break;
        case 1:
          yield* this.handlePLEGEvent(r.value as PodLifecycleEvent);
          break;
        case 2:
          syncCh.begin();
          this.handlePodSyncs(this.getPodsToSync());
          syncCh.handled(r.value as number, this.workQueue.version, this.workQueue.nextDueMs());
          break;
        case 3:
          housekeepingCh.begin();
          if (this.sourcesReadyAllReady()) yield* this.handlePodCleanups();
          housekeepingCh.handled(r.value as number, this.housekeepingVersion());
          break;
      }
    }
  }

  /**
   * What housekeeping can change without an effect (src/sim/elision.ts): it removes pod workers, pod
   * statuses and cgroups, flips podsSynced once, and refreshes the runtime cache. NaN (never equal) while
   * the runtime cache lags the runtime: elided rounds could not refresh its content.
   */
  private housekeepingVersion(): number {
    if (this.runtimeCacheRuntimeVersion !== this.host.runtime.version) return Number.NaN;
    // Change counters only grow, so their sum moves whenever one of them does.
    const workers =
      this.podWorkers?.podSyncStatuses.version ?? this.legacy?.podWorkers.podUpdates.version ?? 0;
    return (
      workers +
      (this.podWorkers?.podsSynced === true ? 1 : 0) +
      this.statusManager.version +
      this.host.podCgroups.version +
      this.runtimeCacheRuntimeVersion
    );
  }

  /**
   * A housekeeping round elided while idle: it would have read the runtime cache, refreshing it if older
   * than 2 s. The runtime has not changed since the cache was filled (that is why the round was idle), so
   * only the cache's time moves.
   */
  private housekeepingSkipped(roundMs: number): void {
    if (this.sourcesReadyAllReady() && roundMs - this.runtimeCacheTimeMs > 2000)
      this.runtimeCacheTimeMs = roundMs;
  }

  private handleUpdate(u: PodUpdate): void {
    switch (u.op) {
      case 'ADD':
        this.handlePodAdditions(u.pods);
        break;
      case 'UPDATE':
      case 'DELETE':
        this.handlePodUpdates(u.pods);
        break;
      case 'REMOVE':
        this.handlePodRemoves(u.pods);
        break;
      case 'RECONCILE':
        for (const pod of u.pods) this.podManager.updatePod(pod);
        break;
      case 'SET':
        break;
    }
    this.readySources.add(u.source); // kl.sourcesReady.AddSource(u.Source)
  }

  private *handlePLEGEvent(e: PodLifecycleEvent): Co<void> {
    if (e.type === 'ContainerStarted') this.legacy?.lastContainerStartedTime.set(e.id, this.sim.nowMs);
    const pod = this.podManager.getPodByUID(e.id);
    if (e.type !== 'ContainerRemoved' && pod !== undefined) this.handlePodSyncs([pod]);
    if (e.type === 'ContainerDied') this.cleanUpContainersInPod(e.id, e.data);
    yield* noEffects();
  }

  /** HandlePodAdditions: oldest first (sort.Sort(sliceutils.PodsByCreationTime(pods))), then admit each. */
  handlePodAdditions(pods: readonly Pod[]): void {
    for (const pod of sortPodsByCreationTime(pods)) {
      // Always add the pod to the pod manager, rejected or not: it is the source of truth for the desired
      // state (a rejected pod's deletion is housekeeping's to finish, #118497).
      this.podManager.addPod(pod);
      if (isMirrorPod(pod)) {
        this.handleMirrorPod(pod);
        continue;
      }
      if (!admitPod(this, pod)) continue;
      this.publish({
        kind: 'podAdmitted',
        atMs: this.sim.nowMs,
        node: this.nodeName,
        uid: pod.metadata.uid,
        pod: pod.metadata.name,
      });
      this.dispatchWork(pod, 'SyncPodCreate', this.podManager.getMirrorPodByPod(pod));
    }
  }

  handlePodUpdates(pods: readonly Pod[]): void {
    for (const pod of pods) {
      this.podManager.updatePod(pod);
      if (isMirrorPod(pod)) {
        this.handleMirrorPod(pod);
        continue;
      }
      this.dispatchWork(pod, 'SyncPodUpdate', this.podManager.getMirrorPodByPod(pod));
    }
  }

  handlePodRemoves(pods: readonly Pod[]): void {
    for (const pod of pods) {
      this.podManager.deletePod(pod);
      if (isMirrorPod(pod)) {
        this.handleMirrorPod(pod);
        continue;
      }
      this.deletePod(pod);
    }
  }

  /**
   * handleMirrorPod: a mirror pod ADD / UPDATE / DELETE is an UPDATE of its static pod, if that exists.
   * A removed mirror pod is passed on as it was: the next sync still sees it (and finds nothing to
   * delete); the sync after that sees none and creates a new one.
   */
  private handleMirrorPod(mirrorPod: Pod): void {
    const pod = this.podManager.getPodByMirrorPod(mirrorPod);
    if (pod !== undefined) this.dispatchWork(pod, 'SyncPodUpdate', mirrorPod);
  }

  handlePodSyncs(pods: readonly Pod[]): void {
    for (const pod of pods) this.dispatchWork(pod, 'SyncPodSync', this.podManager.getMirrorPodByPod(pod));
  }

  private getPodsToSync(): Pod[] {
    const uids = new Set(this.workQueue.getWork());
    // Upstream walks every pod; with few due UIDs, looking them up and sorting them gives the same list
    // (the pod manager's UID order) at a cost that does not grow with the pod count.
    if (uids.size === 0) return [];
    const pods = this.podManager.getPods();
    if (uids.size * 16 < pods.length) {
      const out: Pod[] = [];
      for (const uid of uids) {
        const pod = this.podManager.getPodByUID(uid);
        if (pod !== undefined) out.push(pod);
      }
      return out.sort((a, b) =>
        a.metadata.uid < b.metadata.uid ? -1 : a.metadata.uid > b.metadata.uid ? 1 : 0,
      );
    }
    return pods.filter((p) => uids.has(p.metadata.uid));
  }

  /** dispatchWork: release-1.23 hands everything to the pod worker; 1.20 had terminal shortcuts. */
  dispatchWork(pod: Pod, syncType: SyncPodType, mirrorPod: Pod | undefined): void {
    if (this.podWorkers === undefined) {
      this.legacy?.dispatchWork(pod, syncType, mirrorPod);
      return;
    }
    this.podWorkers.updatePod({ pod, mirrorPod, updateType: syncType, startTimeMs: this.sim.nowMs });
  }

  /** deletePod (a REMOVE): release-1.23 asks the pod worker to kill; 1.20 forgot the worker. */
  private deletePod(pod: Pod): void {
    if (!this.sourcesReadyAllReady()) {
      // "skipping delete because sources aren't ready yet": no pod worker hears of this REMOVE.
      this.publish({
        kind: 'podRemoveDropped',
        atMs: this.sim.nowMs,
        node: this.nodeName,
        uid: pod.metadata.uid,
        pod: pod.metadata.name,
      });
      return;
    }
    if (this.podWorkers === undefined) {
      this.legacy?.deletePod(pod);
      return;
    }
    this.podWorkers.updatePod({ pod, updateType: 'SyncPodKill' });
  }

  private *handlePodCleanups(): Co<void> {
    yield* handlePodCleanups(this);
  }

  /**
   * cleanUpContainersInPod (PLEG ContainerDied): the podContainerDeletor removes, in its own goroutine,
   * the older dead attempts of the container that died (keeping one), or every dead container of a pod
   * whose content may go.
   */
  private cleanUpContainersInPod(uid: UID, exitedContainerID: string): void {
    const removeAll =
      this.podWorkers !== undefined
        ? this.podWorkers.shouldPodContentBeRemoved(uid)
        : (this.legacy?.removeAllOnContainerDied(uid) ?? false);
    const ids = this.runtimeManager.containersToDeleteInPod(
      uid,
      removeAll ? undefined : exitedContainerID,
      removeAll ? 0 : 1,
    );
    if (ids.length === 0) return;
    this.sim.spawn(
      `${this.nodeName}/podContainerDeletor`,
      this.runtimeManager.removeContainers(uid, ids),
      this.group,
    ).writeMask = WRITES_RUNTIME;
  }

  // ---- the three sync phases (release-1.23), the PodSyncer of the pod workers ----

  *syncPod(
    _ctx: Context,
    _updateType: SyncPodType,
    pod: Pod,
    mirrorPod: Pod | undefined,
    podStatus: RuntimePodStatus | undefined,
  ): Co<{ isTerminal: boolean; err: GoError | undefined }> {
    const uid = pod.metadata.uid;
    const apiPodStatus = generateAPIPodStatus(
      pod,
      podStatus,
      this.statusManager.getPodStatus(uid) ?? pod.status,
    );
    if (apiPodStatus.phase === 'Succeeded' || apiPodStatus.phase === 'Failed') {
      this.statusManager.setPodStatus(pod, apiPodStatus);
      return { isTerminal: true, err: undefined };
    }
    this.statusManager.setPodStatus(pod, apiPodStatus);
    const podWorkers = this.podWorkers;
    assert(podWorkers !== undefined, 'release-1.23 syncPod without pod workers');
    if (!podWorkers.isPodTerminationRequested(uid)) {
      // pcm.EnsureExists: the pod cgroup.
      this.host.podCgroups.add(uid);
    }
    // Create Mirror Pod for Static Pod if it doesn't already exist
    yield* syncMirrorPod(this, pod, mirrorPod);
    if (!podWorkers.isPodTerminationRequested(uid)) {
      const err = yield* this.volumeManager.waitForAttachAndMount(pod);
      if (err !== undefined) return { isTerminal: false, err };
    }
    this.noteStaticPodBesideOrphan(pod);
    const err = yield* this.runtimeManager.syncPod(pod, podStatus);
    return { isTerminal: false, err };
  }

  /** When this kubelet process started (virtual ms): containers started earlier are the previous one's. */
  private startedAtMs = 0;

  /** Static pods already reported starting beside an orphan (one fact per UID). */
  private readonly staticOrphanNoted = new Set<UID>();

  /**
   * Simulator observation at the start site: allowStaticPodStart admits a static pod by what this
   * kubelet's pod worker has started (startedStaticPodsByFullname), so an orphan of the previous kubelet
   * (same fullname, another UID, containers it started still running) is no obstacle, whether or not
   * housekeeping has begun killing it: that kill goes through a runtime-pod worker, which is not a
   * static pod to the gate (#112814).
   */
  private noteStaticPodBesideOrphan(pod: Pod): void {
    if (!isStaticPod(pod) || this.staticOrphanNoted.has(pod.metadata.uid)) return;
    const fullname = getPodFullName(pod);
    for (const uid of this.host.runtime.knownUIDs()) {
      if (uid === pod.metadata.uid || !this.host.runtime.hasRunningContainers(uid)) continue;
      if (this.host.runtime.getPodMeta(uid)?.staticFullname !== fullname) continue;
      if (this.podWorkers?.startedStaticPodsByFullname.get(fullname) === uid) continue;
      const startedBefore = this.host.runtime
        .getPodStatus(uid)
        .containerStatuses.some(
          (c) => c.state === 'running' && c.startedAtMs !== undefined && c.startedAtMs < this.startedAtMs,
        );
      if (!startedBefore) continue;
      this.staticOrphanNoted.add(pod.metadata.uid);
      this.publish({
        kind: 'staticPodStartedBesideOrphan',
        atMs: this.sim.nowMs,
        node: this.nodeName,
        uid: pod.metadata.uid,
        pod: pod.metadata.name,
        orphanUid: uid,
      });
      return;
    }
  }

  *syncTerminatingPod(
    _ctx: Context,
    pod: Pod,
    podStatus: RuntimePodStatus | undefined,
    runningPod: RuntimePod | undefined,
    gracePeriod: number | undefined,
    podStatusFn: PodStatusFunc | undefined,
  ): Co<GoError | undefined> {
    if (runningPod !== undefined) {
      return yield* this.killPod(pod, runningPod, gracePeriod, 'syncTerminatingPod (runtime pod)');
    }
    const status = podStatus ?? this.podCache.get(pod.metadata.uid);
    const apiPodStatus = generateAPIPodStatus(
      pod,
      status,
      this.statusManager.getPodStatus(pod.metadata.uid) ?? pod.status,
    );
    let finalStatus: PodStatus = apiPodStatus;
    if (podStatusFn !== undefined) {
      const mutable: MutablePodStatus = {
        phase: apiPodStatus.phase,
        reason: apiPodStatus.reason,
        message: apiPodStatus.message,
      };
      podStatusFn(mutable);
      finalStatus = newPodStatus({
        phase: mutable.phase,
        reason: mutable.reason,
        message: mutable.message,
        containerStatuses: apiPodStatus.containerStatuses,
      });
    }
    this.statusManager.setPodStatus(pod, finalStatus);
    const err = yield* this.killPod(
      pod,
      convertPodStatusToRunningPod(status),
      gracePeriod,
      'syncTerminatingPod',
    );
    if (err !== undefined) return err;
    // Guard against consistency issues in KillPod by re-reading the runtime. Upstream (kubelet.go
    // SyncTerminatingPod, v1.23.13) writes no status here: the status set before the kill stands until
    // syncTerminatedPod generates the final one from a cache newer than this sync.
    const stopped = this.runtimeManager.getPodStatus(pod);
    const running = stopped.containerStatuses.filter((c) => c.state === 'running').map((c) => c.id);
    if (running.length > 0) {
      return new GoError(
        `detected running containers after a successful KillPod, CRI violation: ${running.join(',')}`,
      );
    }
    return undefined;
  }

  *syncTerminatedPod(
    _ctx: Context,
    pod: Pod,
    podStatus: RuntimePodStatus | undefined,
  ): Co<GoError | undefined> {
    const apiPodStatus = generateAPIPodStatus(
      pod,
      podStatus,
      this.statusManager.getPodStatus(pod.metadata.uid) ?? pod.status,
    );
    this.statusManager.setPodStatus(pod, apiPodStatus);
    const err = yield* this.volumeManager.waitForUnmount(pod);
    if (err !== undefined) return err;
    if (this.fixes.on('terminated-pod-waits-for-volume-cleanup')) {
      // #115331 (1.27): "This waiting loop relies on the background cleanup": podVolumesExist also counts
      // uncertain mounts and the pod's volume dirs on disk, which WaitForUnmount's actual state may miss
      // (a kubelet that restarted and has not reconstructed yet). Polled every 100 ms until the pod
      // worker's context ends: here, the kubelet process.
      while (this.volumeManager.podVolumesExist(pod.metadata.uid)) yield* sleep(terminatedVolumesPollMs);
    }
    this.host.podCgroups.delete(pod.metadata.uid); // pcm.Destroy
    this.statusManager.terminatePod(pod);
    return undefined;
  }

  /** killPod (kubelet_pods.go): the runtime kill of a pod's running containers. */
  *killPod(
    pod: Pod | undefined,
    runningPod: RuntimePod,
    gracePeriodOverride: number | undefined,
    source: string,
  ): Co<GoError | undefined> {
    return yield* this.runtimeManager.killPod(pod, runningPod, gracePeriodOverride, source);
  }

  // ---- eviction and node shutdown (both block in killPodNow) ----

  /** The eviction manager's evictPod: killPodNow with Evict and a status function setting Failed/Evicted. */
  *evictPod(pod: Pod, gracePeriodOverride: number): Co<GoError | undefined> {
    const message = 'The node was low on resource: memory.';
    if (this.legacy !== undefined) {
      // 1.20's evictPod builds a fresh status: v1.PodStatus{Phase: Failed, Message, Reason}. Its pod
      // workers publish no termination facts, so the eviction manager's decision is published here.
      const status = newPodStatus({ phase: 'Failed', reason: 'Evicted', message, containerStatuses: [] });
      this.publish({
        kind: 'podTerminationRequested',
        atMs: this.sim.nowMs,
        node: this.nodeName,
        uid: pod.metadata.uid,
        pod: pod.metadata.name,
        reason: 'evicted by the kubelet (killPodNow)',
      });
      return yield* this.legacy.killPodNow(pod, status, gracePeriodOverride);
    }
    assert(this.podWorkers !== undefined, 'evictPod without pod workers');
    return yield* killPodNow(this.podWorkers, pod, true, gracePeriodOverride, (s) => {
      s.phase = 'Failed';
      s.reason = 'Evicted';
      s.message = message;
    });
  }

  /** nodeshutdown_manager_linux.go processShutdownEvent (nodeshutdown/nodeShutdownManager.ts). */
  *processShutdownEvent(): Co<void> {
    yield* processShutdownEvent(this);
  }

  // ---- GC ----

  private *containerGCLoop(): Co<void> {
    for (;;) {
      yield* runContainerGC(this);
      yield* sleep(containerGCPeriodMs);
    }
  }

  /** kubecontainer.RuntimeCache.GetPods: the runtime listing, refreshed when older than 2 s. */
  runtimeCacheGetPods(): RuntimePod[] {
    this.sim.noteReads(WRITES_RUNTIME_CACHE_TIME);
    if (this.sim.nowMs - this.runtimeCacheTimeMs > 2000) this.forceUpdateRuntimeCache();
    return this.runtimeCachePods;
  }

  /** ForceUpdateIfOlder: refresh the runtime cache if it is older than `minTimeMs`. */
  forceUpdateRuntimeCacheIfOlder(minTimeMs: number): void {
    this.sim.noteReads(WRITES_RUNTIME_CACHE_TIME);
    if (this.runtimeCacheTimeMs < minTimeMs) this.forceUpdateRuntimeCache();
  }

  forceUpdateRuntimeCache(): void {
    this.sim.touch(WRITES_RUNTIME_CACHE_TIME);
    // The cache's pods are the runtime's part too: a caller whose footprint writes less (the volume
    // manager's populator, release-1.20) writes them here.
    this.sim.touchFootprint(WRITES_RUNTIME);
    this.runtimeCachePods = this.runtimeManager.getPods(false);
    this.runtimeCacheTimeMs = this.sim.nowMs;
    this.runtimeCacheRuntimeVersion = this.host.runtime.version;
  }
}
