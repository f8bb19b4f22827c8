// The kill-sequence profile: one running pod, deleted gracefully, and while it terminates further requests
// land at drawn points of its grace period: an eviction with its own override (node pressure), a second
// deletion with a shorter grace, a force delete, a graceful node shutdown, a kubelet restart. Then, often,
// the StatefulSet pattern: a pod of the same name with the same claim created right after the delete,
// on the same node or another (the API holds the name until the old object is gone). Optionally a host
// process (multipathd, a backup agent) holds the volume's device as its UnmountDevice runs, or the
// container runtime fails the first kills (StopContainer errors).
//
// It reaches what the other profiles seldom build: the grace a kill must honour and may only shorten
// (pod_workers.go calculateEffectiveGracePeriod, #115819, #101376), kills of one pod from several managers
// at once, a name and claim re-used on another node while the old node still tears down, and a device
// released under its holder. Like the other profiles, the draft is free-form and every draft maps to a
// valid scenario, so fast-check shrinks it freely (fewer requests, no re-creation, earlier times).
import fc from 'fast-check';
import type { Action, VolumeDecl } from '../scenario/types.js';
import { defaultContainerName } from '../scenario/types.js';
import type { PluginKind } from '../volume/volume.js';
import type { PlacedEntry } from './profiles.js';

/** A time in 10 ms steps from 0 to max (shrinks towards 0). */
const timeMs = (maxMs: number) => fc.integer({ min: 0, max: maxMs / 10 }).map((t) => t * 10);

/** Long enough for the pod's volume to be mounted (attach, WaitForAttach, MountDevice) and its containers up. */
const RUNNING_AFTER_MS = 12_000;

export const KILL_REQUEST_KINDS = [
  'evictPod',
  'deletePod',
  'forceDeletePod',
  'shutdownNode',
  'restartKubelet',
] as const;

export interface KillRequestDraft {
  /** Index into KILL_REQUEST_KINDS (shrinks towards an eviction). */
  readonly kind: number;
  /** When, as a per-mille of the first deletion's grace period after it (0: the same instant). */
  readonly atPerMille: number;
  /** The eviction's override, or the second deletion's grace. */
  readonly graceS: number;
  /** How long a restarted kubelet stays down. */
  readonly downForMs: number;
}

export interface KillSequenceDraft {
  readonly containers: number;
  /** The pod's terminationGracePeriodSeconds. */
  readonly specGraceS: number;
  /** The first deletion's grace; null: the spec's. */
  readonly deleteGraceS: number | null;
  readonly volume: { readonly plugin: PluginKind; readonly block: boolean } | null;
  readonly requests: readonly KillRequestDraft[];
  /** The StatefulSet pattern: the same name and claim again, `gapMs` after the deletion. */
  readonly recreate: { readonly otherNode: boolean; readonly gapMs: number } | null;
  /** A host process opens the volume's device as its UnmountDevice runs (fault deviceStillOpen). */
  readonly holdDevice: boolean;
  /**
   * A runtime outage: the pod's next StopContainer calls fail this many times from the first deletion on
   * (fault stopContainer), so kills fail and are retried only when something delivers the pod to its
   * worker again (#113145: not after a force delete, before 1.27). Drawn by the campaigns' generator after
   * every other draw (stopFailuresDraft), so no other case moves.
   */
  readonly stopFailures?: number | null;
  /**
   * The containers' preStop hook, how long it runs (#115817, #115835). Drawn after every other draw
   * (preStopDraft), so no other case moves.
   */
  readonly preStopMs?: number | null;
}

/** Of the kill-sequence cases after the warm-up, one in this many has containers with a preStop hook. */
export const PRESTOP_ONE_IN = 3;

/** A hook of 0.5 s to a minute, in half seconds (shrinks towards 0.5 s, under the kubelet's whole seconds). */
export const preStopDraft: fc.Arbitrary<number> = fc.integer({ min: 1, max: 120 }).map((k) => k * 500);

/** Of the kill-sequence cases after the warm-up, one in this many has a runtime outage. */
export const RUNTIME_OUTAGE_ONE_IN = 4;

/** How many StopContainer calls an outage fails (each kill of a pod stops each of its containers once). */
export const stopFailuresDraft: fc.Arbitrary<number> = fc.integer({ min: 1, max: 4 });

export const killSequenceDraft: fc.Arbitrary<KillSequenceDraft> = fc.record({
  containers: fc.integer({ min: 1, max: 3 }),
  specGraceS: fc.constantFrom(30, 2, 5, 10, 60, 1),
  deleteGraceS: fc.option(fc.constantFrom(5, 1, 2, 10, 30, 60), { freq: 2 }),
  volume: fc.option(
    fc.record({ plugin: fc.constantFrom<PluginKind>('fc', 'iscsi', 'csi'), block: fc.boolean() }),
    { freq: 3 },
  ),
  requests: fc.array(
    fc.record({
      kind: fc.nat({ max: KILL_REQUEST_KINDS.length - 1 }),
      atPerMille: fc.oneof(fc.constantFrom(0, 500, 999, 1000), fc.nat({ max: 1100 })),
      graceS: fc.constantFrom(0, 1, 2, 5, 30),
      downForMs: timeMs(20_000).map((t) => t + 500),
    }),
    { maxLength: 3 },
  ),
  recreate: fc.option(fc.record({ otherNode: fc.boolean(), gapMs: timeMs(2_000) }), { freq: 2 }),
  holdDevice: fc.nat({ max: 3 }).map((k) => k === 3),
});

/** The sequence as timeline entries (pod `k`, volume `lun-1`), and the volume it declares. Pure. */
export function placeKillSequence(
  d: KillSequenceDraft,
  nodes: readonly string[],
): { readonly entries: PlacedEntry[]; readonly volumes: VolumeDecl[] } {
  const home = nodes[0] ?? 'node-a';
  const other = nodes[1] ?? home;
  const volumes: VolumeDecl[] =
    d.volume === null
      ? []
      : [
          {
            name: 'lun-1',
            plugin: d.volume.plugin,
            mode: d.volume.block ? 'Block' : 'Filesystem',
            capacityBytes: 10 * 2 ** 30,
            accessMode: 'ReadWriteOnce',
          },
        ];
  const claim = volumes.map((v) => v.name);
  const create = (node: string): Action => ({
    kind: 'createPod',
    pod: 'k',
    node,
    containers: Array.from({ length: d.containers }, (_, i) => ({
      name: defaultContainerName(i),
      startDelayMs: null,
      ...(d.preStopMs === undefined || d.preStopMs === null ? {} : { preStopMs: d.preStopMs }),
    })),
    volumes: claim,
    static: false,
    gracePeriodS: d.specGraceS,
    restartPolicy: 'Always',
  });
  const entries: PlacedEntry[] = [{ atMs: 0, action: create(home) }];
  if (d.holdDevice && d.volume !== null) {
    entries.push({
      atMs: 0,
      action: {
        kind: 'fault',
        fault: { kind: 'unmountDevice', node: home, volume: 'lun-1', stage: 'deviceStillOpen', times: 1 },
      },
    });
  }
  const deleteAt = RUNNING_AFTER_MS;
  const stopFailures = d.stopFailures ?? null;
  if (stopFailures !== null) {
    entries.push({
      atMs: deleteAt,
      action: {
        kind: 'fault',
        fault: { kind: 'stopContainer', pod: 'k', container: null, times: stopFailures, error: null },
      },
    });
  }
  entries.push({ atMs: deleteAt, action: { kind: 'deletePod', pod: 'k', gracePeriodS: d.deleteGraceS } });
  const graceMs = (d.deleteGraceS ?? d.specGraceS) * 1000;
  for (const r of d.requests) {
    const atMs = deleteAt + Math.round((graceMs * r.atPerMille) / 1000 / 10) * 10;
    entries.push({ atMs, action: requestAction(KILL_REQUEST_KINDS[r.kind] ?? 'evictPod', r, home) });
  }
  if (d.recreate !== null) {
    // The create waits while the old object holds the name, then lands (podCreateWaiting).
    entries.push({ atMs: deleteAt + d.recreate.gapMs, action: create(d.recreate.otherNode ? other : home) });
  }
  return { entries, volumes };
}

function requestAction(kind: (typeof KILL_REQUEST_KINDS)[number], r: KillRequestDraft, node: string): Action {
  switch (kind) {
    case 'evictPod':
      return { kind: 'evictPod', pod: 'k', gracePeriodS: r.graceS };
    case 'deletePod':
      return { kind: 'deletePod', pod: 'k', gracePeriodS: r.graceS };
    case 'forceDeletePod':
      return { kind: 'forceDeletePod', pod: 'k' };
    case 'shutdownNode':
      return { kind: 'shutdownNode', node };
    case 'restartKubelet':
      return { kind: 'restartKubelet', node, downForMs: r.downForMs };
  }
}
