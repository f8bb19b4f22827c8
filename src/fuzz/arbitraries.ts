// fast-check arbitraries for the fuzzer: valid normalised Scenarios (src/scenario/types.ts) that are small
// enough to run in milliseconds. The generator draws a free-form draft (records and arrays of plain
// choices, every reference an index) and a pure fix-up maps it to a Scenario whose every name is valid:
// indices are taken modulo what exists, pod-targeted actions happen at or after their pod's creation, a
// pod name is reused only once its previous holder has been deleted, volume faults without volumes are
// dropped. Nothing is filtered, so every draft maps to a scenario and shrinking works on the draft
// (fewer pods, fewer actions, earlier times, smaller counts) and always stays valid.
//
// The generator is part of the replay contract: `podrace replay --seed S --path P` re-creates a case from
// it. Changing it changes what a seed / path means (the YAML file written for a failure stays valid).
import fc from 'fast-check';
import type { RestartPolicy } from '../api/v1.js';
import {
  type Action,
  type ContainerDecl,
  defaultContainerName,
  type Fault,
  type NodeShutdownConfig,
  PLUGIN_KINDS,
  RESTART_POLICIES,
  type Scenario,
  type TimelineEntry,
  UNMOUNT_DEVICE_STAGES,
  type UnmountDeviceStage,
  type VolumeDecl,
} from '../scenario/types.js';
import type { PluginKind } from '../volume/volume.js';
import { type AdmissionDraft, admissionDraft, placeAdmission } from './admission.js';
import {
  type AttachAfterRestartDraft,
  attachAfterRestartDraft,
  attachAfterRestartSettleMs,
  placeAttachAfterRestart,
  SETUP_FAILS_ONE_IN,
} from './attachAfterRestart.js';
import { CRASH_LOOP_ONE_IN, crashLoopDraft, type JobsDraft, jobsDraft, placeJobs } from './jobs.js';
import {
  type KillSequenceDraft,
  killSequenceDraft,
  PRESTOP_ONE_IN,
  placeKillSequence,
  preStopDraft,
  RUNTIME_OUTAGE_ONE_IN,
  stopFailuresDraft,
} from './killSequence.js';
import {
  CHAIN_PLOTS,
  CHAIN_PLOTS_ON_TWO_NODES,
  chainDetachDraft,
  DETACH_FAILS_ONE_IN,
  type PlacedEntry,
  placeStaticChain,
  placeVolumeChain,
  type StaticChainDraft,
  staticChainDraft,
  type VolumeChainDraft,
  volumeChainDraft,
} from './profiles.js';
import {
  placeSlowStaging,
  type SlowStagingDraft,
  slowStagingDraft,
  slowStagingSettleMs,
} from './slowStaging.js';
import {
  placeSlowTearDown,
  type SlowTearDownDraft,
  slowTearDownDraft,
  slowTearDownSettleMs,
} from './slowTearDown.js';
import { WarmUpArbitrary } from './warmUp.js';

/** Node names in order; a case has 1 to 3 nodes. */
export const FUZZ_NODES = ['node-a', 'node-b', 'node-c'] as const;
/** Virtual time after the last action, so that grace periods, retries and clean-ups can finish. */
export const SETTLE_MS = 4 * 60_000;
/** Every action happens in roughly the first 20 s (pod-relative actions up to 20 s after creation). */
export const ACTION_WINDOW_MS = 20_000;
const VOLUME_CAPACITY = 10 * 1024 ** 3;
/** The name of every generated scenario; the campaign renames it after the case. */
export const FUZZ_SCENARIO_NAME = 'fuzz';

// ---- the draft --------------------------------------------------------------------------------------------

export interface VolumeDraft {
  readonly plugin: PluginKind;
  readonly block: boolean;
  /** 0 ReadWriteOnce (mostly), 1 ReadWriteMany, 2 ReadOnlyMany. */
  readonly access: number;
}

export type PodEndDraft = {
  readonly kind: 'delete' | 'force' | 'evict';
  /** After the pod's creation. */
  readonly afterMs: number;
  /** Seconds; null: the default (the pod's own for delete, 0 for evict). */
  readonly graceS: number | null;
};

export interface PodDraft {
  readonly node: number;
  readonly createAtMs: number;
  /** One entry per container: its startDelay, or null (drawn from the run's RNG). */
  readonly containers: readonly (number | null)[];
  readonly graceS: number;
  readonly restartPolicy: RestartPolicy;
  readonly static: boolean;
  /** Indices into the cluster's volumes (modulo their count). */
  readonly volumes: readonly number[];
  /** Reuse the name of an earlier, already deleted pod (index among the candidates), or a fresh name. */
  readonly reuse: number | null;
  /** How the pod goes away, if it does (most do: deletion-driven races). */
  readonly end: PodEndDraft | null;
}

export type ActionDraft =
  | {
      readonly kind: 'deletePod';
      readonly pod: number;
      readonly offsetMs: number;
      readonly graceS: number | null;
    }
  | { readonly kind: 'forceDeletePod'; readonly pod: number; readonly offsetMs: number }
  | {
      readonly kind: 'evictPod';
      readonly pod: number;
      readonly offsetMs: number;
      readonly graceS: number | null;
    }
  | {
      readonly kind: 'crashContainer';
      readonly pod: number;
      readonly offsetMs: number;
      readonly container: number;
    }
  | {
      readonly kind: 'containerStart';
      readonly pod: number;
      readonly offsetMs: number;
      readonly delayMs: number | null;
      readonly error: string | null;
    }
  | {
      readonly kind: 'restartKubelet';
      readonly node: number;
      readonly atMs: number;
      readonly downForMs: number | null;
    }
  | { readonly kind: 'shutdownNode'; readonly node: number; readonly atMs: number }
  | {
      readonly kind: 'unmountDevice';
      readonly node: number;
      readonly volume: number;
      readonly atMs: number;
      readonly stage: UnmountDeviceStage;
      readonly times: number;
    }
  | { readonly kind: 'procMounts'; readonly node: number; readonly atMs: number; readonly reads: number }
  | {
      readonly kind: 'constructVolumeSpec';
      readonly node: number;
      readonly volume: number;
      readonly atMs: number;
    }
  | {
      readonly kind: 'tearDown';
      readonly node: number;
      readonly volume: number;
      readonly atMs: number;
      readonly times: number;
    };

/**
 * A case's draft: one profile (swarm testing), each with only the fields it uses, so that fast-check
 * never spends shrink steps on parts of a draft the case ignores. mixed: pod churn with actions and
 * faults; volumeChain: one volume from pod to pod (src/fuzz/profiles.ts); staticChain: versions of one
 * static pod.
 */
export type ScenarioDraft =
  | MixedDraft
  | VolumeChainCaseDraft
  | StaticChainCaseDraft
  | KillSequenceCaseDraft
  | JobsCaseDraft
  | SlowStagingCaseDraft
  | SlowTearDownCaseDraft
  | AttachAfterRestartCaseDraft
  | AdmissionCaseDraft;

interface DraftBase {
  readonly seed: number;
  readonly nodeCount: number;
}

export interface MixedDraft extends DraftBase {
  readonly profile: 'mixed';
  /**
   * Which action kinds are on (bit i: ACTION_DRAFT_KINDS[i]); a case draws its own mix, so some cases
   * are all deletions, others all restarts and faults. Shrinks towards none.
   */
  readonly mask: number;
  readonly volumes: readonly VolumeDraft[];
  readonly pods: readonly PodDraft[];
  readonly actions: readonly ActionDraft[];
}

export interface VolumeChainCaseDraft extends DraftBase {
  readonly profile: 'volumeChain';
  readonly chain: VolumeChainDraft;
}

export interface StaticChainCaseDraft extends DraftBase {
  readonly profile: 'staticChain';
  readonly chain: StaticChainDraft;
}

export interface KillSequenceCaseDraft extends DraftBase {
  readonly profile: 'killSequence';
  readonly sequence: KillSequenceDraft;
}

export interface JobsCaseDraft extends DraftBase {
  readonly profile: 'jobs';
  readonly jobs: JobsDraft;
}

export interface SlowStagingCaseDraft extends DraftBase {
  readonly profile: 'slowStaging';
  readonly staging: SlowStagingDraft;
}

export interface SlowTearDownCaseDraft extends DraftBase {
  readonly profile: 'slowTearDown';
  readonly tearDown: SlowTearDownDraft;
}

export interface AttachAfterRestartCaseDraft extends DraftBase {
  readonly profile: 'attachAfterRestart';
  readonly attach: AttachAfterRestartDraft;
}

export interface AdmissionCaseDraft extends DraftBase {
  readonly profile: 'admission';
  readonly admission: AdmissionDraft;
}

/** The action kinds of the mixed profile, in mask bit order. */
export const ACTION_DRAFT_KINDS = [
  'deletePod',
  'forceDeletePod',
  'evictPod',
  'crashContainer',
  'containerStart',
  'restartKubelet',
  'shutdownNode',
  'unmountDevice',
  'procMounts',
  'constructVolumeSpec',
  'tearDown',
] as const satisfies readonly ActionDraft['kind'][];

// ---- arbitraries of the draft --------------------------------------------------------------------------

/** A time in 10 ms steps from 0 to max (shrinks towards 0). */
const timeMs = (maxMs: number) => fc.integer({ min: 0, max: maxMs / 10 }).map((t) => t * 10);
/** An offset after a pod's creation: mostly within 2 s (the interesting races), up to the window. */
const offsetMs = fc.oneof(
  { arbitrary: timeMs(2_000), weight: 3 },
  { arbitrary: timeMs(ACTION_WINDOW_MS), weight: 2 },
);
const index = fc.nat({ max: 11 });
const graceS = fc.oneof(fc.constantFrom(0, 1, 2, 5, 30), fc.integer({ min: 0, max: 30 }));
const optionalGraceS = fc.option(graceS, { freq: 2 });

/**
 * `arb`'s value in `times` out of `outOf` cases, else null; shrinks towards null (fc.oneof would only
 * shrink within the branch it took, so a rare feature could never be shrunk away).
 */
function sometimes<T>(arb: fc.Arbitrary<T>, times: number, outOf: number): fc.Arbitrary<T | null> {
  return fc.tuple(fc.nat({ max: outOf - 1 }), arb).map(([k, v]) => (k >= outOf - times ? v : null));
}

/** true in `times` out of `outOf` cases; shrinks towards false. */
const rarely = (times: number, outOf: number): fc.Arbitrary<boolean> =>
  fc.nat({ max: outOf - 1 }).map((k) => k >= outOf - times);

const volumeDraft: fc.Arbitrary<VolumeDraft> = fc.record({
  plugin: fc.constantFrom(...PLUGIN_KINDS),
  block: rarely(1, 4),
  // ReadWriteOnce mostly; shrinks towards it.
  access: fc.nat({ max: 9 }).map((k) => Math.max(0, k - 7)),
});

const podEndDraft: fc.Arbitrary<PodEndDraft> = fc.record({
  // Mostly a graceful delete; shrinks towards it.
  kind: fc.nat({ max: 6 }).map((k) => (k < 5 ? 'delete' : k === 5 ? 'force' : 'evict')),
  afterMs: offsetMs,
  graceS: optionalGraceS,
});

const podDraft: fc.Arbitrary<PodDraft> = fc.record({
  node: index,
  createAtMs: fc.oneof({ arbitrary: fc.constant(0), weight: 1 }, { arbitrary: timeMs(15_000), weight: 3 }),
  containers: fc.array(sometimes(timeMs(3_000), 1, 5), { minLength: 1, maxLength: 3 }),
  graceS,
  restartPolicy: sometimes(fc.constantFrom<RestartPolicy>(...RESTART_POLICIES), 1, 5).map(
    (p) => p ?? 'Always',
  ),
  static: rarely(1, 8),
  volumes: sometimes(fc.array(fc.nat({ max: 2 }), { minLength: 1, maxLength: 2 }), 2, 5).map((v) => v ?? []),
  reuse: sometimes(fc.nat({ max: 3 }), 1, 5),
  end: fc.option(podEndDraft, { freq: 4 }),
});

const nodeAt = { node: index, atMs: timeMs(ACTION_WINDOW_MS) };

const actionDraft: fc.Arbitrary<ActionDraft> = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant('deletePod' as const),
      pod: index,
      offsetMs,
      graceS: optionalGraceS,
    }),
    weight: 4,
  },
  { arbitrary: fc.record({ kind: fc.constant('forceDeletePod' as const), pod: index, offsetMs }), weight: 2 },
  {
    arbitrary: fc.record({
      kind: fc.constant('evictPod' as const),
      pod: index,
      offsetMs,
      graceS: optionalGraceS,
    }),
    weight: 3,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('crashContainer' as const),
      pod: index,
      offsetMs,
      container: index,
    }),
    weight: 3,
  },
  {
    arbitrary: fc
      .record({
        kind: fc.constant('containerStart' as const),
        pod: index,
        offsetMs: fc.oneof({ arbitrary: fc.constant(0), weight: 3 }, { arbitrary: timeMs(2_000), weight: 1 }),
        delayMs: fc.option(timeMs(5_000), { freq: 3 }),
        error: fc.option(
          fc.constantFrom('CreateContainerError', 'RunContainerError: context deadline exceeded'),
          {
            freq: 2,
          },
        ),
      })
      .map((a) => (a.delayMs === null && a.error === null ? { ...a, delayMs: 1_000 } : a)),
    weight: 2,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('restartKubelet' as const),
      ...nodeAt,
      downForMs: fc.option(timeMs(30_000), { freq: 2 }),
    }),
    weight: 3,
  },
  { arbitrary: fc.record({ kind: fc.constant('shutdownNode' as const), ...nodeAt }), weight: 1 },
  {
    arbitrary: fc.record({
      kind: fc.constant('unmountDevice' as const),
      ...nodeAt,
      volume: index,
      stage: fc.constantFrom(...UNMOUNT_DEVICE_STAGES),
      times: fc.integer({ min: 1, max: 3 }),
    }),
    weight: 3,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('procMounts' as const),
      ...nodeAt,
      reads: fc.integer({ min: 1, max: 5 }),
    }),
    weight: 2,
  },
  {
    arbitrary: fc.record({ kind: fc.constant('constructVolumeSpec' as const), ...nodeAt, volume: index }),
    weight: 2,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('tearDown' as const),
      ...nodeAt,
      volume: index,
      times: fc.integer({ min: 1, max: 3 }),
    }),
    weight: 2,
  },
);

const draftBase = {
  seed: fc.nat({ max: 0xffff }),
  nodeCount: fc.integer({ min: 1, max: FUZZ_NODES.length }),
};

const mixedArm: fc.Arbitrary<ScenarioDraft> = fc.record({
  profile: fc.constant('mixed' as const),
  ...draftBase,
  mask: fc.nat({ max: 2 ** ACTION_DRAFT_KINDS.length - 1 }),
  volumes: fc.array(volumeDraft, { maxLength: 3 }),
  pods: fc.array(podDraft, { minLength: 1, maxLength: 12 }),
  actions: fc.array(actionDraft, { maxLength: 8 }),
});
const volumeChainArm: fc.Arbitrary<ScenarioDraft> = fc.record({
  profile: fc.constant('volumeChain' as const),
  ...draftBase,
  chain: volumeChainDraft,
});
const staticChainArm: fc.Arbitrary<ScenarioDraft> = fc.record({
  profile: fc.constant('staticChain' as const),
  ...draftBase,
  chain: staticChainDraft,
});

/**
 * The swarm before kill sequences (mixed 2 : volume chain 2 : static chain 1), draw for draw the one the
 * 12 switches' time to bug was first measured with (issue 22, a922593): the warm-up's base.
 */
export const draftArbitraryClassicSwarm: fc.Arbitrary<ScenarioDraft> = fc.oneof(
  { arbitrary: mixedArm, weight: 2 },
  { arbitrary: volumeChainArm, weight: 2 },
  { arbitrary: staticChainArm, weight: 1 },
);

// Mixed 2 : volume chain 2 : static chain 1 : kill sequence 1.
const swarmDraftArbitrary: fc.Arbitrary<ScenarioDraft> = fc.oneof(
  { arbitrary: mixedArm, weight: 2 },
  { arbitrary: volumeChainArm, weight: 2 },
  { arbitrary: staticChainArm, weight: 1 },
  {
    arbitrary: fc.record({
      profile: fc.constant('killSequence' as const),
      ...draftBase,
      sequence: killSequenceDraft,
    }),
    weight: 1,
  },
);

/**
 * Of the cases that are not jobs cases, one in this many is a slow-staging case: few, since every one of
 * them displaces a case of the other profiles (and with it, maybe, a switch's first find).
 */
export const SLOW_STAGING_ONE_IN = 40;

const jobsCaseArbitrary: fc.Arbitrary<ScenarioDraft> = fc.record({
  profile: fc.constant('jobs' as const),
  ...draftBase,
  jobs: jobsDraft,
});

const slowStagingCaseArbitrary: fc.Arbitrary<ScenarioDraft> = fc.record({
  profile: fc.constant('slowStaging' as const),
  ...draftBase,
  staging: slowStagingDraft,
});

/** Of the cases that are neither jobs nor slow-staging cases, one in this many is a slow-teardown case. */
export const SLOW_TEARDOWN_ONE_IN = 40;

const slowTearDownCaseArbitrary: fc.Arbitrary<ScenarioDraft> = fc.record({
  profile: fc.constant('slowTearDown' as const),
  ...draftBase,
  tearDown: slowTearDownDraft,
});

/**
 * The generator as it was before the slow-staging profile (one case in ten a jobs case, the rest the
 * swarm's). Not used by campaigns: test/fuzz/slowStaging.test.ts checks that every case that is not a
 * slow-staging case is still this one's case, draw for draw.
 */
export const draftArbitraryBeforeSlowStaging: fc.Arbitrary<ScenarioDraft> = fc
  .tuple(swarmDraftArbitrary, fc.nat({ max: 9 }), jobsCaseArbitrary)
  .map(([swarm, pick, jobs]) => (pick === 0 ? jobs : swarm));

/**
 * One case in ten is a jobs case; of the others, one in forty is a slow-staging case. Each profile's
 * draft and pick are drawn after the draws that came before it, from the same per-case stream, so every
 * other case is exactly the case it was before that profile existed: a profile added this way displaces
 * cases instead of reshuffling them, and the switches' time-to-bug moves only where a case that found a
 * bug became a case of the new profile.
 */
export const draftArbitraryBeforeSlowTearDown: fc.Arbitrary<ScenarioDraft> = fc
  .tuple(
    swarmDraftArbitrary,
    fc.nat({ max: 9 }),
    jobsCaseArbitrary,
    // Unbiased: fast-check biases a nat towards 0 in its early runs (1 in 2 to 1 in 5 of them draw from a
    // small range), which would make the early cases, where most switches' first find is, slow-staging
    // cases several times as often as the late ones.
    fc.noBias(fc.nat({ max: SLOW_STAGING_ONE_IN - 1 })),
    slowStagingCaseArbitrary,
  )
  // The last value picks the slow-staging case, as `rarely` does: shrinking (towards 0) leaves the rare
  // profile for the case it displaced, never the other way round.
  .map(([swarm, pick, jobs, pickStaging, staging]) =>
    pick === 0 ? jobs : pickStaging === SLOW_STAGING_ONE_IN - 1 ? staging : swarm,
  );

/**
 * The generator before crash loops: the one above, and of its cases that are neither jobs nor slow-staging cases
 * one in SLOW_TEARDOWN_ONE_IN a slow-teardown case, its pick and draft drawn after every other draw (so
 * every other case stays the case it was; test/fuzz/slowTearDown.test.ts checks it draw for draw).
 */
export const draftArbitraryBeforeCrashLoops: fc.Arbitrary<ScenarioDraft> = fc
  .tuple(
    draftArbitraryBeforeSlowTearDown,
    // Unbiased, as the slow-staging pick is, so that the early cases are not displaced more often.
    fc.noBias(fc.nat({ max: SLOW_TEARDOWN_ONE_IN - 1 })),
    slowTearDownCaseArbitrary,
  )
  // The pick is drawn before the draft and checked last, as `rarely` does: shrinking (towards 0) leaves
  // the rare profile for the case it displaced, never the other way round.
  .map(([before, pick, tearDown]) =>
    before.profile === 'jobs' || before.profile === 'slowStaging' || pick !== SLOW_TEARDOWN_ONE_IN - 1
      ? before
      : tearDown,
  );

/**
 * The generator before the attach-after-restart profile: the one above, and of its jobs cases one in
 * CRASH_LOOP_ONE_IN crash-loops its first pod, the pick and the loop drawn after every other draw (so
 * every other case stays the case it was; test/fuzz/jobs.test.ts checks it draw for draw).
 */
export const draftArbitraryBeforeAttachAfterRestart: fc.Arbitrary<ScenarioDraft> = fc
  .tuple(draftArbitraryBeforeCrashLoops, fc.noBias(fc.nat({ max: CRASH_LOOP_ONE_IN - 1 })), crashLoopDraft)
  .map(([before, pick, crashLoop]) =>
    before.profile !== 'jobs' || pick !== CRASH_LOOP_ONE_IN - 1
      ? before
      : { ...before, jobs: { ...before.jobs, crashLoop } },
  );

/**
 * Of the cases that are neither jobs, slow-staging nor slow-teardown cases, one in this many is an
 * attach-after-restart case (src/fuzz/attachAfterRestart.ts).
 */
export const ATTACH_AFTER_RESTART_ONE_IN = 40;

const attachAfterRestartCaseArbitrary: fc.Arbitrary<ScenarioDraft> = fc.record({
  profile: fc.constant('attachAfterRestart' as const),
  ...draftBase,
  attach: attachAfterRestartDraft,
});

/**
 * The generator before runtime outages: the one above, and of its cases that are neither jobs,
 * slow-staging nor slow-teardown cases one in ATTACH_AFTER_RESTART_ONE_IN an attach-after-restart case,
 * its pick and draft drawn after every other draw (so every other case stays the case it was;
 * test/fuzz/attachAfterRestart.test.ts checks it draw for draw).
 */
export const draftArbitraryBeforeRuntimeOutage: fc.Arbitrary<ScenarioDraft> = fc
  .tuple(
    draftArbitraryBeforeAttachAfterRestart,
    // Unbiased, as the other rare profiles' picks are, so that the early cases are not displaced more often.
    fc.noBias(fc.nat({ max: ATTACH_AFTER_RESTART_ONE_IN - 1 })),
    attachAfterRestartCaseArbitrary,
  )
  // The pick is checked last, as `rarely` does: shrinking (towards 0) leaves the rare profile for the
  // case it displaced, never the other way round.
  .map(([before, pick, attach]) =>
    before.profile === 'jobs' ||
    before.profile === 'slowStaging' ||
    before.profile === 'slowTearDown' ||
    pick !== ATTACH_AFTER_RESTART_ONE_IN - 1
      ? before
      : attach,
  );

/**
 * The generator before SetUp failures: the one above, and of its kill-sequence cases one in
 * RUNTIME_OUTAGE_ONE_IN with a runtime outage (StopContainer failing from the first deletion on), the
 * pick and the failure count drawn after every other draw (so every other case stays the case it was;
 * test/fuzz/killSequence.test.ts checks it draw for draw).
 */
export const draftArbitraryBeforeSetUpFailures: fc.Arbitrary<ScenarioDraft> = fc
  .tuple(
    draftArbitraryBeforeRuntimeOutage,
    fc.noBias(fc.nat({ max: RUNTIME_OUTAGE_ONE_IN - 1 })),
    stopFailuresDraft,
  )
  .map(([before, pick, stopFailures]) =>
    before.profile !== 'killSequence' || pick !== RUNTIME_OUTAGE_ONE_IN - 1
      ? before
      : { ...before, sequence: { ...before.sequence, stopFailures } },
  );

/**
 * The campaigns' generator after the warm-up: the one above, and of its attach-after-restart cases one in
 * SETUP_FAILS_ONE_IN failing the pod's SetUp instead of WaitForAttach (a CSI volume's), the pick drawn
 * after every other draw (so every other case stays the case it was; test/fuzz/attachAfterRestart.test.ts
 * checks it draw for draw).
 */
export const draftArbitraryBeforePreStop: fc.Arbitrary<ScenarioDraft> = fc
  .tuple(draftArbitraryBeforeSetUpFailures, fc.noBias(fc.nat({ max: SETUP_FAILS_ONE_IN - 1 })))
  .map(([before, pick]) =>
    before.profile !== 'attachAfterRestart' || pick !== SETUP_FAILS_ONE_IN - 1
      ? before
      : { ...before, attach: { ...before.attach, failingCall: 'setUp' as const } },
  );

/**
 * The generator before the admission profile: the one above, and of its kill-sequence cases one in
 * PRESTOP_ONE_IN whose containers have a preStop hook (#115817: a hook's time on top of the grace), the
 * pick and the hook's length drawn after every other draw (so every other case stays the case it was;
 * test/fuzz/killSequence.test.ts checks it draw for draw).
 */
export const draftArbitraryBeforeAdmission: fc.Arbitrary<ScenarioDraft> = fc
  .tuple(draftArbitraryBeforePreStop, fc.noBias(fc.nat({ max: PRESTOP_ONE_IN - 1 })), preStopDraft)
  .map(([before, pick, preStopMs]) =>
    before.profile !== 'killSequence' || pick !== PRESTOP_ONE_IN - 1
      ? before
      : { ...before, sequence: { ...before.sequence, preStopMs } },
  );

/**
 * Of the cases after the warm-up that are neither jobs, slow-staging, slow-teardown nor
 * attach-after-restart cases, one in this many is an admission case (src/fuzz/admission.ts).
 */
export const ADMISSION_ONE_IN = 20;

const admissionCaseArbitrary: fc.Arbitrary<ScenarioDraft> = fc.record({
  profile: fc.constant('admission' as const),
  ...draftBase,
  admission: admissionDraft,
});

/**
 * The generator before detach failures: the one above, and of its cases that are neither jobs,
 * slow-staging, slow-teardown nor attach-after-restart cases one in ADMISSION_ONE_IN an admission case,
 * its pick (unbiased) and draft drawn after every other draw (so every other case stays the case it was;
 * test/fuzz/admission.test.ts checks it draw for draw). The pick is checked last, as `rarely` does:
 * shrinking leaves the rare profile for the case it displaced.
 */
export const draftArbitraryBeforeDetachFails: fc.Arbitrary<ScenarioDraft> = fc
  .tuple(
    draftArbitraryBeforeAdmission,
    fc.noBias(fc.nat({ max: ADMISSION_ONE_IN - 1 })),
    admissionCaseArbitrary,
  )
  .map(([before, pick, admission]) =>
    before.profile === 'jobs' ||
    before.profile === 'slowStaging' ||
    before.profile === 'slowTearDown' ||
    before.profile === 'attachAfterRestart' ||
    pick !== ADMISSION_ONE_IN - 1
      ? before
      : admission,
  );

/**
 * The campaigns' generator after the warm-up: the one above, and of its volume chains with a CSI volume
 * one in DETACH_FAILS_ONE_IN a detach story (src/fuzz/profiles.ts ChainDetachDraft: the controller's Detach
 * fails, #120571), the pick and the story drawn after every other draw (so every other case stays the
 * case it was; test/fuzz/detachFails.test.ts checks it draw for draw).
 */
export const draftArbitraryAfterWarmUp: fc.Arbitrary<ScenarioDraft> = fc
  .tuple(
    draftArbitraryBeforeDetachFails,
    fc.noBias(fc.nat({ max: DETACH_FAILS_ONE_IN - 1 })),
    chainDetachDraft,
  )
  .map(([before, pick, detach]) =>
    before.profile !== 'volumeChain' || before.chain.plugin !== 'csi' || pick !== DETACH_FAILS_ONE_IN - 1
      ? before
      : { ...before, chain: { ...before.chain, detach } },
  );

/**
 * The warm-up cases (src/fuzz/warmUp.ts): the classic swarm, and of its cases one in SLOW_TEARDOWN_ONE_IN
 * and one in ATTACH_AFTER_RESTART_ONE_IN a case of those rare profiles, each pick and draft drawn after the
 * swarm's (a case no rare profile displaced is the classic swarm's, draw for draw). They stay because each
 * is the early finder of a switch's bug (slow teardown: terminated-pod-waits-for-volume-cleanup, 95 of its
 * 99 warm-up cases on seeds 1-40; attach after restart: reconstruct-every-pod-of-volume, 35 of 92). Slow
 * staging waits for the rest with jobs and kill sequences: none of its 99 warm-up cases on seeds 1-40 found
 * a switch's bug, so each of them only displaced a classic case. Its pick and draft are still drawn, and
 * not used: the picks after them keep their draws, so no case changes but the slow-staging ones, which
 * are the classic swarm's again.
 */
const warmUpDraws = fc.tuple(
  draftArbitraryClassicSwarm,
  fc.noBias(fc.nat({ max: SLOW_STAGING_ONE_IN - 1 })),
  slowStagingCaseArbitrary,
  fc.noBias(fc.nat({ max: SLOW_TEARDOWN_ONE_IN - 1 })),
  slowTearDownCaseArbitrary,
  fc.noBias(fc.nat({ max: ATTACH_AFTER_RESTART_ONE_IN - 1 })),
  attachAfterRestartCaseArbitrary,
);

// Picks checked last, as `rarely` does: shrinking leaves a rare profile for the case it displaced.
export const draftArbitraryWarmUp: fc.Arbitrary<ScenarioDraft> = warmUpDraws.map(
  ([classic, _pickStaging, _staging, pickTearDown, tearDown, pickAttach, attach]) => {
    if (pickTearDown === SLOW_TEARDOWN_ONE_IN - 1) return tearDown;
    if (pickAttach === ATTACH_AFTER_RESTART_ONE_IN - 1) return attach;
    return classic;
  },
);

/**
 * The warm-up before slow staging left it: the same draws, one in SLOW_STAGING_ONE_IN of the cases a
 * slow-staging one. Not used by campaigns: test/fuzz/warmUp.test.ts checks that every other case is the
 * same, draw for draw.
 */
export const draftArbitraryWarmUpWithSlowStaging: fc.Arbitrary<ScenarioDraft> = warmUpDraws.map(
  ([classic, pickStaging, staging, pickTearDown, tearDown, pickAttach, attach]) => {
    if (pickStaging === SLOW_STAGING_ONE_IN - 1) return staging;
    if (pickTearDown === SLOW_TEARDOWN_ONE_IN - 1) return tearDown;
    if (pickAttach === ATTACH_AFTER_RESTART_ONE_IN - 1) return attach;
    return classic;
  },
);

/** The campaigns' generator: the warm-up mix for a seed's first WARM_UP_CASES cases, then the whole mix. */
export const scenarioDraftArbitrary: fc.Arbitrary<ScenarioDraft> = new WarmUpArbitrary(
  draftArbitraryWarmUp,
  draftArbitraryAfterWarmUp,
);

// ---- the fix-up ------------------------------------------------------------------------------------------

const ACCESS = ['ReadWriteOnce', 'ReadWriteMany', 'ReadOnlyMany'] as const;

interface PlacedPod {
  readonly draft: PodDraft;
  readonly index: number;
  name: string;
  node: string;
  isStatic: boolean;
  containers: ContainerDecl[];
  volumes: string[];
}

interface Pending {
  readonly atMs: number;
  /** createPod entries go first among entries at the same time (their pod must exist for the rest). */
  readonly rank: number;
  readonly seq: number;
  readonly action: Action;
}

/** The draft as a valid normalised Scenario (named FUZZ_SCENARIO_NAME; the campaign renames it). */
export function scenarioFromDraft(d: ScenarioDraft): Scenario {
  const nodes = FUZZ_NODES.slice(0, Math.max(1, Math.min(FUZZ_NODES.length, d.nodeCount)));
  if (d.profile === 'volumeChain') return volumeChainScenario(d, nodes);
  if (d.profile === 'staticChain')
    return chainScenario(d.seed, nodes, [], placeStaticChain(d.chain, nodes), 0);
  if (d.profile === 'jobs') {
    const placed = placeJobs(d.jobs, nodes);
    return chainScenario(d.seed, nodes, placed.volumes, placed.entries, 0);
  }
  if (d.profile === 'slowStaging') {
    // A pod re-created on another node needs a second one.
    const used =
      d.staging.recreate?.otherNode === true ? FUZZ_NODES.slice(0, Math.max(2, nodes.length)) : nodes;
    const placed = placeSlowStaging(d.staging, used);
    return chainScenario(
      d.seed,
      used,
      placed.volumes,
      placed.entries,
      SETTLE_MS + slowStagingSettleMs(d.staging),
    );
  }
  if (d.profile === 'slowTearDown') {
    // A pod re-created on another node needs a second one.
    const used =
      d.tearDown.recreate?.otherNode === true ? FUZZ_NODES.slice(0, Math.max(2, nodes.length)) : nodes;
    const placed = placeSlowTearDown(d.tearDown, used);
    return chainScenario(
      d.seed,
      used,
      placed.volumes,
      placed.entries,
      SETTLE_MS + slowTearDownSettleMs(d.tearDown),
    );
  }
  if (d.profile === 'attachAfterRestart') {
    const placed = placeAttachAfterRestart(d.attach, nodes);
    return chainScenario(
      d.seed,
      nodes,
      placed.volumes,
      placed.entries,
      SETTLE_MS + attachAfterRestartSettleMs(d.attach),
    );
  }
  if (d.profile === 'killSequence') {
    const placed = placeKillSequence(d.sequence, nodes);
    return chainScenario(d.seed, nodes, placed.volumes, placed.entries, 0);
  }
  if (d.profile === 'admission') {
    const placed = placeAdmission(d.admission, nodes);
    const home = nodes[0] ?? 'node-a';
    return {
      ...chainScenario(d.seed, nodes, placed.volumes, placed.entries, 0),
      nodeLabels: { [home]: placed.labels },
      nodeAllocatable: { [home]: placed.allocatable },
      // A node written with labels is a node entry, which the loader reads with upstream's 0 s shutdown
      // grace: the draft says the same, so the case survives the YAML round trip unchanged.
      nodeShutdown: { [home]: { shutdownGracePeriodS: 0, shutdownGracePeriodCriticalPodsS: 0 } },
    };
  }
  const nodeOf = (i: number): string => nodes[i % nodes.length] ?? 'node-a';
  const volumes: VolumeDecl[] = d.volumes.map((v, i) => ({
    name: `lun-${i + 1}`,
    plugin: v.plugin,
    mode: v.block ? 'Block' : 'Filesystem',
    capacityBytes: VOLUME_CAPACITY,
    accessMode: ACCESS[v.access] ?? 'ReadWriteOnce',
  }));
  const volumeOf = (i: number): string | undefined => volumes[i % Math.max(1, volumes.length)]?.name;

  // Pods in creation order (ties: draft order), each with its first API deletion time.
  const pods: PlacedPod[] = d.pods.map((draft, index) => ({
    draft,
    index,
    name: `p${index}`,
    node: nodeOf(draft.node),
    isStatic: draft.static,
    containers: draft.containers.map((startDelayMs, k) => ({ name: defaultContainerName(k), startDelayMs })),
    volumes: [],
  }));
  const deletedAt = pods.map((p) => {
    let at = Number.POSITIVE_INFINITY;
    const end = p.draft.end;
    if (end !== null && end.kind !== 'evict') at = p.draft.createAtMs + end.afterMs;
    return at;
  });
  const enabled = (a: ActionDraft): boolean => (d.mask & (1 << ACTION_DRAFT_KINDS.indexOf(a.kind))) !== 0;
  d.actions.forEach((a) => {
    if (a.kind !== 'deletePod' && a.kind !== 'forceDeletePod') return;
    if (!enabled(a)) return;
    const i = a.pod % pods.length;
    const p = pods[i];
    if (p !== undefined)
      deletedAt[i] = Math.min(deletedAt[i] ?? Number.POSITIVE_INFINITY, p.draft.createAtMs + a.offsetMs);
  });
  const byCreation = [...pods].sort((a, b) => a.draft.createAtMs - b.draft.createAtMs || a.index - b.index);
  /** name -> when its current holder is deleted (Infinity: never). */
  const holderDeletedAt = new Map<string, number>();
  const holderOf = new Map<string, PlacedPod>();
  for (const p of byCreation) {
    if (p.draft.reuse !== null) {
      const free = [...holderDeletedAt.entries()]
        .filter(([, at]) => at < p.draft.createAtMs)
        .map(([name]) => name);
      const name = free[p.draft.reuse % Math.max(1, free.length)];
      const previous = name === undefined ? undefined : holderOf.get(name);
      if (name !== undefined && previous !== undefined) {
        // A pod created again under the same name: the same node and kind (a manifest re-added, a
        // StatefulSet-like replacement), the races of UID reuse and static-pod fullnames. The case stays
        // valid whatever the timing: an API pod's replacement waits until the old object is gone
        // (AlreadyExists, src/cluster/podNameWaiters.ts), as the StatefulSet controller does.
        p.name = name;
        p.node = previous.node;
        p.isStatic = previous.isStatic;
      }
    }
    holderDeletedAt.set(p.name, deletedAt[p.index] ?? Number.POSITIVE_INFINITY);
    holderOf.set(p.name, p);
    // Static pods come from manifest files and use no persistent volumes.
    if (!p.isStatic && volumes.length > 0) {
      for (const v of p.draft.volumes) {
        const name = volumeOf(v);
        if (name !== undefined && !p.volumes.includes(name)) p.volumes.push(name);
      }
    }
  }

  const pending: Pending[] = [];
  const push = (atMs: number, action: Action) =>
    pending.push({ atMs, rank: action.kind === 'createPod' ? 0 : 1, seq: pending.length, action });
  for (const p of pods) {
    const at = p.draft.createAtMs;
    push(at, {
      kind: 'createPod',
      pod: p.name,
      node: p.node,
      containers: p.containers,
      volumes: p.volumes,
      static: p.isStatic,
      gracePeriodS: p.draft.graceS,
      restartPolicy: p.draft.restartPolicy,
    });
    const end = p.draft.end;
    if (end === null) continue;
    const endAt = at + end.afterMs;
    if (end.kind === 'delete') push(endAt, { kind: 'deletePod', pod: p.name, gracePeriodS: end.graceS });
    else if (end.kind === 'force') push(endAt, { kind: 'forceDeletePod', pod: p.name });
    else push(endAt, { kind: 'evictPod', pod: p.name, gracePeriodS: end.graceS ?? 0 });
  }
  for (const a of d.actions) {
    if (!enabled(a)) continue; // this kind is off in the case
    const action = actionFromDraft(a, pods, nodeOf, volumes.length === 0 ? undefined : volumeOf);
    if (action !== undefined) push(action.atMs, action.action);
  }
  pending.sort((a, b) => a.atMs - b.atMs || a.rank - b.rank || a.seq - b.seq);
  const timeline: TimelineEntry[] = pending.map((e) => ({ atMs: e.atMs, line: 0, action: e.action }));
  const lastMs = pending.reduce((m, e) => Math.max(m, e.atMs), 0);
  return {
    file: '',
    name: FUZZ_SCENARIO_NAME,
    description: '',
    upstream: [],
    seed: d.seed,
    horizonMs: Math.ceil((lastMs + SETTLE_MS) / 1000) * 1000,
    nodes,
    ...shutdownGraceOf(timeline),
    volumes,
    timeline,
    claims: [],
  };
}

/**
 * The graceful node shutdown configuration of the nodes a case shuts down: 30 s, 10 s of them for critical
 * pods, what podrace assumed on every node before a scenario could say (upstream's default, 0 s, would
 * make the shutdown do nothing). Only those nodes, so a case without a shutdown writes plain node names.
 */
function shutdownGraceOf(timeline: readonly TimelineEntry[]): {
  nodeShutdown?: Record<string, NodeShutdownConfig>;
} {
  const out: Record<string, NodeShutdownConfig> = {};
  for (const e of timeline) {
    if (e.action.kind === 'shutdownNode') out[e.action.node] = FUZZ_SHUTDOWN_GRACE;
  }
  return Object.keys(out).length === 0 ? {} : { nodeShutdown: out };
}

const FUZZ_SHUTDOWN_GRACE: NodeShutdownConfig = {
  shutdownGracePeriodS: 30,
  shutdownGracePeriodCriticalPodsS: 10,
};

/** A volume chain case: its one volume `lun-1` and its pods, nothing else. */
function volumeChainScenario(d: VolumeChainCaseDraft, drawnNodes: readonly string[]): Scenario {
  // The restart and stuck plots are about another node waiting for the LUN: they need two.
  const nodes = CHAIN_PLOTS_ON_TWO_NODES.has(CHAIN_PLOTS[d.chain.plot] ?? 'free')
    ? FUZZ_NODES.slice(0, Math.max(2, drawnNodes.length))
    : drawnNodes;
  const placed = placeVolumeChain(d.chain, nodes, 'lun-1');
  const v = placed.volume;
  const volume: VolumeDecl = {
    name: 'lun-1',
    plugin: v.plugin,
    mode: v.block ? 'Block' : 'Filesystem',
    capacityBytes: VOLUME_CAPACITY,
    accessMode: ACCESS[v.access] ?? 'ReadWriteOnce',
  };
  return chainScenario(d.seed, nodes, [volume], placed.entries, placed.settleMs);
}

/** A scenario of entries already in a valid order (a profile's): sorted stably by time. */
function chainScenario(
  seed: number,
  nodes: readonly string[],
  volumes: readonly VolumeDecl[],
  entries: readonly PlacedEntry[],
  settleMs: number,
): Scenario {
  const timeline: TimelineEntry[] = entries
    .map((e, seq) => ({ e, seq }))
    .sort((a, b) => a.e.atMs - b.e.atMs || a.seq - b.seq)
    .map(({ e }) => ({ atMs: e.atMs, line: 0, action: e.action }));
  const lastMs = timeline.reduce((m, e) => Math.max(m, e.atMs), 0);
  return {
    file: '',
    name: FUZZ_SCENARIO_NAME,
    description: '',
    upstream: [],
    seed,
    horizonMs: Math.ceil((lastMs + Math.max(SETTLE_MS, settleMs)) / 1000) * 1000,
    nodes,
    ...shutdownGraceOf(timeline),
    volumes,
    timeline,
    claims: [],
  };
}

/** The pod that holds `name` at `atMs`: the last one of that name created at or before it. */
function holderAt(pods: readonly PlacedPod[], name: string, atMs: number): PlacedPod | undefined {
  let best: PlacedPod | undefined;
  for (const p of pods) {
    if (p.name !== name || p.draft.createAtMs > atMs) continue;
    if (best === undefined || p.draft.createAtMs > best.draft.createAtMs) best = p;
  }
  return best;
}

function actionFromDraft(
  a: ActionDraft,
  pods: readonly PlacedPod[],
  nodeOf: (i: number) => string,
  volumeOf: ((i: number) => string | undefined) | undefined,
): { atMs: number; action: Action } | undefined {
  const fault = (atMs: number, f: Fault) => ({ atMs, action: { kind: 'fault', fault: f } as const });
  switch (a.kind) {
    case 'deletePod':
    case 'forceDeletePod':
    case 'evictPod':
    case 'crashContainer':
    case 'containerStart': {
      const p = pods[a.pod % pods.length];
      if (p === undefined) return undefined;
      const atMs = p.draft.createAtMs + a.offsetMs;
      switch (a.kind) {
        case 'deletePod':
          return { atMs, action: { kind: 'deletePod', pod: p.name, gracePeriodS: a.graceS } };
        case 'forceDeletePod':
          return { atMs, action: { kind: 'forceDeletePod', pod: p.name } };
        case 'evictPod':
          return { atMs, action: { kind: 'evictPod', pod: p.name, gracePeriodS: a.graceS ?? 0 } };
        case 'crashContainer': {
          // The name may have been reused by then: the container must be one of the pod that holds it.
          const holder = holderAt(pods, p.name, atMs) ?? p;
          const container =
            holder.containers[a.container % holder.containers.length]?.name ?? defaultContainerName(0);
          return { atMs, action: { kind: 'crashContainer', pod: p.name, container, exitCode: 1 } };
        }
        case 'containerStart':
          return fault(atMs, { kind: 'containerStart', pod: p.name, delayMs: a.delayMs, error: a.error });
      }
      return undefined;
    }
    case 'restartKubelet':
      return {
        atMs: a.atMs,
        action: { kind: 'restartKubelet', node: nodeOf(a.node), downForMs: a.downForMs },
      };
    case 'shutdownNode':
      return { atMs: a.atMs, action: { kind: 'shutdownNode', node: nodeOf(a.node) } };
    case 'procMounts':
      return fault(a.atMs, { kind: 'procMounts', node: nodeOf(a.node), inconsistentReads: a.reads });
    case 'unmountDevice':
    case 'constructVolumeSpec':
    case 'tearDown': {
      const volume = volumeOf?.(a.volume);
      if (volume === undefined) return undefined; // no volumes in this case: nothing to fault
      const node = nodeOf(a.node);
      if (a.kind === 'unmountDevice')
        return fault(a.atMs, { kind: 'unmountDevice', node, volume, stage: a.stage, times: a.times });
      if (a.kind === 'tearDown')
        return fault(a.atMs, { kind: 'tearDown', node, volume, times: a.times, delayMs: null });
      return fault(a.atMs, { kind: 'constructVolumeSpec', node, volume });
    }
  }
}

/** Valid normalised Scenarios for the fuzzer; shrinking works on the draft and always stays valid. */
export const scenarioArbitrary: fc.Arbitrary<Scenario> = scenarioDraftArbitrary.map(scenarioFromDraft);
