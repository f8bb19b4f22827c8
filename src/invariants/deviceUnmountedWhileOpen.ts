// device-unmounted-while-open: the kubelet marked a device unmounted (its UnmountDevice or UnmapDevice
// done, deviceResidue) while something on the node still held the LUN's device open, as the host knows
// it: a process outside any pod (a backup agent, multipathd, udev's blkid probe: the deviceStillOpen
// fault) or a mount of it. Upstream states the rule in operation_generator.go GenerateUnmountDeviceFunc
// and GenerateUnmapDeviceFunc: "Before logging that UnmountDevice succeeded and moving on, use
// hostutil.PathIsDevice to check if the path is a device, if so use hostutil.DeviceOpened to check if
// the device is in use anywhere else on the system. Retry if it returns true." (PR #107789 then marks the
// device uncertain.) A device marked unmounted leaves the actual state, so the node drops the volume from
// volumesInUse and the attach/detach controller may detach it, or attach it elsewhere, under the holder.
// Containers' holds are left to volume-torn-down-while-running and device-released-while-open, which
// judge them where they start.
import type { Fact, FactKind } from '../facts.js';
import { secs } from './format.js';
import type { Checker, Violation } from './types.js';

type Residue = Extract<Fact, { kind: 'deviceResidue' }>;
type Unmount = Extract<Fact, { kind: 'unmountDevice' | 'deviceInUseAfterUnmount' | 'faultInjected' }>;

/** How many recent UnmountDevice facts per (node, volume) are kept as causes. */
const RECENT = 4;

export class DeviceUnmountedWhileOpen implements Checker {
  readonly id = 'device-unmounted-while-open';
  readonly kinds: readonly FactKind[] = [
    'deviceInUseAfterUnmount',
    'deviceResidue',
    'faultInjected',
    'unmountDevice',
  ];
  /** `node volume` -> the last few UnmountDevice facts (and the faults that opened the device). */
  readonly #recent = new Map<string, Unmount[]>();

  onFact(f: Fact, report: (v: Violation) => void): void {
    switch (f.kind) {
      case 'faultInjected':
        if (f.fault !== 'unmountDevice/deviceStillOpen' || f.volume === undefined) return;
        this.#remember(f.node, f.volume, f);
        return;
      case 'unmountDevice':
      case 'deviceInUseAfterUnmount':
        this.#remember(f.node, f.volume, f);
        return;
      case 'deviceResidue': {
        if (!f.hostProcess && f.mounts === 0) return;
        report({
          invariant: this.id,
          atMs: f.atMs,
          node: f.node,
          pod: null,
          uid: null,
          volume: f.volume,
          message:
            `the kubelet on ${f.node} marked the device of ${f.volume} unmounted at ${secs(f.atMs)} ` +
            `while ${holders(f)} still held it open`,
          causes: [...(this.#recent.get(`${f.node} ${f.volume}`) ?? []), f],
        });
        return;
      }
      default:
        return;
    }
  }

  onEnd(): void {}

  #remember(node: string, volume: string, f: Unmount): void {
    const key = `${node} ${volume}`;
    let recent = this.#recent.get(key);
    if (recent === undefined) {
      recent = [];
      this.#recent.set(key, recent);
    }
    recent.push(f);
    if (recent.length > RECENT) recent.shift();
  }
}

function holders(f: Residue): string {
  const parts: string[] = [];
  if (f.mounts > 0) parts.push(`${f.mounts} mount(s)`);
  if (f.hostProcess) parts.push('a host process');
  return parts.join(' and ');
}
