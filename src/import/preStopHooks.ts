// Containers' preStop hooks read from a kubelet log (kuberuntime_container.go executePreStopHook): the
// hook's start, its end (completed, failed, or the kubelet no longer waiting at the grace period), and the
// container's SIGTERM after it ("Killing container with a grace period"). They give the container's
// `preStop` and, where the kill logs what the hook left of the grace, the pod's grace (docs/import.md). Pure.
import { RELEASE_PRESETS, type ReleasePreset } from '../fixes.js';
import type { LogEvent } from './events.js';
import { label } from './hints.js';
import type { LogRecord } from './logLines.js';
import type { PodInstance } from './podInstance.js';

type HookEvent = Extract<LogEvent, { kind: 'preStopHook' }>;

interface Seen {
  readonly atMs: number;
  readonly record: LogRecord;
}

/** One container's first preStop hook in the log. */
export interface PreStopRead {
  containerId: string;
  container: string;
  start: Seen | null;
  /** Completed or failed: the hook's own end. */
  end: Seen | null;
  /** The kubelet stopped waiting after `graceS` (the hook ran on). */
  outlived: (Seen & { readonly graceS: number }) | null;
  /** The container's kill after the hook: its SIGTERM, with the grace the kill logged. */
  kill: (Seen & { readonly graceS: number }) | null;
}

/** A hook the log leaves without an end: it runs this long past its start (a guess). */
export const HOOK_OUTLIVED_GRACE_MS = 60_000;

const at = (r: LogRecord) => `${r.file}:${r.lines[0]}`;

function readOf(p: PodInstance, containerId: string, container: string): PreStopRead | undefined {
  return p.preStops.find(
    (h) =>
      (containerId !== '' && h.containerId === containerId) ||
      (container !== '' && (h.container === container || p.idNames.get(h.containerId) === container)),
  );
}

/** A hook line of pod `p` (found by the line's pod, or by the container's ID). */
export function readPreStopHook(p: PodInstance, ev: HookEvent, t: number, r: LogRecord): void {
  const name = label(ev.container, '');
  if (name !== '' && ev.pod !== null && !p.containers.includes(name)) p.containers.push(name);
  if (name !== '' && ev.containerId !== '') p.idNames.set(ev.containerId, name);
  let h = readOf(p, ev.containerId, name);
  if (h === undefined) {
    h = { containerId: ev.containerId, container: name, start: null, end: null, outlived: null, kill: null };
    p.preStops.push(h);
  } else if (ev.phase === 'started' && h.start !== null) return; // a later kill's hook: the first one counts
  const seen = { atMs: t, record: r };
  if (ev.phase === 'started') h.start ??= seen;
  else if (h.end === null && h.outlived === null && h.kill === null) {
    if (ev.phase === 'notCompleted') h.outlived = { ...seen, graceS: ev.gracePeriodS ?? 0 };
    else h.end = seen;
  }
}

/** The kill of a container whose hook the log showed: the SIGTERM after it. Whether it was one. */
export function readPreStopKill(
  p: PodInstance,
  containerId: string,
  container: string,
  graceS: number,
  t: number,
  r: LogRecord,
): boolean {
  const h = readOf(p, containerId, label(container, ''));
  if (h === undefined || h.kill !== null || (h.start === null && h.end === null && h.outlived === null))
    return false;
  h.kill = { atMs: t, record: r, graceS };
  return true;
}

/** The pod whose container has this ID, or whose hook of that name is the one open (pre-1.21 failures). */
export function podOfHook(pods: Iterable<PodInstance>, ev: HookEvent): PodInstance | undefined {
  let found: PodInstance | undefined;
  for (const p of pods) {
    if (ev.containerId !== '' && (p.startedIds.has(ev.containerId) || p.idNames.has(ev.containerId)))
      found = p;
    else if (ev.containerId === '' && ev.container !== '' && readOf(p, '', ev.container)?.start != null)
      found = p;
  }
  return found;
}

const rounded = (ms: number) => Math.max(10, Math.round(ms / 10) * 10);
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)}s`;

/** The container's preStop (ms) and the comment saying where it came from; null: no hook read. */
export function preStopOf(
  p: PodInstance,
  h: PreStopRead,
  name: string,
  graceS: number,
): { readonly ms: number; readonly note: string } | null {
  const what = `container ${name}'s preStop hook`;
  if (h.start !== null && h.end !== null) {
    const ms = rounded(h.end.atMs - h.start.atMs);
    return {
      ms,
      note: `${what} ran ${seconds(ms)}: from its start (${at(h.start.record)}) to its end (${at(h.end.record)})`,
    };
  }
  if (h.outlived !== null) {
    const ms = h.outlived.graceS * 1000 + HOOK_OUTLIVED_GRACE_MS;
    return {
      ms,
      note: `guess: ${what} was not done when the kubelet stopped waiting for it after its ${h.outlived.graceS}s grace (${at(h.outlived.record)}): it ran ${seconds(HOOK_OUTLIVED_GRACE_MS)} longer`,
    };
  }
  if (h.start !== null && h.kill !== null) {
    const ms = rounded(h.kill.atMs - h.start.atMs);
    return {
      ms,
      note: `guess: ${what} ran ${seconds(ms)}: from its start (${at(h.start.record)}) to the container's SIGTERM after it (${at(h.kill.record)}); the log does not say it completed`,
    };
  }
  if (h.start !== null) {
    const ms = graceS * 1000;
    return {
      ms,
      note: `guess: ${what} started (${at(h.start.record)}) and nothing after it ends it: it ran the pod's ${graceS}s grace`,
    };
  }
  if (h.end !== null && p.goneAtMs !== null && h.end.atMs > p.goneAtMs) {
    const ms = rounded(h.end.atMs - p.goneAtMs);
    return {
      ms,
      note: `guess: ${what} ended (${at(h.end.record)}) ${seconds(ms)} after the pod's deletion; its start is not logged (V(3)): it started with the deletion`,
    };
  }
  return null;
}

const atRelease = (r: ReleasePreset) => RELEASE_PRESETS.indexOf(r);

/**
 * The pod's grace that its hooks imply, when the kill's grace is not the pod's own: the kubelet's wait for
 * a hook that outlived it, or the kill's grace plus the seconds the hook took from it. Before #102344
 * (1.22) a deletion's kill had no override, and from #115835 (1.28) the hook runs within the override:
 * either way the kill logs what the hook left (at least the 2 s minimum). From 1.22 to 1.27 the override
 * replaced the remainder and the kill logs the whole grace. null: the kill's grace stands.
 */
export function graceOfHooks(
  p: PodInstance,
  release: ReleasePreset | null,
): { readonly graceS: number; readonly note: string } | null {
  const outlived = p.preStops.find((h) => h.outlived !== null)?.outlived;
  if (outlived != null) {
    if (p.killGrace !== null && p.killGrace >= outlived.graceS) return null;
    return {
      graceS: outlived.graceS,
      note: `its grace is the ${outlived.graceS}s the kubelet waited for a preStop hook (${at(outlived.record)})`,
    };
  }
  if (p.killGrace === null) return null;
  if (release !== null && atRelease(release) >= atRelease('1.22') && atRelease(release) < atRelease('1.28'))
    return null;
  const h = p.preStops.find((k) => k.start !== null && k.kill !== null && k.kill.graceS === p.killGrace);
  if (h === undefined || h.start === null || h.kill === null) return null;
  const hookEnd = h.end ?? h.kill;
  const tookS = Math.trunc((hookEnd.atMs - h.start.atMs) / 1000);
  if (tookS <= 0) return null;
  const graceS = p.killGrace + tookS;
  const why = `the kill's ${p.killGrace}s (${at(h.kill.record)}) is what the preStop hook left of it after ${tookS}s`;
  return release === null
    ? {
        graceS,
        note: `guess: its grace is ${graceS}s: ${why}, as before 1.22 and from 1.28 (from 1.22 to 1.27 the kill logs the whole grace; the log names no release)`,
      }
    : { graceS, note: `its grace is ${graceS}s: ${why} (release ${release})` };
}
