// device-released-while-open: the node deleted a SCSI path of a LUN, logged out of the iSCSI session it
// was found through, or was fenced from it (a real detach), while something on that node still held
// the LUN's device open (deviceReleased with holders > 0, published by the host / SAN as ground truth):
// a mount of it, a running container of a pod with the volume (its mount namespace or /dev), a host
// process. The holder loses its device under it: I/O errors, unwritten data lost. Upstream:
// operation_generator.go's UnmountDevice / UnmapDevice refuse to go on while isDeviceOpened; fc_util.go
// DetachDisk returns when `multipath -f` fails instead of deleting the paths; iscsi_util.go logs out only
// when isSessionBusy finds no other volume of the target.
import type { Fact, FactKind } from '../facts.js';
import { secs } from './format.js';
import type { Checker, Violation } from './types.js';

type Released = Extract<Fact, { kind: 'deviceReleased' }>;

/** How many recent device facts per (node, volume) are kept as causes. */
const RECENT = 4;

const ACTION_TEXT: Record<Released['action'], string> = {
  scsiDelete: 'deleted SCSI path',
  logout: 'logged out of the iSCSI session of',
  fence: 'was fenced from',
};

function holdersText(f: Released): string {
  const parts: string[] = [];
  if (f.mounts > 0) parts.push(`${f.mounts} mount(s)`);
  if (f.pods.length > 0) parts.push(`running container(s) of pod ${[...new Set(f.pods)].join(', ')}`);
  if (f.hostProcess) parts.push('a host process');
  return parts.join(', ');
}

export class DeviceReleasedWhileOpen implements Checker {
  readonly id = 'device-released-while-open';
  readonly kinds: readonly FactKind[] = [
    'deviceReleased',
    'unmountDevice',
    'multipathFlushFailed',
    'volumeDetachStarted',
    'kubeletStarted',
    'kubeletStopped',
  ];
  /**
   * Nodes whose kubelet is down. A fence of such a node is the attach/detach controller's force detach of
   * a node it takes for gone (#110721: only a node not Ready past maxWaitForUnmountDuration), which takes
   * the device from under what still runs there on purpose; volume-detached-while-in-use judges whether
   * it was due. A fence while the node's kubelet runs is this invariant's.
   */
  readonly #kubeletDown = new Set<string>();
  /** node -> volume -> the last few unmountDevice / multipathFlushFailed / volumeDetachStarted facts. */
  readonly #recent = new Map<string, Map<string, Fact[]>>();

  onFact(f: Fact, report: (v: Violation) => void): void {
    switch (f.kind) {
      case 'unmountDevice':
      case 'multipathFlushFailed':
      case 'volumeDetachStarted': {
        const recent = this.#list(f.node, f.volume);
        recent.push(f);
        if (recent.length > RECENT) recent.shift();
        return;
      }
      case 'kubeletStopped':
        this.#kubeletDown.add(f.node);
        return;
      case 'kubeletStarted':
        this.#kubeletDown.delete(f.node);
        return;
      case 'deviceReleased': {
        if (f.holders <= 0) return;
        if (f.action === 'fence' && this.#kubeletDown.has(f.node)) return;
        const recent = this.#recent.get(f.node)?.get(f.volume) ?? [];
        const what =
          f.action === 'scsiDelete'
            ? `deleted SCSI path ${f.device} of ${f.volume}`
            : `${ACTION_TEXT[f.action]} ${f.volume}${f.action === 'logout' ? ` (portal ${f.device})` : ''}`;
        report({
          invariant: this.id,
          atMs: f.atMs,
          node: f.node,
          pod: null,
          uid: f.pods[0] ?? null,
          volume: f.volume,
          message: `${f.node} ${what} at ${secs(f.atMs)} while ${holdersText(f)} held its device open`,
          causes: [...recent, f],
        });
        return;
      }
      default:
        return;
    }
  }

  onEnd(): void {}

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
