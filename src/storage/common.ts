// Small shared pieces of the storage layer: Go-style results and errors, and the latency table.
import { GoError } from '../api/errors.js';
import type { FsError } from './fs.js';

/** k8s.io/mount-utils maxListTries: how many times ConsistentRead reads /proc/mounts before giving up. */
export const maxListTries = 3;

/** A Go (value, error) pair; structurally the same as volume.Result. */
export type Res<T> = { value: T; err: undefined } | { value: undefined; err: GoError };
export const ok = <T>(value: T): Res<T> => ({ value, err: undefined });
export const fail = <T>(err: GoError): Res<T> => ({ value: undefined, err });

/**
 * Default latencies of host operations, [min, max] virtual ms, drawn uniformly from the host's seeded
 * stream. They are plausible magnitudes for a node with local SSD and a SAN, not measurements.
 */
export const DEFAULT_LATENCIES = {
  /** echo "- - -" > /sys/class/scsi_host/hostN/scan, udev and multipathd settling. */
  scsiRescan: [50, 300],
  /** iscsiadm discovery + --login. */
  iscsiLogin: [100, 800],
  iscsiLogout: [50, 300],
  /** blkid + mkfs.ext4 of a blank LUN (only the first MountDevice of a LUN formats). */
  mkfs: [300, 2000],
  blkid: [5, 30],
  mount: [5, 50],
  umount: [5, 50],
  /** multipath -f <dm>. */
  multipathFlush: [10, 200],
  /** blockdev --flushbufs + write to /sys/block/sdX/device/delete. */
  scsiDelete: [5, 50],
  /** A CSI ControllerPublish / ControllerUnpublish round trip to the array. */
  controllerPublish: [200, 1500],
} as const satisfies Record<string, readonly [number, number]>;
export type LatencyOp = keyof typeof DEFAULT_LATENCIES;

/** A filesystem error with its errno, so callers can ask os.IsNotExist. */
export class FsErrorGo extends GoError {
  constructor(
    readonly code: FsError['code'],
    message: string,
  ) {
    super(message);
  }
}

export function isNotExist(err: GoError | undefined): boolean {
  return err instanceof FsErrorGo && err.code === 'ENOENT';
}

/** Omit over each member of a union. */
export type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
