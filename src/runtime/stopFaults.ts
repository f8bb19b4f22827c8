// Injected CRI StopContainer failures (scenario `fault.stopContainer`): the runtime answers a stop with an
// error and leaves the container running, as containerd does while it is down or wedged (#113145's
// reproduction stopped containerd during a force-deleted pod's kill). kuberuntime_container.go's
// killContainer returns any error but NotFound, so KillPod fails and the pod worker's sync with it.
// `error: notFound` is the other case (#106734): the container was removed under the kubelet (`crictl rm`,
// garbage collection), so the runtime no longer holds it and answers NotFound, which killContainer takes
// as stopped since #107670 (switch stop-container-not-found) and returned as a failure before.
import { AssertionError } from '../sim/index.js';

/**
 * The default error: what the kubelet's CRI client returns while the runtime's socket refuses connections
 * (the runtime restarting, #113145's reproduction).
 */
export const STOP_CONTAINER_DEFAULT_ERROR =
  'rpc error: code = Unavailable desc = connection error: desc = "transport: Error while dialing dial unix /run/containerd/containerd.sock: connect: connection refused"';

/** The `error` keyword of a fault that removes the container, so StopContainer answers NotFound. */
export const STOP_CONTAINER_NOT_FOUND = 'notFound';

/** Whether a runtime's error text is a NotFound answer (containerd's `code = NotFound`, or a bare "not found"). */
export function isNotFoundText(error: string): boolean {
  return /code\s*=\s*NotFound\b|^\s*not\s*found\s*$/i.test(error);
}

/** One armed fault: the next `remaining` StopContainer calls of the pod's `container` (any, if null) fail. */
export interface StopContainerFault {
  readonly container: string | null;
  /** The error text; unused when `removes` (the runtime's own NotFound answer is returned). */
  readonly error: string;
  /** The runtime removes the container (killed first if it runs) and answers NotFound for it. */
  readonly removes: boolean;
  remaining: number;
  fired: number;
}

/** The faults of one runtime, by pod UID; a later fault of a pod replaces the one before it. */
export class StopFaults {
  readonly #byUID = new Map<string, StopContainerFault>();

  inject(uid: string, fault: StopContainerFault): StopContainerFault | undefined {
    if (!(fault.remaining >= 1 && fault.fired === 0))
      throw new AssertionError('stopContainer fault armed spent');
    const replaced = this.#byUID.get(uid);
    this.#byUID.set(uid, fault);
    return replaced !== undefined && replaced.remaining > 0 ? replaced : undefined;
  }

  /** The fault this StopContainer call fires, counted down; undefined: the call goes through. */
  fire(uid: string, container: string): StopContainerFault | undefined {
    const f = this.#byUID.get(uid);
    if (f === undefined || f.remaining === 0) return undefined;
    if (f.container !== null && f.container !== container) return undefined;
    f.remaining--;
    f.fired++;
    return f;
  }

  /**
   * True while a fault has fired and has firings left (termination-stuck and the other liveness checks
   * wait then); one that never fired changed nothing (src/storage/faults.ts HostFaults.active).
   */
  active(): boolean {
    for (const f of this.#byUID.values()) if (f.remaining > 0 && f.fired > 0) return true;
    return false;
  }

  pending(uid: string): StopContainerFault | undefined {
    const f = this.#byUID.get(uid);
    return f !== undefined && f.remaining > 0 ? f : undefined;
  }
}
