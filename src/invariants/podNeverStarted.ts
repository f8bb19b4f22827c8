// pod-never-started (liveness, judged at the end of a run): a pod that the kubelet admitted and that is
// not terminating has not had every container of its spec started (a containerStarted of each name) by
// the end, although the end lies more than the start bound after the pod could start. The pod could start
// once the kubelet running now has admitted it, every volume of its spec is set up, no other static
// pod of its fullname on the node still holds the start slot (and, for a static pod re-created with its
// old UID, the old lifecycle is over), and any injected containerStart delay has passed. Not judged while
// an injected storage fault is still active at the end. Catches a pod that the kubelet accepted and then
// never ran: a static pod update that waits behind a predecessor terminated before it started (#107733,
// fixed by #107900), a worker that ignores its pod, a lost sync. A pod that waits for a volume is judged
// apart (#volumeWait): only when the volume is still attached to other nodes that, by ground truth (API
// pods, node volumesInUse, node Ready from the Lease), should have let it go by upstream's rules, and
// VOLUME_RELEASE_BOUND_MS have passed since; the message gives the reason. A volume attached nowhere
// else (#attachWait) must be attached to the pod's node within ATTACH_BOUND_MS of when nothing else held it.
// "Attached" is ground truth: the controller's volumeAttached, ended by its volumeDetached or by the fence
// of the node's path (lunFenced), which a CSI Detach that failed after acting leaves behind while the
// controller (without #120595) goes on believing the volume attached (#120571).
import type { AccessMode } from '../api/v1.js';
import { nodeMonitorGracePeriodMs } from '../cluster/nodeLifecycle.js';
import type { Fact, FactKind } from '../facts.js';
import { secs } from './format.js';
import type { Checker, Violation } from './types.js';
import { MAX_WAIT_FOR_UNMOUNT_MS, NodeLiveness, NodeVolumesInUseLog, VolumeWants } from './volumeHolds.js';

/**
 * The start bound, beyond the containers' own start delays: one resync of the pod worker (resyncInterval
 * 1 min, jitter 0.5: at most 90 s), one error back-off (backOffPeriod 10 s, jitter 0.5: at most 15 s; it is
 * also the retry period of a static pod waiting for its turn), the sync loop's tick and a PLEG relist (1 s
 * each) and the runtime (sandbox 100-300 ms, per container 30-150 ms, docs/runtime.md), rounded up to
 * 2 min. WaitForAttachAndMount's 2 min 3 s timeout is not part of it: the clock starts only once every
 * volume is set up, so a volume the attach/detach controller cannot attach yet (Multi-Attach, a force
 * detach after 6 min) is not counted against the kubelet.
 */
export const POD_START_BOUND_MS = 120_000;
/**
 * After a containerStart fault that fails the start, the retry waits for the crash-loop back-off
 * (MaxContainerBackOff 5 min at most) and the next sync (one resync, 90 s at most).
 */
export const START_ERROR_ALLOWANCE_MS = 300_000 + 90_000;

/**
 * How long after a volume's holder on another node stopped holding it legitimately (the last pod that
 * wanted it there gone and the node no longer listing it in volumesInUse; or, for a node that still lists
 * it, the node not Ready and maxWaitForUnmountDuration passed) the waiting pod's volume must be set up:
 * the attach/detach controller's detach and attach operations may each first wait out an exponential
 * back-off (nestedpendingoperations, maxDurationBeforeRetry 2 min 2 s) and the kubelet's
 * VerifyControllerAttachedVolume, failing while the volume was attached elsewhere, backs off as long
 * (2 min 2 s); then the node status report that marks the volume reported in use before MountDevice
 * (nodeStatusUpdateFrequency 10 s), the reconciler loops (100 ms each), informer deliveries and
 * ControllerPublish / Unpublish (up to 1.5 s each): 4 min 26 s in all, rounded up to 5 min. The 6 min
 * force-detach timeout and the 40 s node-monitor-grace-period are not in it: they are part of the moment
 * the holder stops holding. WaitForAttachAndMount's 2 min 3 s is not either: the volume manager mounts
 * independently of the pod worker's wait, and once the volume is set up the start bound applies.
 */
export const VOLUME_RELEASE_BOUND_MS = 300_000;

/**
 * How long a pod may wait for the attach/detach controller to attach a volume that nothing else holds:
 * the pod informer's delivery, the desired state populator's loop (1 min, for a delivery it missed), the
 * reconciler's pass (100 ms) and the attach itself (ControllerPublish up to 1.5 s), rounded up to 2 min.
 */
export const ATTACH_BOUND_MS = 120_000;

/** How many recent lifecycle facts per UID are kept as causes. */
const RECENT = 6;

type Created = Extract<Fact, { kind: 'apiPodCreated' }>;

/** One UID on its node: what the runtime runs of it, and what the kubelet process now running knows. */
interface UidState {
  readonly uid: string;
  /** The pod's node (apiPodCreated carries spec.nodeName; else the first kubelet fact about it). */
  node: string;
  /** Container names running now. */
  readonly running: Set<string>;
  /** Container name -> the exit code of its newest attempt, once it exited (until it starts again). */
  readonly exits: Map<string, number>;
  /** Volumes set up for the UID now (volumeSetUp not followed by a volumeTearDown with ok). */
  readonly volumes: Set<string>;
  /** A pod worker of the kubelet process now running was asked to terminate it and has not finished. */
  awaitingFinish: boolean;
  /**
   * Its worker in the kubelet process now running got past the static pod start check (podWorkerPhase
   * 'sync') and has not finished: a release-1.23 static pod then holds its fullname's start slot
   * (startedStaticPodsByFullname) until completeTerminated. A release-1.20 worker never reports finished.
   */
  inSlot: boolean;
  /** Whether it holds its fullname's start slot (holdsSlot), as of the last fact about it. */
  holding: boolean;
  /** The last time it stopped holding the slot. */
  releasedAtMs: number;
  /** The incarnation (apiPodCreated) being judged, if any. */
  current: Incarnation | undefined;
  readonly recent: Fact[];
}

/** Whether a container's exit (undefined: none) is one its pod's restart policy does not restart. */
function doneByExit(created: Created, code: number | undefined): boolean {
  if (code === undefined || created.restartPolicy === 'Always') return false;
  return created.restartPolicy === 'Never' || code === 0;
}

/** One apiPodCreated of a UID (a static pod put back from the same manifest is a second one). */
interface Incarnation {
  readonly created: Created;
  readonly started: Set<string>;
  /** Containers whose start failed under restartPolicy Never: the kubelet never starts them again. */
  readonly startFailed: Set<string>;
  terminating: boolean;
  /** A UID created again (a static pod put back from the same manifest). */
  readonly reused: boolean;
  /** When the kubelet process now running first admitted or synced it. */
  admittedAtMs: number | undefined;
  /** When its spec's volumes last became all set up (-1: it has none); undefined while some are missing. */
  volumesReadyAtMs: number | undefined;
  /** The same UID's previous lifecycle still holds it: these containers run, or its worker is not finished. */
  readonly oldRunning: Set<string>;
  oldAwaitingFinish: boolean;
  /** Whether the previous lifecycle held it as of the last fact (its end moves `floorMs`). */
  oldHeld: boolean;
  /** The earliest the clock may start for other reasons (the old lifecycle's end, an injected start delay). */
  floorMs: number;
  startErrorInjected: boolean;
}

export interface PodNeverStartedConfig {
  readonly faultsActiveAtEnd: () => boolean;
  /** The scenario's volumes; one not listed is ReadWriteOnce (the scenario format's default). */
  readonly volumes?: readonly { readonly name: string; readonly accessMode: AccessMode }[] | undefined;
  /**
   * kube-controller-manager --disable-force-detach-on-timeout (#120344): no force detach, so a node that
   * lists a volume in use keeps it for as long as it lists it, Ready or not.
   */
  readonly disableForceDetachOnTimeout?: boolean | undefined;
}

type Attached = Extract<Fact, { kind: 'volumeAttached' }>;
/** What ended a volume's attachment to a node: the controller's detach, or the fence of the node's path. */
type DetachedFact = Extract<Fact, { kind: 'volumeDetached' | 'lunFenced' }>;
type DetachFact = Extract<Fact, { kind: 'volumeDetachStarted' | 'volumeDetachFailed' }>;
type MultiAttachError = Extract<Fact, { kind: 'multiAttachError' }>;

const LIFECYCLE: ReadonlySet<Fact['kind']> = new Set([
  'apiPodCreated',
  'podAdmitted',
  'podWorkerPhase',
  'sandboxCreated',
  'containerCreated',
  'containerStarted',
  'containerExited',
  'containerStartFailed',
  'killPodStarted',
  'podTerminationRequested',
  'volumeSetUp',
  'faultInjected',
]);

export class PodNeverStarted implements Checker {
  readonly id = 'pod-never-started';
  readonly kinds: readonly FactKind[] = [
    'apiPodCreated',
    'apiPodDeleted',
    'apiPodDeletionRequested',
    'apiPodPhase',
    'containerCreated',
    'containerExited',
    'containerRemoved',
    'containerStarted',
    'containerStartFailed',
    'faultInjected',
    'killPodStarted',
    'kubeletStarted',
    'kubeletStopped',
    'lunFenced',
    'nodePartitioned',
    'nodePartitionHealed',
    'multiAttachError',
    'nodeShutdownStarted',
    'nodeVolumesInUse',
    'podAdmitted',
    'podTerminationRequested',
    'podWorkerPhase',
    'sandboxCreated',
    'volumeAttached',
    'volumeDetached',
    'volumeDetachFailed',
    'volumeDetachStarted',
    'volumeSetUp',
    'volumeTearDown',
  ];
  readonly #config: PodNeverStartedConfig;
  readonly #uids = new Map<string, UidState>();
  /** `node\0pod name` -> UIDs of static pods of that name on the node (their fullname: namespace default). */
  readonly #staticByName = new Map<string, Set<string>>();
  /** `node\0pod name` -> the UID that holds the name now (the target of a containerStart fault). */
  readonly #holder = new Map<string, string>();
  /** Volumes that may be attached to several nodes (ReadWriteMany, ReadOnlyMany): never held elsewhere. */
  readonly #multiAttach = new Set<string>();
  // Ground truth about who may hold a volume elsewhere (src/invariants/volumeHolds.ts).
  readonly #liveness = new NodeLiveness();
  readonly #inUse = new NodeVolumesInUseLog();
  readonly #wants = new VolumeWants();
  /**
   * volume -> node -> the controller's volumeAttached not yet followed by a volumeDetached or a fence of
   * the node's path (lunFenced fenced=true) there.
   */
  readonly #attached = new Map<string, Map<string, Attached>>();
  /** `volume\0node` -> the controller's last detach operation start or failure there. */
  readonly #detach = new Map<string, DetachFact>();
  /** `volume\0node` -> the controller's last Multi-Attach error for a pod waiting on that node. */
  readonly #multiAttachErrors = new Map<string, MultiAttachError>();
  /** volume -> the last end of its attachment (a detach or a fence), on any node. */
  readonly #lastDetached = new Map<string, DetachedFact>();

  constructor(config: PodNeverStartedConfig) {
    this.#config = config;
    for (const v of config.volumes ?? []) if (v.accessMode !== 'ReadWriteOnce') this.#multiAttach.add(v.name);
  }

  onFact(f: Fact): void {
    switch (f.kind) {
      case 'apiPodCreated':
        this.#wants.onFact(f);
        this.#created(f);
        return;
      case 'nodeVolumesInUse':
        this.#inUse.onFact(f);
        return;
      case 'volumeAttached': {
        let nodes = this.#attached.get(f.volume);
        if (nodes === undefined) {
          nodes = new Map();
          this.#attached.set(f.volume, nodes);
        }
        nodes.set(f.node, f);
        return;
      }
      case 'volumeDetached':
        this.#attached.get(f.volume)?.delete(f.node);
        this.#lastDetached.set(f.volume, f);
        this.#detach.delete(`${f.volume}\u0000${f.node}`);
        return;
      case 'lunFenced':
        // ControllerUnpublishVolume fenced the node's path: the volume is no longer attached there, whatever
        // the controller believes (a Detach that failed after acting, #120571). An unfence (attach) is
        // followed by the controller's volumeAttached, which records the attachment again.
        if (!f.fenced) return;
        this.#attached.get(f.volume)?.delete(f.node);
        this.#lastDetached.set(f.volume, f);
        return;
      case 'volumeDetachStarted':
      case 'volumeDetachFailed':
        this.#detach.set(`${f.volume}\u0000${f.node}`, f);
        return;
      case 'multiAttachError':
        this.#multiAttachErrors.set(`${f.volume}\u0000${f.node}`, f);
        return;
      case 'podAdmitted': {
        const s = this.#uids.get(f.uid);
        if (s === undefined) return;
        remember(s, f);
        this.#admitted(s, f.node, f.atMs);
        return;
      }
      case 'podWorkerPhase': {
        const s = this.#uids.get(f.uid);
        if (s === undefined) return;
        remember(s, f);
        if (f.phase === 'sync') {
          // A worker that syncs the pod has admitted it too (a restart of a re-created UID, #104847).
          this.#admitted(s, f.node, f.atMs);
          s.inSlot = true;
        }
        if (f.phase === 'finished') {
          s.inSlot = false;
          s.awaitingFinish = false;
          if (s.current !== undefined) s.current.oldAwaitingFinish = false;
        }
        this.#update(s, f.atMs);
        return;
      }
      case 'containerStarted': {
        const s = this.#uids.get(f.uid);
        if (s === undefined) return;
        s.running.add(f.container);
        s.exits.delete(f.container);
        s.current?.started.add(f.container);
        remember(s, f);
        this.#update(s, f.atMs);
        return;
      }
      case 'containerExited':
      case 'containerRemoved': {
        const s = this.#uids.get(f.uid);
        if (s === undefined) return;
        s.running.delete(f.container);
        s.current?.oldRunning.delete(f.container);
        if (f.kind === 'containerExited') {
          s.exits.set(f.container, f.exitCode);
          remember(s, f);
        }
        this.#update(s, f.atMs);
        return;
      }
      case 'containerStartFailed': {
        const s = this.#uids.get(f.uid);
        if (s === undefined) return;
        remember(s, f);
        // The runtime holds the attempt exited with code 128 (StartError): a static pod put back with the
        // same UID finds it there, and ShouldContainerBeRestarted does not run it again under Never.
        s.exits.set(f.container, 128);
        // computePodActions restarts a dead container only if the restart policy allows: under Never
        // the container that failed to start stays exited, and the pod runs without it.
        if (s.current?.created.restartPolicy === 'Never') s.current.startFailed.add(f.container);
        return;
      }
      case 'volumeSetUp': {
        const s = this.#uids.get(f.uid);
        if (s === undefined) return;
        s.volumes.add(f.volume);
        remember(s, f);
        this.#volumesChanged(s, f.atMs);
        return;
      }
      case 'volumeTearDown': {
        const s = this.#uids.get(f.uid);
        if (s === undefined || !f.ok) return;
        s.volumes.delete(f.volume);
        this.#volumesChanged(s, f.atMs);
        return;
      }
      case 'podTerminationRequested': {
        const s = this.#uids.get(f.uid);
        if (s === undefined) return;
        remember(s, f);
        // A release-1.23 worker publishes podWorkerPhase 'finished' once done. (A release-1.20 request
        // is followed by none: a UID re-created after it waits for the next kubelet process.)
        s.awaitingFinish = true;
        this.#terminating(s);
        this.#update(s, f.atMs);
        return;
      }
      case 'apiPodDeletionRequested':
      case 'apiPodDeleted': {
        this.#wants.onFact(f);
        const s = this.#uids.get(f.uid);
        if (s === undefined) return;
        remember(s, f);
        this.#terminating(s);
        return;
      }
      case 'apiPodPhase': {
        this.#wants.onFact(f);
        const s = this.#uids.get(f.uid);
        if (s === undefined || (f.phase !== 'Failed' && f.phase !== 'Succeeded')) return;
        this.#terminating(s);
        return;
      }
      case 'nodeShutdownStarted':
        // Every pod on the node is killed (processShutdownEvent); a pod created later is not.
        for (const s of this.#uids.values()) if (s.node === f.node) this.#terminating(s);
        return;
      case 'nodePartitioned':
      case 'nodePartitionHealed':
        this.#liveness.onFact(f);
        return;
      case 'kubeletStarted':
      case 'kubeletStopped':
        this.#liveness.onFact(f);
        // A new kubelet process knows nothing: it admits its pods again, and its workers start afresh.
        for (const s of this.#uids.values()) {
          if (s.node !== f.node) continue;
          s.awaitingFinish = false;
          s.inSlot = false;
          if (s.current !== undefined) {
            s.current.admittedAtMs = undefined;
            s.current.oldAwaitingFinish = false;
          }
          this.#update(s, f.atMs);
        }
        return;
      case 'killPodStarted':
      case 'sandboxCreated':
      case 'containerCreated': {
        const s = this.#uids.get(f.uid);
        if (s !== undefined) remember(s, f);
        return;
      }
      case 'faultInjected': {
        if (f.fault !== 'containerStart' || f.pod === undefined) return;
        const uid = this.#holder.get(`${f.node}\u0000${f.pod}`);
        const s = uid === undefined ? undefined : this.#uids.get(uid);
        const inc = s?.current;
        if (s === undefined || inc === undefined) return;
        remember(s, f);
        // The next container start of the pod waits for the delay; a failed start is retried after the
        // crash-loop back-off.
        inc.floorMs = Math.max(inc.floorMs, f.atMs + (f.delayMs ?? 0));
        if (f.error !== undefined) inc.startErrorInjected = true;
        return;
      }
      default:
        return;
    }
  }

  onEnd(endMs: number, report: (v: Violation) => void): void {
    if (this.#config.faultsActiveAtEnd()) return;
    for (const s of this.#uids.values()) {
      const inc = s.current;
      if (inc === undefined || inc.terminating) continue;
      // A UID created again keeps its old containers' exits (the new incarnation started none of these):
      // computePodActions does not start one its restart policy does not restart (ShouldContainerBeRestarted;
      // a new sandbox skips an OnFailure container that succeeded), and a pod that all of them left in a
      // terminal phase (kubelet_pods.go getPhase) is not restarted at all (HandlePodCleanups,
      // isAdmittedPodTerminal, #104847).
      const done = (c: string): boolean => inc.reused && doneByExit(inc.created, s.exits.get(c));
      const missing = inc.created.containers.filter(
        (c) => !inc.started.has(c) && !inc.startFailed.has(c) && !done(c),
      );
      if (missing.length === 0) continue;
      if (inc.admittedAtMs === undefined) continue;
      if (inc.volumesReadyAtMs === undefined) {
        const v = this.#volumeWait(s, inc, inc.admittedAtMs, missing, endMs);
        if (v !== undefined) report(v);
        continue;
      }
      if (inc.oldHeld) continue;
      let clockMs = Math.max(inc.admittedAtMs, inc.volumesReadyAtMs, inc.floorMs);
      let blocked = false;
      for (const other of this.#predecessors(s)) {
        if (holdsSlot(other)) blocked = true;
        clockMs = Math.max(clockMs, other.releasedAtMs);
      }
      if (blocked) continue;
      const boundMs =
        POD_START_BOUND_MS +
        inc.created.startDelayMs +
        (inc.startErrorInjected ? START_ERROR_ALLOWANCE_MS : 0);
      if (endMs < clockMs + boundMs) continue;
      const c = inc.created;
      report({
        invariant: this.id,
        atMs: endMs,
        node: s.node,
        pod: c.pod,
        uid: s.uid,
        volume: null,
        message:
          `${c.static ? 'static ' : ''}pod ${c.pod} (uid ${s.uid}) was admitted at ${secs(inc.admittedAtMs)} ` +
          `and could start from ${secs(clockMs)}, but container(s) ${missing.join(', ')} never started by the ` +
          `end (${secs(endMs)}, bound ${secs(boundMs)}, not terminating, no fault active)`,
        causes: [...new Set<Fact>([c, ...s.recent])].sort((a, b) => a.atMs - b.atMs),
      });
    }
  }

  /**
   * A pod that waits for volumes: judged only when every volume it lacks is still attached (as the
   * attach/detach controller published it) to other nodes none of which holds it legitimately any more,
   * and the end lies VOLUME_RELEASE_BOUND_MS past the moment the last of them stopped holding it. A node
   * holds a volume legitimately while an API pod there wants it (a deleting pod still does: on a node
   * whose kubelet is gone it stays Terminating for ever and the volume with it, as upstream), and while
   * its node status lists the volume in volumesInUse unless the node is not Ready (then the controller
   * force-detaches maxWaitForUnmountDuration after the last pod there stopped wanting it; a Ready node
   * keeps a volume it still has mounted for ever, #110721; with --disable-force-detach-on-timeout every
   * node does, #120344). A Multi-Attach wait behind a pod that still
   * uses the volume is upstream behaviour and is never judged.
   */
  #volumeWait(
    s: UidState,
    inc: Incarnation,
    admittedAtMs: number,
    missing: readonly string[],
    endMs: number,
  ): Violation | undefined {
    const c = inc.created;
    let freeFromMs = Math.max(admittedAtMs, c.atMs);
    const reasons: string[] = [];
    let first: string | null = null;
    const causes = new Set<Fact>([c]);
    /** The attach waits, judged apart (#attachWait); undefined once one of them is not judged. */
    let attachDueMs = 0;
    const attachReasons: string[] = [];
    for (const volume of c.volumes) {
      if (s.volumes.has(volume)) continue;
      const attached = this.#attached.get(volume);
      const holders: Attached[] = [];
      for (const [node, f] of attached ?? []) if (node !== s.node) holders.push(f);
      // Attached nowhere else (or attachable to many nodes): what it waits for is the controller's attach.
      if (this.#multiAttach.has(volume) || holders.length === 0) {
        const wait = this.#attachWait(s, inc, admittedAtMs, volume);
        if (wait === undefined) return undefined;
        attachDueMs = Math.max(attachDueMs, wait.fromMs + ATTACH_BOUND_MS);
        for (const f of wait.causes) causes.add(f);
        first ??= volume;
        attachReasons.push(wait.reason);
        continue;
      }
      // Any pod that wants the volume on another node holds it (a Multi-Attach error for as long as it
      // lives), whether or not the volume is attached there yet.
      for (const node of this.#wants.nodesOf(volume)) {
        if (node === s.node) continue;
        if (this.#wants.lateWanters(volume, node).length > 0) return undefined;
      }
      const whys: string[] = [];
      for (const held of holders) {
        const node = held.node;
        const lateEnd = this.#wants.lateEnd(volume, node);
        const unwantedFromMs = lateEnd?.atMs ?? 0;
        const unwanted =
          lateEnd === undefined
            ? 'no pod ever wanted it there'
            : `no pod wants it there since ${secs(lateEnd.atMs)} (${lateEnd.pod} ${lateEnd.kind === 'apiPodDeleted' ? 'left the API server' : 'turned terminal'})`;
        if (lateEnd !== undefined) causes.add(lateEnd);
        causes.add(held);
        const listed = this.#inUse.listedSince(node, volume);
        let releasedMs: number;
        let why: string;
        if (listed !== undefined) {
          // A node that may be Ready keeps a volume it lists in use (the safe-to-detach check, #110721);
          // with --disable-force-detach-on-timeout any node does (#120344).
          if (this.#config.disableForceDetachOnTimeout === true) return undefined;
          if (!this.#liveness.surelyNotReady(node, endMs)) return undefined;
          const down = this.#liveness.last(node);
          const notReadyMs = (down?.atMs ?? 0) + nodeMonitorGracePeriodMs;
          releasedMs = Math.max(unwantedFromMs + MAX_WAIT_FOR_UNMOUNT_MS, notReadyMs);
          if (down !== undefined) causes.add(down);
          causes.add(listed);
          why =
            `${unwanted}; ${node}'s kubelet is down since ${secs(down?.atMs ?? 0)} (not Ready from ` +
            `${secs(notReadyMs)}) and its node status still lists the volume in use (since ${secs(listed.atMs)}), ` +
            `so a force detach was due at ${secs(releasedMs)} (maxWaitForUnmountDuration ${secs(MAX_WAIT_FOR_UNMOUNT_MS)})`;
        } else {
          const dropped = this.#inUse.droppedBy(node, volume);
          releasedMs = Math.max(unwantedFromMs, dropped?.atMs ?? 0);
          if (dropped !== undefined) causes.add(dropped);
          why = `${unwanted}; ${node}'s node status does not list it in volumesInUse${dropped === undefined ? '' : ` (since ${secs(dropped.atMs)})`}`;
        }
        const last = this.#detach.get(`${volume}\u0000${node}`);
        if (last !== undefined) causes.add(last);
        const detach =
          last === undefined
            ? 'no detach ever started'
            : last.kind === 'volumeDetachFailed'
              ? `the last detach failed at ${secs(last.atMs)}: ${last.error}`
              : `a detach started at ${secs(last.atMs)}${last.forced ? ' (forced)' : ''} and never finished`;
        freeFromMs = Math.max(freeFromMs, releasedMs);
        whys.push(`${why}; ${detach}`);
      }
      const mae = this.#multiAttachErrors.get(`${volume}\u0000${s.node}`);
      const since =
        mae !== undefined && mae.atMs >= c.atMs ? ` (Multi-Attach error since ${secs(mae.atMs)})` : '';
      if (since !== '' && mae !== undefined) causes.add(mae);
      first ??= volume;
      reasons.push(
        `volume ${volume}, still attached to ${holders.map((h) => h.node).join(', ')}${since}: ${whys.join('; ')}`,
      );
    }
    if (reasons.length === 0 && attachReasons.length === 0) return undefined;
    const releaseDueMs = reasons.length === 0 ? 0 : freeFromMs + VOLUME_RELEASE_BOUND_MS;
    if (endMs < Math.max(releaseDueMs, attachDueMs)) return undefined;
    for (const f of s.recent) causes.add(f);
    const tail = `container(s) ${missing.join(', ')} never started by the end (${secs(endMs)}`;
    if (reasons.length === 0) {
      return {
        invariant: this.id,
        atMs: endMs,
        node: s.node,
        pod: c.pod,
        uid: s.uid,
        volume: first,
        message:
          `pod ${c.pod} (uid ${s.uid}) was admitted at ${secs(admittedAtMs)} and waits for ${attachReasons.join('; and for ')}. ` +
          `The attach/detach controller should have attached it by ${secs(attachDueMs)}, but ${tail}, bound ` +
          `${secs(ATTACH_BOUND_MS)}, not terminating, no fault active)`,
        causes: [...causes].sort((a, b) => a.atMs - b.atMs),
      };
    }
    reasons.push(...attachReasons);
    return {
      invariant: this.id,
      atMs: endMs,
      node: s.node,
      pod: c.pod,
      uid: s.uid,
      volume: first,
      message:
        `pod ${c.pod} (uid ${s.uid}) was admitted at ${secs(admittedAtMs)} and waits for ${reasons.join('; and for ')}. ` +
        `The volume should have been free from ${secs(freeFromMs)}, but container(s) ${missing.join(', ')} never ` +
        `started by the end (${secs(endMs)}, bound ${secs(VOLUME_RELEASE_BOUND_MS)}, not terminating, no fault active)`,
      causes: [...causes].sort((a, b) => a.atMs - b.atMs),
    };
  }

  /**
   * A volume the pod waits for that is attached to no other node (or may be attached to many): upstream's
   * attach/detach controller adds a scheduled pod's volumes to its desired state as the pod informer
   * delivers the pod (podAdd, util.DetermineVolumeAction: wanted until volumeutil.IsPodTerminated) and its
   * reconciler (every 100 ms) attaches each wanted volume that is not attached to that node
   * (attachDesiredVolumes), unless a ReadWriteOnce volume is attached elsewhere (a Multi-Attach error).
   * Judged only while the volume is not attached to the pod's node either, and no pod wants a
   * ReadWriteOnce one on another node (the controller may attach it there first): the clock starts at the
   * pod's creation and admission, the volume's last detach anywhere and the last want of it elsewhere.
   * Not judged: a static pod (the controller sees no static pod), a volume already attached here (the
   * kubelet's mount).
   */
  #attachWait(
    s: UidState,
    inc: Incarnation,
    admittedAtMs: number,
    volume: string,
  ): { fromMs: number; reason: string; causes: Fact[] } | undefined {
    const c = inc.created;
    if (c.static || this.#attached.get(volume)?.has(s.node) === true) return undefined;
    let fromMs = Math.max(admittedAtMs, c.atMs);
    const causes: Fact[] = [];
    const whys: string[] = [];
    if (!this.#multiAttach.has(volume)) {
      for (const node of this.#wants.nodesOf(volume)) {
        if (node === s.node) continue;
        if (this.#wants.lateWanters(volume, node).length > 0) return undefined;
        const end = this.#wants.lateEnd(volume, node);
        if (end === undefined || end.atMs <= fromMs) continue;
        fromMs = end.atMs;
        causes.push(end);
        whys.push(`no pod wants it on ${node} since ${secs(end.atMs)}`);
      }
    }
    const detached = this.#lastDetached.get(volume);
    if (detached !== undefined) {
      causes.push(detached);
      whys.push(
        detached.kind === 'lunFenced'
          ? `${detached.node}'s path to it fenced at ${secs(detached.atMs)}`
          : `detached from ${detached.node} at ${secs(detached.atMs)}`,
      );
      fromMs = Math.max(fromMs, detached.atMs);
    }
    // A detach from this node that failed after the fence: the controller may believe it still attached.
    const failed = this.#detach.get(`${volume}\u0000${s.node}`);
    if (failed?.kind === 'volumeDetachFailed' && detached?.kind === 'lunFenced' && detached.node === s.node) {
      causes.push(failed);
      whys.push(`the controller's detach from ${s.node} failed at ${secs(failed.atMs)}: ${failed.error}`);
    }
    const where = this.#multiAttach.has(volume) ? 'not attached to it' : 'attached to no node';
    const reason =
      `volume ${volume}, ${where}${whys.length === 0 ? '' : ` (${whys.join('; ')})`}: wanted on ${s.node} ` +
      `since ${secs(fromMs)}, never attached there`;
    return { fromMs, reason, causes };
  }

  #created(f: Created): void {
    let s = this.#uids.get(f.uid);
    if (s === undefined) {
      s = {
        uid: f.uid,
        node: f.node,
        running: new Set(),
        exits: new Map(),
        volumes: new Set(),
        awaitingFinish: false,
        inSlot: false,
        holding: false,
        releasedAtMs: f.atMs,
        current: undefined,
        recent: [],
      };
      this.#uids.set(f.uid, s);
    }
    // A UID created again (a static pod put back from its manifest) waits for its old lifecycle to end.
    const inc: Incarnation = {
      created: f,
      started: new Set(),
      startFailed: new Set(),
      terminating: false,
      reused: s.current !== undefined,
      admittedAtMs: undefined,
      volumesReadyAtMs: undefined,
      oldRunning: new Set(s.running),
      oldAwaitingFinish: s.awaitingFinish,
      oldHeld: s.running.size > 0 || s.awaitingFinish,
      floorMs: f.atMs,
      startErrorInjected: false,
    };
    s.current = inc;
    s.recent.length = 0;
    remember(s, f);
    this.#volumesChanged(s, f.atMs);
    this.#holder.set(`${f.node}\u0000${f.pod}`, f.uid);
    if (f.static) {
      const key = `${f.node}\u0000${f.pod}`;
      const set = this.#staticByName.get(key) ?? new Set<string>();
      set.add(f.uid);
      this.#staticByName.set(key, set);
    }
  }

  #admitted(s: UidState, node: string, atMs: number): void {
    if (s.current === undefined) return;
    if (s.node === '') s.node = node;
    if (s.node === node) s.current.admittedAtMs ??= atMs;
  }

  #terminating(s: UidState): void {
    if (s.current !== undefined) s.current.terminating = true;
  }

  #volumesChanged(s: UidState, atMs: number): void {
    const inc = s.current;
    if (inc === undefined) return;
    const complete = inc.created.volumes.every((v) => s.volumes.has(v));
    if (!complete) inc.volumesReadyAtMs = undefined;
    else if (inc.volumesReadyAtMs === undefined)
      inc.volumesReadyAtMs = inc.created.volumes.length === 0 ? -1 : atMs;
  }

  /** Records the end of a slot holding, and of the same UID's previous lifecycle. */
  #update(s: UidState, atMs: number): void {
    const holding = holdsSlot(s);
    if (s.holding && !holding) s.releasedAtMs = atMs;
    s.holding = holding;
    const inc = s.current;
    if (inc?.oldHeld && inc.oldRunning.size === 0 && !inc.oldAwaitingFinish) {
      inc.oldHeld = false;
      inc.floorMs = Math.max(inc.floorMs, atMs);
    }
  }

  /** The other static UIDs of the same name on the same node. */
  *#predecessors(s: UidState): Iterable<UidState> {
    const c = s.current?.created;
    if (c === undefined || !c.static) return;
    for (const uid of this.#staticByName.get(`${s.node}\u0000${c.pod}`) ?? []) {
      const other = this.#uids.get(uid);
      if (other !== undefined && uid !== s.uid) yield other;
    }
  }
}

/**
 * A static pod holds its fullname's start slot while a container of it runs, or while its worker, once
 * allowed to start, has not finished. One that was never allowed to start holds nothing: a pod terminated
 * before it started must not block the next one (#107900).
 */
function holdsSlot(s: UidState): boolean {
  return s.running.size > 0 || s.inSlot;
}

function remember(s: UidState, f: Fact): void {
  if (!LIFECYCLE.has(f.kind)) return;
  s.recent.push(f);
  if (s.recent.length > RECENT) s.recent.shift();
}
