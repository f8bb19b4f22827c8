// The jobs profile: run-to-completion pods (the Job pattern). Pods with restartPolicy Never or OnFailure
// whose containers exit on their own after a while, with exit code 0 (completed) or not (failed), with and
// without a volume, some static; once finished, a pod is often deleted (gracefully, by force), and often
// not at all (a finished pod stays until someone deletes it); a deleted pod is often created
// again under the same name right away (the StatefulSet pattern: a new UID on the same node or another,
// the create waiting while the old object holds the name; for a static pod the same manifest again, so
// the same UID); and the pod's kubelet may restart once its containers exited. Now and then a pod
// crash-loops: an OnFailure pod whose first container fails every few seconds for minutes, so that every
// attempt dies soon after its start and the kubelet's crash-loop back-off (10 s doubling to 5 min)
// decides when the next one comes.
//
// It reaches what the other profiles never build, since they run every container until it is killed: the
// restart policy deciding on a container's own exit (kuberuntime_manager.go ShouldContainerBeRestarted,
// computePodActions), the terminal phases Succeeded and Failed reached without a kill, the status
// manager's handling of a finished pod nobody deletes (canBeDeleted), of exited containers garbage-
// collected while the status still lists them, of a name that a new UID takes over while the old UID's
// status still syncs, and a Succeeded static pod whose manifest comes back (#104847). Like the other
// profiles, the draft is free-form and every draft maps to a valid scenario, so fast-check shrinks it
// freely.
import fc from 'fast-check';
import type { RestartPolicy } from '../api/v1.js';
import type { Action, VolumeDecl } from '../scenario/types.js';
import { defaultContainerName } from '../scenario/types.js';
import type { PluginKind } from '../volume/volume.js';
import type { PlacedEntry } from './profiles.js';

/** A time in 10 ms steps from 0 to max (shrinks towards 0). */
const timeMs = (maxMs: number) => fc.integer({ min: 0, max: maxMs / 10 }).map((t) => t * 10);

/** When a container is surely running: after its sandbox and start delay; with a volume, after its mount. */
const RUNNING_AFTER_MS = 4_000;
const RUNNING_WITH_VOLUME_AFTER_MS = 15_000;
/** When an OnFailure container that failed runs again: the 10 s crash-loop back-off and its start. */
const RESTARTED_AFTER_MS = 14_000;

export interface JobExitDraft {
  /** After the container is surely running (the second exit: after it surely restarted). */
  readonly afterMs: number;
  /** 0 completed, else failed (shrinks towards 0). */
  readonly code: number;
}

export interface JobEndDraft {
  /** 0 delete (mostly), 1 force delete. */
  readonly kind: number;
  /** After the pod's last exit. */
  readonly afterMs: number;
  readonly graceS: number;
}

export interface JobPodDraft {
  readonly node: number;
  readonly createAtMs: number;
  /** 0 Never, 1 OnFailure. */
  readonly policy: number;
  readonly static: boolean;
  readonly volume: boolean;
  /** One entry per container: its exits in order (none: it runs until killed). */
  readonly containers: readonly (readonly JobExitDraft[])[];
  readonly graceS: number;
  /** What happens to the pod once it finished; null: nothing (nobody deletes it). */
  readonly end: JobEndDraft | null;
  /** After a delete: the same name again, `gapMs` later (a static pod: the same manifest, the same UID). */
  readonly recreate: { readonly gapMs: number; readonly otherNode: boolean } | null;
  /** The pod's kubelet restarts this long after the pod's last exit. */
  readonly restart: { readonly afterMs: number; readonly downForMs: number } | null;
}

export interface CrashLoopDraft {
  readonly everyMs: number;
  readonly forMs: number;
}

/** Long enough for the back-off to reach its 5 min maximum (10, 20, 40, 80, 160 s windows). */
const CRASH_LOOP_FOR_MS_MAX = 9 * 60_000;

export interface JobsDraft {
  readonly plugin: PluginKind;
  readonly pods: readonly JobPodDraft[];
  /**
   * A crash loop of the first pod: its first container fails (exit 1) every `everyMs` for `forMs` after it
   * surely runs (a failure while no attempt runs does nothing), the pod OnFailure whatever its `policy`.
   * Drawn by the campaigns' generator after every other draw (crashLoopDraft), so no other case moves.
   */
  readonly crashLoop?: CrashLoopDraft | null;
}

const exitDraft: fc.Arbitrary<JobExitDraft> = fc.record({
  afterMs: fc.oneof({ arbitrary: timeMs(3_000), weight: 3 }, { arbitrary: timeMs(15_000), weight: 1 }),
  code: fc.nat({ max: 3 }).map((k) => (k < 2 ? 0 : k - 1)),
});

const jobPodDraft: fc.Arbitrary<JobPodDraft> = fc.record({
  node: fc.nat({ max: 2 }),
  createAtMs: fc.oneof({ arbitrary: fc.constant(0), weight: 2 }, { arbitrary: timeMs(10_000), weight: 1 }),
  policy: fc.nat({ max: 1 }),
  static: fc.nat({ max: 4 }).map((k) => k === 4),
  volume: fc.nat({ max: 2 }).map((k) => k === 2),
  containers: fc.array(fc.array(exitDraft, { minLength: 0, maxLength: 2 }), { minLength: 1, maxLength: 2 }),
  graceS: fc.constantFrom(30, 0, 1, 2, 5),
  end: fc.option(
    fc.record({
      kind: fc.nat({ max: 3 }).map((k) => (k < 3 ? 0 : 1)),
      afterMs: fc.oneof({ arbitrary: timeMs(2_000), weight: 2 }, { arbitrary: timeMs(30_000), weight: 1 }),
      graceS: fc.constantFrom(30, 0, 1, 5),
    }),
    { freq: 3 },
  ),
  recreate: fc.option(fc.record({ gapMs: timeMs(3_000), otherNode: fc.boolean() }), { freq: 2 }),
  restart: fc.option(fc.record({ afterMs: timeMs(5_000), downForMs: timeMs(20_000).map((t) => t + 500) }), {
    freq: 5,
  }),
});

/** One jobs case in this many crash-loops its first pod. */
export const CRASH_LOOP_ONE_IN = 8;

export const crashLoopDraft: fc.Arbitrary<CrashLoopDraft> = fc.record({
  everyMs: fc.integer({ min: 2, max: 6 }).map((s) => s * 1000),
  forMs: fc.integer({ min: 4, max: CRASH_LOOP_FOR_MS_MAX / 60_000 }).map((m) => m * 60_000),
});

export const jobsDraft: fc.Arbitrary<JobsDraft> = fc.record({
  plugin: fc.constantFrom<PluginKind>('csi', 'fc', 'iscsi'),
  pods: fc.array(jobPodDraft, { minLength: 1, maxLength: 3 }),
});

/** The jobs as timeline entries (pods `j<k>`, volumes `lun-<k+1>`), and the volumes they declare. Pure. */
export function placeJobs(
  d: JobsDraft,
  nodes: readonly string[],
): { readonly entries: PlacedEntry[]; readonly volumes: VolumeDecl[] } {
  const entries: PlacedEntry[] = [];
  const volumes: VolumeDecl[] = [];
  d.pods.forEach((p, k) => {
    const name = `j${k}`;
    const home = nodes[p.node % nodes.length] ?? 'node-a';
    // Static pods come from manifest files and use no persistent volumes.
    const volume = p.volume && !p.static ? `lun-${k + 1}` : undefined;
    if (volume !== undefined) {
      volumes.push({
        name: volume,
        plugin: d.plugin,
        mode: 'Filesystem',
        capacityBytes: 10 * 2 ** 30,
        accessMode: 'ReadWriteOnce',
      });
    }
    const loop = k === 0 ? (d.crashLoop ?? null) : null;
    const restartPolicy: RestartPolicy = p.policy === 0 && loop === null ? 'Never' : 'OnFailure';
    const create = (node: string): Action => ({
      kind: 'createPod',
      pod: name,
      node,
      containers: p.containers.map((_, i) => ({ name: defaultContainerName(i), startDelayMs: null })),
      volumes: volume === undefined ? [] : [volume],
      static: p.static,
      gracePeriodS: p.graceS,
      restartPolicy,
    });
    /** The run's exits from `createAt`; returns when the last one happens (createAt if none). */
    const exits = (createAt: number): number => {
      let last = createAt;
      p.containers.forEach((attempts, i) => {
        let at = createAt + (volume === undefined ? RUNNING_AFTER_MS : RUNNING_WITH_VOLUME_AFTER_MS);
        attempts.forEach((e, n) => {
          if (n > 0) at += RESTARTED_AFTER_MS;
          at += e.afterMs;
          entries.push({
            atMs: at,
            action: {
              kind: 'crashContainer',
              pod: name,
              container: defaultContainerName(i),
              exitCode: e.code,
            },
          });
          last = Math.max(last, at);
        });
      });
      if (loop !== null) {
        const from = createAt + (volume === undefined ? RUNNING_AFTER_MS : RUNNING_WITH_VOLUME_AFTER_MS);
        for (let at = from; at <= from + loop.forMs; at += loop.everyMs) {
          entries.push({
            atMs: at,
            action: { kind: 'crashContainer', pod: name, container: defaultContainerName(0), exitCode: 1 },
          });
          last = Math.max(last, at);
        }
      }
      return last;
    };
    entries.push({ atMs: p.createAtMs, action: create(home) });
    const finishedAt = exits(p.createAtMs);
    if (p.restart !== null) {
      entries.push({
        atMs: finishedAt + p.restart.afterMs,
        action: { kind: 'restartKubelet', node: home, downForMs: p.restart.downForMs },
      });
    }
    if (p.end === null) return;
    const endAt = finishedAt + p.end.afterMs;
    entries.push({
      atMs: endAt,
      action:
        p.end.kind === 1 || p.static
          ? p.static
            ? { kind: 'deletePod', pod: name, gracePeriodS: null }
            : { kind: 'forceDeletePod', pod: name }
          : { kind: 'deletePod', pod: name, gracePeriodS: p.end.graceS },
    });
    if (p.recreate === null) return;
    // The create waits while the old object holds the name (podCreateWaiting); a static pod's manifest
    // comes back on its node.
    const other = nodes[(p.node + 1) % nodes.length] ?? home;
    const recreateAt = endAt + 10 + p.recreate.gapMs;
    entries.push({ atMs: recreateAt, action: create(p.recreate.otherNode && !p.static ? other : home) });
    exits(recreateAt);
  });
  return { entries, volumes };
}
