// The invariant checkers (docs/invariants.md) and the monitor that feeds them facts and keeps the first
// violation per (invariant, uid or volume, node). Checkers observe; they never steer.
import type { AccessMode, ResourceList } from '../api/v1.js';
import type { Fact, FactKind } from '../facts.js';
import { ConcurrentKill } from './concurrentKill.js';
import { ContainerRestartedAgainstPolicy } from './containerRestartedAgainstPolicy.js';
import { ContainerRestartedDuringBackOff } from './containerRestartedDuringBackOff.js';
import { ContainerStartedAfterTerminated } from './containerStartedAfterTerminated.js';
import { ContainerStartedWithoutVolume } from './containerStartedWithoutVolume.js';
import { DeviceLeakedAfterUnmount } from './deviceLeakedAfterUnmount.js';
import { DeviceLeftMounted } from './deviceLeftMounted.js';
import { DeviceReleasedWhileOpen } from './deviceReleasedWhileOpen.js';
import { DeviceReportedUnusedWhileMounted } from './deviceReportedUnusedWhileMounted.js';
import { DeviceUnmountedWhileOpen } from './deviceUnmountedWhileOpen.js';
import { GracePeriodExceeded } from './gracePeriodExceeded.js';
import { GracePeriodIncreased } from './gracePeriodIncreased.js';
import { GracePeriodNotHonoured } from './gracePeriodNotHonoured.js';
import { KubeletPanic } from './kubeletPanic.js';
import { MirrorPodDeletedWhileRunning } from './mirrorPodDeletedWhileRunning.js';
import { MirrorPodMissing } from './mirrorPodMissing.js';
import { MountDeviceSkippedAfterFailure } from './mountDeviceSkippedAfterFailure.js';
import { MountStacked } from './mountStacked.js';
import { MultiNodeMount } from './multiNodeMount.js';
import { NodeShutdownMarkedFailed } from './nodeShutdownMarkedFailed.js';
import { PodCgroupDestroyedWithVolumes } from './podCgroupDestroyedWithVolumes.js';
import {
  PodDeletedBeforeVolumesReclaimed,
  type PodVolumeMounts,
} from './podDeletedBeforeVolumesReclaimed.js';
import { PodDeletedWhileRunning } from './podDeletedWhileRunning.js';
import { PodDeletedWithoutRequest } from './podDeletedWithoutRequest.js';
import { PodNeverStarted } from './podNeverStarted.js';
import { PodPhaseNotTerminal } from './podPhaseNotTerminal.js';
import { PodRejectedWithRoom } from './podRejectedWithRoom.js';
import { PodStatusRegressed } from './podStatusRegressed.js';
import { SandboxOutlivedPod } from './sandboxOutlivedPod.js';
import { StaticPodOverlap } from './staticPodOverlap.js';
import { DEFAULT_TERMINATION_BUDGET_MS, TerminationStuck } from './terminationStuck.js';
import type { Checker, Violation } from './types.js';
import { VolumeDetachedWhileInUse } from './volumeDetachedWhileInUse.js';
import { VolumeInUseAfterUnmount } from './volumeInUseAfterUnmount.js';
import { VolumeLeftAttached } from './volumeLeftAttached.js';
import { VolumeTornDownWhileRunning } from './volumeTornDownWhileRunning.js';

export { describeInvariant, INVARIANT_DESCRIPTIONS } from './descriptions.js';
export {
  type Checker,
  FINDING_IDS,
  INVARIANT_IDS,
  type InvariantId,
  isFinding,
  isInvariantId,
  type Violation,
} from './types.js';
export {
  ConcurrentKill,
  ContainerRestartedAgainstPolicy,
  ContainerRestartedDuringBackOff,
  ContainerStartedAfterTerminated,
  ContainerStartedWithoutVolume,
  DEFAULT_TERMINATION_BUDGET_MS,
  DeviceLeakedAfterUnmount,
  DeviceLeftMounted,
  DeviceReleasedWhileOpen,
  DeviceReportedUnusedWhileMounted,
  DeviceUnmountedWhileOpen,
  GracePeriodExceeded,
  GracePeriodIncreased,
  GracePeriodNotHonoured,
  KubeletPanic,
  MirrorPodDeletedWhileRunning,
  MirrorPodMissing,
  MountDeviceSkippedAfterFailure,
  MountStacked,
  MultiNodeMount,
  NodeShutdownMarkedFailed,
  PodCgroupDestroyedWithVolumes,
  PodDeletedBeforeVolumesReclaimed,
  PodDeletedWhileRunning,
  PodDeletedWithoutRequest,
  PodNeverStarted,
  PodPhaseNotTerminal,
  PodRejectedWithRoom,
  PodStatusRegressed,
  SandboxOutlivedPod,
  StaticPodOverlap,
  TerminationStuck,
  VolumeDetachedWhileInUse,
  VolumeInUseAfterUnmount,
  VolumeLeftAttached,
  VolumeTornDownWhileRunning,
};

export interface CheckerConfig {
  /** The scenario's volumes; a volume not listed is treated as ReadWriteOnce (the scenario format's default). */
  readonly volumes: readonly { readonly name: string; readonly accessMode: AccessMode }[];
  /**
   * Whether an injected fault is still active when the run ends: it has fired and has firings left
   * (termination-stuck, pod-never-started and the other liveness checks are then not judged).
   */
  readonly faultsActiveAtEnd: () => boolean;
  /** Time a deleted pod gets beyond its grace period to finish termination; default 120 000 ms. */
  readonly terminationBudgetMs?: number | undefined;
  /**
   * Ground truth: the volumes a pod still has set up on a node (its mounts under pods/{uid}/ and block map
   * references). Without it pod-deleted-before-volumes-reclaimed judges nothing.
   */
  readonly podVolumeMounts?: PodVolumeMounts | undefined;
  /** The nodes' status.allocatable (the scenario's); a node not listed rejects nothing for resources. */
  readonly nodeAllocatable?: Readonly<Record<string, ResourceList>> | undefined;
  /**
   * The kube-controller-manager runs with --disable-force-detach-on-timeout (#120344): the 6 min timeout
   * lets no volume its node lists in use go (volume-detached-while-in-use, pod-never-started).
   */
  readonly disableForceDetachOnTimeout?: boolean | undefined;
}

/** One checker per invariant ID, in INVARIANT_IDS order. */
export function createCheckers(config: CheckerConfig): Checker[] {
  return [
    new ContainerStartedAfterTerminated(),
    new VolumeTornDownWhileRunning(),
    new PodDeletedWhileRunning(),
    new StaticPodOverlap(),
    new MultiNodeMount(config.volumes),
    new DeviceReportedUnusedWhileMounted(),
    new MountDeviceSkippedAfterFailure(),
    new DeviceLeakedAfterUnmount(),
    new KubeletPanic(),
    new NodeShutdownMarkedFailed(),
    new ConcurrentKill(),
    new GracePeriodIncreased(),
    new TerminationStuck({
      faultsActiveAtEnd: config.faultsActiveAtEnd,
      terminationBudgetMs: config.terminationBudgetMs ?? DEFAULT_TERMINATION_BUDGET_MS,
    }),
    new PodNeverStarted({
      faultsActiveAtEnd: config.faultsActiveAtEnd,
      volumes: config.volumes,
      disableForceDetachOnTimeout: config.disableForceDetachOnTimeout,
    }),
    new GracePeriodNotHonoured(),
    new PodDeletedBeforeVolumesReclaimed(config.podVolumeMounts),
    new DeviceReleasedWhileOpen(),
    new VolumeDetachedWhileInUse({
      disableForceDetachOnTimeout: config.disableForceDetachOnTimeout === true,
    }),
    new PodStatusRegressed(),
    new MirrorPodDeletedWhileRunning(),
    new PodCgroupDestroyedWithVolumes(config.podVolumeMounts),
    new GracePeriodExceeded(),
    new MountStacked(),
    new PodDeletedWithoutRequest(),
    new ContainerRestartedAgainstPolicy(),
    new ContainerStartedWithoutVolume(),
    new VolumeLeftAttached({ faultsActiveAtEnd: config.faultsActiveAtEnd }),
    new VolumeInUseAfterUnmount({ faultsActiveAtEnd: config.faultsActiveAtEnd }),
    new MirrorPodMissing(),
    new PodPhaseNotTerminal(),
    new ContainerRestartedDuringBackOff(),
    new SandboxOutlivedPod(),
    new DeviceUnmountedWhileOpen(),
    new DeviceLeftMounted({ faultsActiveAtEnd: config.faultsActiveAtEnd }),
    new PodRejectedWithRoom(config.nodeAllocatable),
  ];
}

/** Feeds each fact to the checkers of its kind; keeps the first violation per (invariant, uid or volume, node). */
export class InvariantMonitor {
  readonly #checkers: readonly Checker[];
  /** Per fact kind, the checkers that read it, in the checkers' order (so violations keep their order). */
  readonly #byKind = new Map<FactKind, Checker[]>();
  readonly #violations: Violation[] = [];
  readonly #seen = new Set<string>();
  readonly #report = (v: Violation): void => {
    const key = `${v.invariant}\u0000${v.uid ?? v.volume ?? ''}\u0000${v.node ?? ''}`;
    if (this.#seen.has(key)) return;
    this.#seen.add(key);
    this.#violations.push(v);
  };
  #ended = false;

  constructor(checkers: readonly Checker[]) {
    this.#checkers = checkers;
    for (const c of checkers) {
      for (const kind of c.kinds) {
        const list = this.#byKind.get(kind);
        if (list === undefined) this.#byKind.set(kind, [c]);
        else list.push(c);
      }
    }
  }

  onFact(f: Fact): void {
    const list = this.#byKind.get(f.kind);
    if (list === undefined) return;
    for (let i = 0; i < list.length; i++) (list[i] as Checker).onFact(f, this.#report);
  }

  /** Runs the end-of-run (liveness) checks; only the first call counts. */
  onEnd(endMs: number): void {
    if (this.#ended) return;
    this.#ended = true;
    for (const c of this.#checkers) c.onEnd(endMs, this.#report);
  }

  /** How many violations were found so far. */
  get count(): number {
    return this.#violations.length;
  }

  /** The violations so far, in the order they were found. */
  violations(): Violation[] {
    return [...this.#violations];
  }
}
