// The attach-after-restart profile: one pod (sometimes two sharing the volume) whose volume is set up and
// in use, then the node's kubelet restarts and, from then on, the volume's WaitForAttach fails for a while
// (an iSCSI portal that does not answer, an FC disk that does not show up, a CSI VolumeAttachment that
// cannot be read, upstream #110670's "driver not registered yet"), each retry after the reconciler's
// back-off; meanwhile the pod is deleted, force-deleted or evicted.
//
// It reaches what no other profile builds, since their WaitForAttach always goes through: a volume that
// syncStates skipped because its pod was in the desired state of world ("Volume exists in desired state")
// and whose MountVolume then never reaches MountDevice, which is what would mark the device in the actual
// state. The pod worker kills the pod only once syncPod's WaitForAttachAndMount has timed out (2 min 3 s
// after the restart), so when the failures outlast that and the pod's grace, the pod leaves the desired
// state before any mount: only processReconstructedVolumes (#110670) has put its volume and the device
// into the actual state, as uncertain, so that the reconciler tears both down. Like the other profiles,
// the draft is free-form and every draft maps to a valid scenario, so fast-check shrinks it freely.
import fc from 'fast-check';
import type { Action, VolumeDecl } from '../scenario/types.js';
import { defaultContainerName } from '../scenario/types.js';
import { initialDurationBeforeRetryMs, maxDurationBeforeRetryMs } from '../volume/util/exponentialBackoff.js';
import type { PluginKind } from '../volume/volume.js';
import type { PlacedEntry } from './profiles.js';
import { POD_END_KINDS } from './slowStaging.js';
import { VOLUME_IN_USE_BY_MS } from './slowTearDown.js';

/** A time in 10 ms steps from 0 to max (shrinks towards 0). */
const timeMs = (maxMs: number) => fc.integer({ min: 0, max: maxMs / 10 }).map((t) => t * 10);
/** A time in 10 ms steps from min to max (shrinks towards min). */
const timeBetweenMs = (minMs: number, maxMs: number) => timeMs(maxMs - minMs).map((t) => t + minMs);

/** syncPod's WaitForAttachAndMount timeout (volume_manager.go podAttachAndMountTimeout): 2 min 3 s. */
export const WAIT_FOR_ATTACH_AND_MOUNT_MS = 123_000;

export interface AttachAfterRestartDraft {
  readonly plugin: PluginKind;
  readonly block: boolean;
  readonly containers: number;
  readonly graceS: number;
  /** A second pod on the node using the same volume (the shared volume of #110547). */
  readonly sibling: boolean;
  /** The restart, after the volume is in use, and how long the kubelet is down. */
  readonly restart: { readonly afterMs: number; readonly downForMs: number };
  /** For how long after the kubelet is back WaitForAttach keeps failing (the fault's `times` follow). */
  readonly failsForMs: number;
  /** How long each failing call takes (a login or path wait timing out). */
  readonly callMs: number;
  /** How the pod goes, after the kubelet is back. */
  readonly end: { readonly kind: number; readonly afterMs: number; readonly graceS: number | null };
  /**
   * The call that fails after the restart: WaitForAttach (default), or, for a CSI volume, the pod's
   * SetUp / MapPodDevice (NodePublishVolume), #110670's "mount fails": WaitForAttach and MountDevice go
   * through, so only markVolumeErrorState decides what the actual state keeps of the reconstructed
   * volume. (An FC or iSCSI pod dir that is still mounted never gets to its SetUp's mount.) Drawn by the
   * campaigns' generator after every other draw (SETUP_FAILS_ONE_IN), so no other case moves.
   */
  readonly failingCall?: 'waitForAttach' | 'setUp' | null;
}

/** Of the attach-after-restart cases after the warm-up, one in this many fails SetUp instead. */
export const SETUP_FAILS_ONE_IN = 2;

export const attachAfterRestartDraft: fc.Arbitrary<AttachAfterRestartDraft> = fc.record({
  plugin: fc.constantFrom<PluginKind>('iscsi', 'fc', 'csi'),
  block: fc.nat({ max: 3 }).map((k) => k === 3),
  containers: fc.integer({ min: 1, max: 2 }),
  graceS: fc.constantFrom(30, 0, 1, 5),
  sibling: fc.nat({ max: 3 }).map((k) => k === 3),
  restart: fc.record({ afterMs: timeMs(20_000), downForMs: timeBetweenMs(500, 20_000) }),
  // Mostly past WaitForAttachAndMount and the pod's kill (what the reconstruction's uncertain marking is
  // for); a quarter of them seconds only (the retry then mounts for a pod that may still be there).
  failsForMs: fc.oneof(
    { arbitrary: timeBetweenMs(1_000, 60_000), weight: 1 },
    { arbitrary: timeBetweenMs(WAIT_FOR_ATTACH_AND_MOUNT_MS + 40_000, 300_000), weight: 3 },
  ),
  callMs: fc.oneof({ arbitrary: fc.constant(0), weight: 2 }, { arbitrary: timeMs(15_000), weight: 1 }),
  end: fc.record({
    // Mostly a graceful delete; shrinks towards it.
    kind: fc.nat({ max: 5 }).map((k) => (k < 3 ? 0 : k < 5 ? 1 : 2)),
    afterMs: timeMs(30_000),
    graceS: fc.option(fc.constantFrom(0, 1, 5, 30), { freq: 2 }),
  }),
});

/**
 * How many WaitForAttach calls start within `failsForMs` of the first, each taking `callMs` and the next
 * one waiting the reconciler's exponential back-off (nestedpendingoperations: 500 ms doubling to 2 min 2 s).
 */
export function failingCalls(failsForMs: number, callMs: number): number {
  let t = 0;
  let backoff = initialDurationBeforeRetryMs;
  let n = 0;
  while (t <= failsForMs) {
    n++;
    t += callMs + backoff;
    backoff = Math.min(2 * backoff, maxDurationBeforeRetryMs);
  }
  return n;
}

/** Extra virtual time the case needs after its last action: the failures, then the clean-up. */
export function attachAfterRestartSettleMs(d: AttachAfterRestartDraft): number {
  return d.failsForMs + maxDurationBeforeRetryMs;
}

/** The draft as timeline entries (pod `a`, sibling `as`, volume `lun-1`) and the volume. Pure. */
export function placeAttachAfterRestart(
  d: AttachAfterRestartDraft,
  nodes: readonly string[],
): { readonly entries: PlacedEntry[]; readonly volumes: VolumeDecl[] } {
  const home = nodes[0] ?? 'node-a';
  const volume: VolumeDecl = {
    name: 'lun-1',
    plugin: d.plugin,
    mode: d.block ? 'Block' : 'Filesystem',
    capacityBytes: 10 * 2 ** 30,
    accessMode: 'ReadWriteOnce',
  };
  const pods = d.sibling ? ['a', 'as'] : ['a'];
  const entries: PlacedEntry[] = pods.map((pod) => ({
    atMs: 0,
    action: {
      kind: 'createPod',
      pod,
      node: home,
      containers: Array.from({ length: d.containers }, (_, i) => ({
        name: defaultContainerName(i),
        startDelayMs: null,
      })),
      volumes: ['lun-1'],
      static: false,
      gracePeriodS: d.graceS,
      restartPolicy: 'Always',
    } satisfies Action,
  }));
  const restartAt = VOLUME_IN_USE_BY_MS + d.restart.afterMs;
  entries.push({
    atMs: restartAt,
    action: { kind: 'restartKubelet', node: home, downForMs: d.restart.downForMs },
  });
  // Armed as the kubelet goes down: the first WaitForAttach (or SetUp) after it comes back takes it.
  const setUp = d.failingCall === 'setUp' && d.plugin === 'csi';
  entries.push({
    atMs: restartAt,
    action: {
      kind: 'fault',
      fault: setUp
        ? { kind: 'setUp', node: home, volume: 'lun-1', times: failingCalls(d.failsForMs, 0), error: 'final' }
        : {
            kind: 'waitForAttach',
            node: home,
            volume: 'lun-1',
            times: failingCalls(d.failsForMs, d.callMs),
            error: null,
            delayMs: d.callMs === 0 ? null : d.callMs,
          },
    },
  });
  const endAt = restartAt + d.restart.downForMs + d.end.afterMs;
  const kind = POD_END_KINDS[d.end.kind] ?? 'deletePod';
  for (const pod of pods) {
    if (kind === 'deletePod')
      entries.push({ atMs: endAt, action: { kind, pod, gracePeriodS: d.end.graceS } });
    else if (kind === 'forceDeletePod') entries.push({ atMs: endAt, action: { kind, pod } });
    else entries.push({ atMs: endAt, action: { kind, pod, gracePeriodS: d.end.graceS ?? 0 } });
  }
  return { entries, volumes: [volume] };
}
