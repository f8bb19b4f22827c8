// Ported from kubernetes pkg/kubelet/server/stats/fs_resource_analyzer.go, release-1.23: every
// volume-stats aggregation period, start a volume stat calculator for each pod the kubelet knows and stop
// the ones of pods that are gone.

import type { UID } from '../../api/v1.js';
import { WRITES_NONE, WRITES_PODS } from '../../elisionMasks.js';
import type { Fact } from '../../facts.js';
import type { Fixes } from '../../fixes.js';
import { type Co, type ProcessGroup, type Rng, type Sim, sleep } from '../../sim/index.js';
import type { BlockVolumeMapper, MetricsProvider } from '../../volume/volume.js';
import type { StatsProvider } from './volumeStatCalculator.js';
import { defaultVolumeStatsAggPeriod, VolumeStatCalculator } from './volumeStatCalculator.js';

export interface FsResourceAnalyzerOptions {
  readonly sim: Sim;
  readonly group: ProcessGroup;
  readonly node: string;
  readonly fixes: Fixes;
  readonly rng: Rng;
  readonly publish: (fact: Fact) => void;
  /** statsProvider.GetPods: the UIDs of the pods the kubelet manages. */
  readonly podUIDs: () => readonly UID[];
  readonly statsProvider: StatsProvider;
  /** A Go panic in a stats goroutine kills the kubelet process. */
  readonly onPanic: (message: string) => void;
}

export class FsResourceAnalyzer {
  private cache = new Map<UID, VolumeStatCalculator>();

  constructor(private readonly o: FsResourceAnalyzerOptions) {}

  start(): void {
    // It starts and stops calculators; what they compute is read by no loop (src/elisionMasks.ts). It reads
    // the pod set only (GetPods), so it commutes with writers of the rest (src/sim/choices.ts).
    const p = this.o.sim.spawn(`${this.o.node}/fsResourceAnalyzer`, this.run(), this.o.group);
    p.writeMask = WRITES_NONE;
    p.readMask = WRITES_PODS;
  }

  private *run(): Co<void> {
    for (;;) {
      this.updateCachedPodVolumeStats();
      yield* sleep(defaultVolumeStatsAggPeriod);
    }
  }

  /** updateCachedPodVolumeStats: a calculator per known pod; stop those of pods that left. */
  private updateCachedPodVolumeStats(): void {
    const next = new Map<UID, VolumeStatCalculator>();
    for (const uid of this.o.podUIDs()) {
      let calc = this.cache.get(uid);
      if (calc === undefined) {
        calc = new VolumeStatCalculator({
          sim: this.o.sim,
          node: this.o.node,
          podUID: uid,
          statsProvider: this.o.statsProvider,
          jitterPeriodMs: defaultVolumeStatsAggPeriod,
          fixes: this.o.fixes,
          publish: this.o.publish,
          rng: this.o.rng,
          onPanic: this.o.onPanic,
        }).startOnce(this.o.group);
      }
      next.set(uid, calc);
    }
    for (const [uid, calc] of this.cache) if (!next.has(uid)) calc.stopOnce();
    this.cache = next;
  }
}

/** The kubelet's stats provider over its volume manager's mounted volumes. */
export function statsProviderFromMountedVolumes(
  getMountedVolumesForPod: (
    uid: UID,
  ) => ReadonlyMap<
    string,
    { mounter?: MetricsProvider | undefined; blockVolumeMapper?: BlockVolumeMapper | undefined }
  >,
): StatsProvider {
  return {
    listVolumesForPod(uid) {
      const out = new Map<string, MetricsProvider>();
      for (const [name, v] of getMountedVolumesForPod(uid))
        if (v.mounter !== undefined) out.set(name, v.mounter);
      return out.size === 0 ? undefined : out;
    },
    listBlockVolumesForPod(uid) {
      const out = new Map<string, BlockVolumeMapper>();
      for (const [name, v] of getMountedVolumesForPod(uid))
        if (v.blockVolumeMapper !== undefined) out.set(name, v.blockVolumeMapper);
      return out.size === 0 ? undefined : out;
    },
  };
}
