// `podrace run FILE --events`: every fact of a run (not only the notable ones the timeline keeps: each
// /proc/mounts read, each reconstruction step, each volumesInUse report), with its violations, filtered
// by node, pod, volume, fact kind and a virtual-time window. The filters combine with AND; each one
// given several times (or as a comma list) matches any of its values.
import type { Fact } from '../facts.js';
import { isFinding, type Violation } from '../invariants/types.js';
import type { RunResult } from '../run/run.js';
import { VIOLATION_KIND } from './eventKinds.js';
import { formatSeconds } from './spans.js';
import { describeFact, formatViolation } from './terminalTimeline.js';

export { EVENT_KINDS, VIOLATION_KIND } from './eventKinds.js';

export interface EventFilter {
  /** Node names; `cluster` matches the cluster-wide facts (API server, controllers). Empty: any. */
  readonly nodes: readonly string[];
  /** Pod names or UIDs. */
  readonly pods: readonly string[];
  readonly volumes: readonly string[];
  /** Fact kinds, `violation` (every violation and finding), or invariant IDs (that invariant's). */
  readonly kinds: readonly string[];
  /** Inclusive virtual-time bounds in ms. */
  readonly sinceMs: number | undefined;
  readonly untilMs: number | undefined;
}

export const NO_FILTER: EventFilter = {
  nodes: [],
  pods: [],
  volumes: [],
  kinds: [],
  sinceMs: undefined,
  untilMs: undefined,
};

/** The pod names and UIDs a fact is about (a fault or a Multi-Attach error may name several). */
function podsOf(f: Fact): string[] {
  const out: string[] = [];
  const r = f as unknown as Record<string, unknown>;
  for (const key of ['pod', 'uid', 'staticUid', 'orphanUid', 'heldBy']) {
    const v = r[key];
    if (typeof v === 'string') out.push(v);
  }
  for (const key of ['pods', 'uids']) {
    const v = r[key];
    if (Array.isArray(v)) for (const x of v) if (typeof x === 'string') out.push(x);
  }
  return out;
}

/** The volumes a fact is about: its own, a pod's spec, a volumesInUse report, unreconstructed devices. */
function volumesOf(f: Fact): string[] {
  const r = f as unknown as Record<string, unknown>;
  const out: string[] = typeof r['volume'] === 'string' ? [r['volume']] : [];
  for (const key of ['volumes', 'unreconstructedDevices']) {
    const v = r[key];
    if (Array.isArray(v)) for (const x of v) if (typeof x === 'string') out.push(x);
  }
  return out;
}

function within(atMs: number, f: EventFilter): boolean {
  return (f.sinceMs === undefined || atMs >= f.sinceMs) && (f.untilMs === undefined || atMs <= f.untilMs);
}

const anyOf = (wanted: readonly string[], have: readonly string[]): boolean =>
  wanted.length === 0 || have.some((h) => wanted.includes(h));

/**
 * `podNodes`: the nodes the filter's pods ran on. A fact that names no pod at all (the kubelet, a
 * /proc/mounts read, reconstruction, a device, attach/detach) passes --pod when it happened on one of
 * them: it is the pod's context. Facts of other pods do not.
 */
export function factMatches(fact: Fact, f: EventFilter, podNodes: ReadonlySet<string> = new Set()): boolean {
  const pods = podsOf(fact);
  const podOk = f.pods.length === 0 || (pods.length === 0 ? podNodes.has(fact.node) : anyOf(f.pods, pods));
  return (
    within(fact.atMs, f) &&
    anyOf(f.kinds, [fact.kind]) &&
    anyOf(f.nodes, [fact.node === '' ? 'cluster' : fact.node]) &&
    podOk &&
    anyOf(f.volumes, volumesOf(fact))
  );
}

/** The nodes on which the API server (or a manifest) placed one of the filter's pods. */
export function nodesOfPods(facts: readonly Fact[], f: EventFilter): Set<string> {
  const out = new Set<string>();
  for (const fact of facts)
    if (fact.kind === 'apiPodCreated' && (f.pods.includes(fact.pod) || f.pods.includes(fact.uid)))
      out.add(fact.node);
  return out;
}

/**
 * As factMatches: a violation that names no pod passes --pod on one of the pods' nodes; --kind keeps it
 * for `violation` or its own invariant's ID.
 */
export function violationMatches(
  v: Violation,
  f: EventFilter,
  podNodes: ReadonlySet<string> = new Set(),
): boolean {
  const strings = (...xs: (string | null)[]): string[] => xs.filter((x): x is string => x !== null);
  const pods = strings(v.pod, v.uid);
  const podOk = f.pods.length === 0 || (pods.length === 0 ? podNodes.has(v.node ?? '') : anyOf(f.pods, pods));
  return (
    within(v.atMs, f) &&
    anyOf(f.kinds, [VIOLATION_KIND, v.invariant]) &&
    anyOf(f.nodes, strings(v.node ?? 'cluster')) &&
    podOk &&
    anyOf(f.volumes, strings(v.volume))
  );
}

export type Event =
  | { readonly type: 'fact'; readonly atMs: number; readonly fact: Fact }
  | { readonly type: 'violation'; readonly atMs: number; readonly violation: Violation };

/** The run's facts and violations that pass the filter, by time (a violation after the facts of its ms). */
export function filterEvents(result: RunResult, filter: EventFilter): Event[] {
  const all = result.facts ?? [];
  const podNodes = nodesOfPods(all, filter);
  const facts: Event[] = all
    .filter((f) => factMatches(f, filter, podNodes))
    .map((fact) => ({ type: 'fact', atMs: fact.atMs, fact }));
  const violations: Event[] = [...result.violations, ...result.findings]
    .filter((v) => violationMatches(v, filter, podNodes))
    .sort((a, b) => a.atMs - b.atMs)
    .map((violation) => ({ type: 'violation', atMs: violation.atMs, violation }));
  const out: Event[] = [];
  let vi = 0;
  for (const e of facts) {
    while (vi < violations.length && (violations[vi]?.atMs ?? 0) < e.atMs)
      out.push(violations[vi++] as Event);
    out.push(e);
  }
  while (vi < violations.length) out.push(violations[vi++] as Event);
  return out;
}

/** One line per event: `  90.207s node-a  pod db1  volumeTearDown lun-1`, the timeline's format. */
export function formatEvents(events: readonly Event[], color: boolean): string[] {
  let nodeWidth = 0;
  let subjectWidth = 0;
  const lines = events.map((e) => {
    if (e.type === 'violation') return { e, node: '', subject: '', text: '' };
    const d = describeFact(e.fact);
    const node = e.fact.node === '' ? 'cluster' : e.fact.node;
    nodeWidth = Math.max(nodeWidth, node.length);
    subjectWidth = Math.max(subjectWidth, d.subject.length);
    return { e, node, subject: d.subject, text: d.text };
  });
  return lines.map(({ e, node, subject, text }) => {
    const time = formatSeconds(e.atMs).padStart(9);
    if (e.type === 'violation') return `${time} ${formatViolation(e.violation, color)}`;
    return `${time} ${node.padEnd(nodeWidth)}  ${subject.padEnd(subjectWidth)}  ${text}`.trimEnd();
  });
}

/** One JSON object per event: the fact as published, or the violation with `kind: "violation"`. */
export function eventsToJsonLines(events: readonly Event[]): string[] {
  return events.map((e) =>
    JSON.stringify(
      e.type === 'fact'
        ? e.fact
        : {
            kind: isFinding(e.violation.invariant) ? 'finding' : VIOLATION_KIND,
            ...e.violation,
          },
    ),
  );
}
