// volume-detached-while-in-use: the attach/detach controller detached a volume from a node, or started
// to, while the node had not said it no longer uses it. Three steps are judged: the reconciler taking
// the volume off the node's status.volumesAttached (nodeVolumesAttached), the detach operation's start
// (volumeDetachStarted), and the detach itself (volumeDetached, or for CSI the fence, lunFenced). At
// each, the node's status in the API server listing the volume in volumesInUse (since 1 s before, or
// since before the volume's attach: "assume mounted, until proven otherwise") is a violation if the
// node was Ready or the force-detach timeout (maxWaitForUnmountDuration, 6 min from when no pod wanted
// the volume there any more) had not passed; and before the timeout a detach needs a read of the node
// object during the operation that did not list it (nodeStatusRead). Upstream: reconciler.go skips a
// volume MountedByNode unless timed out, the operation's verifyVolumeIsSafeToDetach
// (operation_generator.go) fails with "volume is still in use by node, according to Node status"; after
// the timeout, PR #110721 (reconciler.go: forceDetach := !isHealthy && timeout) force-detaches only from
// a node that is not Ready, and with kube-controller-manager --disable-force-detach-on-timeout (#120344,
// 1.30: forceDetachTimeoutExpired := maxWaitForUnmountDurationExpired && !rc.disableForceDetachOnTimeout)
// from no node at all: the timeout then never passes for this check. A node that carries the
// node.kubernetes.io/out-of-service taint (KEP-2268, reconciler.go from v1.28.0: `if MountedByNode &&
// !forceDetach && !hasOutOfServiceTaint`, `verifySafeToDetach := !(timeout || hasOutOfServiceTaint)`) loses
// its volumes at once by upstream's rule: no step taken while the node object carries it is judged here.
// Whether the node was really shut down, as upstream requires of whoever sets the taint, is what the
// ground-truth checkers judge (multi-node-mount, device-released-while-open). Everything is judged from ground truth: the node object as the API server
// stored and served it (nodeVolumesInUse, nodeVolumesAttached, nodeStatusRead), the API pods (the
// controller's desired state follows them), and the node's Lease (its kubelet's lifecycle); never from
// the controller's `forced` / `verifySafeToDetach` flags. Catches #106710 (release-1.23's force detach
// from a healthy node, switch `no-force-detach-healthy-node`) and port bugs that skip or misread the
// safe-to-detach check, start the force-detach clock too early, misjudge a node's health, or assume a
// new attachment unmounted.
import type { Fact, FactKind } from '../facts.js';
import { secs } from './format.js';
import type { Checker, Violation } from './types.js';
import {
  MAX_WAIT_FOR_UNMOUNT_MS,
  NodeLiveness,
  NodeVolumesInUseLog,
  SURELY_READY_DOWN_MS,
  VolumeWants,
} from './volumeHolds.js';

type DetachStarted = Extract<Fact, { kind: 'volumeDetachStarted' }>;
type VolumeAttached = Extract<Fact, { kind: 'volumeAttached' }>;
type NodeStatusRead = Extract<Fact, { kind: 'nodeStatusRead' }>;
type NodeVolumesAttached = Extract<Fact, { kind: 'nodeVolumesAttached' }>;

interface Detaching {
  readonly started: DetachStarted;
  /** The first read of the node object since the start that did not list the volume in use. */
  safeRead: NodeStatusRead | undefined;
  /** The last read since the start that listed it. */
  inUseRead: NodeStatusRead | undefined;
}

/**
 * The node's status must list the volume from this long before the detach operation started: the
 * controller's node informer (delivery up to 60 ms) and the reconciler's snapshot of its attached volumes
 * (taken at the start of a pass that may wait on API calls) may not have seen a listing that new, and past
 * the timeout the operation does not read the node object again.
 */
export const IN_USE_SLACK_MS = 1_000;

/**
 * The node informer delivers an update at most this long after the API server stored it (60 ms in
 * src/cluster/apiServer.ts, with margin): a listing this much older than an attach reached the controller
 * before the attach, so every update it processes after the attach lists the volume.
 */
export const INFORMER_SLACK_MS = 100;

const byTime = (a: Fact, b: Fact): number => a.atMs - b.atMs;

export interface VolumeDetachedWhileInUseOptions {
  /** --disable-force-detach-on-timeout: maxWaitForUnmountDuration never lets a listed volume go. */
  readonly disableForceDetachOnTimeout?: boolean;
}

export class VolumeDetachedWhileInUse implements Checker {
  readonly id = 'volume-detached-while-in-use';
  readonly #noForceDetach: boolean;

  constructor(o: VolumeDetachedWhileInUseOptions = {}) {
    this.#noForceDetach = o.disableForceDetachOnTimeout === true;
  }

  readonly kinds: readonly FactKind[] = [
    'apiPodCreated',
    'apiPodDeleted',
    'apiPodDeletionRequested',
    'apiPodPhase',
    'kubeletStarted',
    'kubeletStopped',
    'nodePartitioned',
    'nodePartitionHealed',
    'nodeTainted',
    'lunFenced',
    'nodeStatusRead',
    'nodeVolumesAttached',
    'nodeVolumesInUse',
    'volumeAttached',
    'volumeDetached',
    'volumeDetachFailed',
    'volumeDetachStarted',
  ];
  readonly #liveness = new NodeLiveness();
  readonly #inUse = new NodeVolumesInUseLog();
  readonly #wants = new VolumeWants();
  /** `volume\0node` -> the detach operation started and not yet finished. */
  readonly #detaching = new Map<string, Detaching>();
  /** `volume\0node` -> the controller's last attach of the volume there. */
  readonly #attached = new Map<string, VolumeAttached>();
  /** node -> the volumes its node object lists in status.volumesAttached (the controller's last patch). */
  readonly #reportedAttached = new Map<string, readonly string[]>();
  /** node -> the spans [from, until) in which its node object carried the out-of-service taint. */
  readonly #outOfService = new Map<string, { fromMs: number; untilMs: number }[]>();

  onFact(f: Fact, report: (v: Violation) => void): void {
    switch (f.kind) {
      case 'apiPodCreated':
      case 'apiPodDeletionRequested':
      case 'apiPodDeleted':
      case 'apiPodPhase':
        this.#wants.onFact(f);
        return;
      case 'kubeletStarted':
      case 'kubeletStopped':
      case 'nodePartitioned':
      case 'nodePartitionHealed':
        this.#liveness.onFact(f);
        return;
      case 'nodeVolumesInUse':
        this.#inUse.onFact(f);
        return;
      case 'nodeTainted': {
        const spans = this.#outOfService.get(f.node) ?? [];
        this.#outOfService.set(f.node, spans);
        const last = spans[spans.length - 1];
        const open = last !== undefined && last.untilMs === Number.POSITIVE_INFINITY;
        if (f.present && !open) spans.push({ fromMs: f.atMs, untilMs: Number.POSITIVE_INFINITY });
        else if (!f.present && last !== undefined && open) last.untilMs = f.atMs;
        return;
      }
      case 'volumeAttached':
        this.#attached.set(`${f.volume}\u0000${f.node}`, f);
        return;
      case 'nodeStatusRead':
        for (const d of this.#detaching.values()) {
          if (d.started.node !== f.node) continue;
          if (f.volumesInUse.includes(d.started.volume)) d.inUseRead = f;
          else d.safeRead ??= f;
        }
        return;
      case 'nodeVolumesAttached': {
        const before = this.#reportedAttached.get(f.node);
        this.#reportedAttached.set(f.node, f.volumes);
        if (before === undefined) return;
        for (const v of before) if (!f.volumes.includes(v)) this.#judgeUnreport(f, v, report);
        return;
      }
      case 'volumeDetachStarted':
        this.#judgeUnreport(f, f.volume, report);
        this.#detaching.set(`${f.volume}\u0000${f.node}`, {
          started: f,
          safeRead: undefined,
          inUseRead: undefined,
        });
        return;
      case 'volumeDetachFailed':
        this.#detaching.delete(`${f.volume}\u0000${f.node}`);
        return;
      case 'lunFenced':
        // ControllerUnpublishVolume, inside the detach operation: the node can no longer reach the LUN.
        if (f.fenced) this.#judge(f, report);
        return;
      case 'volumeDetached':
        this.#judge(f, report);
        this.#detaching.delete(`${f.volume}\u0000${f.node}`);
        return;
      default:
        return;
    }
  }

  onEnd(): void {}

  /** The node object carried the out-of-service taint at `atMs` (upstream skips both checks then). */
  #outOfServiceAt(node: string, atMs: number): boolean {
    const spans = this.#outOfService.get(node);
    return spans?.some((s) => s.fromMs <= atMs && atMs < s.untilMs) ?? false;
  }

  /** The node's health for a message: `, node-a Ready (its kubelet running since 0.00s)` or ''. */
  #health(node: string, ready: boolean, atMs: number): string {
    const life = this.#liveness.last(node);
    if (life === undefined) return '';
    if (life.kind === 'kubeletStarted' && this.#liveness.partitioned(node))
      return `, ${node} ${ready ? 'Ready' : this.#liveness.surelyNotReady(node, atMs) ? 'not Ready' : 'possibly not Ready'} (its kubelet running, cut off from the API server)`;
    if (life.kind === 'kubeletStarted')
      return `, ${node} Ready (its kubelet running since ${secs(life.atMs)})`;
    const state = ready
      ? 'Ready'
      : this.#liveness.surelyNotReady(node, atMs)
        ? 'not Ready'
        : 'possibly not Ready';
    return `, ${node} ${state} (its kubelet down since ${secs(life.atMs)}${ready ? `, less than ${secs(SURELY_READY_DOWN_MS)}` : ''})`;
  }

  #timer(unwantedMs: number, early: boolean, when: string): string {
    if (unwantedMs === 0) return `a pod still wants it there`;
    const timer =
      this.#noForceDetach && unwantedMs > MAX_WAIT_FOR_UNMOUNT_MS
        ? `passed, but --disable-force-detach-on-timeout is set (#120344)`
        : early
          ? 'not passed'
          : 'passed';
    return `no pod wanted it there for ${secs(unwantedMs)} at most when ${when} (maxWaitForUnmountDuration ${secs(MAX_WAIT_FOR_UNMOUNT_MS)} ${timer})`;
  }

  #judge(f: Extract<Fact, { kind: 'volumeDetached' | 'lunFenced' }>, report: (v: Violation) => void): void {
    const detaching = this.#detaching.get(`${f.volume}\u0000${f.node}`);
    const started = detaching?.started;
    const startMs = started?.atMs ?? f.atMs;
    // The reconciler chose verifySafeToDetach when it started the operation.
    if (this.#outOfServiceAt(f.node, startMs)) return;
    const fromMs = startMs - IN_USE_SLACK_MS;
    const unwantedMs = this.#wants.earlyUnwantedForMs(f.volume, f.node, startMs);
    const early = this.#noForceDetach || unwantedMs <= MAX_WAIT_FOR_UNMOUNT_MS;
    const what = f.kind === 'lunFenced' ? 'fenced' : 'detached';
    const claim =
      started === undefined
        ? 'no volumeDetachStarted'
        : `the controller started it at ${secs(started.atMs)}${started.forced ? ' as forced' : ''}${started.verifySafeToDetach ? '' : ' without the safe-to-detach check'}`;
    const listed = this.#inUse.listedSince(f.node, f.volume);
    if (listed !== undefined && listed.atMs <= fromMs) {
      const ready = this.#liveness.surelyReady(f.node, fromMs, f.atMs);
      if (ready || early) {
        const rule = early
          ? 'verifyVolumeIsSafeToDetach must refuse it: "volume is still in use by node, according to Node status"'
          : 'after maxWaitForUnmountDuration only a node that is not Ready may lose a mounted volume (#110721)';
        const life = this.#liveness.last(f.node);
        const causes: Fact[] = [listed];
        if (life !== undefined) causes.push(life);
        if (started !== undefined) causes.push(started);
        causes.push(f);
        report({
          invariant: this.id,
          atMs: f.atMs,
          node: f.node,
          pod: null,
          uid: null,
          volume: f.volume,
          message:
            `the attach/detach controller ${what} volume ${f.volume} from ${f.node} ` +
            `at ${secs(f.atMs)} while ${f.node}'s node status listed it in volumesInUse (since ${secs(listed.atMs)})` +
            `${this.#health(f.node, ready, f.atMs)}; ${this.#timer(unwantedMs, early, 'the detach started')}: ${rule} (${claim})`,
          causes: [...new Set(causes)].sort(byTime),
        });
        return;
      }
    }
    // Before the timeout the detach operation must first read the node object from the API server and
    // find the volume not in use (verifyVolumeIsSafeToDetach); judged for operations seen to start.
    if (!early || detaching === undefined || detaching.safeRead !== undefined) return;
    const inUseRead = detaching.inUseRead;
    const causes: Fact[] = [];
    if (inUseRead !== undefined) causes.push(inUseRead);
    causes.push(detaching.started, f);
    report({
      invariant: this.id,
      atMs: f.atMs,
      node: f.node,
      pod: null,
      uid: null,
      volume: f.volume,
      message:
        `the attach/detach controller ${what} volume ${f.volume} from ${f.node} at ${secs(f.atMs)} ` +
        (inUseRead === undefined
          ? `without reading ${f.node}'s node object since the detach started`
          : `although ${f.node}'s node object, read at ${secs(inUseRead.atMs)}, listed it in volumesInUse`) +
        `; ${this.#timer(unwantedMs, early, 'the detach started')}: verifyVolumeIsSafeToDetach must read the node ` +
        `and refuse a volume "still in use by node, according to Node status" (${claim})`,
      causes: causes.sort(byTime),
    });
  }

  /**
   * The controller took the volume off the node's status.volumesAttached, the first step of a detach
   * ("Update Node Status to indicate volume is no longer safe to mount"): the reconciler does it only for
   * a volume the node no longer has mounted by its volumesInUse (MountedByNode false), unless the
   * force-detach rule lets a mounted one go.
   */
  #judgeUnreport(
    f: NodeVolumesAttached | DetachStarted,
    volume: string,
    report: (v: Violation) => void,
  ): void {
    const listed = this.#inUse.listedSince(f.node, volume);
    if (listed === undefined || this.#outOfServiceAt(f.node, f.atMs)) return;
    const attached = this.#attached.get(`${volume}\u0000${f.node}`);
    // Listed since before the attach: MountedByNode, true from the attach ("assume mounted, until proven
    // otherwise"), never turned false. Else the listing must be older than the reconciler's view.
    const sinceAttach = attached !== undefined && listed.atMs <= attached.atMs - INFORMER_SLACK_MS;
    const fromMs = f.atMs - IN_USE_SLACK_MS;
    if (!sinceAttach && listed.atMs > fromMs) return;
    const ready = this.#liveness.surelyReady(f.node, Math.min(fromMs, listed.atMs), f.atMs);
    const unwantedMs = this.#wants.earlyUnwantedForMs(volume, f.node, f.atMs);
    const early = this.#noForceDetach || unwantedMs <= MAX_WAIT_FOR_UNMOUNT_MS;
    if (!ready && !early) return;
    const rule = early
      ? 'before maxWaitForUnmountDuration the reconciler starts a detach only once the node no longer reports the volume mounted (MountedByNode)'
      : 'after maxWaitForUnmountDuration only a node that is not Ready may lose a mounted volume (#110721)';
    const life = this.#liveness.last(f.node);
    const causes: Fact[] = [listed];
    if (attached !== undefined) causes.push(attached);
    if (life !== undefined) causes.push(life);
    causes.push(f);
    report({
      invariant: this.id,
      atMs: f.atMs,
      node: f.node,
      pod: null,
      uid: null,
      volume,
      message:
        `the attach/detach controller ${f.kind === 'volumeDetachStarted' ? `started detaching volume ${volume} from ${f.node}` : `took volume ${volume} off ${f.node}'s volumesAttached to detach it`} at ${secs(f.atMs)} ` +
        `while ${f.node}'s node status listed it in volumesInUse (since ${secs(listed.atMs)}` +
        `${sinceAttach && attached !== undefined ? `, before its attach at ${secs(attached.atMs)}` : ''})` +
        `${this.#health(f.node, ready, f.atMs)}; ${this.#timer(unwantedMs, early, 'it did')}: ${rule}`,
      causes: [...new Set(causes)].sort(byTime),
    });
  }
}
