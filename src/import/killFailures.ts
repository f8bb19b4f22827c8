// StopContainer failures read back as a `stopContainer` fault: kuberuntime_container.go's killContainer
// logs "Container termination failed with gracePeriod" with the runtime's error, and failures of one
// container in a row (until it dies) become one fault with `times`.
import {
  isNotFoundText,
  STOP_CONTAINER_DEFAULT_ERROR,
  STOP_CONTAINER_NOT_FOUND,
} from '../runtime/stopFaults.js';
import { LIMITS } from '../scenario/limits.js';
import type { Fault } from '../scenario/types.js';
import { label } from './hints.js';
import type { PodInstance } from './podInstance.js';

/** The pod a failure line names: by reference, or (pre-1.21 lines name only the ID) by container ID. */
export function podOfContainerId(pods: Iterable<PodInstance>, containerId: string): PodInstance | undefined {
  let found: PodInstance | undefined;
  for (const p of pods) if (p.startedIds.has(containerId) || p.idNames.has(containerId)) found = p;
  return found;
}

/** The fault key (one open fault per pod and container) and the fault itself. */
export function stopFaultOf(
  p: PodInstance,
  container: string,
  containerId: string,
  error: string,
): { key: string; make: (times: number) => Fault } {
  const name = label(container, '') || (p.idNames.get(containerId) ?? '');
  // The default is the text podrace writes; another runtime's text is kept (up to the loader's limit). A
  // NotFound answer means the container was already gone (#106734): the fault that removes it.
  const text =
    error === '' || error === STOP_CONTAINER_DEFAULT_ERROR
      ? null
      : isNotFoundText(error)
        ? STOP_CONTAINER_NOT_FOUND
        : error.slice(0, LIMITS.errorChars);
  return {
    key: `stopContainer/${p.name}/${name}`,
    make: (times) => ({
      kind: 'stopContainer',
      pod: p.name,
      container: name === '' ? null : name,
      times,
      error: text,
    }),
  };
}
