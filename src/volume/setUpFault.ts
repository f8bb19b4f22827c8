// The setUp fault (docs/scenario-format.md): a pod's SetUp (or a CSI Block volume's MapPodDevice) fails.
// It sits where each plugin does the work, so the kubelet's reaction comes from the port's own code:
// operation_generator.go's markVolumeErrorState, which leaves a failed mount not mounted, marks an
// uncertain one (CSI's DeadlineExceeded) uncertain, and with #110670 keeps a volume reconstructed as
// uncertain uncertain whatever the error.
//
// - FC and iSCSI (disk_manager.go diskSetUp): the bind mount fails, a final error; a volume whose pod dir
//   is already mounted never gets that far (IsLikelyNotMountPoint first), as upstream.
// - CSI (csi_mounter.go SetUpAt, csi_block.go MapPodDevice: NodePublishVolume): `final` is the driver
//   answering codes.Internal before any work (csi_client.go isFinalError: final); `uncertain` is a call
//   cut off by its deadline (DeadlineExceeded: not final), which the kubelet cannot tell from a publish
//   that happened, so the volume is marked uncertain. (A driver not registered yet fails earlier, in
//   csiClientGetter, with a TransientOperationFailure that marks nothing.)
import { GoError, UncertainProgressError } from '../api/errors.js';
import type { Host } from '../storage/host.js';

/** FC / iSCSI: one firing as the bind mount of `target` is about to run. */
export function inTreeSetUpFault(host: Host, volume: string, target: string): GoError | undefined {
  if (host.faults.setUp(volume) === undefined) return undefined;
  return new GoError(
    `mount failed: exit status 32\nMounting command: mount\nMounting arguments: -o bind ${target}\nOutput: mount: ${target}: special device does not exist.`,
  );
}

/** CSI: one firing as NodePublishVolume is called. */
export function csiSetUpFault(host: Host, volume: string): GoError | undefined {
  const error = host.faults.setUp(volume);
  if (error === undefined) return undefined;
  return error === 'uncertain'
    ? new UncertainProgressError('rpc error: code = DeadlineExceeded desc = context deadline exceeded')
    : new GoError(
        'rpc error: code = Internal desc = NodePublishVolume failed: the driver could not publish the volume',
      );
}
