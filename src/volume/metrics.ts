// Ported from kubernetes pkg/volume/metrics_block.go, metrics_nil.go, metrics_statfs.go and
// metrics_errors.go, release-1.23 (PR #101587: MetricsBlock, SupportsMetrics).
import { GoError, MetricsError } from '../api/errors.js';
import type { Co } from '../sim/index.js';
import type { Host } from '../storage/host.js';
import type { Metrics, MetricsProvider, Result } from './volume.js';

/** volume.NewNotSupportedError. */
export function newNotSupportedError(): MetricsError {
  return new MetricsError('NotSupported', 'metrics are not supported for MetricsNil Volumes');
}

/** volume.NewNoPathDefinedError. */
export function newNoPathDefinedError(): MetricsError {
  return new MetricsError('NoPathDefined', 'no path defined for disk usage metrics.');
}

/** volume.IsNotSupported. */
export function isNotSupported(err: GoError | undefined): boolean {
  return err instanceof MetricsError && err.code === 'NotSupported';
}

/**
 * A Go runtime panic. Thrown (not returned) where Go would panic, e.g. a method call through a nil
 * interface; the goroutine boundary that recovers it (the stats collector) turns it into a kubeletPanic
 * fact.
 */
export class GoPanic extends Error {}

/** The panic message Go prints for a method call on a nil interface value. */
export const nilPointerDereference =
  'runtime error: invalid memory address or nil pointer dereference [signal SIGSEGV: segmentation violation]';

/** volume.MetricsNil: a placeholder for volumes without metrics. */
export class MetricsNil implements MetricsProvider {
  supportsMetrics(): boolean {
    return false;
  }

  // biome-ignore lint/correctness/useYield: a generator for the interface; no time passes
  *getMetrics(): Co<Result<Metrics>> {
    return { value: undefined, err: newNotSupportedError() };
  }
}

/**
 * volume.NewMetricsBlock(device): the capacity of a Block volume, by opening the device node and seeking
 * to its end (there is no BLKGETSIZE64 ioctl in metrics_block.go).
 */
export class MetricsBlock implements MetricsProvider {
  constructor(
    private readonly host: Host,
    readonly device: string,
  ) {}

  // biome-ignore lint/correctness/useYield: a generator for the interface; no time passes
  *getMetrics(): Co<Result<Metrics>> {
    if (this.device === '') return { value: undefined, err: newNoPathDefinedError() };
    // getBlockInfo: os.Open + dev.Seek(0, io.SeekEnd).
    const end = this.host.seekEnd(this.device);
    if (end.err !== undefined) {
      return {
        value: undefined,
        err: new GoError(`unable to open device "${this.device}": ${end.err.message}`),
      };
    }
    return { value: { capacityBytes: end.value }, err: undefined };
  }
}

/** volume.NewMetricsStatFS(path): statfs of the filesystem holding `path` (only Capacity is modelled). */
export class MetricsStatFS implements MetricsProvider {
  constructor(
    private readonly host: Host,
    readonly path: string,
  ) {}

  // biome-ignore lint/correctness/useYield: a generator for the interface; no time passes
  *getMetrics(): Co<Result<Metrics>> {
    if (this.path === '') return { value: undefined, err: newNoPathDefinedError() };
    return { value: { capacityBytes: this.host.statfsCapacity(this.path) }, err: undefined };
  }
}

/**
 * A mapper's embedded `volume.MetricsProvider` field. Before PR #101587 the FC / iSCSI mappers never set
 * it, so calling GetMetrics through it is a nil-interface call: a panic.
 */
export function* callEmbeddedProvider(provider: MetricsProvider | undefined): Co<Result<Metrics>> {
  if (provider === undefined) throw new GoPanic(nilPointerDereference);
  return yield* provider.getMetrics();
}
