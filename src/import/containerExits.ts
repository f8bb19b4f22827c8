// Containers that exit on their own in a kubelet log, and the restart policy that follows from what the
// kubelet did next (docs/import.md, "What is guessed"). The log says a container died (PLEG's
// ContainerDied) and, at V(2), with which exit code (generic.go relist: "Generic (PLEG): container
// finished"); a death that no "Killing container" of that container came before is the container's own.
// The restart policy is never logged: a container the kubelet starts again after such an exit means
// Always (or OnFailure, if only the failed exits were followed by a start); none started again, while the
// pod lived on long enough for the kubelet to have done so, means Never. Pure.
import type { RestartPolicy } from '../api/v1.js';
import type { PodInstance } from './podInstance.js';

/** A container's own exit, as the log shows it (ms from the log's start). */
export interface ContainerExit {
  readonly atMs: number;
  readonly container: string;
  readonly exitCode: number;
}

/**
 * How long after an exit the kubelet has certainly started the container again under Always: the next
 * sync after PLEG's relist (1 s) and the first restart's back-off (10 s, kuberuntime's initial
 * backOffPeriod), with margin.
 */
export const RESTART_SEEN_WITHIN_MS = 15_000;

/** The container whose ID died on its own, or null when a kill came first or the ID is not the pod's. */
export function ownExitContainer(p: PodInstance, containerId: string): string | null {
  if (p.killedIds.has(containerId)) return null;
  const named = p.idNames.get(containerId);
  if (named !== undefined) return named;
  const idx = [...p.startedIds.keys()].indexOf(containerId);
  if (idx < 0) return null;
  // Unnamed containers take the started IDs in order (c1, c2, ...), as createAction names them.
  if (p.containers.length === 0) return `c${idx + 1}`;
  return p.containers[idx] ?? null;
}

/**
 * The restart policy the pod's own exits imply, with a note when it is a guess; null: nothing to infer
 * (no own exit, or the log ends, or the pod goes, too soon after the last one to tell).
 */
export function restartPolicyOf(
  exits: readonly ContainerExit[],
  startsMs: readonly number[],
  knownUntilMs: number,
): { policy: RestartPolicy; note: string } | null {
  if (exits.length === 0) return null;
  const restarted = (e: ContainerExit) =>
    startsMs.some((s) => s > e.atMs && s <= e.atMs + RESTART_SEEN_WITHIN_MS);
  const told = exits.filter((e) => restarted(e) || e.atMs + RESTART_SEEN_WITHIN_MS <= knownUntilMs);
  if (told.length === 0) return null;
  const again = told.filter(restarted);
  if (again.length === 0) {
    const failed = told.some((e) => e.exitCode !== 0);
    return {
      policy: 'Never',
      note: failed
        ? 'guess: restartPolicy Never (a container that failed was not started again)'
        : 'guess: restartPolicy Never (a container that completed was not started again; OnFailure would do the same)',
    };
  }
  const completedKept = told.some((e) => e.exitCode === 0 && !restarted(e));
  if (completedKept && again.every((e) => e.exitCode !== 0))
    return {
      policy: 'OnFailure',
      note: 'guess: restartPolicy OnFailure (failed containers were started again, completed ones not)',
    };
  return { policy: 'Always', note: 'a container that exited on its own was started again' };
}
