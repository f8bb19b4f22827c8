// The slow-teardown profile: one pod whose volume is set up and in use, then the pod deleted (gracefully,
// by force) or evicted while its volume's TearDown hangs, for seconds or for minutes (a umount stuck on an
// iSCSI or FC path that went away, until the kernel gives up with EBUSY), once or twice. Often the
// StatefulSet pattern follows: the same name and claim again right after the delete, on the same node or
// another; sometimes the kubelet restarts while the TearDown hangs.
//
// It reaches what no other profile builds, since their TearDown answers at once: a terminated pod whose
// volume stays mounted (VolumeMounted in the actual state, the mount on the node) for longer than
// syncTerminatedPod's WaitForUnmount (2 min): the pod worker must not finalise the pod (destroy its cgroup,
// send its terminal status, let the API object go) until the volume is gone, and retries
// syncTerminatedPod until it is. Like the other profiles, the draft is free-form and every draft maps to a
// valid scenario, so fast-check shrinks it freely (a shorter hang, no re-creation, earlier times).
import fc from 'fast-check';
import type { Action, VolumeDecl } from '../scenario/types.js';
import { defaultContainerName } from '../scenario/types.js';
import type { PlacedEntry } from './profiles.js';
import { POD_END_KINDS } from './slowStaging.js';

/** A time in 10 ms steps from 0 to max (shrinks towards 0). */
const timeMs = (maxMs: number) => fc.integer({ min: 0, max: maxMs / 10 }).map((t) => t * 10);
/** A time in 10 ms steps from min to max (shrinks towards min). */
const timeBetweenMs = (minMs: number, maxMs: number) => timeMs(maxMs - minMs).map((t) => t + minMs);

/** The pod runs by then: the attach, the node's volumesInUse report, MountDevice, SetUp, the start. */
export const VOLUME_IN_USE_BY_MS = 15_000;
/** syncTerminatedPod's WaitForUnmount timeout (volume_manager.go podAttachAndMountTimeout's sibling). */
export const WAIT_FOR_UNMOUNT_MS = 120_000;

export interface SlowTearDownDraft {
  /** iSCSI or FC: a kernel umount can hang for as long as the path is gone (CSI's call has a 2 min deadline). */
  readonly plugin: 'iscsi' | 'fc';
  /** A Block volume: the hang is in UnmapPodDevice. */
  readonly block: boolean;
  readonly containers: number;
  readonly graceS: number;
  /** How long each faulted TearDown hangs before it fails. */
  readonly hangMs: number;
  /** How many TearDown calls hang (the retry of a failed one too). */
  readonly times: number;
  /** How the pod goes, after its volume is in use. */
  readonly end: { readonly kind: number; readonly afterMs: number; readonly graceS: number | null };
  /** The StatefulSet pattern: the same name and claim again, `gapMs` after a delete. */
  readonly recreate: { readonly otherNode: boolean; readonly gapMs: number } | null;
  /** The pod's kubelet restarts this long after the pod's end (the TearDown hanging or not). */
  readonly restart: { readonly afterMs: number; readonly downForMs: number } | null;
}

export const slowTearDownDraft: fc.Arbitrary<SlowTearDownDraft> = fc.record({
  plugin: fc.constantFrom<'iscsi' | 'fc'>('iscsi', 'fc'),
  block: fc.nat({ max: 3 }).map((k) => k === 3),
  containers: fc.integer({ min: 1, max: 2 }),
  graceS: fc.constantFrom(30, 0, 1, 5),
  // Mostly past WaitForUnmount's 2 min (with the time the reconciler takes to start the TearDown); shrinks
  // towards a short one.
  hangMs: fc.oneof(
    { arbitrary: timeBetweenMs(1_000, 120_000), weight: 1 },
    { arbitrary: timeBetweenMs(130_000, 300_000), weight: 3 },
  ),
  times: fc.nat({ max: 3 }).map((k) => (k < 3 ? 1 : 2)),
  end: fc.record({
    // Mostly a graceful delete; shrinks towards it.
    kind: fc.nat({ max: 5 }).map((k) => (k < 4 ? 0 : k - 3)),
    afterMs: timeMs(30_000),
    graceS: fc.option(fc.constantFrom(0, 1, 5, 30), { freq: 2 }),
  }),
  recreate: fc.option(fc.record({ otherNode: fc.boolean(), gapMs: timeMs(2_000) }), { freq: 2 }),
  // One in six (fc.option's freq would make it five in six): a restart takes the waiting syncTerminatedPod
  // down with the kubelet, so most cases keep it; shrinks towards none.
  restart: fc
    .tuple(
      fc.nat({ max: 5 }),
      fc.record({ afterMs: timeMs(150_000), downForMs: timeMs(20_000).map((t) => t + 500) }),
    )
    .map(([k, r]) => (k === 5 ? r : null)),
});

/** Extra virtual time the case needs after its last action: the hangs, then the clean-up. */
export function slowTearDownSettleMs(d: SlowTearDownDraft): number {
  return d.hangMs * d.times;
}

/** The draft as timeline entries (pod `t`, volume `lun-1`) and the volume it declares. Pure. */
export function placeSlowTearDown(
  d: SlowTearDownDraft,
  nodes: readonly string[],
): { readonly entries: PlacedEntry[]; readonly volumes: VolumeDecl[] } {
  const home = nodes[0] ?? 'node-a';
  const other = nodes[1] ?? home;
  const volume: VolumeDecl = {
    name: 'lun-1',
    plugin: d.plugin,
    mode: d.block ? 'Block' : 'Filesystem',
    capacityBytes: 10 * 2 ** 30,
    accessMode: 'ReadWriteOnce',
  };
  const create = (node: string): Action => ({
    kind: 'createPod',
    pod: 't',
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
  // Armed at 0 s, it fires on the first TearDown of lun-1 on the home node: the pod's, once it goes.
  const entries: PlacedEntry[] = [
    {
      atMs: 0,
      action: {
        kind: 'fault',
        fault: { kind: 'tearDown', node: home, volume: 'lun-1', times: d.times, delayMs: d.hangMs },
      },
    },
    { atMs: 0, action: create(home) },
  ];
  const endAt = VOLUME_IN_USE_BY_MS + d.end.afterMs;
  const kind = POD_END_KINDS[d.end.kind] ?? 'deletePod';
  if (kind === 'deletePod')
    entries.push({ atMs: endAt, action: { kind, pod: 't', gracePeriodS: d.end.graceS } });
  else if (kind === 'forceDeletePod') entries.push({ atMs: endAt, action: { kind, pod: 't' } });
  else entries.push({ atMs: endAt, action: { kind, pod: 't', gracePeriodS: d.end.graceS ?? 0 } });
  if (d.restart !== null) {
    entries.push({
      atMs: endAt + d.restart.afterMs,
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
