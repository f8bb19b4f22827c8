// The pods an imported log shows, one instance per UID (a name re-created is a new instance), and the
// createPod each becomes; which events belong to the controller manager; whether a log begins after its
// pods did (docs/import.md, "What is guessed"). Pure.
import type { Action } from '../scenario/types.js';
import type { LogEvent, PodRef } from './events.js';
import type { LogRecord } from './logLines.js';
import type { VolumeTable } from './volumeTable.js';

export interface PodInstance {
  readonly key: string;
  readonly ref: PodRef;
  uid: string;
  name: string;
  readonly node: string;
  readonly static: boolean;
  alive: boolean;
  deleting: boolean;
  /** The grace of the first kill after the pod's deletion; null while none was seen. */
  killGrace: number | null;
  /** The grace of the first kill after the pod's eviction; null while none was seen. */
  evictGrace: number | null;
  evicted: boolean;
  readonly containers: string[];
  readonly startedIds: Set<string>;
  readonly volumes: string[];
  /** Created before the log begins (first seen by something else than its ADD). */
  readonly prelude: boolean;
}

export function isControllerEvent(ev: LogEvent): boolean {
  return (
    ev.kind === 'multiAttach' ||
    ev.kind === 'forceDetach' ||
    (ev.kind === 'volumeOp' && (ev.op === 'attach' || ev.op === 'detach'))
  );
}

/** Whether a record names a pod before (or without) any ADD of it: the log begins after the pod did. */
export function firstSightIsNotAdd(
  ev: LogEvent | null,
  r: LogRecord,
  events: readonly (LogEvent | null)[],
  records: readonly LogRecord[],
): boolean {
  if (ev === null) return false;
  const i = records.indexOf(r);
  // Reconstruction in the first kubelet process a log shows: the restart it follows came before the log.
  if (ev.kind === 'reconstructFailed' || ev.kind === 'orphanVolumePaths' || ev.kind === 'inconsistentMounts')
    return !records.slice(0, i).some((o) => o.file === r.file && o.pid !== r.pid && o.pid !== 0);
  const name =
    ev.kind === 'podOp' && ev.op !== 'ADD'
      ? ev.pods[0]?.name
      : ev.kind === 'killContainer' || ev.kind === 'pleg' || ev.kind === 'evict'
        ? ev.pod.name
        : ev.kind === 'volumeOp' && ev.op !== 'attach' && ev.op !== 'detach'
          ? ev.pod?.name
          : undefined;
  if (name === undefined || name === '') return false;
  return !events
    .slice(0, i)
    .some((e) => e?.kind === 'podOp' && e.op === 'ADD' && e.pods.some((p) => p.name === name));
}

export function createAction(p: PodInstance, volumes: VolumeTable, inheritedGrace: number | null): Action {
  const containers =
    p.containers.length > 0
      ? p.containers.map((name) => ({ name, startDelayMs: null }))
      : Array.from({ length: Math.max(1, p.startedIds.size) }, (_, i) => ({
          name: `c${i + 1}`,
          startDelayMs: null,
        }));
  return {
    kind: 'createPod',
    pod: p.name,
    node: p.node,
    containers,
    // A static pod cannot claim a PersistentVolume (docs/scenario-format.md): its volumes are left out.
    volumes: p.static ? [] : p.volumes.filter((v) => volumes.has(v)),
    static: p.static,
    gracePeriodS: p.killGrace ?? inheritedGrace ?? 30,
    restartPolicy: 'Always',
  };
}
