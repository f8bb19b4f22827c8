// multi-node-mount: a ReadWriteOnce LUN is open read-write (lunAccessOpened readWrite=true: a global
// mount or block map) on two nodes at once and neither node's path is fenced (lunFenced fenced=true
// until fenced=false): both can write, so the filesystem is corrupted. Reported once per volume, at the
// moment it becomes true (an open, or a fence lifted while both are open). Catches #101791
// (FC/iSCSI reconstruction failure, fixed by #102059 except for non-retryable errors).
import type { AccessMode } from '../api/v1.js';
import type { Fact, FactKind } from '../facts.js';
import { secs } from './format.js';
import type { Checker, Violation } from './types.js';

type Opened = Extract<Fact, { kind: 'lunAccessOpened' }>;
type Fenced = Extract<Fact, { kind: 'lunFenced' }>;

interface VolumeState {
  /** node -> the lunAccessOpened readWrite=true that is still open there. */
  readonly readWrite: Map<string, Opened>;
  /** node -> the lunFenced fenced=true in force there. */
  readonly fenced: Map<string, Fenced>;
  reported: boolean;
}

export interface MultiNodeMountVolume {
  readonly name: string;
  readonly accessMode: AccessMode;
}

const byTime = (a: Fact, b: Fact): number => a.atMs - b.atMs;

export class MultiNodeMount implements Checker {
  readonly id = 'multi-node-mount';
  readonly kinds: readonly FactKind[] = ['lunAccessClosed', 'lunAccessOpened', 'lunFenced'];
  /** Volumes whose access mode is not ReadWriteOnce; a volume the config does not list is ReadWriteOnce. */
  readonly #shared = new Set<string>();
  readonly #volumes = new Map<string, VolumeState>();

  constructor(volumes: readonly MultiNodeMountVolume[]) {
    for (const v of volumes) if (v.accessMode !== 'ReadWriteOnce') this.#shared.add(v.name);
  }

  onFact(f: Fact, report: (v: Violation) => void): void {
    switch (f.kind) {
      case 'lunAccessOpened': {
        if (this.#shared.has(f.volume)) return;
        const s = this.#state(f.volume);
        if (!f.readWrite) {
          s.readWrite.delete(f.node);
          return;
        }
        s.readWrite.set(f.node, f);
        if (!s.reported && !s.fenced.has(f.node)) this.#check(s, f, undefined, undefined, report);
        return;
      }
      case 'lunAccessClosed': {
        this.#volumes.get(f.volume)?.readWrite.delete(f.node);
        return;
      }
      case 'lunFenced': {
        if (this.#shared.has(f.volume)) return;
        const s = this.#state(f.volume);
        if (f.fenced) {
          s.fenced.set(f.node, f);
          return;
        }
        const wasFenced = s.fenced.get(f.node);
        s.fenced.delete(f.node);
        const open = s.readWrite.get(f.node);
        if (!s.reported && open !== undefined) this.#check(s, open, wasFenced, f, report);
        return;
      }
      default:
        return;
    }
  }

  onEnd(): void {}

  /** `mine` (on an unfenced node) just became a writer; is another unfenced node writing too? */
  #check(
    s: VolumeState,
    mine: Opened,
    fence: Fenced | undefined,
    lifted: Fenced | undefined,
    report: (v: Violation) => void,
  ): void {
    for (const [node, other] of s.readWrite) {
      if (node === mine.node || s.fenced.has(node)) continue;
      s.reported = true;
      const causes: Fact[] = [other, mine];
      if (fence !== undefined) causes.push(fence);
      if (lifted !== undefined) causes.push(lifted);
      const trigger = lifted ?? mine;
      const first = other.atMs <= mine.atMs ? other : mine;
      const second = first === other ? mine : other;
      report({
        invariant: this.id,
        atMs: trigger.atMs,
        node: trigger.node,
        pod: null,
        uid: null,
        volume: mine.volume,
        message:
          `ReadWriteOnce volume ${mine.volume} is writable from ${first.node} (opened read-write at ` +
          `${secs(first.atMs)}) and ${second.node} (opened read-write at ${secs(second.atMs)}) at once, ` +
          `neither fenced${lifted === undefined ? '' : ` (${lifted.node} unfenced at ${secs(lifted.atMs)})`}: ` +
          'data corruption',
        causes: causes.sort(byTime),
      });
      return;
    }
  }

  #state(volume: string): VolumeState {
    let s = this.#volumes.get(volume);
    if (s === undefined) {
      s = { readWrite: new Map(), fenced: new Map(), reported: false };
      this.#volumes.set(volume, s);
    }
    return s;
  }
}
