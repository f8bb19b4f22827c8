// The pods an imported log shows, one instance per UID (a name re-created is a new instance), and the
// createPod each becomes; which events belong to the controller manager; whether a log begins after its
// pods did (docs/import.md, "What is guessed"). Pure.
import type { RestartPolicy } from '../api/v1.js';
import type { ReleasePreset } from '../fixes.js';
import type { Action } from '../scenario/types.js';
import type { ContainerExit } from './containerExits.js';
import type { LogEvent, PodRef } from './events.js';
import type { LogRecord } from './logLines.js';
import { graceOfHooks, type PreStopRead, preStopOf } from './preStopHooks.js';
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
  /**
   * A graceful deletion's own grace, when a force deletion after it showed a longer spec grace (its kill
   * falls back to the spec's, #115819); null: the deletion took the spec's.
   */
  deleteGrace: number | null;
  /** Removed from the API while its containers still ran, after a graceful DELETE: a force deletion. */
  forcedAfterDelete: boolean;
  /**
   * A DELETE of a pod already deleting (config.go logs one when the deletion's timestamp or grace changed:
   * a second deletion), until a kill reads it: one shorter than the first kill was that deletion's grace.
   */
  redelete: { readonly atMs: number; readonly seq: number; readonly record: LogRecord } | null;
  /** Gone from the API while its node's kubelet was down: the restarted kubelet did not list it. */
  goneWhileDown: boolean;
  /**
   * Listed by a restarted kubelet: the middle of the down time and the restart's seq, until its first kill
   * (a kill with no DELETE, eviction or shutdown before it: the pod was deleted while the kubelet was
   * down, and the list showed it terminating) or its deletion reads it. null otherwise.
   */
  relisted: { readonly atMs: number; readonly seq: number; readonly startedAtMs: number } | null;
  /** Container IDs PLEG reported started and not yet died. */
  readonly runningIds: Set<string>;
  /** The grace of the first kill after the pod's eviction; null while none was seen. */
  evictGrace: number | null;
  evicted: boolean;
  readonly containers: string[];
  /** Container IDs PLEG reported started, in order, with when the first report came (ms from the log's start). */
  readonly startedIds: Map<string, number>;
  /** Container ID -> name, from the kill lines that give both. */
  readonly idNames: Map<string, string>;
  /** Container IDs a kill line named since PLEG last reported them started: their death is the kill's. */
  readonly killedIds: Set<string>;
  /** Every ContainerStarted PLEG reported for the pod (ms from the log's start). */
  readonly startsMs: number[];
  /** The containers' own exits (src/import/containerExits.ts). */
  readonly exits: ContainerExit[];
  /** When the pod was deleted, removed or evicted (ms): what the kubelet did after that tells no policy. */
  goneAtMs: number | null;
  /** Set once the whole log is read; Always until then. */
  restartPolicy: RestartPolicy;
  /** When the pod could start its containers: its ADD, or its last volume set up after it (ms). */
  readyAtMs: number;
  readonly volumes: string[];
  /** Created before the log begins (first seen by something else than its ADD). */
  readonly prelude: boolean;
  /** Its containers' preStop hooks the log shows (preStopHooks.ts). */
  readonly preStops: PreStopRead[];
  /** The records its createPod names: where it was first seen, and the hook lines read into it. */
  readonly createSources: LogRecord[];
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
        : ev.kind === 'preStopHook'
          ? ev.pod?.name
          : ev.kind === 'volumeOp' && ev.op !== 'attach' && ev.op !== 'detach'
            ? ev.pod?.name
            : undefined;
  if (name === undefined || name === '') return false;
  return !events
    .slice(0, i)
    .some((e) => e?.kind === 'podOp' && e.op === 'ADD' && e.pods.some((p) => p.name === name));
}

export function createAction(
  p: PodInstance,
  volumes: VolumeTable,
  inheritedGrace: number | null,
  notes: string[] = [],
  release: ReleasePreset | null = null,
): Action {
  const names = p.containers.length > 0 ? p.containers : unnamedContainers(p.startedIds.size);
  const delays = startDelays(p, names);
  for (const [name, ms] of delays)
    notes.push(
      `guess: container ${name} started ${(ms / 1000).toFixed(2)}s later than the pod could start it (an image pull, a slow runtime): its startDelay`,
    );
  const hookGrace = graceOfHooks(p, release);
  if (hookGrace !== null) notes.push(hookGrace.note);
  const gracePeriodS = hookGrace?.graceS ?? p.killGrace ?? inheritedGrace ?? 30;
  const preStops = new Map<string, number>();
  for (const h of p.preStops) {
    const started = [...p.startedIds.keys()].indexOf(h.containerId);
    // Unnamed containers (c1, c2, ...) take the started IDs in order, as their start delays do.
    const name =
      h.container ||
      (p.idNames.get(h.containerId) ?? (p.containers.length === 0 && started >= 0 ? names[started] : '')) ||
      '';
    if (!names.includes(name) || preStops.has(name)) continue;
    const read = preStopOf(p, h, name, gracePeriodS);
    if (read === null) continue;
    preStops.set(name, read.ms);
    notes.push(read.note);
  }
  const containers = names.map((name) => {
    const preStopMs = preStops.get(name);
    return {
      name,
      startDelayMs: delays.get(name) ?? null,
      ...(preStopMs === undefined ? {} : { preStopMs }),
    };
  });
  return {
    kind: 'createPod',
    pod: p.name,
    node: p.node,
    containers,
    // A static pod cannot claim a PersistentVolume (docs/scenario-format.md): its volumes are left out.
    volumes: p.static ? [] : p.volumes.filter((v) => volumes.has(v)),
    static: p.static,
    gracePeriodS,
    restartPolicy: p.restartPolicy,
  };
}

const unnamedContainers = (started: number): string[] =>
  Array.from({ length: Math.max(1, started) }, (_, i) => `c${i + 1}`);

/**
 * The simulated runtime's own time from a pod being able to start to PLEG's ContainerStarted (sandbox,
 * create, start): a later start is read as a start delay of the rest.
 */
export const START_LATENCY_MS = 300;
/** Below this, a late start is PLEG's relist period or the runtime's usual pace, not a delay. */
export const START_DELAY_MS_MIN = 1_000;

/**
 * Each container's start delay: how much later than START_LATENCY_MS after the pod could start (its ADD,
 * or its last volume set up) PLEG reported it started. Named containers find their ID through the kill
 * lines; unnamed ones (c1, c2, ...) take the started IDs in order. Pods created before the log: none.
 */
export function startDelays(p: PodInstance, names: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  if (p.prelude) return out;
  const ids = [...p.startedIds.keys()];
  const byName = new Map<string, string>();
  for (const [id, name] of p.idNames) if (!byName.has(name)) byName.set(name, id);
  names.forEach((name, i) => {
    const id = p.containers.length > 0 ? byName.get(name) : ids[i];
    const at = id === undefined ? undefined : p.startedIds.get(id);
    if (at === undefined) return;
    const late = at - p.readyAtMs - START_LATENCY_MS;
    if (late >= START_DELAY_MS_MIN) out.set(name, Math.round(late / 10) * 10);
  });
  return out;
}
