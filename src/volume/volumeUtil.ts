// Ported from kubernetes pkg/volume/util/util.go (GetReliableMountRefs, IsPodTerminated), release-1.23.
// With the helpers it and the plugins lean on: k8s.io/apimachinery wait.PollImmediate,
// k8s.io/utils/keymutex and k8s.io/utils/strings EscapeQualifiedName.
import { GoError, InconsistentReadError } from '../api/errors.js';
import type { ContainerStatus, Pod, PodStatus } from '../api/v1.js';
import type { Fixes } from '../fixes.js';
import { type Co, type Process, park, type Sim, sleep } from '../sim/index.js';
import type { Host } from '../storage/host.js';
import { getMountRefs } from '../storage/mountUtils.js';
import type { Result } from './volume.js';

/** wait.ErrWaitTimeout. */
export const ErrWaitTimeout = new GoError('timed out waiting for the condition');

/** A ConditionFunc: [done, err]. */
export type ConditionFunc = () => Co<[boolean, GoError | undefined]>;

/**
 * A condition's answer as a coroutine, for conditions that take no virtual time. Conditions are plain
 * closures returning a shared generator's iterator, never generator closures: each generator function
 * object gets a hidden class of its own when first called, which keeps its closure alive past
 * young-generation GCs.
 */
// biome-ignore lint/correctness/useYield: it only hands a computed answer to yield*
export function* answer(done: boolean, err: GoError | undefined): Co<[boolean, GoError | undefined]> {
  return [done, err];
}

/**
 * wait.PollImmediate(interval, timeout, condition): runs the condition at once, then on every tick of a
 * ticker started after that first run, until it is done, it errs, or `timeout` (measured from the
 * ticker's start) passes. A tick that falls due while the condition still runs is dropped, as
 * time.Ticker drops it; a tick at the very instant of the timeout loses to the timeout.
 */
export function* pollImmediate(
  sim: Sim,
  intervalMs: number,
  timeoutMs: number,
  condition: ConditionFunc,
): Co<GoError | undefined> {
  const [done0, err0] = yield* condition();
  if (err0 !== undefined) return err0;
  if (done0) return undefined;
  const start = sim.nowMs;
  const deadline = start + timeoutMs;
  let k = 1;
  for (;;) {
    const tick = start + k * intervalMs;
    if (tick >= deadline) {
      if (deadline > sim.nowMs) yield* sleep(deadline - sim.nowMs);
      return ErrWaitTimeout;
    }
    if (tick > sim.nowMs) yield* sleep(tick - sim.nowMs);
    const [done, err] = yield* condition();
    if (err !== undefined) return err;
    if (done) return undefined;
    if (sim.nowMs >= deadline) return ErrWaitTimeout;
    k = Math.floor((sim.nowMs - start) / intervalMs) + 1;
  }
}

/** GetReliableMountRefs' poll: every 10 ms for up to a minute (PR #102059). */
const reliableMountRefsInterval = 10;
const reliableMountRefsTimeout = 60_000;

/**
 * util.GetReliableMountRefs (PR #102059): mounter.GetMountRefs, retried on IsInconsistentReadError only.
 * With fix `reconstruct-reliable-mount-refs` off it is the plain mounter.GetMountRefs call the plugins
 * made before (the mounter's own maxListTries reads, then the error).
 */
export function* getReliableMountRefs(host: Host, fixes: Fixes, mountPath: string): Co<Result<string[]>> {
  if (!fixes.on('reconstruct-reliable-mount-refs')) {
    return getMountRefs(host, mountPath);
  }
  let paths: string[] = [];
  let lastErr: GoError | undefined;
  const err = yield* pollImmediate(
    host.sim,
    reliableMountRefsInterval,
    reliableMountRefsTimeout,
    // A /proc read takes no virtual time.
    () => {
      const r = getMountRefs(host, mountPath);
      if (r.err instanceof InconsistentReadError) {
        lastErr = r.err;
        return answer(false, undefined);
      }
      if (r.err !== undefined) return answer(false, r.err);
      paths = r.value;
      return answer(true, undefined);
    },
  );
  if (err === ErrWaitTimeout) return { value: undefined, err: lastErr ?? err };
  if (err !== undefined) return { value: undefined, err };
  return { value: paths, err: undefined };
}

/** utilstrings.EscapeQualifiedName: 'kubernetes.io/fc' -> 'kubernetes.io~fc'. */
export function escapeQualifiedName(name: string): string {
  return name.replaceAll('/', '~');
}

/** keymutex.NewHashed: one lock per key, held across blocking calls (iSCSI targetLocks). */
export class KeyMutex {
  private readonly held = new Map<string, Process[]>();

  constructor(private readonly sim: Sim) {}

  *lockKey(key: string): Co<void> {
    const waiters = this.held.get(key);
    if (waiters === undefined) {
      this.held.set(key, []);
      return;
    }
    const me = this.sim.current;
    if (me === undefined) throw new Error('KeyMutex.lockKey outside a process');
    waiters.push(me);
    yield* park(); // ownership is handed over by unlockKey
  }

  unlockKey(key: string): void {
    const waiters = this.held.get(key);
    if (waiters === undefined) return;
    for (;;) {
      const next = waiters.shift();
      if (next === undefined) {
        this.held.delete(key);
        return;
      }
      if (next.state === 'blocked') {
        this.sim.unpark(next, undefined);
        return;
      }
    }
  }
}

/**
 * util.IsPodTerminated: the phase is terminal, or the pod is being deleted and none of its containers
 * runs ("the guarantees provided by kubelet status are not sufficient to guarantee it's safe to ignore a
 * deleted pod, even if everything is notRunning").
 */
export function isPodTerminated(pod: Pod, podStatus: PodStatus): boolean {
  return (
    podStatus.phase === 'Failed' ||
    podStatus.phase === 'Succeeded' ||
    (pod.metadata.deletionTimestamp !== undefined && notRunning(podStatus.containerStatuses))
  );
}

/** notRunning: every status is terminated or waiting, or the list is empty. */
function notRunning(statuses: readonly ContainerStatus[]): boolean {
  return statuses.every((s) => s.state === 'terminated' || s.state === 'waiting');
}
