// mount-device-skipped-after-failure: a pod's SetUp bind-mounted a global path that is not mounted
// (bindMountOfUnmountedGlobalPath): the reconciler skipped MountDevice because a failed UnmountDevice
// left the device GloballyMounted in the actual state. Catches #100182 (fixed by
// #100183: a failed UnmountDevice marks the device uncertain). Also a global mount whose device a detach
// took away after it was mounted (bindMountOfFencedGlobalPath): the volume was detached and attached again
// behind the kubelet's back, and its actual state still had the device GloballyMounted (#119273).
import type { Fact, FactKind } from '../facts.js';
import { secs } from './format.js';
import type { Checker, Violation } from './types.js';

type Unmount = Extract<Fact, { kind: 'unmountDevice' }>;

/** How many recent device facts per (node, volume) are kept as causes. */
const RECENT = 5;

export class MountDeviceSkippedAfterFailure implements Checker {
  readonly id = 'mount-device-skipped-after-failure';
  readonly kinds: readonly FactKind[] = [
    'bindMountOfUnmountedGlobalPath',
    'bindMountOfFencedGlobalPath',
    'mountDevice',
    'unmountDevice',
    'volumeTearDown',
  ];
  /** node -> volume -> the last few mountDevice / unmountDevice / volumeTearDown facts. */
  readonly #recent = new Map<string, Map<string, Fact[]>>();

  onFact(f: Fact, report: (v: Violation) => void): void {
    switch (f.kind) {
      case 'mountDevice':
      case 'unmountDevice':
      case 'volumeTearDown': {
        const recent = this.#list(f.node, f.volume);
        recent.push(f);
        if (recent.length > RECENT) recent.shift();
        return;
      }
      case 'bindMountOfUnmountedGlobalPath': {
        let failed: Unmount | undefined;
        for (const r of this.#recent.get(f.node)?.get(f.volume) ?? []) {
          if (r.kind === 'unmountDevice' && !r.ok) failed = r;
        }
        this.#setUpViolation(
          f,
          'bind-mounted a global path that is not mounted (MountDevice skipped' +
            (failed === undefined ? ')' : ` after UnmountDevice failed at ${secs(failed.atMs)})`),
          report,
        );
        return;
      }
      case 'bindMountOfFencedGlobalPath':
        this.#setUpViolation(
          f,
          `bind-mounted a global mount made at ${secs(f.mountedAtMs)} whose device a detach took away at ` +
            `${secs(f.fencedAtMs)} (the volume was detached and attached again, and no MountDevice staged the new attachment)`,
          report,
        );
        return;
      default:
        return;
    }
  }

  onEnd(): void {}

  /** The SetUp's violation, with the node's and volume's recent device operations as its causes. */
  #setUpViolation(
    f: Extract<Fact, { kind: 'bindMountOfUnmountedGlobalPath' | 'bindMountOfFencedGlobalPath' }>,
    what: string,
    report: (v: Violation) => void,
  ): void {
    report({
      invariant: this.id,
      atMs: f.atMs,
      node: f.node,
      pod: f.pod,
      uid: f.uid,
      volume: f.volume,
      message: `SetUp of volume ${f.volume} for pod ${f.pod} (uid ${f.uid}) on ${f.node} at ${secs(f.atMs)} ${what}`,
      causes: [...(this.#recent.get(f.node)?.get(f.volume) ?? []), f],
    });
  }

  #list(node: string, volume: string): Fact[] {
    let volumes = this.#recent.get(node);
    if (volumes === undefined) {
      volumes = new Map();
      this.#recent.set(node, volumes);
    }
    let recent = volumes.get(volume);
    if (recent === undefined) {
      recent = [];
      volumes.set(volume, recent);
    }
    return recent;
  }
}
