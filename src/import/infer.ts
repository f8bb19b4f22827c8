// Turns the recognised events of one or more logs into a scenario (docs/import.md): the nodes that logged,
// the pods they ran, the volumes they mounted, the timeline in time relative to the first line, and the
// faults the failures imply. Every entry keeps the records it came from, for the written comments. Pure.

import type { ReleasePreset } from '../fixes.js';
import { InputError } from '../scenario/errors.js';
import type { Action, Fault, UnmountDeviceStage } from '../scenario/types.js';
import { ownExitContainer, restartPolicyOf } from './containerExits.js';
import type { PodRef } from './events.js';
import { readEviction } from './evictionGrace.js';
import { type Hinted, label, releaseOf, subdomain, unmountStage } from './hints.js';
import { podOfContainerId, stopFaultOf } from './killFailures.js';
import type { LogRecord } from './logLines.js';
import { createAction, firstSightIsNotAdd, isControllerEvent, type PodInstance } from './podInstance.js';
import { recognise } from './recognise.js';
import { VolumeTable } from './volumeTable.js';

/** A pod running before the log begins is created this long before the first line (mounts take ~12 s). */
export const PRELUDE_MS = 60_000;

export type { PodInstance };

export interface Entry {
  atMs: number;
  /** Orders entries of one instant: the record's index, or just below another entry's. */
  readonly seq: number;
  /** Built once every record was read (a pod's containers and volumes come later in the log). */
  readonly build: () => Action;
  readonly sources: readonly LogRecord[];
  readonly notes: string[];
}

interface NodeState {
  readonly name: string;
  pid: number;
  last: LogRecord | null;
  /** seq and time of the latest restart (or -1): reconstruction faults are armed just before it. */
  restartSeq: number;
  restartAtMs: number;
  shutdown: boolean;
  /** The node's graceful shutdown configuration, from "Creating node shutdown manager". */
  shutdownConfig: { periodS: number; criticalS: number; record: LogRecord } | null;
  /** UnmountDevice stage counts waiting for the next UnmountDevice of the node (map in use, ...). */
  readonly pending: { stage: UnmountDeviceStage; records: LogRecord[] }[];
}

export interface Inferred {
  readonly entries: Entry[];
  readonly nodes: string[];
  /** Nodes whose log states a graceful shutdown configuration. */
  readonly nodeShutdown: Record<string, { periodS: number; criticalS: number; record: LogRecord }>;
  readonly volumes: VolumeTable;
  readonly release: Hinted<ReleasePreset> | null;
  readonly releaseSource: LogRecord | null;
  readonly used: number;
  readonly unused: LogRecord[];
  /** Records that were read but lead to no entry (kept for the header comment). */
  readonly observed: { record: LogRecord; note: string }[];
  /** The virtual time of the first record: PRELUDE_MS when a pod ran before the log began, else 0. */
  readonly firstAtMs: number;
  readonly lastAtMs: number;
}

const at = (r: LogRecord) => `${r.file}:${r.lines[0]}`;
/** kuberuntime_container.go's minimumGracePeriodInSeconds. */
const MINIMUM_GRACE_PERIOD_S = 2;

export function inferScenario(records: readonly LogRecord[]): Inferred {
  const t0 = records[0]?.timeMs ?? 0;
  const events = records.map((r) => recognise(r.text));
  const needsPrelude = records.some((r, i) => firstSightIsNotAdd(events[i] ?? null, r, events, records));
  const offset = needsPrelude ? PRELUDE_MS : 0;
  const rel = (r: LogRecord) => r.timeMs - t0 + offset;

  const entries: Entry[] = [];
  const nodes = new Map<string, NodeState>();
  const pods = new Map<string, PodInstance>();
  /** Each pod's createPod notes, for what is read after the whole log (its restart policy). */
  const createNotes = new Map<PodInstance, string[]>();
  /** Container ID -> the exit code of its last "container finished", until its ContainerDied reads it. */
  const exitCodes = new Map<string, number>();
  const volumes = new VolumeTable();
  const observed: Inferred['observed'] = [];
  const unused: LogRecord[] = [];
  const scenarioNames = new Map<string, string>();
  // A kubelet log without host names (bare klog) still names its node in UnmountDevice's `on node "..."`.
  const fileNodes = new Map<string, string>();
  records.forEach((r, i) => {
    const ev = events[i];
    if (r.host !== '' || fileNodes.has(r.file) || ev?.kind !== 'volumeOp' || isControllerEvent(ev)) return;
    if (ev.node !== '' && r.component !== 'controller-manager')
      fileNodes.set(r.file, subdomain(ev.node, 'node'));
  });
  const guessedNodes = new Set<string>();
  // Files whose first kubelet process reconstructs volumes: it started after a restart, before the log;
  // the pods it ADDs then are the re-list of pods that ran before, created at 0s.
  const firstPid = new Map<string, number>();
  for (const r of records) if (!firstPid.has(r.file)) firstPid.set(r.file, r.pid);
  const restartedBefore = new Set<string>();
  records.forEach((r, i) => {
    const k = events[i]?.kind;
    if (
      (k === 'reconstructFailed' || k === 'orphanVolumePaths' || k === 'inconsistentMounts') &&
      r.pid === firstPid.get(r.file)
    )
      restartedBefore.add(r.file);
  });
  let release: Hinted<ReleasePreset> | null = null;
  let releaseSource: LogRecord | null = null;
  let used = 0;
  /** Faults still counting failures in a row, by kind/node/volume(/stage); a success closes them. */
  const openFaults = new Map<string, { records: LogRecord[]; times: number }>();
  /** node -> when its last "could not get consistent content of /proc/mounts" line was logged. */
  const lastInconsistentAtMs = new Map<string, number>();
  const closeFaults = (prefix: string) => {
    for (const k of [...openFaults.keys()]) if (k.startsWith(prefix)) openFaults.delete(k);
  };

  const nodeOf = (r: LogRecord): NodeState => {
    let name: string;
    if (r.host !== '') name = subdomain(r.host, 'node');
    else {
      const named = fileNodes.get(r.file);
      if (named === undefined) {
        name = `node-${String.fromCharCode(97 + Math.min(25, guessedNodes.size))}`;
        guessedNodes.add(name);
      } else name = named;
      fileNodes.set(r.file, name);
    }
    let n = nodes.get(name);
    if (n === undefined) {
      n = {
        name,
        pid: r.pid,
        last: null,
        restartSeq: -1,
        restartAtMs: 0,
        shutdown: false,
        shutdownConfig: null,
        pending: [],
      };
      nodes.set(name, n);
    }
    return n;
  };
  const namedNode = (name: string): string => {
    const n = subdomain(name, 'node');
    if (!nodes.has(n))
      nodes.set(n, {
        name: n,
        pid: 0,
        last: null,
        restartSeq: -1,
        restartAtMs: 0,
        shutdown: false,
        shutdownConfig: null,
        pending: [],
      });
    return n;
  };
  /**
   * Reconstruction in a node's first process: the kubelet restarted before the log began. The restart is
   * written 1 s before the first line (pods created at 0s have their volumes by then); faults that make
   * the reconstruction fail are armed just before it.
   */
  const preludeRestart = (n: NodeState, r: LogRecord) => {
    if (n.restartSeq !== -1 || offset === 0) return;
    n.restartSeq = -0.4;
    n.restartAtMs = offset - 1000;
    const name = n.name;
    push(offset - 1000, -0.4, [r], () => ({ kind: 'restartKubelet', node: name, downForMs: 1000 }), [
      'guess: the kubelet restarted before the log begins (the first lines reconstruct volumes)',
    ]);
  };
  const push = (atMs: number, seq: number, sources: LogRecord[], build: () => Action, notes: string[] = []) =>
    entries.push({ atMs: Math.max(0, Math.round(atMs)), seq, sources, build, notes });

  const scenarioName = (ref: PodRef): string => {
    const key = `${ref.namespace}/${ref.name}`;
    let n = scenarioNames.get(key);
    if (n === undefined) {
      n = subdomain(ref.name, 'pod');
      if ([...scenarioNames.values()].includes(n)) n = subdomain(`${ref.name}.${ref.namespace}`, 'pod');
      scenarioNames.set(key, n);
    }
    return n;
  };
  /** The pod instance a reference means: by UID when both have one, else by namespace/name, else by name. */
  const find = (ref: PodRef): PodInstance | undefined => {
    const all = [...pods.values()].reverse();
    if (ref.uid !== '') {
      const byUid = all.find((p) => p.uid === ref.uid);
      if (byUid !== undefined) return byUid;
    }
    return all.find(
      (p) => p.ref.name === ref.name && (ref.namespace === '' || p.ref.namespace === ref.namespace),
    );
  };
  const create = (
    ref: PodRef,
    node: string,
    isStatic: boolean,
    r: LogRecord,
    seq: number,
    prelude: boolean,
  ) => {
    const p: PodInstance = {
      key: `${ref.namespace}/${ref.name}#${pods.size}`,
      ref,
      uid: ref.uid,
      name: scenarioName(ref),
      node,
      static: isStatic,
      alive: true,
      deleting: false,
      killGrace: null,
      deleteGrace: null,
      forcedAfterDelete: false,
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
      readyAtMs: prelude ? 0 : rel(r),
      volumes: [],
      prelude,
    };
    pods.set(p.key, p);
    const notes = prelude
      ? [`guess: running before the log begins, created ${PRELUDE_MS / 1000}s before its first line`]
      : [];
    createNotes.set(p, notes);
    // A static pod never killed in the log: its manifest likely kept the grace of the one it replaced.
    const before = [...pods.values()].filter((q) => q !== p && q.static && q.name === p.name);
    // A hard eviction's kill before 1.31 shows the spec's grace (#115819).
    const evictedSpec = () =>
      p.evicted ? readEviction(release?.value ?? null, p.evictGrace).specGraceS : null;
    const inherit = () =>
      p.static && p.killGrace === null
        ? (before.find((q) => q.killGrace !== null)?.killGrace ?? null)
        : p.killGrace === null
          ? evictedSpec()
          : null;
    push(
      prelude ? 0 : rel(r),
      prelude ? -1 : seq,
      [r],
      () => createAction(p, volumes, inherit(), notes),
      notes,
    );
    return p;
  };
  /** The pod, created now (or before the log) if it was never seen. */
  const podFor = (ref: PodRef, r: LogRecord, seq: number, isStatic = false): PodInstance => {
    const found = find(ref);
    if (found !== undefined) {
      if (found.uid === '' && ref.uid !== '') found.uid = ref.uid;
      return found;
    }
    return create(ref, nodeOf(r).name, isStatic, r, seq, true);
  };

  records.forEach((r, seq) => {
    const ev = events[seq] ?? null;
    const isCm = ev !== null && isControllerEvent(ev);
    const node = isCm || r.component === 'controller-manager' ? null : nodeOf(r);
    if (node !== null) {
      // A new PID on a node's kubelet: the old process died after its last line, the new one started.
      if (node.last !== null && r.pid !== 0 && node.pid !== 0 && r.pid !== node.pid) {
        const last = node.last;
        node.restartSeq = seq - 0.5;
        node.restartAtMs = rel(last);
        node.shutdown = false;
        const down = Math.max(0, r.timeMs - last.timeMs);
        const name = node.name;
        push(
          rel(last),
          seq - 0.5,
          [last, r],
          () => ({ kind: 'restartKubelet', node: name, downForMs: down }),
          [`the kubelet's PID changed from ${node.pid} to ${r.pid}`],
        );
      }
      node.pid = r.pid === 0 ? node.pid : r.pid;
      node.last = r;
    }
    if (ev === null) {
      unused.push(r);
      return;
    }
    used++;
    const t = rel(r);
    switch (ev.kind) {
      case 'podOp': {
        for (const ref of ev.pods) {
          const p = find(ref);
          const isStatic = ev.source === 'file' || ev.source === 'http';
          if (ev.op === 'ADD') {
            if (p?.alive) {
              if (ref.uid === '' || p.uid === '' || ref.uid === p.uid) continue; // a re-list after a restart
              if (!p.static)
                throw new InputError(
                  `${at(r)}: pod ${ref.namespace}/${ref.name} is added with UID ${ref.uid} while UID ${p.uid} of that name was never deleted: no valid timeline has both`,
                  { located: true },
                );
              p.alive = false;
              push(t, seq - 0.25, [r], () => ({ kind: 'deletePod', pod: p.name, gracePeriodS: null }), [
                'a new static pod of the name replaces the old one',
              ]);
            }
            const relist = restartedBefore.has(r.file) && r.pid === firstPid.get(r.file);
            create(ref, node?.name ?? namedNode('node-a'), isStatic, r, seq, relist);
          } else if (ev.op === 'DELETE' || (ev.op === 'REMOVE' && isStatic)) {
            const q = p ?? podFor(ref, r, seq, isStatic);
            if (!q.alive || q.deleting) continue;
            q.deleting = true;
            q.goneAtMs ??= t;
            if (ev.op === 'REMOVE') q.alive = false;
            push(t, seq, [r], () => ({ kind: 'deletePod', pod: q.name, gracePeriodS: q.deleteGrace }));
          } else if (ev.op === 'REMOVE') {
            const q = p ?? podFor(ref, r, seq);
            if (!q.alive) continue;
            q.alive = false;
            q.goneAtMs ??= t;
            // The kubelet finalises a graceful deletion only once the containers are gone (the status
            // manager's canBeDeleted); a REMOVE while PLEG still reports one running is someone's force
            // deletion after the graceful one.
            if (q.deleting && (q.static || q.runningIds.size === 0)) continue;
            q.forcedAfterDelete = q.deleting;
            push(t, seq, [r], () => ({ kind: 'forceDeletePod', pod: q.name }), [
              q.deleting
                ? 'removed while its containers still ran, after a graceful DELETE: a force deletion'
                : 'removed without a graceful DELETE first: a force deletion',
            ]);
          }
        }
        break;
      }
      case 'killContainer': {
        const p = podFor(ev.pod, r, seq);
        const c = label(ev.container, '');
        if (c !== '' && !p.containers.includes(c)) p.containers.push(c);
        if (c !== '' && ev.containerId !== '') p.idNames.set(ev.containerId, c);
        if (ev.containerId !== '') p.killedIds.add(ev.containerId);
        if (p.evicted && p.evictGrace === null) p.evictGrace = ev.gracePeriodS;
        else if (p.forcedAfterDelete && p.deleteGrace === null && ev.gracePeriodS > (p.killGrace ?? 0)) {
          // The force deletion's 0 fell back to the spec's grace (#115819): the first kill's was the
          // graceful deletion's own.
          p.deleteGrace = p.killGrace;
          p.killGrace = ev.gracePeriodS;
        } else if (p.deleting || !p.alive) {
          // A force deletion's 0 becomes killContainer's 2 s minimum before #102344; a later kill without
          // the API pod (the podKiller's) restores the spec's grace from the container's label.
          const forced = !p.deleting && p.killGrace === MINIMUM_GRACE_PERIOD_S;
          if (p.killGrace === null || (forced && ev.gracePeriodS > MINIMUM_GRACE_PERIOD_S))
            p.killGrace = ev.gracePeriodS;
        }
        break;
      }
      case 'killContainerFailed': {
        const p = ev.pod !== null ? podFor(ev.pod, r, seq) : podOfContainerId(pods.values(), ev.containerId);
        if (p === undefined) {
          unused.push(r);
          used--;
          break;
        }
        const f = stopFaultOf(p, ev.container, ev.containerId, ev.error);
        const c = label(ev.container, '');
        if (c !== '' && !p.containers.includes(c)) p.containers.push(c);
        // Armed when the pod's deletion came (the kill it failed followed it), else at the failure itself.
        const fresh = !openFaults.has(f.key);
        mergeFault(f.key, r, p.goneAtMs ?? t, -0.5, f.make);
        if (fresh)
          entries[entries.length - 1]?.notes.push(
            'guess: the runtime failed from the kill that followed the deletion (StopContainer errors in a row)',
          );
        break;
      }
      case 'containerFinished':
        exitCodes.set(ev.containerId, ev.exitCode);
        break;
      case 'pleg': {
        const p = podFor(ev.pod, r, seq);
        if (ev.event === 'ContainerStarted') {
          p.startsMs.push(t);
          if (ev.container !== '') p.killedIds.delete(ev.container);
        }
        if (ev.event === 'ContainerStarted' && ev.container !== '' && !p.startedIds.has(ev.container))
          p.startedIds.set(ev.container, t);
        if (ev.event === 'ContainerDied') {
          closeFaults(`stopContainer/${p.name}/`);
          p.runningIds.delete(ev.container);
        } else if (ev.container !== '') p.runningIds.add(ev.container);
        const exitCode = exitCodes.get(ev.container);
        if (ev.event === 'ContainerDied' && exitCode !== undefined && p.alive) {
          exitCodes.delete(ev.container);
          const container = ownExitContainer(p, ev.container);
          if (container === null) break;
          p.exits.push({ atMs: t, container, exitCode });
          const name = p.name;
          push(t, seq, [r], () => ({ kind: 'crashContainer', pod: name, container, exitCode }), [
            'guess: the container exited when PLEG saw it die (up to its 1 s relist later)',
          ]);
        }
        break;
      }
      case 'evict': {
        const p = podFor(ev.pod, r, seq);
        p.evicted = true;
        p.goneAtMs ??= t;
        const notes: string[] = [];
        push(
          t,
          seq,
          [r],
          () => {
            const read = readEviction(release?.value ?? null, p.evictGrace);
            if (read.guess !== null && notes.length === 0) notes.push(`guess: ${read.guess}`);
            return { kind: 'evictPod', pod: p.name, gracePeriodS: read.overrideS };
          },
          notes,
        );
        break;
      }
      case 'shutdownConfig': {
        if (node !== null) node.shutdownConfig = { periodS: ev.periodS, criticalS: ev.criticalS, record: r };
        break;
      }
      case 'shutdown': {
        if (node === null || node.shutdown) break;
        node.shutdown = true;
        const name = node.name;
        push(t, seq, [r], () => ({ kind: 'shutdownNode', node: name }));
        break;
      }
      case 'kubeletStart': {
        if (release === null && ev.version !== '') {
          release = releaseOf(ev.version);
          releaseSource = r;
        }
        observed.push({ record: r, note: `kubelet start${ev.version === '' ? '' : ` (v${ev.version})`}` });
        break;
      }
      case 'volumeOp': {
        const nodeName = ev.node !== '' ? namedNode(ev.node) : (node?.name ?? namedNode('node-a'));
        const vol = volumes.see(ev.volume, ev.uniqueName, r, ev.op);
        if (ev.pod !== null && node !== null && ev.op !== 'attach' && ev.op !== 'detach') {
          const p = podFor(ev.pod, r, seq);
          if (!p.volumes.includes(vol)) p.volumes.push(vol);
          // Its containers start once every volume is set up (WaitForAttachAndMount).
          if (ev.ok && (ev.op === 'setUp' || ev.op === 'mapPodDevice') && p.startedIds.size === 0)
            p.readyAtMs = Math.max(p.readyAtMs, t);
        }
        const ns = node ?? nodes.get(nodeName)!;
        if (ev.op === 'unmountDevice' || ev.op === 'unmapDevice') {
          const pending = ns.pending.splice(0);
          // `map in use` and then an UnmountDevice that succeeds: the kubelet went on past a refused flush
          // while something held the device open (PR #107789's race), not a flush it retried.
          for (const pend of pending) {
            const stage = ev.ok && pend.stage === 'multipathFlushBusy' ? 'deviceStillOpen' : pend.stage;
            faultEntry(vol, nodeName, stage, pend.records, null);
          }
          // A failure right after `map in use` lines is the one they made fail: their count is the fault's.
          if (!ev.ok && pending.length === 0)
            faultEntry(vol, nodeName, unmountStage(ev.error).value, [r], unmountStage(ev.error).guess);
          else {
            volumes.lastUnmount.set(`${nodeName}/${vol}`, t);
            closeFaults(`unmountDevice/${nodeName}/${vol}/`);
          }
        } else if (ev.ok) {
          const kind = ev.op === 'tearDown' || ev.op === 'unmapPodDevice' ? 'tearDown' : 'mountDevice';
          if (ev.op !== 'setUp' && ev.op !== 'waitForAttach') closeFaults(`${kind}/${nodeName}/${vol}`);
          if (ev.op === 'setUp' || ev.op === 'mapPodDevice') closeFaults(`setUp/${nodeName}/${vol}`);
          // A staging or set-up that went through: WaitForAttach, which runs before them, did too. (The
          // `waitForAttach` events that succeed include every "MountVolume started" line: not a success.)
          if (ev.op !== 'waitForAttach' && ev.op !== 'attach' && ev.op !== 'detach')
            closeFaults(`waitForAttach/${nodeName}/${vol}`);
        } else if (!ev.ok && ev.op === 'waitForAttach') {
          // MountVolume.WaitForAttach failed (upstream #110670's CSI driver not registered yet, an iSCSI
          // portal that does not answer): the plugin's own error; the logged text is not replayed.
          mergeFault(`waitForAttach/${nodeName}/${vol}`, r, t, seq, () => ({
            kind: 'waitForAttach',
            node: nodeName,
            volume: vol,
            times: 1,
            error: null,
            delayMs: null,
          }));
        } else if (!ev.ok && (ev.op === 'setUp' || ev.op === 'mapPodDevice')) {
          // MountVolume.SetUp / MapVolume.MapPodDevice failed: CSI's DeadlineExceeded (or Unavailable) is
          // not final, so the mount was marked uncertain; anything else is final.
          const uncertain = /code = (?:DeadlineExceeded|Unavailable|Canceled|ResourceExhausted|Aborted)/.test(
            ev.error,
          );
          mergeFault(`setUp/${nodeName}/${vol}`, r, t, seq - 0.1, () => ({
            kind: 'setUp',
            node: nodeName,
            volume: vol,
            times: 1,
            error: uncertain ? 'uncertain' : 'final',
          }));
        } else if (!ev.ok && (ev.op === 'tearDown' || ev.op === 'unmapPodDevice')) {
          mergeFault(`tearDown/${nodeName}/${vol}`, r, t, seq, () => ({
            kind: 'tearDown',
            node: nodeName,
            volume: vol,
            times: 1,
            delayMs: null,
          }));
        } else if (!ev.ok && (ev.op === 'mountDevice' || ev.op === 'mapDevice')) {
          const uncertain = /Unavailable|DeadlineExceeded/.test(ev.error) && volumes.pluginOf(vol) === 'csi';
          mergeFault(`mountDevice/${nodeName}/${vol}`, r, t, seq, () => ({
            kind: 'mountDevice',
            node: nodeName,
            volume: vol,
            delayMs: null,
            error: uncertain ? 'uncertain' : 'final',
            times: 1,
          }));
        } else if (!ev.ok)
          observed.push({ record: r, note: `${ev.op} failed: no fault of podrace makes it fail` });
        break;
      }
      case 'reconstructFailed': {
        const n = node ?? nodeOf(r);
        preludeRestart(n, r);
        const vol = volumes.see(ev.volume, '', r, null);
        let p = ev.uid === '' ? undefined : find({ namespace: '', name: '', uid: ev.uid });
        if (p === undefined) {
          // Structured ADDs print no UID: the one pod of the node whose UID is unknown is the one.
          const unknown = [...pods.values()].filter((q) => q.alive && q.node === n.name && q.uid === '');
          if (unknown.length === 1 && ev.uid !== '') {
            p = unknown[0]!;
            p.uid = ev.uid;
          }
        }
        if (p !== undefined && !p.volumes.includes(vol)) p.volumes.push(vol);
        const armAt = n.restartAtMs;
        const armSeq = n.restartSeq - 0.1;
        const name = n.name;
        const procMounts = /\/proc\/mounts|consistent/.test(ev.error);
        // Only FC and iSCSI read /proc/mounts to reconstruct (CSI reads vol_data.json).
        if (procMounts)
          volumes.guessPlugin(
            vol,
            'iscsi',
            'plugin iscsi: reconstruction read /proc/mounts, as FC and iSCSI do',
          );
        const key = procMounts ? `procMounts/${name}` : `constructVolumeSpec/${name}/${vol}`;
        // reconstruct.go logs the inconsistent read itself too ("could not get consistent content of
        // /proc/mounts after 3 attempts"): one read failed, whichever of its two lines a log kept.
        const sameRead = procMounts && (lastInconsistentAtMs.get(name) ?? Number.NaN) === r.timeMs;
        mergeFault(
          key,
          r,
          armAt,
          armSeq,
          (times) =>
            procMounts
              ? { kind: 'procMounts', node: name, inconsistentReads: 3 * times }
              : { kind: 'constructVolumeSpec', node: name, volume: vol },
          !sameRead,
        );
        break;
      }
      case 'inconsistentMounts': {
        const n = node ?? nodeOf(r);
        preludeRestart(n, r);
        const name = n.name;
        lastInconsistentAtMs.set(name, r.timeMs);
        mergeFault(`procMounts/${name}`, r, n.restartAtMs, n.restartSeq - 0.1, (times) => ({
          kind: 'procMounts',
          node: name,
          inconsistentReads: 3 * times,
        }));
        break;
      }
      case 'mapInUse':
      case 'deviceStillOpen': {
        const n = node ?? nodeOf(r);
        const stage: UnmountDeviceStage = ev.kind === 'mapInUse' ? 'multipathFlushBusy' : 'deviceStillOpen';
        const last = n.pending[n.pending.length - 1];
        if (last?.stage === stage) last.records.push(r);
        else n.pending.push({ stage, records: [r] });
        break;
      }
      case 'orphanVolumePaths':
        preludeRestart(node ?? nodeOf(r), r);
        observed.push({ record: r, note: `orphaned pod ${ev.uid}: volume paths still on disk` });
        break;
      case 'multiAttach': {
        const vol = volumes.see(ev.volume, '', r, null);
        volumes.rwo(vol, r);
        if (ev.node !== '') namedNode(ev.node);
        if (ev.attachedTo !== '') namedNode(ev.attachedTo);
        observed.push({ record: r, note: `Multi-Attach error for ${vol}` });
        break;
      }
      case 'forceDetach':
        volumes.see(ev.volume, '', r, null);
        if (ev.node !== '') namedNode(ev.node);
        observed.push({ record: r, note: `force detach of ${ev.volume} after maxWaitForUnmountDuration` });
        break;
    }
  });

  // Faults of one kind on one (node, volume) in a row become one fault with `times`.
  function mergeFault(
    key: string,
    r: LogRecord,
    armAt: number,
    armSeq: number,
    make: (times: number) => Fault,
    counts = true,
  ) {
    const open = openFaults.get(key);
    if (open !== undefined) {
      open.records.push(r);
      if (counts) open.times++;
      return;
    }
    const rec = { records: [r], times: counts ? 1 : 0 };
    openFaults.set(key, rec);
    entries.push({
      atMs: Math.max(0, Math.round(armAt)),
      seq: armSeq,
      sources: rec.records,
      build: () => {
        const times = Math.max(1, rec.times);
        return { kind: 'fault', fault: withTimes(make(times), times) };
      },
      notes: [],
    });
  }
  function faultEntry(
    vol: string,
    nodeName: string,
    stage: UnmountDeviceStage,
    rs: LogRecord[],
    guess: string | null,
  ) {
    const key = `unmountDevice/${nodeName}/${vol}/${stage}`;
    const since = volumes.lastUnmount.get(`${nodeName}/${vol}`) ?? 0;
    mergeFault(key, rs[0]!, since, -0.1, (times) => ({
      kind: 'unmountDevice',
      node: nodeName,
      volume: vol,
      stage,
      times,
    }));
    const open = openFaults.get(key)!;
    for (const extra of rs.slice(1)) {
      open.records.push(extra);
      open.times++;
    }
    if (guess !== null) entries[entries.length - 1]?.notes.push(`guess: ${guess}`);
  }

  if (used === 0) {
    const files = [...new Set(records.map((r) => r.file))];
    throw new InputError(
      `${files.join(', ') || 'the input'}: no kubelet or kube-controller-manager message podrace reads (${records.length} log lines with a header)`,
      { located: true },
    );
  }
  const last = records[records.length - 1];
  const endMs = last === undefined ? 0 : rel(last);
  for (const p of pods.values()) {
    const read = restartPolicyOf(p.exits, p.startsMs, p.goneAtMs ?? endMs);
    if (read === null) continue;
    p.restartPolicy = read.policy;
    createNotes.get(p)?.push(read.note);
  }
  return {
    entries: entries.sort((a, b) => a.atMs - b.atMs || a.seq - b.seq),
    nodes: [...nodes.keys()],
    nodeShutdown: Object.fromEntries(
      [...nodes.values()].flatMap((n) =>
        n.shutdownConfig === null ? [] : [[n.name, n.shutdownConfig] as const],
      ),
    ),
    volumes,
    release,
    releaseSource,
    used,
    unused,
    observed,
    firstAtMs: offset,
    lastAtMs: last === undefined ? 0 : rel(last),
  };
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
