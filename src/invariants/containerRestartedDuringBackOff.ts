// container-restarted-during-back-off: the runtime gets a new attempt of a container sooner after the
// newest attempt's exit than the kubelet's crash-loop back-off allows (ground truth: the runtime's
// containerCreated / containerExited / containerStartFailed / containerRemoved). Upstream, release-1.23
// kuberuntime_manager.go doBackOff, on every start of a container the runtime still lists an exited
// attempt of: `backOff.IsInBackOffSince(key, cStatus.FinishedAt)` skips the start (CrashLoopBackOff) while
// less than the key's window has passed since that exit, otherwise `backOff.Next` moves the window (10 s,
// doubling to MaxContainerBackOff, 5 min: kubelet.go) and the container is created. The window starts
// over once a key was quiet for twice the maximum (flowcontrol hasExpired, and HandlePodCleanups'
// backOff.GC()), and a new kubelet process starts with none. The checker replays that window from the
// creations it sees; where its view and the kubelet's may differ (the kubelet updates the window a moment
// before the runtime creates the attempt), it takes the kubelet's side: near the expiry it starts over.
// Not judged: a start with no exited attempt listed (a first start, or every exited attempt removed by
// the garbage collector: doBackOff has nothing to go by), and a start after an attempt the kubelet itself
// stopped (SyncPod kills for a changed sandbox and then starts the containers from the status it read
// before the kill, which shows the stopped attempt running: doBackOff goes by an older exit, if any).
// Keyed by node, UID and container name.
import type { Fact, FactKind } from '../facts.js';
import { secs } from './format.js';
import type { Checker, Violation } from './types.js';

type Exit = Extract<Fact, { kind: 'containerExited' | 'containerStartFailed' }>;

/** kubelet.go backOffPeriod and MaxContainerBackOff. */
export const BACK_OFF_PERIOD_MS = 10_000;
export const MAX_CONTAINER_BACK_OFF_MS = 300_000;
/**
 * How much earlier than the creation the kubelet may have moved the window (doBackOff runs just before
 * CreateContainer), and how much later its housekeeping may forget it: near the expiry, the benefit of
 * the doubt.
 */
const SLACK_MS = 30_000;

interface ContainerState {
  /** Attempts the runtime holds (created, not yet removed). */
  attempts: number;
  /** The newest attempt's exit on its own while it is the newest and the runtime holds an attempt. */
  exited: Exit | undefined;
  /** The kubelet is stopping the newest attempt. */
  stopping: boolean;
  /** The back-off window, as Next left it, and when (the creation it allowed); undefined: none. */
  backOffMs: number | undefined;
  lastUpdateMs: number;
}

export class ContainerRestartedDuringBackOff implements Checker {
  readonly id = 'container-restarted-during-back-off';
  readonly kinds: readonly FactKind[] = [
    'containerCreated',
    'containerExited',
    'containerRemoved',
    'containerStartFailed',
    'containerStopping',
    'kubeletStarted',
  ];
  /** node/uid/container -> state. */
  readonly #containers = new Map<string, ContainerState>();

  onFact(f: Fact, report: (v: Violation) => void): void {
    switch (f.kind) {
      case 'kubeletStarted':
        // A new kubelet process: an empty back-off (the runtime's attempts stay).
        for (const [k, s] of this.#containers) if (k.startsWith(`${f.node}/`)) s.backOffMs = undefined;
        return;
      case 'containerStopping':
        this.#state(f.node, f.uid, f.container).stopping = true;
        return;
      case 'containerExited':
      case 'containerStartFailed': {
        const s = this.#state(f.node, f.uid, f.container);
        s.exited = s.stopping ? undefined : f;
        s.stopping = false;
        return;
      }
      case 'containerRemoved': {
        const s = this.#containers.get(key(f.node, f.uid, f.container));
        if (s === undefined) return;
        s.attempts--;
        if (s.attempts <= 0) {
          s.attempts = 0;
          s.exited = undefined;
        }
        return;
      }
      case 'containerCreated': {
        const s = this.#state(f.node, f.uid, f.container);
        const exited = s.exited;
        s.attempts++;
        s.exited = undefined;
        s.stopping = false;
        if (exited === undefined) return;
        const known =
          s.backOffMs !== undefined &&
          exited.atMs - s.lastUpdateMs <= 2 * MAX_CONTAINER_BACK_OFF_MS - SLACK_MS &&
          f.atMs - s.lastUpdateMs <= 2 * MAX_CONTAINER_BACK_OFF_MS - SLACK_MS;
        const windowMs = known ? (s.backOffMs ?? 0) : 0;
        if (f.atMs - exited.atMs < windowMs) {
          report({
            invariant: this.id,
            atMs: f.atMs,
            node: f.node,
            pod: f.pod,
            uid: f.uid,
            volume: null,
            message:
              `container ${f.pod}/${f.container} (uid ${f.uid}) was created again at ${secs(f.atMs)}, ` +
              `${secs(f.atMs - exited.atMs)} after its last attempt ended at ${secs(exited.atMs)}, inside ` +
              `its crash-loop back-off of ${secs(windowMs)}: doBackOff skips such a start`,
            causes: [exited, f],
          });
        }
        // Next: the window doubles, or starts over.
        s.backOffMs = known ? Math.min(windowMs * 2, MAX_CONTAINER_BACK_OFF_MS) : BACK_OFF_PERIOD_MS;
        s.lastUpdateMs = f.atMs;
        return;
      }
      default:
        return;
    }
  }

  onEnd(): void {}

  #state(node: string, uid: string, container: string): ContainerState {
    const k = key(node, uid, container);
    let s = this.#containers.get(k);
    if (s === undefined) {
      s = { attempts: 0, exited: undefined, stopping: false, backOffMs: undefined, lastUpdateMs: 0 };
      this.#containers.set(k, s);
    }
    return s;
  }
}

function key(node: string, uid: string, container: string): string {
  return `${node}/${uid}/${container}`;
}
