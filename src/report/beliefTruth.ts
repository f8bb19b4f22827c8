// What the kubelet believes about each volume beside what the node has: for every pod volume and every
// device (global mount), the kubelet's actual state of world (VolumeMounted, DeviceGloballyMounted, ...,
// derived from its operations' facts and the fix switches that decide what a failure leaves) on one track,
// the node's mount table (hostMount facts, ground truth) on the next, and where the two disagree on a
// third. A disagreement is drawn from a moment the kubelet acted on the volume (an operation returned, a
// reconstruction finished) and still believed otherwise: a mount that went while an operation is still
// running (UnmountDevice's detach retries) is not one until the operation returns.
import type { Fact } from '../facts.js';
import { Fixes } from '../fixes.js';
import type { ArgValue } from './timelineModel.js';
import { type BaseTrack, type Builder, pk, tracks } from './timelineTracks.js';

/**
 * The kubelet's belief: mounted, uncertain (it knows it does not know), pending (a reconstruction left the
 * volume to the pod's own mount, or to cleanupMounts' unmount, which has not returned yet), or nothing.
 * While the kubelet is down it has no belief at all; while it reconstructs, none yet.
 */
type Belief = 'mounted' | 'uncertain' | 'pending' | 'none' | 'down' | 'reconstructing';

interface Subject {
  readonly node: string;
  readonly volume: string;
  /** Set for a pod volume; undefined for a device. */
  readonly uid: string | undefined;
  readonly pod: string | undefined;
  belief: Belief;
  /** Open mounts of it in the node's mount table, by path (a path can be stacked: counted). */
  readonly mounts: Map<string, number>;
  /** The reconstruction outcome met since the kubelet started, if any. */
  outcome: string | undefined;
  mismatch: boolean;
}

const DEVICE_NAMES: Record<'mounted' | 'uncertain', string> = {
  mounted: 'DeviceGloballyMounted',
  uncertain: 'DeviceMountUncertain',
};
const VOLUME_NAMES: Record<'mounted' | 'uncertain', string> = {
  mounted: 'VolumeMounted',
  uncertain: 'VolumeMountUncertain',
};

export class BeliefTruth {
  readonly #subjects = new Map<string, Subject>();
  /** Nodes whose kubelet is down, or up and still reconstructing. */
  readonly #phase = new Map<string, 'down' | 'reconstructing'>();
  readonly #fixes: Fixes;

  /**
   * Spans ended but not closed yet, by pairing key: a state that ends and begins again within one
   * millisecond (an UnmountDevice that succeeds, then isDeviceOpened finds the device open) goes on.
   */
  readonly #ending = new Map<string, { readonly atMs: number; readonly name: string }>();
  /** The name of each open span, by pairing key. */
  readonly #names = new Map<string, string>();

  constructor(
    private readonly b: Builder,
    fixes: Fixes | undefined,
  ) {
    this.#fixes = fixes ?? Fixes.all();
  }

  /** Closes what is still ending; called once after the last fact. */
  finish(): void {
    this.#settle(Number.POSITIVE_INFINITY);
  }

  #settle(beforeMs: number): void {
    for (const [key, e] of [...this.#ending]) {
      if (e.atMs >= beforeMs) continue;
      this.#ending.delete(key);
      this.b.end(key, e.atMs);
    }
  }

  #open(key: string, track: BaseTrack, name: string, at: number, args: Record<string, ArgValue>): void {
    const ending = this.#ending.get(key);
    this.#ending.delete(key);
    this.#names.set(key, name);
    if (ending !== undefined && ending.atMs === at && ending.name === name) return;
    if (ending !== undefined) this.b.end(key, ending.atMs);
    this.b.begin(key, track, name, at, args);
  }

  #close(key: string, at: number): void {
    const name = this.#names.get(key);
    if (name === undefined) return;
    this.#names.delete(key);
    this.#ending.set(key, { atMs: at, name });
  }

  onFact(f: Fact): void {
    const at = f.atMs;
    this.#settle(at);
    switch (f.kind) {
      case 'kubeletStopped':
        this.#phase.set(f.node, 'down');
        for (const s of this.#of(f.node)) this.#believe(s, 'down', at);
        return;
      case 'kubeletStarted':
        this.#phase.set(f.node, 'reconstructing');
        for (const s of this.#of(f.node)) {
          s.outcome = undefined;
          this.#believe(s, 'reconstructing', at);
        }
        return;
      case 'reconstructionFinished':
        this.#phase.delete(f.node);
        for (const s of this.#of(f.node)) {
          this.#believe(s, afterReconstruction(s), at);
          this.#check(s, at);
        }
        return;
      case 'volumeReconstruction': {
        // syncStates puts a reconstructed volume into the actual state when no pod wants it: mounted into
        // its pod, and its device globally mounted (updateStates).
        this.#subject(f.node, f.volume, at, f.uid, f.pod).outcome = f.outcome;
        // The device follows the strongest outcome of its pods (a Block volume has no global mount).
        if (f.mode === 'Block') return;
        const device = this.#subject(f.node, f.volume, at);
        device.outcome = strongest(device.outcome, f.outcome);
        return;
      }
      case 'mountDevice': {
        // A failed MountDevice leaves the state as it was, or uncertain after a timeout: drawn as it was.
        const s = this.#subject(f.node, f.volume, at);
        if (f.ok) this.#believe(s, 'mounted', at);
        this.#check(s, at);
        return;
      }
      case 'unmountDevice': {
        const s = this.#subject(f.node, f.volume, at);
        if (f.ok) this.#believe(s, 'none', at);
        // PR #100183 marks the device uncertain; before it, it stays DeviceGloballyMounted.
        else if (this.#fixes.on('unmount-device-uncertain')) this.#believe(s, 'uncertain', at);
        this.#check(s, at);
        return;
      }
      case 'deviceInUseAfterUnmount': {
        // The unmount succeeded but isDeviceOpened found the device open: not marked unmounted; PR #107789
        // marks it uncertain.
        const s = this.#subject(f.node, f.volume, at);
        this.#believe(s, this.#fixes.on('unmount-device-open-uncertain') ? 'uncertain' : 'mounted', at);
        this.#check(s, at);
        return;
      }
      case 'volumeSetUp': {
        const s = this.#subject(f.node, f.volume, at, f.uid, f.pod);
        this.#believe(s, 'mounted', at);
        this.#check(s, at);
        return;
      }
      case 'volumeTearDown': {
        const s = this.#subject(f.node, f.volume, at, f.uid, f.pod);
        // cleanupMounts' own UnmountVolume is of a volume in no state: a failure leaves it in none.
        if (f.ok || s.belief === 'pending') this.#believe(s, 'none', at);
        else if (this.#fixes.on('unmount-device-uncertain')) this.#believe(s, 'uncertain', at);
        this.#check(s, at);
        return;
      }
      case 'bindMountOfUnmountedGlobalPath':
        this.#check(this.#subject(f.node, f.volume, at, f.uid, f.pod), at);
        return;
      case 'hostMount': {
        const s =
          f.scope === 'global'
            ? this.#subject(f.node, f.volume, at)
            : this.#subject(f.node, f.volume, at, f.uid ?? '', f.pod ?? f.uid ?? '');
        this.#truth(s, f.path, f.mounted, at);
        return;
      }
      default:
        return;
    }
  }

  // ---- subjects ----

  #subject(node: string, volume: string, at: number, uid?: string, pod?: string): Subject {
    const key = JSON.stringify([node, volume, uid ?? null]);
    let s = this.#subjects.get(key);
    if (s === undefined) {
      s = {
        node,
        volume,
        uid,
        pod,
        belief: 'none',
        mounts: new Map(),
        outcome: undefined,
        mismatch: false,
      };
      this.#subjects.set(key, s);
      // Seen first while its kubelet is down or reconstructing: that is all it believes for now.
      const phase = this.#phase.get(node);
      if (phase !== undefined) this.#believe(s, phase, at);
    }
    return s;
  }

  /** The subjects of a node, in a stable order (their keys). */
  #of(node: string): Subject[] {
    return [...this.#subjects.values()].filter((s) => s.node === node);
  }

  #track(s: Subject, which: 'kubelet' | 'host' | 'mismatch'): BaseTrack {
    if (s.uid === undefined) {
      return which === 'kubelet'
        ? tracks.device(s.node, s.volume)
        : which === 'host'
          ? tracks.deviceHost(s.node, s.volume)
          : tracks.deviceMismatch(s.node, s.volume);
    }
    const pod = s.pod ?? s.uid;
    return which === 'kubelet'
      ? tracks.volume(s.node, pod, s.uid, s.volume)
      : which === 'host'
        ? tracks.volumeHost(s.node, pod, s.uid, s.volume)
        : tracks.volumeMismatch(s.node, pod, s.uid, s.volume);
  }

  #key(s: Subject, which: string): string {
    return pk(which, s.node, s.volume, s.uid ?? '');
  }

  #args(s: Subject): Record<string, ArgValue> {
    return s.uid === undefined ? { volume: s.volume } : { volume: s.volume, pod: s.pod ?? s.uid, uid: s.uid };
  }

  // ---- belief ----

  #believe(s: Subject, belief: Belief, at: number): void {
    if (s.belief === belief) return;
    s.belief = belief;
    const key = this.#key(s, 'belief');
    this.#close(key, at);
    const name = this.#beliefName(s, belief);
    if (name !== undefined) this.#open(key, this.#track(s, 'kubelet'), name, at, this.#args(s));
    // A belief the kubelet does not hold firmly cannot be wrong.
    if (s.mismatch && !comparable(belief)) this.#endMismatch(s, at);
  }

  #beliefName(s: Subject, belief: Belief): string | undefined {
    switch (belief) {
      case 'none':
        return undefined;
      case 'mounted':
      case 'uncertain':
        return (s.uid === undefined ? DEVICE_NAMES : VOLUME_NAMES)[belief];
      case 'pending':
        return 'left to the reconciler';
      case 'down':
        return 'kubelet down: no state';
      case 'reconstructing':
        return 'reconstructing';
    }
  }

  // ---- truth ----

  #truth(s: Subject, path: string, mounted: boolean, at: number): void {
    const before = mountCount(s);
    const n = (s.mounts.get(path) ?? 0) + (mounted ? 1 : -1);
    if (n > 0) s.mounts.set(path, n);
    else s.mounts.delete(path);
    const after = mountCount(s);
    const key = this.#key(s, 'truth');
    if (before === 0 && after > 0) {
      const name = s.uid === undefined ? 'global mount' : mountName(path);
      this.#open(key, this.#track(s, 'host'), name, at, { ...this.#args(s), path });
    } else if (before > 0 && after === 0) {
      this.#close(key, at);
    }
    // The truth moving to agree ends a disagreement at once; moving away from the belief is one only once
    // the kubelet acts on the volume again (an operation may still be running).
    if (s.mismatch && this.#agrees(s)) this.#endMismatch(s, at);
  }

  // ---- disagreement ----

  #agrees(s: Subject): boolean {
    if (!comparable(s.belief)) return true;
    return (s.belief === 'mounted') === mountCount(s) > 0;
  }

  /** A moment the kubelet acted on the subject: does what it believes now match the node? */
  #check(s: Subject, at: number): void {
    const agrees = this.#agrees(s);
    if (agrees && s.mismatch) this.#endMismatch(s, at);
    if (agrees || s.mismatch) return;
    s.mismatch = true;
    const kubelet = s.belief === 'mounted' ? this.#beliefName(s, 'mounted') : 'not mounted';
    const host = mountCount(s) > 0 ? `mounted at ${[...s.mounts.keys()].join(', ')}` : 'not mounted';
    this.#open(
      this.#key(s, 'mismatch'),
      this.#track(s, 'mismatch'),
      `kubelet: ${kubelet}; host: ${host}`,
      at,
      {
        ...this.#args(s),
        kubelet: kubelet ?? '',
        host,
      },
    );
  }

  #endMismatch(s: Subject, at: number): void {
    s.mismatch = false;
    this.#close(this.#key(s, 'mismatch'), at);
  }
}

function comparable(b: Belief): boolean {
  return b === 'mounted' || b === 'none';
}

function mountCount(s: Subject): number {
  let n = 0;
  for (const c of s.mounts.values()) n += c;
  return n;
}

/** The pod's mount as the host has it: a bind mount (Filesystem) or a reference on the global map (Block). */
function mountName(path: string): string {
  return path.includes('/pods/') ? 'mounted' : 'map reference';
}

const OUTCOME_RANK: Record<string, number> = {
  addedToActualState: 3,
  reportedInUse: 2,
  skippedDesired: 2,
  cleanupMounts: 1,
};

function strongest(a: string | undefined, b: string): string {
  return a !== undefined && (OUTCOME_RANK[a] ?? 0) >= (OUTCOME_RANK[b] ?? 0) ? a : b;
}

/** What a subject's reconstruction left the kubelet believing once syncStates finished. */
function afterReconstruction(s: Subject): Belief {
  switch (s.outcome) {
    case 'addedToActualState':
      return 'mounted';
    // The pod still wants it: the reconciler mounts it again. Or cleanupMounts' UnmountVolume runs (a pod
    // volume); its device is in no state at all.
    case 'reportedInUse':
    case 'skippedDesired':
      return 'pending';
    case 'cleanupMounts':
      return s.uid === undefined ? 'none' : 'pending';
    default:
      return 'none';
  }
}
