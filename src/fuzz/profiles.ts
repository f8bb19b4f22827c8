// Case profiles for swarm testing: besides the mixed pod churn of arbitraries.ts, a case may be a
// volume chain or a static pod chain, shapes that reach the races one volume or one static pod at a time
// goes through. Each is a free-form draft (indices and offsets) that a pure fix-up turns into timeline
// entries; every draft maps to a valid scenario, so fast-check shrinks it freely.
//
// A volume chain: pods that use one volume one after the other (the next created shortly after the
// previous is deleted, on the same node or another), optionally with a sibling pod sharing it, a kubelet
// restart around a deletion (the pod deleted while the kubelet is down) and a fault timed at a step.
// It reaches: MountDevice skipped after a failed UnmountDevice (same-node reuse), reconstruction after a
// restart with inconsistent /proc/mounts reads and another node waiting for the LUN, the FC flush
// retry, a device still open after its unmount, a volume shared by two pods across a restart, Block
// metrics, the attach/detach controller's force detach of a volume whose UnmountDevice keeps
// failing (the chain then settles for longer than maxWaitForUnmountDuration), and its detach request
// time across a same-node reuse that outlives that timeout (late reuse). And, drawn apart for CSI chains
// (DETACH_FAILS_ONE_IN), a controller Detach that fails after ControllerUnpublishVolume fenced the node
// while the next pod comes to the same node (#120571).
//
// A static pod chain: versions of one static pod's manifest, each replacing the previous after a short
// gap while the previous may still be in its grace period; a version may repeat the previous manifest
// (the same UID: UID reuse) or be removed before it started (rapid updates).
import fc from 'fast-check';
import { nodeStatusUpdateFrequencyMs } from '../kubelet/kubeletNodeStatus.js';
import type { Action, DetachStage, Fault, UnmountDeviceStage } from '../scenario/types.js';
import { defaultContainerName, UNMOUNT_DEVICE_STAGES } from '../scenario/types.js';
import type { PluginKind } from '../volume/volume.js';

/** A time in 10 ms steps from 0 to max (shrinks towards 0). */
const timeMs = (maxMs: number) => fc.integer({ min: 0, max: maxMs / 10 }).map((t) => t * 10);

/** The attach/detach controller's maxWaitForUnmountDuration (6 min) plus a minute to see what follows. */
export const FORCE_DETACH_SETTLE_MS = 7 * 60_000;

// ---- volume chain ---------------------------------------------------------------------------------------

export interface ChainStepDraft {
  /** Index into the case's nodes; the first step's is the chain's home node. */
  readonly node: number;
  /** After the previous step's deletion (the first step: after 0 s). */
  readonly gapMs: number;
  /** How long the pod lives before it is deleted; null: never deleted. */
  readonly lifeMs: number | null;
  readonly force: boolean;
  readonly graceS: number;
  /** A second pod on the same node, using the same volume, for the same lifetime. */
  readonly sibling: boolean;
}

export type ChainFaultDraft =
  | { readonly kind: 'unmountDevice'; readonly stage: UnmountDeviceStage; readonly times: number }
  | { readonly kind: 'unmountDeviceForever' }
  | { readonly kind: 'procMounts'; readonly reads: number }
  | { readonly kind: 'constructVolumeSpec' }
  | { readonly kind: 'tearDown'; readonly times: number }
  /** Never drawn by chainFault: set by the detach story (ChainDetachDraft) only. */
  | { readonly kind: 'detach'; readonly stage: DetachStage; readonly times: number };

/**
 * The detach story of a CSI chain: the first pod's volume is detached from its node once the node status
 * stops listing it in use (the first nodeStatusUpdateFrequency round after its UnmountDevice), and that
 * Detach fails; the next pod comes to the same node `offsetMs` after that round, while the detach is
 * pending or backing off, or just before it starts. With afterDetach the unpublish fenced the node and
 * the controller without #120595 reports the volume attached again (#120571). Drawn by the campaigns'
 * generator after every other draw (src/fuzz/arbitraries.ts), so no other case moves.
 */
export interface ChainDetachDraft {
  /** 0-2: afterDetach (#120571's timeout), 3: beforeDetach (nothing changed). */
  readonly stage: number;
  /** 0-2: one failing Detach; 3: two. */
  readonly times: number;
  /** When the next pod is created, after the node status round that lets the detach start. */
  readonly offsetMs: number;
}

/** Of the CSI volume chains after the warm-up, one in this many is a detach story. */
export const DETACH_FAILS_ONE_IN = 3;

export const chainDetachDraft: fc.Arbitrary<ChainDetachDraft> = fc.record({
  stage: fc.nat({ max: 3 }),
  times: fc.nat({ max: 3 }),
  offsetMs: timeMs(2_500),
});

/**
 * From a pod's deletion (grace at most 2 s) to its volume's UnmountDevice done: the kill, TearDown and
 * NodeUnstage take about 0.8 s; the node status round after this lets the controller detach.
 */
const UNSTAGED_BY_MS = 1_500;

/**
 * What a volume chain is built around. free: the steps as drawn. reuse: the next pod lands on the same
 * node just after the first pod's grace period, while its UnmountDevice fails (or its device is still
 * open); in a quarter of them (late) it keeps the volume for more than maxWaitForUnmountDuration, the
 * attach/detach controller's detach request time of the first deletion then stale. restart: the first pod's node restarts its kubelet around the pod's deletion, with a
 * reconstruction fault armed, and the next pod waits on another node. stuck: the first pod's
 * UnmountDevice fails for the whole run while the next pod (FC or iSCSI, ReadWriteOnce) waits on another
 * node past the attach/detach controller's maxWaitForUnmountDuration.
 */
export const CHAIN_PLOTS = ['free', 'reuse', 'restart', 'stuck'] as const;
export type ChainPlot = (typeof CHAIN_PLOTS)[number];
const PLOT_FIRST_LIFE_MS_MIN = 12_000;
/** A late reuse's next pod lives this long at least: past maxWaitForUnmountDuration (6 min). */
export const REUSE_LATE_LIFE_MS = 6.5 * 60_000;
/** The plots whose story has another node wait for the LUN: the case gets at least two nodes. */
export const CHAIN_PLOTS_ON_TWO_NODES: ReadonlySet<ChainPlot> = new Set(['restart', 'stuck']);

export interface VolumeChainDraft {
  /** Index into CHAIN_PLOTS (shrinks towards free). */
  readonly plot: number;
  readonly plugin: PluginKind;
  readonly block: boolean;
  /** 0 ReadWriteOnce (mostly), 1 ReadWriteMany. */
  readonly access: number;
  readonly steps: readonly ChainStepDraft[];
  /** Restart the kubelet of a step's node, `beforeDeleteMs` before that step's deletion. */
  readonly restart: {
    readonly step: number;
    readonly beforeDeleteMs: number;
    readonly downForMs: number;
  } | null;
  /** A fault armed on a step's node at its creation. */
  readonly fault: { readonly step: number; readonly fault: ChainFaultDraft } | null;
  /** Set by the restart plot only (never drawn): the first TearDown after the restart fails too. */
  readonly cleanupTearDownFails?: boolean;
  /** A CSI chain's detach story (set by the campaigns' generator, DETACH_FAILS_ONE_IN), or none. */
  readonly detach?: ChainDetachDraft | null;
}

const chainStep: fc.Arbitrary<ChainStepDraft> = fc.record({
  node: fc.nat({ max: 2 }),
  gapMs: fc.oneof({ arbitrary: timeMs(2_000), weight: 3 }, { arbitrary: timeMs(20_000), weight: 1 }),
  lifeMs: fc.oneof(
    { arbitrary: timeMs(20_000).map((t) => t + 500), weight: 6 },
    { arbitrary: timeMs(120_000).map((t) => t + 500), weight: 1 },
    { arbitrary: fc.constant(null), weight: 1 },
  ),
  force: fc.nat({ max: 3 }).map((k) => k === 3),
  graceS: fc.constantFrom(30, 0, 1, 5, 10),
  sibling: fc.nat({ max: 4 }).map((k) => k === 4),
});

const chainFault: fc.Arbitrary<ChainFaultDraft> = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant('unmountDevice' as const),
      stage: fc.constantFrom(...UNMOUNT_DEVICE_STAGES),
      times: fc.integer({ min: 1, max: 3 }),
    }),
    weight: 4,
  },
  { arbitrary: fc.record({ kind: fc.constant('unmountDeviceForever' as const) }), weight: 1 },
  {
    arbitrary: fc.record({ kind: fc.constant('procMounts' as const), reads: fc.integer({ min: 1, max: 5 }) }),
    weight: 3,
  },
  { arbitrary: fc.record({ kind: fc.constant('constructVolumeSpec' as const) }), weight: 1 },
  {
    arbitrary: fc.record({ kind: fc.constant('tearDown' as const), times: fc.integer({ min: 1, max: 3 }) }),
    weight: 1,
  },
);

export const volumeChainDraft: fc.Arbitrary<VolumeChainDraft> = fc.record({
  // free 1, reuse 2, restart 2, stuck 1 (stuck cases settle past the 6 min force-detach timeout)
  plot: fc.nat({ max: 5 }).map((k) => [0, 1, 1, 2, 2, 3][k] ?? 0),
  plugin: fc.constantFrom<PluginKind>('fc', 'iscsi', 'csi'),
  block: fc.nat({ max: 3 }).map((k) => k === 3),
  access: fc.nat({ max: 5 }).map((k) => (k === 5 ? 1 : 0)),
  steps: fc.array(chainStep, { minLength: 1, maxLength: 4 }),
  restart: fc.option(
    fc.record({
      step: fc.nat({ max: 3 }),
      beforeDeleteMs: timeMs(5_000),
      downForMs: fc.oneof(
        timeMs(30_000).map((t) => t + 1_000),
        fc.constant(60_000),
      ),
    }),
    { freq: 2 },
  ),
  fault: fc.option(fc.record({ step: fc.nat({ max: 3 }), fault: chainFault }), { freq: 2 }),
});

export interface PlacedEntry {
  readonly atMs: number;
  readonly action: Action;
}

export interface ChainPlacement {
  readonly entries: PlacedEntry[];
  /** The volume, to add to the scenario's cluster. */
  readonly volume: { plugin: PluginKind; block: boolean; access: number };
  /** Virtual time the case needs after its last action (a volume that never unmounts: a force detach). */
  readonly settleMs: number;
}

/**
 * The chain as timeline entries: pods `v<k>` (and sibling `v<k>s`) using `volume`, on `nodes`. Pure: a
 * function of the draft.
 */
export function placeVolumeChain(
  d0: VolumeChainDraft,
  nodes: readonly string[],
  volume: string,
): ChainPlacement {
  const d = plotted(d0, nodes.length);
  const entries: PlacedEntry[] = [];
  const nodeOf = (i: number): string => nodes[i % nodes.length] ?? 'node-a';
  let t = 0;
  const deletions: number[] = [];
  const stepNodes: string[] = [];
  d.steps.forEach((step, k) => {
    const node = nodeOf(step.node);
    stepNodes.push(node);
    // 10 ms after the previous deletion at least: a name is never created and deleted in one instant.
    const createAt = k === 0 ? 0 : t + 10 + step.gapMs;
    const pods = step.sibling ? [`v${k}`, `v${k}s`] : [`v${k}`];
    for (const pod of pods) {
      entries.push({
        atMs: createAt,
        action: {
          kind: 'createPod',
          pod,
          node,
          containers: [{ name: defaultContainerName(0), startDelayMs: null }],
          volumes: [volume],
          static: false,
          gracePeriodS: step.graceS,
          restartPolicy: 'Always',
        },
      });
    }
    if (step.lifeMs === null) {
      deletions.push(createAt);
      t = createAt;
      return;
    }
    const deleteAt = createAt + step.lifeMs;
    for (const pod of pods) {
      entries.push({
        atMs: deleteAt,
        action: step.force ? { kind: 'forceDeletePod', pod } : { kind: 'deletePod', pod, gracePeriodS: null },
      });
    }
    deletions.push(deleteAt);
    t = deleteAt;
  });
  const stepAt = (i: number): number => i % d.steps.length;
  let restartAt: number | undefined;
  if (d.restart !== null) {
    const k = stepAt(d.restart.step);
    restartAt = Math.max(0, (deletions[k] ?? 0) - d.restart.beforeDeleteMs);
    entries.push({
      atMs: restartAt,
      action: { kind: 'restartKubelet', node: stepNodes[k] ?? nodeOf(0), downForMs: d.restart.downForMs },
    });
  }
  let settleMs = 0;
  if (d.fault !== null) {
    const k = stepAt(d.fault.step);
    const node = stepNodes[k] ?? nodeOf(0);
    const createAt =
      entries.find((e) => e.action.kind === 'createPod' && e.action.pod === `v${k}`)?.atMs ?? 0;
    const f = d.fault.fault;
    let fault: Fault;
    switch (f.kind) {
      case 'unmountDevice':
        fault = { kind: 'unmountDevice', node, volume, stage: f.stage, times: f.times };
        break;
      case 'unmountDeviceForever':
        // UnmountDevice keeps failing (beforeUnmount: the global mount stays) for the whole run: what
        // the attach/detach controller's maxWaitForUnmountDuration is about.
        fault = { kind: 'unmountDevice', node, volume, stage: 'beforeUnmount', times: 1_000 };
        settleMs = FORCE_DETACH_SETTLE_MS;
        break;
      case 'procMounts':
        fault = { kind: 'procMounts', node, inconsistentReads: f.reads };
        break;
      case 'constructVolumeSpec':
        fault = { kind: 'constructVolumeSpec', node, volume };
        break;
      case 'tearDown':
        fault = { kind: 'tearDown', node, volume, times: f.times, delayMs: null };
        break;
      case 'detach':
        fault = { kind: 'detach', node, volume, stage: f.stage, times: f.times };
        break;
    }
    // Inconsistent /proc/mounts reads are consumed by whoever reads next: arm them as the kubelet goes
    // down, so its reconstruction meets them.
    const armAt = f.kind === 'procMounts' && restartAt !== undefined ? restartAt : createAt;
    entries.push({ atMs: armAt, action: { kind: 'fault', fault } });
    if (d.cleanupTearDownFails === true) {
      entries.push({
        atMs: armAt,
        action: { kind: 'fault', fault: { kind: 'tearDown', node, volume, times: 1, delayMs: null } },
      });
    }
  }
  return { entries, volume: { plugin: d.plugin, block: d.block, access: d.access }, settleMs };
}

/**
 * The draft with its plot applied: the plot fixes what its story needs (which step restarts or fails,
 * where the next pod lands, the fault's kind) and keeps the draft's own choices for the rest.
 */
function plotted(d: VolumeChainDraft, nodeCount: number): VolumeChainDraft {
  if (d.detach !== undefined && d.detach !== null) return detachFails(d, d.detach);
  const plot: ChainPlot = CHAIN_PLOTS[d.plot] ?? 'free';
  if (plot === 'free') return d;
  const first = d.steps[0] as ChainStepDraft;
  const second = d.steps[1] ?? { ...first, sibling: false };
  const rest = d.steps.slice(2);
  // Another node for the second pod when there is one (node indices are taken modulo the node count).
  const otherNode = nodeCount > 1 ? first.node + 1 : first.node;
  // The plots are about a volume that was mounted: the first pod lives past its MountDevice (which
  // waits for node status to report the volume in use, up to ~12 s after creation).
  const lifeMs = Math.max(first.lifeMs ?? 15_000, PLOT_FIRST_LIFE_MS_MIN);
  switch (plot) {
    case 'reuse': {
      // A short grace period, and the next pod right after it: while the first UnmountDevice fails.
      const graceS = Math.min(first.graceS, 2);
      const fault = d.fault?.fault;
      // Without a drawn stage: iSCSI's map held through the unmount (#107789) or a failure after it (#100183).
      // A drawn failure before the unmount takes that default too: it leaves the node as it was and is
      // retried, so the next pod only waits (on seeds 1-60, 68 such cases found no switch's bug but
      // pod-worker-lifecycle's and, in 2 with a Block volume, block-metrics').
      const stage: UnmountDeviceStage =
        fault?.kind === 'unmountDevice' && fault.stage !== 'beforeUnmount'
          ? fault.stage
          : d.plugin === 'iscsi'
            ? 'deviceStillOpen'
            : 'afterUnmount';
      const times = fault?.kind === 'unmountDevice' ? Math.max(2, fault.times) : 3;
      // A late reuse (a quarter of them, keyed on the restart draft this plot does not use otherwise):
      // the next pod keeps the volume past maxWaitForUnmountDuration from the first pod's deletion, so a
      // controller that kept the first detach request time would count the next one as timed out.
      const late = d.restart !== null && d.restart.downForMs === 60_000;
      const secondLifeMs = late ? REUSE_LATE_LIFE_MS + ((second.lifeMs ?? 0) % 20_000) : second.lifeMs;
      return {
        ...d,
        steps: [
          { ...first, lifeMs, force: false, graceS },
          {
            ...second,
            node: first.node,
            gapMs: graceS * 1000 + (second.gapMs % 4_000),
            lifeMs: secondLifeMs,
          },
          ...rest,
        ],
        restart: null,
        fault: { step: 0, fault: { kind: 'unmountDevice', stage, times } },
      };
    }
    case 'restart': {
      const fault = d.fault?.fault;
      if (fault?.kind === 'tearDown' && fault.times === 1)
        return staleCleanup(d, first, second, rest, lifeMs);
      const reconstruction: ChainFaultDraft =
        fault?.kind === 'constructVolumeSpec'
          ? fault
          : { kind: 'procMounts', reads: 3 + ((fault?.kind === 'procMounts' ? fault.reads : 0) % 3) };
      const beforeDeleteMs = d.restart?.beforeDeleteMs ?? 2_000;
      return {
        ...d,
        steps: [{ ...first, lifeMs }, { ...second, node: otherNode }, ...rest],
        restart: {
          step: 0,
          beforeDeleteMs,
          downForMs: Math.max(d.restart?.downForMs ?? 0, beforeDeleteMs + 5_000),
        },
        fault: { step: 0, fault: reconstruction },
      };
    }
    case 'stuck':
      // The next pod waits for the LUN (Multi-Attach) past the timeout. A CSI detach fences the node
      // (ControllerUnpublish), FC's and iSCSI's do nothing there: the plot is about the latter, on a
      // ReadWriteOnce volume.
      return {
        ...d,
        plugin: d.plugin === 'csi' ? 'fc' : d.plugin,
        access: 0,
        steps: [{ ...first, lifeMs, force: false }, { ...second, node: otherNode, lifeMs: null }, ...rest],
        restart: null,
        fault: { step: 0, fault: { kind: 'unmountDeviceForever' } },
      };
  }
}

/**
 * The detach story (ChainDetachDraft): a CSI volume; the first pod on the home node lives past its
 * MountDevice and is deleted with a short grace; the controller's Detach of the volume from the node fails
 * (`times` times, at `stage`); the next pod comes to the same node `offsetMs` after the node status round
 * that drops the volume from volumesInUse (the detach starts at that round), and stays: a pod wanting the
 * volume there while the controller believes it attached is never attached again without #120595. The
 * other drawn steps are dropped (a pod wanting the ReadWriteOnce volume elsewhere would be a Multi-Attach
 * wait, not this one).
 */
function detachFails(d: VolumeChainDraft, detach: ChainDetachDraft): VolumeChainDraft {
  const first = d.steps[0] as ChainStepDraft;
  const second = d.steps[1] ?? { ...first, sibling: false };
  const lifeMs = Math.max(first.lifeMs ?? 15_000, PLOT_FIRST_LIFE_MS_MIN);
  // The kubelet starts at 0 s: its node status rounds fall on multiples of nodeStatusUpdateFrequency.
  const round =
    Math.ceil((lifeMs + UNSTAGED_BY_MS) / nodeStatusUpdateFrequencyMs) * nodeStatusUpdateFrequencyMs;
  return {
    ...d,
    plugin: 'csi',
    steps: [
      { ...first, lifeMs, force: false, graceS: Math.min(first.graceS, 2) },
      // placeVolumeChain creates a step 10 ms + gapMs after the previous deletion.
      {
        ...second,
        node: first.node,
        gapMs: round - lifeMs - 10 + detach.offsetMs,
        lifeMs: null,
        force: false,
      },
    ],
    restart: null,
    fault: {
      step: 0,
      fault: {
        kind: 'detach',
        stage: detach.stage === 3 ? 'beforeDetach' : 'afterDetach',
        times: detach.times === 3 ? 2 : 1,
      },
    },
  };
}

/**
 * The restart plot when its drawn fault is a single TearDown failure (a third of the TearDown draws: the
 * others keep the procMounts story, which re-finds reconstruct-reliable-mount-refs as early as before): the first pod is force-deleted while its
 * kubelet is down, so the restarted kubelet knows no pod of the volume; its reconstruction fails
 * (constructVolumeSpec) and cleanupMounts' one TearDown fails too, leaving the pod's bind mount of the
 * global mount on the node for good (#101791, #85834). The next pod then takes the volume on the same
 * node: the kubelet mounts the device again and, when that pod goes, its UnmountDevice meets the stale
 * bind mount (GetDeviceMountRefs: "the device mount path is still mounted by other references").
 */
function staleCleanup(
  d: VolumeChainDraft,
  first: ChainStepDraft,
  second: ChainStepDraft,
  rest: readonly ChainStepDraft[],
  lifeMs: number,
): VolumeChainDraft {
  const beforeDeleteMs = d.restart?.beforeDeleteMs ?? 2_000;
  return {
    ...d,
    block: false,
    steps: [
      { ...first, lifeMs, force: true, sibling: false },
      { ...second, node: first.node, lifeMs: second.lifeMs ?? 30_000 },
      ...rest,
    ],
    restart: {
      step: 0,
      beforeDeleteMs,
      downForMs: Math.max(d.restart?.downForMs ?? 0, beforeDeleteMs + 5_000),
    },
    fault: { step: 0, fault: { kind: 'constructVolumeSpec' } },
    cleanupTearDownFails: true,
  };
}

// ---- static pod chain -------------------------------------------------------------------------------------

export interface StaticVersionDraft {
  /** After the previous version's manifest was removed (the first: after 0 s). */
  readonly gapMs: number;
  /** How long this version's manifest stays before it is removed (the last one may stay). */
  readonly lifeMs: number;
  /** Repeat the previous manifest exactly: the same UID (a static pod's UID is its manifest's hash). */
  readonly same: boolean;
  readonly containers: number;
  readonly graceS: number;
}

export interface StaticChainDraft {
  readonly node: number;
  readonly versions: readonly StaticVersionDraft[];
  /** The last version stays (no removal). */
  readonly keepLast: boolean;
  /** Restart the node's kubelet between two versions, for this long. */
  readonly restart: { readonly afterVersion: number; readonly downForMs: number } | null;
}

export const staticChainDraft: fc.Arbitrary<StaticChainDraft> = fc.record({
  node: fc.nat({ max: 2 }),
  versions: fc.array(
    fc.record({
      gapMs: fc.oneof({ arbitrary: timeMs(1_000), weight: 3 }, { arbitrary: timeMs(10_000), weight: 1 }),
      lifeMs: fc.oneof(
        { arbitrary: timeMs(3_000).map((t) => t + 100), weight: 2 },
        { arbitrary: timeMs(20_000).map((t) => t + 100), weight: 2 },
      ),
      same: fc.nat({ max: 3 }).map((k) => k === 3),
      containers: fc.integer({ min: 1, max: 3 }),
      graceS: fc.constantFrom(30, 5, 10, 0, 1),
    }),
    { minLength: 2, maxLength: 4 },
  ),
  keepLast: fc.nat({ max: 3 }).map((k) => k !== 0),
  restart: fc.option(
    fc.record({ afterVersion: fc.nat({ max: 3 }), downForMs: timeMs(20_000).map((t) => t + 1_000) }),
    { freq: 3 },
  ),
});

/** The chain as timeline entries: versions of static pod `s` on one node. Pure. */
export function placeStaticChain(d: StaticChainDraft, nodes: readonly string[]): PlacedEntry[] {
  const node = nodes[d.node % nodes.length] ?? 'node-a';
  const entries: PlacedEntry[] = [];
  let t = 0;
  let previous: StaticVersionDraft | undefined;
  d.versions.forEach((v0, k) => {
    // The same manifest again: the previous version's content, so the same UID.
    const v =
      v0.same && previous !== undefined
        ? { ...v0, containers: previous.containers, graceS: previous.graceS }
        : v0;
    const createAt = k === 0 ? 0 : t + 10 + v.gapMs;
    entries.push({
      atMs: createAt,
      action: {
        kind: 'createPod',
        pod: 's',
        node,
        containers: Array.from({ length: v.containers }, (_, i) => ({
          name: defaultContainerName(i),
          startDelayMs: null,
        })),
        volumes: [],
        static: true,
        gracePeriodS: v.graceS,
        restartPolicy: 'Always',
      },
    });
    t = createAt + v.lifeMs;
    const last = k === d.versions.length - 1;
    if (!(last && d.keepLast))
      entries.push({ atMs: t, action: { kind: 'deletePod', pod: 's', gracePeriodS: null } });
    if (d.restart !== null && d.restart.afterVersion % d.versions.length === k) {
      entries.push({ atMs: t, action: { kind: 'restartKubelet', node, downForMs: d.restart.downForMs } });
    }
    previous = v;
  });
  return entries;
}
