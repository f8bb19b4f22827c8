// volume-detached-while-in-use: the attach/detach controller detached a volume from a node (its detach
// operation succeeded, volumeDetached, or for CSI fenced the node's path, lunFenced) while that node's
// status in the API server listed the volume in volumesInUse, and either the node was Ready or the
// force-detach timeout (maxWaitForUnmountDuration, 6 min from when no pod wanted the volume there any
// more) had not passed. Upstream: before the timeout, the detach operation's verifyVolumeIsSafeToDetach
// (operation_generator.go) fails with "volume is still in use by node, according to Node status"; after
// it, PR #110721 (reconciler.go: forceDetach := !isHealthy && timeout) force-detaches only from a node
// that is not Ready. Everything is judged from ground truth: the node object's volumesInUse
// (nodeVolumesInUse), the API pods (the controller's desired state follows them), and the node's Lease
// (its kubelet's lifecycle); never from the controller's `forced` flag. Catches #106710 (release-1.23's
// force detach from a healthy node, switch `no-force-detach-healthy-node`) and any port bug that skips
// the safe-to-detach check or starts the force-detach clock too early.
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

/**
 * The node's status must list the volume from this long before the detach operation started: the
 * controller's node informer (delivery up to 60 ms) and the reconciler's snapshot of its attached volumes
 * (taken at the start of a pass that may wait on API calls) may not have seen a listing that new, and past
 * the timeout the operation does not read the node object again.
 */
export const IN_USE_SLACK_MS = 1_000;

const byTime = (a: Fact, b: Fact): number => a.atMs - b.atMs;

export class VolumeDetachedWhileInUse implements Checker {
  readonly id = 'volume-detached-while-in-use';
  readonly kinds: readonly FactKind[] = [
    'apiPodCreated',
    'apiPodDeleted',
    'apiPodDeletionRequested',
    'apiPodPhase',
    'kubeletStarted',
    'kubeletStopped',
    'lunFenced',
    'nodeVolumesInUse',
    'volumeDetached',
    'volumeDetachFailed',
    'volumeDetachStarted',
  ];
  readonly #liveness = new NodeLiveness();
  readonly #inUse = new NodeVolumesInUseLog();
  readonly #wants = new VolumeWants();
  /** `volume\0node` -> the detach operation started and not yet finished. */
  readonly #detaching = new Map<string, DetachStarted>();

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
        this.#liveness.onFact(f);
        return;
      case 'nodeVolumesInUse':
        this.#inUse.onFact(f);
        return;
      case 'volumeDetachStarted':
        this.#detaching.set(`${f.volume}\u0000${f.node}`, f);
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

  #judge(f: Extract<Fact, { kind: 'volumeDetached' | 'lunFenced' }>, report: (v: Violation) => void): void {
    const started = this.#detaching.get(`${f.volume}\u0000${f.node}`);
    const startMs = started?.atMs ?? f.atMs;
    const fromMs = startMs - IN_USE_SLACK_MS;
    const listed = this.#inUse.listedSince(f.node, f.volume);
    if (listed === undefined || listed.atMs > fromMs) return;
    const ready = this.#liveness.surelyReady(f.node, fromMs, f.atMs);
    const unwantedMs = this.#wants.earlyUnwantedForMs(f.volume, f.node, startMs);
    const early = unwantedMs <= MAX_WAIT_FOR_UNMOUNT_MS;
    if (!ready && !early) return;
    const life = this.#liveness.last(f.node);
    const health =
      life === undefined
        ? ''
        : life.kind === 'kubeletStarted'
          ? `, ${f.node} Ready (its kubelet running since ${secs(life.atMs)})`
          : `, ${f.node} ${ready ? 'Ready' : this.#liveness.surelyNotReady(f.node, f.atMs) ? 'not Ready' : 'possibly not Ready'} (its kubelet down since ${secs(life.atMs)}${ready ? `, less than ${secs(SURELY_READY_DOWN_MS)}` : ''})`;
    const timer =
      unwantedMs === 0
        ? `a pod still wants it there`
        : `no pod wanted it there for ${secs(unwantedMs)} at most when the detach started (maxWaitForUnmountDuration ${secs(MAX_WAIT_FOR_UNMOUNT_MS)}${early ? ' not passed' : ' passed'})`;
    const rule = early
      ? 'verifyVolumeIsSafeToDetach must refuse it: "volume is still in use by node, according to Node status"'
      : 'after maxWaitForUnmountDuration only a node that is not Ready may lose a mounted volume (#110721)';
    const claim =
      started === undefined
        ? 'no volumeDetachStarted'
        : `the controller started it at ${secs(started.atMs)}${started.forced ? ' as forced' : ''}${started.verifySafeToDetach ? '' : ' without the safe-to-detach check'}`;
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
        `the attach/detach controller ${f.kind === 'lunFenced' ? 'fenced' : 'detached'} volume ${f.volume} from ${f.node} ` +
        `at ${secs(f.atMs)} while ${f.node}'s node status listed it in volumesInUse (since ${secs(listed.atMs)})` +
        `${health}; ${timer}: ${rule} (${claim})`,
      causes: [...new Set(causes)].sort(byTime),
    });
  }
}
