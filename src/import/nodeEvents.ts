// The node events of an imported log (infer.ts): the kubelet's restarts (a new PID), its start (the
// release its version names) and the node's graceful shutdown with its configuration. Pure.
import type { LogEvent } from './events.js';
import { releaseOf } from './hints.js';
import type { ImportState, NodeState, Reading } from './importState.js';
import type { LogRecord } from './logLines.js';

type NodeEvent = Extract<LogEvent, { kind: 'shutdownConfig' | 'shutdown' | 'kubeletStart' }>;

/** Read before a kubelet record's event: a restart comes before what the new process logs. */
export function readKubeletPid(s: ImportState, node: NodeState, r: LogRecord, seq: number): void {
  // A new PID on a node's kubelet: the old process died after its last line, the new one started.
  if (node.last !== null && r.pid !== 0 && node.pid !== 0 && r.pid !== node.pid) {
    const last = node.last;
    node.restartSeq = seq - 0.5;
    node.restartAtMs = s.rel(last);
    node.shutdown = false;
    const name = node.name;
    const stoppedAtMs = s.rel(last);
    const startedAtMs = s.rel(r);
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
      [`the kubelet's PID changed from ${node.pid} to ${r.pid}`],
    );
  }
  node.pid = r.pid === 0 ? node.pid : r.pid;
  node.last = r;
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
