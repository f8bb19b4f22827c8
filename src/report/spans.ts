// The shared timeline behind the Chrome trace, the HTML page and (partly) the terminal timeline: tracks
// per node and component, spans (things with a duration) and instants (things that happen), all derived
// from a run's ordered fact list (factSpans.ts) and its violations. Pure and deterministic: every output
// array is sorted with explicit keys, never left in Map insertion order by accident.
import type { Violation } from '../invariants/types.js';
import { codeUnitOrder } from '../sim/order.js';
import { actionWindow } from './actionWindow.js';
import { BeliefTruth } from './beliefTruth.js';
import { causeFlows } from './causeFlows.js';
import { onFact } from './factSpans.js';
import { hazardMark } from './hazardMark.js';
import { describeFact } from './terminalTimeline.js';
import {
  type Args,
  type ArgValue,
  CLUSTER_PROCESS,
  type Flow,
  type Instant,
  type Span,
  type Timeline,
  type TimelineInput,
  type TimelineProcess,
  type Track,
} from './timelineModel.js';
import { type BaseTrack, Builder, type RawSpan, tracks } from './timelineTracks.js';

export {
  type Args,
  type ArgValue,
  CLUSTER_PROCESS,
  type Flow,
  type FlowStep,
  formatSeconds,
  type Instant,
  type InstantKind,
  type Span,
  type Timeline,
  type TimelineInput,
  type TimelineProcess,
  type Track,
  type TrackGroup,
} from './timelineModel.js';

// ---------------------------------------------------------------------------------------------------
// Comparison helpers (code-unit order, independent of the locale).

function cmpKey(a: readonly (string | number)[], b: readonly (string | number)[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i]!;
    const y = b[i]!;
    const c = typeof x === 'number' && typeof y === 'number' ? x - y : codeUnitOrder(String(x), String(y));
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

/** The track a violation is drawn on within its node: the pod's worker, else the volume's device. */
function violationTrack(v: Violation): BaseTrack | undefined {
  if (v.node === null) return undefined;
  if (v.uid !== null) return tracks.podWorker(v.node, v.pod ?? v.uid, v.uid);
  if (v.volume !== null) return tracks.device(v.node, v.volume);
  return tracks.kubelet(v.node);
}

/**
 * A violation's arguments in the trace and the page's tooltips; one tied to a known-open upstream hazard
 * adds `knownOpen` (the hazard) and `upstream` (its references), only then, so other traces keep their bytes.
 */
export function violationArgs(v: Violation): Args {
  const args: Record<string, ArgValue> = {
    invariant: v.invariant,
    node: v.node,
    pod: v.pod,
    uid: v.uid,
    volume: v.volume,
    message: v.message,
  };
  const mark = hazardMark(v.knownOpen);
  if (mark !== undefined) {
    args['knownOpen'] = mark.id;
    args['upstream'] = mark.upstreams.join(', ');
  }
  return args;
}

/** Spreads spans over lanes so that spans in one lane nest or are disjoint. */
function assignLanes(spans: readonly RawSpan[]): Map<RawSpan, number> {
  const order = [...spans].sort((a, b) => a.startMs - b.startMs || b.endMs - a.endMs || a.seq - b.seq);
  const lanes: number[][] = []; // per lane, a stack of end times
  const out = new Map<RawSpan, number>();
  for (const s of order) {
    let lane = 0;
    for (; ; lane++) {
      let stack = lanes[lane];
      if (stack === undefined) {
        stack = [];
        lanes[lane] = stack;
      }
      while (stack.length > 0 && stack[stack.length - 1]! <= s.startMs) stack.pop();
      const top = stack[stack.length - 1];
      if (top === undefined || top >= s.endMs) {
        stack.push(s.endMs);
        break;
      }
    }
    out.set(s, lane);
  }
  return out;
}

/** Derives the tracks, spans and instants of a run. Without recorded facts, only violations appear. */
export function buildTimeline(result: TimelineInput): Timeline {
  const b = new Builder();
  const states = new BeliefTruth(b, result.fixes);
  const facts = result.facts ?? [];
  let endMs = result.virtualTimeMs;
  for (const f of facts) {
    b.current = f;
    onFact(b, f);
    states.onFact(f);
    endMs = Math.max(endMs, f.atMs);
  }
  b.current = undefined;
  states.finish();
  for (const v of result.violations) endMs = Math.max(endMs, v.atMs);
  b.finish(endMs);

  // Violations: on their own track in the node, and globally on the cluster's violations track.
  for (const v of result.violations) {
    const name = `VIOLATION ${v.invariant}`;
    const args = violationArgs(v);
    const local = violationTrack(v);
    if (local !== undefined) b.instant(local, name, 'violation', v.atMs, args);
    b.instant(tracks.violations(), name, 'violation', v.atMs, args, 'global');
  }

  // Lanes per base track.
  const byBase = new Map<string, RawSpan[]>();
  for (const s of b.spans) {
    const list = byBase.get(s.base.key);
    if (list === undefined) byBase.set(s.base.key, [s]);
    else list.push(s);
  }
  const laneOf = new Map<RawSpan, number>();
  const laneCount = new Map<string, number>();
  for (const [key, list] of byBase) {
    const lanes = assignLanes(list);
    let max = 0;
    for (const [s, lane] of lanes) {
      laneOf.set(s, lane);
      max = Math.max(max, lane);
    }
    laneCount.set(key, max + 1);
  }

  // Processes: the cluster first, then the nodes by name.
  const processNames = [...new Set([...b.bases.values()].map((t) => t.process))].sort((x, y) =>
    x === CLUSTER_PROCESS ? -1 : y === CLUSTER_PROCESS ? 1 : codeUnitOrder(x, y),
  );
  const processes: TimelineProcess[] = processNames.map((name, i) => ({
    name,
    label: name === CLUSTER_PROCESS ? 'cluster (API server, attach/detach controller)' : `node ${name}`,
    pid: i + 1,
  }));
  const pidOf = new Map(processes.map((p) => [p.name, p.pid]));

  // Tracks: lanes of each base track, sorted by the base's display key, then the base key, then lane.
  const laneTracks: { base: BaseTrack; lane: number }[] = [];
  for (const base of b.bases.values()) {
    const n = laneCount.get(base.key) ?? 1;
    for (let lane = 0; lane < n; lane++) laneTracks.push({ base, lane });
  }
  laneTracks.sort(
    (x, y) =>
      (pidOf.get(x.base.process) ?? 0) - (pidOf.get(y.base.process) ?? 0) ||
      cmpKey(x.base.sort, y.base.sort) ||
      codeUnitOrder(x.base.key, y.base.key) ||
      x.lane - y.lane,
  );
  const trackList: Track[] = [];
  const trackId = (base: BaseTrack, lane: number): string => (lane === 0 ? base.key : `${base.key}#${lane}`);
  let tid = 0;
  for (const { base, lane } of laneTracks) {
    const pid = pidOf.get(base.process) ?? 0;
    tid++;
    trackList.push({
      id: trackId(base, lane),
      process: base.process,
      pid,
      tid,
      group: base.group,
      label: lane === 0 ? base.label : `${base.label} #${lane + 1}`,
    });
  }
  const position = new Map(trackList.map((t, i) => [t.id, i]));

  const spans: (Span & { seq: number })[] = b.spans.map((s) => {
    const args: Record<string, ArgValue> = { ...s.args };
    if (s.open) args['open'] = true;
    return {
      track: trackId(s.base, laneOf.get(s) ?? 0),
      name: s.name,
      cat: s.base.group,
      startMs: s.startMs,
      endMs: s.endMs,
      open: s.open,
      args,
      seq: s.seq,
    };
  });
  spans.sort(
    (x, y) =>
      (position.get(x.track) ?? 0) - (position.get(y.track) ?? 0) ||
      x.startMs - y.startMs ||
      y.endMs - x.endMs ||
      x.seq - y.seq,
  );
  const instants: (Instant & { seq: number })[] = b.instants.map((i) => ({
    track: trackId(i.base, 0),
    name: i.name,
    kind: i.kind,
    atMs: i.atMs,
    scope: i.scope,
    args: i.args,
    seq: i.seq,
  }));
  instants.sort(
    (x, y) => x.atMs - y.atMs || (position.get(x.track) ?? 0) - (position.get(y.track) ?? 0) || x.seq - y.seq,
  );
  // Cause to effect: each violation's causes as drawn, then the violation's mark on its own track.
  const flows: Flow[] = [];
  const raw = causeFlows(result.violations, facts, b.anchors, (f) => {
    const d = describeFact(f);
    return `${d.subject} ${d.text}`.trim();
  });
  for (const r of raw) {
    const v = result.violations[r.violation];
    if (v === undefined) continue;
    const home = violationTrack(v) ?? tracks.violations();
    flows.push({
      id: flows.length + 1,
      violation: r.violation,
      steps: [
        ...r.causes.map((c) => ({ track: trackId(c.anchor.base, 0), atMs: c.anchor.atMs, name: c.name })),
        { track: trackId(home, 0), atMs: v.atMs, name: `VIOLATION ${v.invariant}` },
      ],
    });
  }
  return {
    endMs,
    processes,
    tracks: trackList,
    spans: spans.map(({ seq: _seq, ...s }) => s),
    instants: instants.map(({ seq: _seq, ...i }) => i),
    flows,
    action: actionWindow(facts, result.violations, endMs),
  };
}
