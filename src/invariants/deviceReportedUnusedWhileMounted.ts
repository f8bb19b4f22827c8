// device-reported-unused-while-mounted: a node reports volumesInUse (nodeVolumesInUse) without a volume
// whose device is still mounted or mapped on it (a lunAccessOpened not yet followed by lunAccessClosed).
// The attach/detach controller then believes the node is done with the LUN and may detach it or let
// another node mount it. Catches #101791 / #102059: FC/iSCSI reconstruction after a kubelet restart
// fails (#101791; inconsistent /proc/mounts reads fixed by #102059) and only the bind mount is cleaned.
import type { Fact, FactKind } from '../facts.js';
import { secs } from './format.js';
import type { Checker, Violation } from './types.js';

type Opened = Extract<Fact, { kind: 'lunAccessOpened' }>;
type KubeletStarted = Extract<Fact, { kind: 'kubeletStarted' }>;

/** How many recent volume facts per (node, volume) are kept as causes. */
const RECENT = 6;

interface VolumeState {
  /** The lunAccessOpened still open on the node, if any. */
  open: Opened | undefined;
  /** The last few volume operations on the node (mount / unmount / set-up / tear-down / access). */
  readonly recent: Fact[];
  reported: boolean;
}

interface NodeState {
  readonly volumes: Map<string, VolumeState>;
  /** The last kubelet start on the node (reconstruction happens after it). */
  started: KubeletStarted | undefined;
}

const byTime = (a: Fact, b: Fact): number => a.atMs - b.atMs;

export class DeviceReportedUnusedWhileMounted implements Checker {
  readonly id = 'device-reported-unused-while-mounted';
  readonly kinds: readonly FactKind[] = [
    'kubeletStarted',
    'lunAccessClosed',
    'lunAccessOpened',
    'mountDevice',
    'nodeVolumesInUse',
    'unmountDevice',
    'volumeSetUp',
    'volumeTearDown',
  ];
  readonly #nodes = new Map<string, NodeState>();

  onFact(f: Fact, report: (v: Violation) => void): void {
    switch (f.kind) {
      case 'lunAccessOpened': {
        const v = this.#volume(f.node, f.volume);
        v.open = f;
        remember(v.recent, f);
        return;
      }
      case 'lunAccessClosed': {
        const v = this.#volume(f.node, f.volume);
        v.open = undefined;
        remember(v.recent, f);
        return;
      }
      case 'mountDevice':
      case 'unmountDevice':
      case 'volumeSetUp':
      case 'volumeTearDown': {
        remember(this.#volume(f.node, f.volume).recent, f);
        return;
      }
      case 'kubeletStarted': {
        this.#node(f.node).started = f;
        return;
      }
      case 'nodeVolumesInUse': {
        const n = this.#nodes.get(f.node);
        if (n === undefined) return;
        for (const [volume, v] of n.volumes) {
          const open = v.open;
          if (open === undefined || v.reported || f.volumes.includes(volume)) continue;
          v.reported = true;
          const causes: Fact[] = v.recent.includes(open) ? [...v.recent] : [open, ...v.recent];
          if (n.started !== undefined) causes.push(n.started);
          causes.sort(byTime);
          causes.push(f);
          report({
            invariant: this.id,
            atMs: f.atMs,
            node: f.node,
            pod: null,
            uid: null,
            volume,
            message:
              `${f.node} reported volumesInUse [${f.volumes.join(', ')}] at ${secs(f.atMs)} without ${volume}, ` +
              `whose device is still ${open.readWrite ? 'read-write' : 'read-only'} mounted or mapped there ` +
              `(since ${secs(open.atMs)})`,
            causes,
          });
        }
        return;
      }
      default:
        return;
    }
  }

  onEnd(): void {}

  #node(node: string): NodeState {
    let n = this.#nodes.get(node);
    if (n === undefined) {
      n = { volumes: new Map(), started: undefined };
      this.#nodes.set(node, n);
    }
    return n;
  }

  #volume(node: string, volume: string): VolumeState {
    const n = this.#node(node);
    let v = n.volumes.get(volume);
    if (v === undefined) {
      v = { open: undefined, recent: [], reported: false };
      n.volumes.set(volume, v);
    }
    return v;
  }
}

function remember(recent: Fact[], f: Fact): void {
  recent.push(f);
  if (recent.length > RECENT) recent.shift();
}
