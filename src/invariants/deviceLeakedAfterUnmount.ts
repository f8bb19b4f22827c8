// device-leaked-after-unmount: the kubelet marked a device unmounted (UnmountDevice succeeded and its
// isDeviceOpened check saw nothing) while SCSI paths of the LUN remain on the node (deviceResidue with
// scsiPaths > 0). Another node may then attach the LUN while stale paths linger here. A map left with
// no paths reaches no LUN and is not reported. Catches the leak of #101862
// (FC multipath flush busy; the retry finds nothing mounted and returns success; fixed by #101862's
// internal retry, still leaking when the flush never succeeds).
import type { Fact, FactKind } from '../facts.js';
import { secs } from './format.js';
import type { Checker, Violation } from './types.js';

type Unmount = Extract<Fact, { kind: 'unmountDevice' }>;

/** How many recent UnmountDevice attempts per (node, volume) are kept as causes. */
const RECENT = 4;

export class DeviceLeakedAfterUnmount implements Checker {
  readonly id = 'device-leaked-after-unmount';
  readonly kinds: readonly FactKind[] = ['deviceResidue', 'unmountDevice'];
  /** node -> volume -> the last few unmountDevice facts. */
  readonly #unmounts = new Map<string, Map<string, Unmount[]>>();

  onFact(f: Fact, report: (v: Violation) => void): void {
    switch (f.kind) {
      case 'unmountDevice': {
        let volumes = this.#unmounts.get(f.node);
        if (volumes === undefined) {
          volumes = new Map();
          this.#unmounts.set(f.node, volumes);
        }
        let recent = volumes.get(f.volume);
        if (recent === undefined) {
          recent = [];
          volumes.set(f.volume, recent);
        }
        recent.push(f);
        if (recent.length > RECENT) recent.shift();
        return;
      }
      case 'deviceResidue': {
        if (f.scsiPaths <= 0) return;
        const recent = this.#unmounts.get(f.node)?.get(f.volume) ?? [];
        report({
          invariant: this.id,
          atMs: f.atMs,
          node: f.node,
          pod: null,
          uid: null,
          volume: f.volume,
          message:
            `UnmountDevice of ${f.volume} on ${f.node} reported success but at ${secs(f.atMs)} ` +
            `${f.scsiPaths} SCSI path(s) and ${f.multipathMaps} multipath map(s) of the LUN remain`,
          causes: [...recent, f],
        });
        return;
      }
      default:
        return;
    }
  }

  onEnd(): void {}
}
