// The slow-staging profile: one pod whose volume's device staging (MountDevice; NodeStageVolume for CSI)
// is slow, from seconds to minutes, as an iSCSI login, an FC path wait, a mkfs of a large LUN or a CSI
// driver's NodeStageVolume can be, and the pod deleted (gracefully, by force) or evicted while it runs.
// Often the StatefulSet pattern follows: the same name and claim again right after the delete, on the
// same node or another; sometimes the staging then fails (final, or uncertain for CSI), or the kubelet
// restarts while it runs.
//
// It reaches what no other profile builds, since their MountDevice takes milliseconds: a pod that leaves
// the desired state of world while its volume's MountVolume operation is still pending. The pod worker's
// syncPod waits in WaitForAttachAndMount (2 min 3 s) and only then terminates the pod, so a staging longer
// than that outlives the pod: the reconciler's unmountDetachDevices must leave a volume with a pending
// operation alone (reconciler.go isOperationPending), the operation must still finish and clean up what
// it staged, and a CSI staging past the kubelet's 2 min deadline leaves the device uncertain. Like the
// other profiles, the draft is free-form and every draft maps to a valid scenario, so fast-check shrinks
// it freely (no failure, no re-creation, a shorter delay, earlier times).
import fc from 'fast-check';
import type { Action, MountDeviceError, VolumeDecl } from '../scenario/types.js';
import { defaultContainerName } from '../scenario/types.js';
import type { PluginKind } from '../volume/volume.js';
import type { PlacedEntry } from './profiles.js';

/** A time in 10 ms steps from 0 to max (shrinks towards 0). */
const timeMs = (maxMs: number) => fc.integer({ min: 0, max: maxMs / 10 }).map((t) => t * 10);
/** A time in 10 ms steps from min to max (shrinks towards min). */
const timeBetweenMs = (minMs: number, maxMs: number) => timeMs(maxMs - minMs).map((t) => t + minMs);

/** When the pod's MountDevice starts, roughly: the attach, the node's volumesInUse report, WaitForAttach. */
export const STAGING_STARTS_AFTER_MS = 11_000;

export const POD_END_KINDS = ['deletePod', 'forceDeletePod', 'evictPod'] as const;

export interface SlowStagingDraft {
  readonly plugin: PluginKind;
  /** A Block volume (CSI only: FC and iSCSI stage nothing for one, so they stay Filesystem). */
  readonly block: boolean;
  readonly containers: number;
  readonly graceS: number;
  /** How much longer the staging takes. */
  readonly delayMs: number;
  /** 0 none (mostly), 1 final, 2 uncertain (CSI; final for FC and iSCSI, which have no other). */
  readonly error: number;
  /** How many MountDevice calls the fault slows (the retries of a failed one too). */
  readonly times: number;
  /** How the pod goes, after its creation (mostly while its staging runs). */
  readonly end: { readonly kind: number; readonly afterMs: number; readonly graceS: number | null };
  /** The StatefulSet pattern: the same name and claim again, `gapMs` after a delete. */
  readonly recreate: { readonly otherNode: boolean; readonly gapMs: number } | null;
  /** The pod's kubelet restarts this long after the pod's creation (staging under way or not). */
  readonly restart: { readonly afterMs: number; readonly downForMs: number } | null;
}

export const slowStagingDraft: fc.Arbitrary<SlowStagingDraft> = fc.record({
  plugin: fc.constantFrom<PluginKind>('iscsi', 'fc', 'csi'),
  block: fc.nat({ max: 3 }).map((k) => k === 3),
  containers: fc.integer({ min: 1, max: 2 }),
  graceS: fc.constantFrom(30, 0, 1, 5),
  // Seconds (the pod's start waits on it), up to 2 min, or past WaitForAttachAndMount's 2 min 3 s, when
  // the pod terminates while the staging still runs; shrinks towards a short one.
  delayMs: fc.oneof(
    { arbitrary: timeBetweenMs(1_000, 30_000), weight: 1 },
    { arbitrary: timeBetweenMs(30_000, 120_000), weight: 1 },
    { arbitrary: timeBetweenMs(120_000, 300_000), weight: 3 },
  ),
  error: fc.nat({ max: 5 }).map((k) => Math.max(0, k - 3)),
  times: fc.nat({ max: 3 }).map((k) => (k < 3 ? 1 : 2)),
  end: fc.record({
    // Mostly a graceful delete; shrinks towards it.
    kind: fc.nat({ max: 5 }).map((k) => (k < 4 ? 0 : k - 3)),
    afterMs: fc.oneof(
      { arbitrary: timeBetweenMs(STAGING_STARTS_AFTER_MS, STAGING_STARTS_AFTER_MS + 20_000), weight: 3 },
      { arbitrary: timeMs(STAGING_STARTS_AFTER_MS), weight: 1 },
    ),
    graceS: fc.option(fc.constantFrom(0, 1, 5, 30), { freq: 2 }),
  }),
  recreate: fc.option(fc.record({ otherNode: fc.boolean(), gapMs: timeMs(2_000) }), { freq: 2 }),
  restart: fc.option(fc.record({ afterMs: timeMs(150_000), downForMs: timeMs(20_000).map((t) => t + 500) }), {
    freq: 6,
  }),
});

/** Extra virtual time the case needs after its last action: the staging itself, then its clean-up. */
export function slowStagingSettleMs(d: SlowStagingDraft): number {
  return STAGING_STARTS_AFTER_MS + d.delayMs * d.times;
}

/** The draft as timeline entries (pod `m`, volume `lun-1`) and the volume it declares. Pure. */
export function placeSlowStaging(
  d: SlowStagingDraft,
  nodes: readonly string[],
): { readonly entries: PlacedEntry[]; readonly volumes: VolumeDecl[] } {
  const home = nodes[0] ?? 'node-a';
  const other = nodes[1] ?? home;
  const block = d.block && d.plugin === 'csi';
  const volume: VolumeDecl = {
    name: 'lun-1',
    plugin: d.plugin,
    mode: block ? 'Block' : 'Filesystem',
    capacityBytes: 10 * 2 ** 30,
    accessMode: 'ReadWriteOnce',
  };
  const error: MountDeviceError | null =
    d.error === 0 ? null : d.error === 2 && d.plugin === 'csi' ? 'uncertain' : 'final';
  const create = (node: string): Action => ({
    kind: 'createPod',
    pod: 'm',
    node,
    containers: Array.from({ length: d.containers }, (_, i) => ({
      name: defaultContainerName(i),
      startDelayMs: null,
    })),
    volumes: ['lun-1'],
    static: false,
    gracePeriodS: d.graceS,
    restartPolicy: 'Always',
  });
  const entries: PlacedEntry[] = [
    {
      atMs: 0,
      action: {
        kind: 'fault',
        fault: {
          kind: 'mountDevice',
          node: home,
          volume: 'lun-1',
          delayMs: d.delayMs,
          error,
          times: d.times,
        },
      },
    },
    { atMs: 0, action: create(home) },
  ];
  const endAt = d.end.afterMs;
  const kind = POD_END_KINDS[d.end.kind] ?? 'deletePod';
  if (kind === 'deletePod')
    entries.push({ atMs: endAt, action: { kind, pod: 'm', gracePeriodS: d.end.graceS } });
  else if (kind === 'forceDeletePod') entries.push({ atMs: endAt, action: { kind, pod: 'm' } });
  else entries.push({ atMs: endAt, action: { kind, pod: 'm', gracePeriodS: d.end.graceS ?? 0 } });
  if (d.restart !== null) {
    entries.push({
      atMs: d.restart.afterMs,
      action: { kind: 'restartKubelet', node: home, downForMs: d.restart.downForMs },
    });
  }
  // An evicted pod's object stays (Failed) until someone deletes it: only a deleted name comes back.
  if (d.recreate !== null && kind !== 'evictPod') {
    // The create waits while the old object holds the name, then lands (podCreateWaiting).
    entries.push({
      atMs: endAt + 10 + d.recreate.gapMs,
      action: create(d.recreate.otherNode ? other : home),
    });
  }
  return { entries, volumes: [volume] };
}
