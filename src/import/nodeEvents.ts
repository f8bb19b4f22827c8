// The node events of an imported log (infer.ts): the kubelet's restarts (a new PID), its start (the
// release its version names) and the node's graceful shutdown with its configuration. Pure.
import type { LogEvent } from './events.js';
import { releaseOf } from './hints.js';
import type { ImportState, NodeState, Reading } from './importState.js';
import type { LogRecord } from './logLines.js';

type NodeEvent = Extract<LogEvent, { kind: 'shutdownConfig' | 'shutdown' | 'kubeletStart' }>;

/**
 * Read before a kubelet record's event: a restart comes before what the new process logs. A restart is a
 * new PID, or a start line (`"Kubelet version"`, `Starting kubelet main sync loop`, `Started kubelet`)
 * after the process had logged other work: a kubelet in a container often comes back with the PID it had,
 * and the JSON format logs no PID at all.
 */
export function readKubeletRestart(
  s: ImportState,
  node: NodeState,
  r: LogRecord,
  seq: number,
  starting: boolean,
): void {
  const last = node.last;
  const newPid = last !== null && r.pid !== 0 && node.pid !== 0 && r.pid !== node.pid;
  const startedAgain = !newPid && starting && last !== null && node.workedSinceStart;
  node.workedSinceStart = !starting;
  // The old process died after its last line, the new one started.
  if (last !== null && (newPid || startedAgain)) {
    node.restartSeq = seq - 0.5;
    node.restartAtMs = s.rel(last);
    node.startedAtMs = s.rel(r);
    node.shutdown = false;
    const name = node.name;
    const stoppedAtMs = s.rel(last);
    const startedAtMs = s.rel(r);
    node.relist = { atMs: stoppedAtMs, seq: seq - 0.5, downMs: startedAtMs - stoppedAtMs, pid: r.pid };
    s.push(
      stoppedAtMs,
      seq - 0.5,
      [last, r],
      // In the scenario's time: an idle stretch cut from a long log (idleGaps.ts) is cut from the down time too.
      () => ({
        kind: 'restartKubelet',
        node: name,
        downForMs: Math.max(0, s.timeMap.map(startedAtMs) - s.timeMap.map(stoppedAtMs)),
      }),
      [
        newPid
          ? `the kubelet's PID changed from ${node.pid} to ${r.pid}`
          : `the kubelet started again (${r.pid === 0 ? 'the log names no PID' : `the same PID, ${r.pid}`})`,
      ],
    );
  }
  node.pid = r.pid === 0 ? node.pid : r.pid;
  node.last = r;
}

/**
 * What a restarted kubelet's config sources list, read off its first sync loop line: its re-list ADD
 * (source api), or another SyncLoop line before any (the new process logs at V(2), and lists no API pod).
 * The node's API pods that ran before the restart and are not listed left the API while the kubelet was
 * down: deleted then (a force deletion, or a graceful one finalised by nobody), which the restarted
 * kubelet never hears of. Read before the record's own event.
 */
export function readRelist(s: ImportState, node: NodeState, ev: LogEvent, { r }: Reading): void {
  const relist = node.relist;
  if (relist === null || r.pid !== relist.pid) return;
  const listing = ev.kind === 'podOp' && ev.op === 'ADD' && ev.source === 'api';
  // The file source's list (static pods) says nothing of the API's, which may come after it.
  if (ev.kind === 'podOp' && ev.source !== 'api') return;
  if (!listing && ev.kind !== 'pleg' && ev.kind !== 'podOp') return;
  node.relist = null;
  const listed = listing ? ev.pods : [];
  const atMs = relist.atMs + relist.downMs / 2;
  for (const p of s.pods.values()) {
    if (p.node !== node.name || !p.alive) continue;
    // The file source lists a static pod by its manifest: under another UID when it changed meanwhile,
    // which its containers show (podEvents.ts replacedWhileDown).
    if (p.static) {
      p.relisted = { atMs, seq: relist.seq + 0.2, startedAtMs: relist.atMs + relist.downMs };
      continue;
    }
    const named = listed.some(
      (ref) =>
        (ref.uid !== '' && ref.uid === p.uid) ||
        ((ref.uid === '' || p.uid === '') &&
          ref.name === p.ref.name &&
          (ref.namespace === '' || ref.namespace === p.ref.namespace)),
    );
    if (named) {
      p.relisted = { atMs, seq: relist.seq + 0.2, startedAtMs: relist.atMs + relist.downMs };
      continue;
    }
    p.alive = false;
    p.goneWhileDown = true;
    p.goneAtMs ??= atMs;
    const name = p.name;
    s.push(atMs, relist.seq + 0.2, [r], () => ({ kind: 'forceDeletePod', pod: name }), [
      listing
        ? 'guess: deleted while the kubelet was down (the restarted kubelet does not list it), half way through'
        : 'guess: deleted while the kubelet was down (the restarted kubelet lists no API pod), half way through',
    ]);
  }
}

export function readNodeEvent(s: ImportState, ev: NodeEvent, { r, seq, t, node }: Reading): void {
  switch (ev.kind) {
    case 'shutdownConfig': {
      if (node !== null) node.shutdownConfig = { periodS: ev.periodS, criticalS: ev.criticalS, record: r };
      break;
    }
    case 'shutdown': {
      if (node === null || node.shutdown) break;
      node.shutdown = true;
      const name = node.name;
      s.push(t, seq, [r], () => ({ kind: 'shutdownNode', node: name }));
      break;
    }
    case 'kubeletStart': {
      if (s.release === null && ev.version !== '') {
        s.release = releaseOf(ev.version);
        s.releaseSource = r;
      }
      s.observed.push({ record: r, note: `kubelet start${ev.version === '' ? '' : ` (v${ev.version})`}` });
      break;
    }
  }
}
