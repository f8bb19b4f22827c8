// Ported from kubernetes pkg/kubelet/server/stats/volume_stat_calculator.go, release-1.23.
// Per pod, a goroutine periodically (wait.JitterUntil) asks every volume for its metrics. Since PR
// #97972 it also asks Block volumes; PR #101587 (fix `block-metrics`) only asks those whose
// SupportsMetrics() is true. Before it, an FC / iSCSI mapper with an unset embedded MetricsProvider
// makes GetMetrics a nil-interface call: a Go panic, published here as a kubeletPanic fact.

import type { UID } from '../../api/v1.js';
import { WRITES_NONE } from '../../elisionMasks.js';
import type { Fact } from '../../facts.js';
import type { Fixes } from '../../fixes.js';
import { type Co, type Context, type ProcessGroup, type Rng, type Sim, sleepCtx } from '../../sim/index.js';
import { GoPanic, isNotSupported } from '../../volume/metrics.js';
import type { BlockVolumeMapper, MetricsProvider } from '../../volume/volume.js';

/** The slice of the stats Provider the calculator uses. */
export interface StatsProvider {
  /** Filesystem volumes of the pod (their Mounters), by volume name; undefined if none are known. */
  listVolumesForPod(podUID: UID): ReadonlyMap<string, MetricsProvider> | undefined;
  /** Block volumes of the pod (their mappers), by volume name. */
  listBlockVolumesForPod(podUID: UID): ReadonlyMap<string, BlockVolumeMapper> | undefined;
}

/** stats.VolumeStats, reduced to what volume.Metrics models. */
export interface VolumeStats {
  readonly name: string;
  readonly capacityBytes: number;
}

export interface PodVolumeStats {
  readonly persistentVolumes: readonly VolumeStats[];
}

export interface VolumeStatCalculatorOptions {
  readonly sim: Sim;
  readonly node: string;
  readonly podUID: UID;
  readonly statsProvider: StatsProvider;
  /** The kubelet's volume stats aggregation period (--volume-stats-agg-period, default 1 m). */
  readonly jitterPeriodMs: number;
  readonly fixes: Fixes;
  readonly publish: (fact: Fact) => void;
  readonly rng: Rng;
  /** Called after a panic: the kubelet process would die (the wiring may kill its process group). */
  readonly onPanic?: ((message: string) => void) | undefined;
}

/** kubelet's default --volume-stats-agg-period. */
export const defaultVolumeStatsAggPeriod = 60_000;

export class VolumeStatCalculator {
  private latest: PodVolumeStats | undefined;
  private started = false;
  private readonly ctx: Context;
  /** True once a calculation panicked; the goroutine is gone. */
  panicked = false;

  constructor(private readonly opts: VolumeStatCalculatorOptions) {
    this.ctx = opts.sim.context();
  }

  /** StartOnce: go wait.JitterUntil(calcAndStoreStats, jitterPeriod, 1.0, true, stopChannel). */
  startOnce(group?: ProcessGroup): this {
    if (this.started) return this;
    this.started = true;
    this.opts.sim.spawn(
      `${this.opts.node}/volume_stat_calculator/${this.opts.podUID}`,
      this.calcLoop(),
      group,
    ).writeMask = WRITES_NONE; // its stats are read by no loop; a panic crashes the kubelet (touched there)
    return this;
  }

  /** wait.JitterUntil's loop (a method: a generator closure per start would cost a hidden class each). */
  private *calcLoop(): Co {
    while (!this.ctx.canceled) {
      const jittered = this.opts.rng.jitterMs(this.opts.jitterPeriodMs, 1.0, 'volume stats');
      yield* this.calcAndStoreStats();
      if (this.panicked) return;
      if (!(yield* sleepCtx(jittered, this.ctx))) return;
    }
  }

  /** StopOnce: stops the background calculation after its current iteration. */
  stopOnce(): this {
    this.ctx.cancel();
    return this;
  }

  /** GetLatest: the most recent PodVolumeStats, if any was computed. */
  getLatest(): PodVolumeStats | undefined {
    return this.latest;
  }

  /** calcAndStoreStats, with the goroutine's panic turned into a kubeletPanic fact. */
  *calcAndStoreStats(): Co<void> {
    try {
      yield* this.calc();
    } catch (e) {
      if (!(e instanceof GoPanic)) throw e;
      this.panicked = true;
      this.opts.publish({
        kind: 'kubeletPanic',
        atMs: this.opts.sim.nowMs,
        node: this.opts.node,
        component: 'volume_stat_calculator',
        message: `panic: ${e.message} in calcAndStoreStats for pod ${this.opts.podUID}`,
      });
      this.opts.onPanic?.(e.message);
    }
  }

  private *calc(): Co<void> {
    const provider = this.opts.statsProvider;
    const volumes = provider.listVolumesForPod(this.opts.podUID);
    // PR #97972 (fix block-volume-stats) added Block volumes to the calculation; before it only the
    // filesystem volumes of ListVolumesForPod were asked for metrics.
    const blockVolumes = this.opts.fixes.on('block-volume-stats')
      ? provider.listBlockVolumesForPod(this.opts.podUID)
      : undefined;
    if (volumes === undefined && blockVolumes === undefined) return;
    const metricVolumes = new Map<string, MetricsProvider>();
    for (const [name, v] of volumes ?? []) metricVolumes.set(name, v);
    for (const [name, v] of blockVolumes ?? []) {
      // Only add the blockVolume if it implements the MetricsProvider interface (every mapper does).
      // Some drivers inherit the MetricsProvider interface from Filesystem mode volumes, but do not
      // implement it for Block mode. Checking SupportsMetrics() will prevent panics in that case.
      if (!this.opts.fixes.on('block-metrics') || v.supportsMetrics()) metricVolumes.set(name, v);
    }
    const persistentStats: VolumeStats[] = [];
    for (const [name, v] of metricVolumes) {
      const metric = yield* v.getMetrics();
      if (metric.err !== undefined) {
        // Expected for Volumes that don't support Metrics; others are logged at V(4).
        isNotSupported(metric.err);
        continue;
      }
      persistentStats.push({ name, capacityBytes: metric.value.capacityBytes });
    }
    this.latest = { persistentVolumes: persistentStats };
  }
}
