// The mountDevice fault (docs/scenario-format.md): a device staging that takes longer than it should, and
// may then fail. It sits where each plugin does its staging work, so that the only thing it changes is how
// long that work takes and what it answers; the kubelet's reaction (retry, uncertain marking, a pod deleted
// meanwhile) comes from the port's own code and from event order.
//
// - FC and iSCSI (attacher.go MountDevice): the time goes to FormatAndMount of the global path (a slow mkfs
//   of a large blank LUN, a mount waiting on a path); a failure is mount-utils' error, always final
//   (IsOperationFinishedError: no UncertainProgressError comes out of it), and MountDevice removes the
//   directory it made.
// - CSI (csi_attacher.go MountDevice, csi_block.go SetUpDevice: NodeStageVolume): the time goes to the
//   driver's call, which the kubelet runs under a 2 min deadline (csiTimeout via createCSIOperationContext).
//   A staging that does not answer within it fails with DeadlineExceeded, which csi_client.go's
//   isFinalError counts as not final: the kubelet marks the device uncertain. The driver runs its work
//   under the request's context, so a cut-off staging leaves nothing mounted (as the fake runtime does for a
//   StartContainer past its deadline). `final` answers codes.Internal before any work; `uncertain` answers
//   codes.Unavailable after the work was done (the driver restarted before replying).
import { GoError, UncertainProgressError } from '../api/errors.js';
import { type Co, sleep } from '../sim/index.js';
import type { MountDeviceFiring } from '../storage/faults.js';
import type { Host } from '../storage/host.js';

/** csi_plugin.go csiTimeout: the deadline of the kubelet's NodeStageVolume call. */
export const CSI_TIMEOUT_MS = 2 * 60_000;

/**
 * FC / iSCSI: takes one firing of the volume's mountDevice fault as FormatAndMount is about to run, waits
 * its delay and returns the mount's failure, if it fails.
 */
export function* inTreeStagingFault(host: Host, volume: string, target: string): Co<GoError | undefined> {
  const firing = host.faults.mountDevice(volume);
  if (firing === undefined) return undefined;
  if (firing.delayMs > 0) yield* sleep(firing.delayMs);
  if (firing.error === undefined) return undefined;
  // The loader and the fuzzer give FC and iSCSI final errors only; either way mount-utils' error is final.
  return new GoError(
    `mount failed: exit status 32\nMounting command: mount\nMounting arguments: -t ext4 ${target}\nOutput: mount: ${target}: can't read superblock`,
  );
}

/** What a CSI NodeStageVolume call with a fault does before and after the driver's work. */
export interface CsiStaging {
  /** The call's answer without doing the work (a final error, or the deadline); undefined: do the work. */
  readonly answer: GoError | undefined;
  /** After a successful work: the answer that gets lost instead (codes.Unavailable), if any. */
  readonly lostAnswer: GoError | undefined;
}

const NO_FAULT: CsiStaging = { answer: undefined, lostAnswer: undefined };

/**
 * CSI: takes one firing of the volume's mountDevice fault as NodeStageVolume starts, and waits its delay
 * (at most up to the kubelet's deadline).
 */
export function* csiStagingFault(host: Host, volume: string): Co<CsiStaging> {
  const firing: MountDeviceFiring | undefined = host.faults.mountDevice(volume);
  if (firing === undefined) return NO_FAULT;
  if (firing.delayMs >= CSI_TIMEOUT_MS) {
    yield* sleep(CSI_TIMEOUT_MS);
    return {
      answer: new UncertainProgressError(
        'rpc error: code = DeadlineExceeded desc = context deadline exceeded',
      ),
      lostAnswer: undefined,
    };
  }
  if (firing.delayMs > 0) yield* sleep(firing.delayMs);
  if (firing.error === 'final') {
    return {
      answer: new GoError(`rpc error: code = Internal desc = staging volume ${volume} failed`),
      lostAnswer: undefined,
    };
  }
  if (firing.error === 'uncertain') {
    return {
      answer: undefined,
      lostAnswer: new UncertainProgressError(
        'rpc error: code = Unavailable desc = error reading from server: EOF',
      ),
    };
  }
  return NO_FAULT;
}
