// mount-stacked: the node mounted something on a path that was already a mount point, so two mounts are
// stacked there (Linux allows it; the lower one is hidden and one umount removes only the top). Upstream,
// every mount the kubelet makes is guarded by a mount-point check, release-1.23:
// pkg/volume/fc/disk_manager.go diskSetUp and pkg/volume/iscsi/disk_manager.go diskSetUp ("if !notMnt
// { return nil }" before the bind mount); fc_util.go / iscsi_util.go AttachDisk's global mount
// (IsLikelyNotMountPoint before FormatAndMount; "already mounted"); pkg/volume/csi/csi_attacher.go
// MountDevice and csi_mounter.go SetUpAt rely on NodeStageVolume / NodePublishVolume being idempotent
// (the CSI spec: a repeated call on a staged or published path returns OK without a second mount), and
// the block map bind (util.MapBlockVolume) checks the file first. A stacked mount survives the one
// UnmountDevice / TearDown that the kubelet counts on, so the device stays mounted unseen.
//
// Ground truth only: the host's mount table (mountStacked, published by src/storage/host.ts).
import type { Fact, FactKind } from '../facts.js';
import { secs } from './format.js';
import type { Checker, Violation } from './types.js';

export class MountStacked implements Checker {
  readonly id = 'mount-stacked';
  readonly kinds: readonly FactKind[] = ['mountStacked'];

  onFact(f: Fact, report: (v: Violation) => void): void {
    if (f.kind !== 'mountStacked') return;
    report({
      invariant: this.id,
      atMs: f.atMs,
      node: f.node,
      pod: null,
      uid: null,
      volume: f.volume === '' ? null : f.volume,
      message:
        `${f.node} mounted ${f.device} on ${f.path} at ${secs(f.atMs)} although ${f.path} was already a ` +
        'mount point: the kubelet checks for a mount point before every mount (IsLikelyNotMountPoint; ' +
        "CSI's NodeStageVolume / NodePublishVolume are idempotent), so a stacked mount outlives the one " +
        'unmount that is counted on',
      causes: [f],
    });
  }

  onEnd(): void {}
}
