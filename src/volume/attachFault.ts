// The waitForAttach fault (docs/scenario-format.md): a WaitForAttach that fails, as each plugin's does when
// the node cannot reach the LUN yet. operation_generator.go GenerateMountVolumeFunc (and
// GenerateMapVolumeFunc) calls volumeAttacher.WaitForAttach before anything else and returns
// "MountVolume.WaitForAttach failed" on error: nothing is staged, set up or marked in the actual state,
// and the reconciler retries the whole MountVolume with its exponential back-off. The fault sits at the
// start of each attacher's WaitForAttach, so the only thing it changes is how long that call takes and
// what it answers; what the kubelet does meanwhile (a pod deleted before its MountDevice ever ran) comes
// from the port's own code.
//
// The default texts are upstream's (release-1.23):
// - iSCSI (iscsi_util.go AttachDisk): the portal does not answer the discovery, so no path comes up:
//   "failed to get any path for iscsi disk, last err seen: iscsi: failed to sendtargets to portal ...";
// - FC (fc_util.go searchDisk): no disk of the LUN's WWNs appears after the rescan: "no fc disk found";
// - CSI (csi_attacher.go waitForVolumeAttachmentInternal): the VolumeAttachment cannot be read (an API
//   server not reachable yet after a restart): "volume V has GET error for volume attachment A: ...".
//   (The "driver name X not found in the list of registered CSI drivers" of a CSI driver not registered
//   yet after a kubelet restart comes from MountDevice / SetUp in 1.23, not from WaitForAttach.)
import { GoError } from '../api/errors.js';
import { type Co, sleep } from '../sim/index.js';
import type { Host } from '../storage/host.js';

/**
 * Waits the delay of the volume's next waitForAttach firing, then takes it and returns its error (the
 * scenario's text, else `upstreamText()`); undefined when no fault is armed (or another call took the
 * last firing during the delay): WaitForAttach goes on as usual.
 */
export function* waitForAttachFault(
  host: Host,
  volume: string,
  upstreamText: () => string,
): Co<GoError | undefined> {
  const firing = host.faults.peekWaitForAttach(volume);
  if (firing === undefined) return undefined;
  if (firing.delayMs > 0) yield* sleep(firing.delayMs);
  const text = firing.error ?? upstreamText();
  if (!host.faults.takeWaitForAttach(volume, firing.delayMs, text)) return undefined;
  return new GoError(text);
}

/** iscsi_util.go AttachDisk's error when no portal answers (sendtargets times out on each). */
export function iscsiNoPathText(portals: readonly string[]): string {
  const portal = portals[portals.length - 1] ?? '';
  const ip = portal.split(':')[0] ?? portal;
  return (
    'failed to get any path for iscsi disk, last err seen:\n' +
    `iscsi: failed to sendtargets to portal ${portal} output: iscsiadm: cannot make connection to ${ip}: Connection timed out\n` +
    'iscsiadm: connection login retries (reopen_max) 5 exceeded\niscsiadm: No portals found\n, err exit status 21'
  );
}

/** fc_util.go searchDisk's error when no disk of the LUN shows up after the rescan. */
export const FC_NO_DISK_TEXT = 'no fc disk found';

/**
 * csi_attacher.go waitForVolumeAttachmentInternal's error when the VolumeAttachment GET fails. The
 * attachment's name stands in for getAttachmentName's sha256 ("csi-" + hash of handle, driver, node).
 */
export function csiAttachmentGetErrorText(volume: string, node: string): string {
  const attachID = `csi-${volume}-${node}`;
  return (
    `volume ${volume} has GET error for volume attachment ${attachID}: ` +
    `Get "https://kube-apiserver:6443/apis/storage.k8s.io/v1/volumeattachments/${attachID}": dial tcp: connect: connection refused`
  );
}
