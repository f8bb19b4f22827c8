// What an import knows while it reads a log's records in order (infer.ts): the entries so far, the nodes,
// pods and volumes seen, the faults still counting failures in a row, and how each of them grows. Pure.
import type { ReleasePreset } from '../fixes.js';
import type { Action, Fault, UnmountDeviceStage } from '../scenario/types.js';
import type { LogEvent, PodRef } from './events.js';
import { readEviction } from './evictionGrace.js';
import { type Hinted, subdomain } from './hints.js';
import { MIN_HORIZON_MS, QUIET_AFTER_MS, TimeMap } from './idleGaps.js';
import type { LogRecord } from './logLines.js';
import { createAction, isControllerEvent, type PodInstance } from './podInstance.js';
import { VolumeTable } from './volumeTable.js';

/** A pod running before the log begins is created this long before the first line (mounts take ~12 s). */
export const PRELUDE_MS = 60_000;

export interface Entry {
  atMs: number;
  /** Orders entries of one instant: the record's index, or just below another entry's. */
  readonly seq: number;
  /** Built once every record was read (a pod's containers and volumes come later in the log). */
  readonly build: () => Action;
  readonly sources: readonly LogRecord[];
  readonly notes: string[];
}

export interface NodeState {
  readonly name: string;
  pid: number;
  last: LogRecord | null;
  /** seq and time of the latest restart (or -1): reconstruction faults are armed just before it. */
  restartSeq: number;
  restartAtMs: number;
  /** When the process after the latest restart logged its first line (or -1). */
  startedAtMs: number;
  shutdown: boolean;
  /** The node's graceful shutdown configuration, from "Creating node shutdown manager". */
  shutdownConfig: { periodS: number; criticalS: number; record: LogRecord } | null;
  /** UnmountDevice stage counts waiting for the next UnmountDevice of the node (map in use, ...). */
  readonly pending: { stage: UnmountDeviceStage; records: LogRecord[] }[];
  /**
   * A restart whose new process has not yet shown what its config sources list: set by the PID change,
   * cleared by the new process's first sync loop line (its re-list ADD, or what it logs without one).
   */
  relist: {
    readonly atMs: number;
    readonly seq: number;
    readonly downMs: number;
    readonly pid: number;
  } | null;
  /** The process logged something other than its start lines since it started (or since the log began). */
  workedSinceStart: boolean;
}

/** The record an event reader reads: its index, its time in the scenario, its node (null: the controller manager's). */
export interface Reading {
  readonly r: LogRecord;
  readonly seq: number;
  readonly t: number;
  readonly node: NodeState | null;
}

/** A node first seen now: no restart, no shutdown, nothing pending. */
function newNode(name: string, pid: number): NodeState {
  return {
    name,
    pid,
    last: null,
    restartSeq: -1,
    restartAtMs: 0,
    startedAtMs: -1,
    shutdown: false,
    shutdownConfig: null,
    pending: [],
    relist: null,
    workedSinceStart: false,
  };
}

export class ImportState {
  readonly entries: Entry[] = [];
  readonly nodes = new Map<string, NodeState>();
  readonly pods = new Map<string, PodInstance>();
  /** Each pod's createPod notes, for what is read after the whole log (its restart policy). */
  readonly createNotes = new Map<PodInstance, string[]>();
  /** Container ID -> the exit code of its last "container finished", until its ContainerDied reads it. */
  readonly exitCodes = new Map<string, number>();
  readonly volumes = new VolumeTable();
  readonly observed: { record: LogRecord; note: string }[] = [];
  readonly unused: LogRecord[] = [];
  readonly scenarioNames = new Map<string, string>();
  /** The scenario names taken (scenarioNames' values), to test a new one without a scan. */
  private readonly takenNames = new Set<string>();
  /**
   * The pods by log name and by UID, each list in creation order: find is a lookup, not a scan of every
   * pod (a log of thousands of pods made the import quadratic).
   */
  private readonly byName = new Map<string, PodInstance[]>();
  private readonly byUid = new Map<string, PodInstance[]>();
  readonly fileNodes = new Map<string, string>();
  readonly guessedNodes = new Set<string>();
  readonly firstPid = new Map<string, number>();
  readonly restartedBefore = new Set<string>();
  release: Hinted<ReleasePreset> | null = null;
  releaseSource: LogRecord | null = null;
  used = 0;
  /** Faults still counting failures in a row, by kind/node/volume(/stage); a success closes them. */
  readonly openFaults = new Map<string, { records: LogRecord[]; times: number }>();
  /** node -> when its last "could not get consistent content of /proc/mounts" line was logged. */
  readonly lastInconsistentAtMs = new Map<string, number>();
  /** The log's time to the scenario's: set once every record was read (a long log's idle stretches cut). */
  timeMap = new TimeMap();
  /** Added to every record's time: PRELUDE_MS when a pod ran before the log began, else 0. */
  readonly offset: number;
  private readonly t0: number;

  constructor(records: readonly LogRecord[], events: readonly (LogEvent | null)[], offset: number) {
    this.t0 = records[0]?.timeMs ?? 0;
    this.offset = offset;
    // A kubelet log without host names (bare klog) still names its node in UnmountDevice's `on node "..."`.
    records.forEach((r, i) => {
      const ev = events[i];
      if (r.host !== '' || this.fileNodes.has(r.file) || ev?.kind !== 'volumeOp' || isControllerEvent(ev))
        return;
      if (ev.node !== '' && r.component !== 'controller-manager')
        this.fileNodes.set(r.file, subdomain(ev.node, 'node'));
    });
    // Files whose first kubelet process reconstructs volumes: it started after a restart, before the log;
    // the pods it ADDs then are the re-list of pods that ran before, created at 0s.
    for (const r of records) if (!this.firstPid.has(r.file)) this.firstPid.set(r.file, r.pid);
    records.forEach((r, i) => {
      const k = events[i]?.kind;
      if (
        (k === 'reconstructFailed' || k === 'orphanVolumePaths' || k === 'inconsistentMounts') &&
        r.pid === this.firstPid.get(r.file)
      )
        this.restartedBefore.add(r.file);
    });
  }

  rel(r: LogRecord): number {
    return r.timeMs - this.t0 + this.offset;
  }

  closeFaults(prefix: string): void {
    for (const k of [...this.openFaults.keys()]) if (k.startsWith(prefix)) this.openFaults.delete(k);
  }

  nodeOf(r: LogRecord): NodeState {
    let name: string;
    if (r.host !== '') name = subdomain(r.host, 'node');
    else {
      const named = this.fileNodes.get(r.file);
      if (named === undefined) {
        name = `node-${String.fromCharCode(97 + Math.min(25, this.guessedNodes.size))}`;
        this.guessedNodes.add(name);
      } else name = named;
      this.fileNodes.set(r.file, name);
    }
    let n = this.nodes.get(name);
    if (n === undefined) {
      n = newNode(name, r.pid);
      this.nodes.set(name, n);
    }
    return n;
  }

  namedNode(name: string): string {
    const n = subdomain(name, 'node');
    // A node only the controller manager or an UnmountDevice line names: no kubelet PID known.
    if (!this.nodes.has(n)) this.nodes.set(n, newNode(n, 0));
    return n;
  }

  /**
   * Reconstruction in a node's first process: the kubelet restarted before the log began. The restart is
   * written 1 s before the first line (pods created at 0s have their volumes by then); faults that make
   * the reconstruction fail are armed just before it.
   */
  preludeRestart(n: NodeState, r: LogRecord): void {
    if (n.restartSeq !== -1 || this.offset === 0) return;
    n.restartSeq = -0.4;
    n.restartAtMs = this.offset - 1000;
    n.startedAtMs = this.offset;
    const name = n.name;
    this.push(
      this.offset - 1000,
      -0.4,
      [r],
      () => ({ kind: 'restartKubelet', node: name, downForMs: 1000 }),
      ['guess: the kubelet restarted before the log begins (the first lines reconstruct volumes)'],
    );
  }

  push(atMs: number, seq: number, sources: LogRecord[], build: () => Action, notes: string[] = []): void {
    this.entries.push({ atMs: Math.max(0, Math.round(atMs)), seq, sources, build, notes });
  }

  scenarioName(ref: PodRef): string {
    const key = `${ref.namespace}/${ref.name}`;
    let n = this.scenarioNames.get(key);
    if (n === undefined) {
      n = subdomain(ref.name, 'pod');
      if (this.takenNames.has(n)) n = subdomain(`${ref.name}.${ref.namespace}`, 'pod');
      this.scenarioNames.set(key, n);
      this.takenNames.add(n);
    }
    return n;
  }

  /** The pod instance a reference means: by UID when both have one, else by namespace/name, else by name. */
  find(ref: PodRef): PodInstance | undefined {
    if (ref.uid !== '') {
      const withUid = this.withUid(ref.uid);
      if (withUid !== undefined) return withUid;
    }
    return this.named(ref, () => true);
  }

  /** The latest pod given this UID. */
  withUid(uid: string): PodInstance | undefined {
    const list = this.byUid.get(uid);
    return list?.[list.length - 1];
  }

  /** The latest pod of the reference's name (and namespace, when it has one) that `also` accepts. */
  named(ref: PodRef, also: (p: PodInstance) => boolean): PodInstance | undefined {
    const list = this.byName.get(ref.name) ?? [];
    for (let i = list.length - 1; i >= 0; i--) {
      const p = list[i] as PodInstance;
      if ((ref.namespace === '' || p.ref.namespace === ref.namespace) && also(p)) return p;
    }
    return undefined;
  }

  /** Gives a pod the UID a later line showed (the index keeps creation order). */
  setUid(p: PodInstance, uid: string): void {
    p.uid = uid;
    const list = this.byUid.get(uid) ?? [];
    list.push(p);
    list.sort((a, b) => (this.order.get(a) ?? 0) - (this.order.get(b) ?? 0));
    this.byUid.set(uid, list);
  }

  private readonly order = new Map<PodInstance, number>();

  /** A new pod instance, created at `r` (or `at`: a time the log implies), or at 0 s when it ran before the log. */
  create(
    ref: PodRef,
    node: string,
    isStatic: boolean,
    r: LogRecord,
    seq: number,
    prelude: boolean,
    at?: { readonly atMs: number; readonly seq: number },
  ) {
    const atMs = prelude ? 0 : (at?.atMs ?? this.rel(r));
    const p: PodInstance = {
      key: `${ref.namespace}/${ref.name}#${this.pods.size}`,
      ref,
      uid: ref.uid,
      name: this.scenarioName(ref),
      node,
      static: isStatic,
      alive: true,
      deleting: false,
      killGrace: null,
      deleteGrace: null,
      forcedAfterDelete: false,
      redelete: null,
      goneWhileDown: false,
      relisted: null,
      runningIds: new Set(),
      evictGrace: null,
      evicted: false,
      containers: [],
      startedIds: new Map(),
      idNames: new Map(),
      killedIds: new Set(),
      startsMs: [],
      exits: [],
      goneAtMs: null,
      restartPolicy: 'Always',
      readyAtMs: atMs,
      volumes: [],
      prelude,
      preStops: [],
      createSources: [r],
    };
    this.order.set(p, this.pods.size);
    this.pods.set(p.key, p);
    const sameName = this.byName.get(ref.name);
    if (sameName === undefined) this.byName.set(ref.name, [p]);
    else sameName.push(p);
    if (ref.uid !== '') this.setUid(p, ref.uid);
    const notes = prelude
      ? [`guess: running before the log begins, created ${PRELUDE_MS / 1000}s before its first line`]
      : [];
    this.createNotes.set(p, notes);
    // A static pod never killed in the log: its manifest likely kept the grace of the one it replaced.
    const before = (this.byName.get(ref.name) ?? []).filter((q) => q !== p && q.static && q.name === p.name);
    // A hard eviction's kill before 1.31 shows the spec's grace (#115819).
    const evictedSpec = () =>
      p.evicted ? readEviction(this.release?.value ?? null, p.evictGrace).specGraceS : null;
    const inherit = () =>
      p.static && p.killGrace === null
        ? (before.find((q) => q.killGrace !== null)?.killGrace ?? null)
        : p.killGrace === null
          ? evictedSpec()
          : null;
    this.push(
      atMs,
      prelude ? -1 : (at?.seq ?? seq),
      p.createSources,
      () => createAction(p, this.volumes, inherit(), notes, this.release?.value ?? null),
      notes,
    );
    return p;
  }

  /** The pod, created now (or before the log) if it was never seen. */
  podFor(ref: PodRef, r: LogRecord, seq: number, isStatic = false): PodInstance {
    const found = this.find(ref);
    if (found !== undefined) {
      if (found.uid === '' && ref.uid !== '') this.setUid(found, ref.uid);
      return found;
    }
    return this.create(ref, this.nodeOf(r).name, isStatic, r, seq, true);
  }

  /** The claims the populator failed to read, by node and claim: their volume is settled after the log. */
  private readonly claims = new Map<string, ClaimLookup>();

  /**
   * The scenario volume of a claim the populator could not read (a pvcLookupFailed line), and the key of
   * its fault. A failed read of the bound volume names it (`failed to fetch PV <pv>`): the spec name the
   * operation lines use. A failed read of the claim names only the claim and the pod's name for it; which
   * volume that is, claimVolumes settles once every record was read (the lines that mount or tear it down
   * may come later).
   */
  claimVolume(
    ev: Extract<LogEvent, { kind: 'pvcLookupFailed' }>,
    node: string,
    p: PodInstance | undefined,
    r: LogRecord,
  ): { key: string; volume: () => string; lookup: ClaimLookup | null } {
    if (ev.pv !== '') {
      const vol = this.volumes.see(ev.pv, '', r, null);
      if (p !== undefined && !p.volumes.includes(vol)) p.volumes.push(vol);
      return { key: `pvcLookup/${node}/${vol}`, volume: () => vol, lookup: null };
    }
    const key = `pvcLookup/${node}/claim:${ev.claim}`;
    let c = this.claims.get(key);
    if (c === undefined) {
      c = { claim: ev.claim, volumeName: ev.volumeName, pod: p, first: r, volume: null, notes: [] };
      this.claims.set(key, c);
    }
    const found = c;
    return { key, volume: () => found.volume ?? subdomain(found.claim, 'volume'), lookup: found };
  }

  /** Settles the volume of each claim read only by its failures (claimVolume); call once the log was read. */
  claimVolumes(): void {
    for (const c of this.claims.values()) {
      const byName = [subdomain(c.claim, ''), subdomain(c.volumeName, '')].find(
        (n) => n !== '' && this.volumes.has(n),
      );
      const only = c.pod?.volumes.length === 1 ? c.pod.volumes[0] : undefined;
      if (byName !== undefined) c.volume = byName;
      else if (only !== undefined) {
        c.volume = only;
        c.notes.push(`guess: claim ${c.claim} is ${only}, the pod's only volume the log names`);
      } else {
        // The log names the volume nowhere else: one named after the claim.
        c.volume = this.volumes.see(c.claim, '', c.first, null);
        c.notes.push(
          `guess: volume ${c.volume} named after the claim: the log names its volume nowhere else`,
        );
      }
      if (c.pod !== undefined && !c.pod.volumes.includes(c.volume)) c.pod.volumes.push(c.volume);
    }
  }

  /** The pvcLookup faults, for what settles once the log was read (pvcLookupsAtEnd). */
  readonly pvcFaults: PvcLookupEntry[] = [];
  /** node/volume -> virtual time of its latest SetUp / MapPodDevice that succeeded. */
  readonly lastSetUp = new Map<string, number>();

  /**
   * A claim still unreadable when the log ends (its last failure within a retry of the end, no SetUp of
   * its volume after it): the outage outlasted the log, so its lookups fail on to the end of the run;
   * counting only the logged ones would let the imported run read the claim right after the log's end.
   */
  pvcLookupsAtEnd(endMs: number): void {
    for (const f of this.pvcFaults) {
      const times = f.entry.sources.map((r) => this.rel(r));
      const last = times[times.length - 1]!;
      let gap = PVC_RETRY_GUESS_MS;
      for (let i = 1; i < times.length; i++) gap = Math.max(gap, times[i]! - times[i - 1]!);
      const setUp = this.lastSetUp.get(`${f.node}/${f.volume()}`) ?? Number.NEGATIVE_INFINITY;
      if (endMs - last > gap || setUp > last) continue;
      f.extra = Math.ceil((Math.max(MIN_HORIZON_MS, endMs + QUIET_AFTER_MS) - last) / 1000);
      f.entry.notes.push(
        `guess: still failing when the log ends: ${f.extra} more lookups fail, one a second to the end of the run`,
      );
    }
  }

  // Faults of one kind on one (node, volume) in a row become one fault with `times`.
  mergeFault(
    key: string,
    r: LogRecord,
    armAt: number,
    armSeq: number,
    make: (times: number) => Fault,
    counts = true,
  ): Entry | null {
    const open = this.openFaults.get(key);
    if (open !== undefined) {
      open.records.push(r);
      if (counts) open.times++;
      return null;
    }
    const rec = { records: [r], times: counts ? 1 : 0 };
    this.openFaults.set(key, rec);
    const entry: Entry = {
      atMs: Math.max(0, Math.round(armAt)),
      seq: armSeq,
      sources: rec.records,
      build: () => {
        const times = Math.max(1, rec.times);
        return { kind: 'fault', fault: withTimes(make(times), times) };
      },
      notes: [],
    };
    this.entries.push(entry);
    return entry;
  }

  faultEntry(
    vol: string,
    nodeName: string,
    stage: UnmountDeviceStage,
    rs: LogRecord[],
    guess: string | null,
  ): void {
    const key = `unmountDevice/${nodeName}/${vol}/${stage}`;
    const since = this.volumes.lastUnmount.get(`${nodeName}/${vol}`) ?? 0;
    this.mergeFault(key, rs[0]!, since, -0.1, (times) => ({
      kind: 'unmountDevice',
      node: nodeName,
      volume: vol,
      stage,
      times,
    }));
    const open = this.openFaults.get(key)!;
    for (const extra of rs.slice(1)) {
      open.records.push(extra);
      open.times++;
    }
    if (guess !== null) this.entries[this.entries.length - 1]?.notes.push(`guess: ${guess}`);
  }
}

/** A claim's failed reads are one retry apart at most this long, or as long as the longest gap between them. */
const PVC_RETRY_GUESS_MS = 30_000;

export interface PvcLookupEntry {
  readonly node: string;
  readonly volume: () => string;
  /** Its timeline entry: the failures it counts are its sources. */
  readonly entry: Entry;
  /** Lookups that fail after the log's end (pvcLookupsAtEnd). */
  extra: number;
}

interface ClaimLookup {
  readonly claim: string;
  readonly volumeName: string;
  readonly pod: PodInstance | undefined;
  readonly first: LogRecord;
  volume: string | null;
  /** The notes of its fault's entry, for the guess claimVolumes makes. */
  notes: string[];
}

function withTimes(f: Fault, times: number): Fault {
  return f.kind === 'unmountDevice' ||
    f.kind === 'tearDown' ||
    f.kind === 'mountDevice' ||
    f.kind === 'waitForAttach' ||
    f.kind === 'stopContainer' ||
    f.kind === 'setUp'
    ? { ...f, times }
    : f;
}
