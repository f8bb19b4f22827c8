// `--trace OUT.json`: the run in Chrome Trace Event format, for Perfetto (ui.perfetto.dev) and
// chrome://tracing. One process per node plus one for the cluster, one thread per component track,
// complete events (ph 'X') for spans and instant events (ph 'i') for faults, errors and violations.
// Times are virtual: ts and dur are integer microseconds (virtual ms x 1000).
import type { RunResult } from '../run/run.js';
import { scheduleText } from './json.js';
import { type Args, buildTimeline, type InstantKind, type Timeline } from './spans.js';

export interface TraceEvent {
  readonly name: string;
  readonly ph: 'X' | 'i' | 'M';
  readonly pid: number;
  readonly tid: number;
  readonly ts?: number;
  readonly dur?: number;
  readonly cat?: string;
  readonly s?: 't' | 'p' | 'g';
  /** Flow events (v2): the flow this slice belongs to, and whether the flow comes in / goes on from it. */
  readonly bind_id?: number;
  readonly flow_in?: boolean;
  readonly flow_out?: boolean;
  readonly args: Args;
}

/** Virtual milliseconds to integer trace microseconds. */
export function toMicros(ms: number): number {
  return Math.round(ms * 1000);
}

const INSTANT_CAT: Record<InstantKind, string> = {
  event: 'event',
  fault: 'fault',
  error: 'error',
  violation: 'violation',
};

/** The trace events of a timeline: metadata first, then spans and instants by time. */
export function traceEvents(timeline: Timeline): TraceEvent[] {
  const meta: TraceEvent[] = [];
  for (const p of timeline.processes) {
    meta.push({ name: 'process_name', ph: 'M', pid: p.pid, tid: 0, args: { name: p.label } });
    meta.push({ name: 'process_sort_index', ph: 'M', pid: p.pid, tid: 0, args: { sort_index: p.pid } });
  }
  const where = new Map<string, { pid: number; tid: number }>();
  for (const t of timeline.tracks) {
    where.set(t.id, { pid: t.pid, tid: t.tid });
    meta.push({ name: 'thread_name', ph: 'M', pid: t.pid, tid: t.tid, args: { name: t.label } });
    meta.push({ name: 'thread_sort_index', ph: 'M', pid: t.pid, tid: t.tid, args: { sort_index: t.tid } });
  }

  const timed: { ev: TraceEvent; order: number }[] = [];
  let order = 0;
  for (const s of timeline.spans) {
    const w = where.get(s.track) ?? { pid: 0, tid: 0 };
    const ts = toMicros(s.startMs);
    // dur from the rounded end, so spans that nest in ms still nest in microseconds.
    const dur = Math.max(0, toMicros(s.endMs) - ts);
    timed.push({
      ev: { name: s.name, cat: s.cat, ph: 'X', pid: w.pid, tid: w.tid, ts, dur, args: s.args },
      order: order++,
    });
  }
  for (const i of timeline.instants) {
    const w = where.get(i.track) ?? { pid: 0, tid: 0 };
    timed.push({
      ev: {
        name: i.name,
        cat: INSTANT_CAT[i.kind],
        ph: 'i',
        s: i.scope === 'global' ? 'g' : 't',
        pid: w.pid,
        tid: w.tid,
        ts: toMicros(i.atMs),
        args: i.args,
      },
      order: order++,
    });
  }
  // Cause to effect: one zero-length slice per step, on the step's track, tied into a flow (Perfetto draws
  // the arrows; bind_id / flow_in / flow_out bind each to its own slice, not to whatever encloses it).
  for (const flow of timeline.flows) {
    const n = flow.steps.length;
    flow.steps.forEach((step, k) => {
      const w = where.get(step.track) ?? { pid: 0, tid: 0 };
      timed.push({
        ev: {
          name: step.name,
          cat: 'flow',
          ph: 'X',
          pid: w.pid,
          tid: w.tid,
          ts: toMicros(step.atMs),
          dur: 0,
          bind_id: flow.id,
          ...(k > 0 ? { flow_in: true } : {}),
          ...(k < n - 1 ? { flow_out: true } : {}),
          args: { violation: flow.violation, step: k + 1, of: n },
        },
        order: order++,
      });
    });
  }
  const isFlow = (e: TraceEvent): number => (e.bind_id === undefined ? 0 : 1);
  timed.sort(
    (a, b) =>
      (a.ev.ts ?? 0) - (b.ev.ts ?? 0) ||
      // At one timestamp the flow steps come last, each flow's in its order (a viewer links them so).
      isFlow(a.ev) - isFlow(b.ev) ||
      (a.ev.bind_id ?? 0) - (b.ev.bind_id ?? 0) ||
      (isFlow(a.ev) === 1 ? a.order - b.order : 0) ||
      // A longer span opens before the spans nested in it.
      (b.ev.dur ?? -1) - (a.ev.dur ?? -1) ||
      a.ev.pid - b.ev.pid ||
      a.ev.tid - b.ev.tid ||
      a.order - b.order,
  );
  return [...meta, ...timed.map((t) => t.ev)];
}

/** The Chrome trace JSON text of a run: one event per line, byte-identical for identical input. */
export function toChromeTrace(result: RunResult): string {
  const events = traceEvents(buildTimeline(result));
  const otherData = {
    scenario: result.scenario,
    seed: result.seed,
    fixes: result.fixes.toRecord(),
    virtualTimeMs: result.virtualTimeMs,
    outcome: result.outcome,
    violations: result.violations.length,
    ...(result.choices === undefined ? {} : { schedule: scheduleText(result.choices.schedule) }),
  };
  const lines = events.map((e) => JSON.stringify(e));
  return (
    '{"traceEvents":[\n' +
    lines.join(',\n') +
    '\n],\n"displayTimeUnit":"ms",\n"otherData":' +
    JSON.stringify(otherData) +
    '}\n'
  );
}
