// The timeline's data model, what buildTimeline (spans.ts) returns and the Chrome trace, the HTML page
// and the terminal timeline read: processes (the cluster, each node), tracks, spans and instants.
import type { RunResult } from '../run/run.js';

/** The process name of cluster-wide components (API server, attach/detach controller, violations). */
export const CLUSTER_PROCESS = 'cluster';

export type TrackGroup =
  | 'kubelet'
  | 'reconstruction'
  | 'faults'
  | 'actions'
  | 'podWorker'
  | 'kill'
  | 'container'
  /** A pod's volume as the kubelet believes it (its actual state of world), and its operations. */
  | 'volume'
  /** The same volume on the host: the pod's mounts in the node's mount table. */
  | 'volumeHost'
  /** Where the two disagree. */
  | 'volumeMismatch'
  /** A volume's device (its global mount) as the kubelet believes it, and its operations. */
  | 'device'
  /** The device's global mount in the node's mount table, and what the host did to the device. */
  | 'deviceHost'
  /** The LUN's block devices on the node: SCSI paths and multipath maps. */
  | 'deviceState'
  /** Where the two disagree. */
  | 'deviceMismatch'
  | 'lun'
  | 'violations'
  | 'api'
  | 'adc';

export type ArgValue = string | number | boolean | null;
export type Args = Readonly<Record<string, ArgValue>>;

export interface TimelineProcess {
  /** A node name, or CLUSTER_PROCESS. */
  readonly name: string;
  readonly label: string;
  /** 1-based, in display order: the cluster first, then the nodes sorted by name. */
  readonly pid: number;
}

export interface Track {
  /** Unique among the timeline's tracks. */
  readonly id: string;
  /** The owning process's name (a node or CLUSTER_PROCESS). */
  readonly process: string;
  readonly pid: number;
  /** 1-based, unique across the whole timeline (not only its process), in display order. */
  readonly tid: number;
  readonly group: TrackGroup;
  readonly label: string;
}

export interface Span {
  readonly track: string;
  readonly name: string;
  readonly cat: TrackGroup;
  readonly startMs: number;
  readonly endMs: number;
  /** Still running when the run ended (closed at the end time). */
  readonly open: boolean;
  readonly args: Args;
}

export type InstantKind = 'event' | 'fault' | 'error' | 'violation';

export interface Instant {
  readonly track: string;
  readonly name: string;
  readonly kind: InstantKind;
  readonly atMs: number;
  /** 'global' only for the copy of each violation on the cluster's violations track. */
  readonly scope: 'thread' | 'global';
  readonly args: Args;
}

/** One step of a cause-to-effect chain: a drawn fact (its mark's track and time), or the violation. */
export interface FlowStep {
  readonly track: string;
  readonly atMs: number;
  readonly name: string;
}

/** A violation's causes, in time order, ending at the violation's mark on its own track. */
export interface Flow {
  /** 1-based, unique in the timeline (the trace's flow id). */
  readonly id: number;
  /** The violation's index in the run's violations. */
  readonly violation: number;
  readonly steps: readonly FlowStep[];
}

export interface Timeline {
  /** The run's end: spans still open close here. */
  readonly endMs: number;
  readonly processes: readonly TimelineProcess[];
  /** Sorted by (pid, tid). */
  readonly tracks: readonly Track[];
  /** Sorted by (pid, tid, start, longest first). Spans on one track nest or are disjoint. */
  readonly spans: readonly Span[];
  /** Sorted by (time, pid, tid, fact order). */
  readonly instants: readonly Instant[];
  /** Cause-to-effect chains, one per violation that has drawn causes, in violation order. */
  readonly flows: readonly Flow[];
  /** From the first to the last thing that happened, with a margin: the page's first view. */
  readonly action: { readonly startMs: number; readonly endMs: number };
}

/** What buildTimeline reads from a run. */
export type TimelineInput = Pick<RunResult, 'facts' | 'violations' | 'virtualTimeMs'> & {
  /** The run's fix set: what a failed operation leaves the kubelet believing (default: every fix on). */
  readonly fixes?: RunResult['fixes'] | undefined;
};

/** Virtual milliseconds as seconds with three decimals: `1.520s`. */
export function formatSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(3)}s`;
}
