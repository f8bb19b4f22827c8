// The admission profile: one node, `node-a`, with small allocatable resources (cpu, sometimes memory) and
// the label pool=blue, and pods whose resources.requests nearly fill it, some of them run to completion
// (restartPolicy Never or OnFailure, a container exiting 0), some rejected by the kubelet's admission
// (a nodeSelector the node does not carry, or more than it has), and kubelet restarts, sometimes with
// other --node-labels, while such pods exist. A plot fixes what its story needs and keeps the draft's
// choices for the rest:
// - completed: a Job's pod completes, then a pod that fits only beside nothing else runs, and the kubelet
//   restarts (half the time relabelling the node so that the completed pod's nodeSelector no longer
//   matches): admission after the restart must neither count the completed pod (#105523, fix
//   terminal-pod-on-first-sight) nor admit it again and turn it Failed (#126341, terminal-pod-not-readmitted);
// - rejected: a pod admission rejects (too big, or its nodeSelector) and right after it one that fits
//   only if the rejected one is not counted, half of those after a pod too big asking for memory and no cpu: the rejected
//   pod's Failed has not come back from the API yet (#104817, admission-rejected-pod-inactive), and the
//   node looks overcommitted to a zero cpu request (#116408, zero-request-fits);
// - deletedWhileDown: the kubelet is down while a pod it will reject is created and deleted; after the
//   restart nothing but #118497's housekeeping hands the rejected pod to a worker (#118472,
//   rejected-pod-deletion-after-restart); a third of them the pod was running before, and the restart
//   relabels the node;
// - pvc: a pod runs with a volume whose claim the user deletes (pvc-protection keeps it), and the kubelet
//   restarts, the pod deleted around the restart or not at all: the restarted populator must let the
//   protected claim through (#130335, dsw-terminating-pvc-protected).
// Like the other profiles, the draft is free-form and every draft maps to a valid scenario, so fast-check
// shrinks it freely.
import fc from 'fast-check';
import type { RestartPolicy } from '../api/v1.js';
import type { Action, ContainerDecl, ResourceAmounts, VolumeDecl } from '../scenario/types.js';
import { defaultContainerName } from '../scenario/types.js';
import type { PluginKind } from '../volume/volume.js';
import type { PlacedEntry } from './profiles.js';
import { VOLUME_IN_USE_BY_MS } from './slowTearDown.js';

/** A time in 10 ms steps from 0 to max (shrinks towards 0). */
const timeMs = (maxMs: number) => fc.integer({ min: 0, max: maxMs / 10 }).map((t) => t * 10);

export const ADMISSION_PLOTS = ['completed', 'rejected', 'deletedWhileDown', 'pvc'] as const;
export type AdmissionPlot = (typeof ADMISSION_PLOTS)[number];

/** The node's label, and the value a restart relabels it to (what a mismatched nodeSelector asks for). */
export const POOL_LABEL = 'pool';
const HOME_POOL = 'blue';
const OTHER_POOL = 'green';
const MI = 1024 ** 2;
/** When a pod without a volume surely runs: its sandbox, its start delay (at most 3 s drawn). */
const RUNNING_AFTER_MS = 4_000;

export interface AdmissionPodDraft {
  /** Its cpu request in per-mille of the node's allocatable cpu (a plot bends it to its story). */
  readonly cpuPerMille: number;
  /** Its memory request in per-mille of the node's allocatable memory, when the node has some. */
  readonly memoryPerMille: number;
  /** 0 Never, 1 OnFailure (the completed pod's policy). */
  readonly policy: number;
  /** A gap after the plot's anchor for this pod (a creation, the kubelet going down). */
  readonly gapMs: number;
  readonly graceS: number;
}

export interface AdmissionDraft {
  /** Index into ADMISSION_PLOTS. */
  readonly plot: number;
  /** The node's allocatable cpu, in millicores. */
  readonly cpuMilli: number;
  /** The node's allocatable memory in Mi; null: not given (every memory request fits). */
  readonly memoryMi: number | null;
  readonly pods: readonly [AdmissionPodDraft, AdmissionPodDraft];
  /** A switch of the plot: the completed pod's relabel, the rejected pod's selector, the pod that ran before. */
  readonly variant: number;
  readonly restart: { readonly afterMs: number; readonly downForMs: number };
  /** The pvc plot's pod deletion, relative to the restart (ms, may be before it); null: not deleted. */
  readonly deleteAroundRestartMs: number | null;
  readonly plugin: PluginKind;
}

const podDraft: fc.Arbitrary<AdmissionPodDraft> = fc.record({
  cpuPerMille: fc.nat({ max: 1_000 }),
  memoryPerMille: fc.nat({ max: 1_000 }),
  policy: fc.nat({ max: 3 }).map((k) => (k === 3 ? 1 : 0)),
  gapMs: fc.oneof({ arbitrary: timeMs(1_000), weight: 3 }, { arbitrary: timeMs(8_000), weight: 1 }),
  graceS: fc.constantFrom(30, 1, 5, 10, 60),
});

export const admissionDraft: fc.Arbitrary<AdmissionDraft> = fc.record({
  plot: fc.nat({ max: ADMISSION_PLOTS.length - 1 }),
  cpuMilli: fc.constantFrom(1_500, 1_000, 2_000, 4_000),
  memoryMi: fc.option(fc.constantFrom(4_096, 1_024, 2_048), { freq: 2 }),
  pods: fc.tuple(podDraft, podDraft),
  variant: fc.nat({ max: 5 }),
  restart: fc.record({
    afterMs: timeMs(10_000),
    downForMs: fc.oneof(
      timeMs(20_000).map((t) => t + 1_000),
      fc.constant(5_000),
    ),
  }),
  deleteAroundRestartMs: fc.option(
    timeMs(40_000).map((t) => t - 10_000),
    { freq: 3 },
  ),
  plugin: fc.constantFrom<PluginKind>('csi', 'fc', 'iscsi'),
});

export interface AdmissionPlacement {
  readonly entries: PlacedEntry[];
  readonly volumes: VolumeDecl[];
  /** node-a's labels and allocatable (the scenario's nodeLabels / nodeAllocatable for it). */
  readonly labels: Readonly<Record<string, string>>;
  readonly allocatable: ResourceAmounts;
}

/** The draft as timeline entries on `nodes[0]` (pods `a0`, `a1`; volume `lun-1`). Pure. */
export function placeAdmission(d: AdmissionDraft, nodes: readonly string[]): AdmissionPlacement {
  const node = nodes[0] ?? 'node-a';
  const plot: AdmissionPlot = ADMISSION_PLOTS[d.plot] ?? 'completed';
  const allocatable: ResourceAmounts =
    d.memoryMi === null ? { cpuMilli: d.cpuMilli } : { cpuMilli: d.cpuMilli, memoryBytes: d.memoryMi * MI };
  const labels = { [POOL_LABEL]: HOME_POOL };
  const entries: PlacedEntry[] = [];
  const volumes: VolumeDecl[] = [];
  const [p0, p1] = d.pods;
  /** A cpu request of `perMille` of the node's (10 m steps), and a memory one when the node has memory. */
  const requests = (cpuPerMille: number, memoryPerMille: number): ResourceAmounts => {
    const cpuMilli = Math.round((d.cpuMilli * cpuPerMille) / 10_000) * 10;
    const memoryBytes = d.memoryMi === null ? 0 : Math.round((d.memoryMi * memoryPerMille) / 1000) * MI;
    return {
      ...(cpuMilli > 0 ? { cpuMilli } : {}),
      ...(memoryBytes > 0 ? { memoryBytes } : {}),
    };
  };
  const create = (
    pod: string,
    o: {
      readonly requests: ResourceAmounts;
      readonly policy?: RestartPolicy;
      readonly selector?: string;
      readonly graceS: number;
      readonly volumes?: readonly string[];
    },
  ): Action => {
    const hasRequests = o.requests.cpuMilli !== undefined || o.requests.memoryBytes !== undefined;
    const container: ContainerDecl = {
      name: defaultContainerName(0),
      startDelayMs: null,
      ...(hasRequests ? { requests: o.requests } : {}),
    };
    return {
      kind: 'createPod',
      pod,
      node,
      containers: [container],
      volumes: [...(o.volumes ?? [])],
      static: false,
      gracePeriodS: o.graceS,
      restartPolicy: o.policy ?? 'Always',
      ...(o.selector === undefined ? {} : { nodeSelector: { [POOL_LABEL]: o.selector } }),
    };
  };
  const restart = (atMs: number, relabel: boolean): PlacedEntry => ({
    atMs,
    action: {
      kind: 'restartKubelet',
      node,
      downForMs: d.restart.downForMs,
      ...(relabel ? { labels: { [POOL_LABEL]: OTHER_POOL } } : {}),
    },
  });
  switch (plot) {
    case 'completed': {
      // The job asks for 30-90% of the node, the next pod for more than what is left (and no more than
      // the node): it fits only while the completed job is not counted.
      const jobPerMille = 300 + (p0.cpuPerMille % 600);
      const webPerMille = Math.min(1_000, Math.max(p1.cpuPerMille, 1_010 - jobPerMille));
      const relabel = d.variant % 2 === 1;
      entries.push({
        atMs: 0,
        action: create('a0', {
          requests: requests(jobPerMille, p0.memoryPerMille / 2),
          policy: p0.policy === 1 ? 'OnFailure' : 'Never',
          // A relabelled node no longer matches: the restart's admission would reject the job again.
          ...(relabel || d.variant >= 4 ? { selector: HOME_POOL } : {}),
          graceS: p0.graceS,
        }),
      });
      const doneAt = RUNNING_AFTER_MS + p0.gapMs;
      entries.push({
        atMs: doneAt,
        action: { kind: 'crashContainer', pod: 'a0', container: defaultContainerName(0), exitCode: 0 },
      });
      const webAt = doneAt + 10 + p1.gapMs;
      entries.push({
        atMs: webAt,
        action: create('a1', { requests: requests(webPerMille, p1.memoryPerMille / 2), graceS: p1.graceS }),
      });
      const restartAt = webAt + RUNNING_AFTER_MS + d.restart.afterMs;
      entries.push(restart(restartAt, relabel));
      // Sometimes the job's pod is deleted once it completed (a Job's cleanup), around the restart.
      if (d.deleteAroundRestartMs !== null) {
        entries.push({
          atMs: Math.max(doneAt + 10, restartAt + d.deleteAroundRestartMs),
          action: { kind: 'deletePod', pod: 'a0', gracePeriodS: null },
        });
      }
      break;
    }
    case 'rejected': {
      // The first pod is rejected: by its nodeSelector (two in six, asking for 30-100% of the node) or
      // for asking more than the node has (105-200%). The second one fits beside nothing else.
      const bySelector = d.variant < 2;
      const bigPerMille = bySelector ? 300 + (p0.cpuPerMille % 701) : 1_050 + (p0.cpuPerMille % 951);
      // A zero cpu request (memory only), half of those after a pod rejected for cpu: the node then looks
      // overcommitted to a request of no cpu, if the rejected pod is counted.
      const zeroCpu = !bySelector && d.variant >= 4;
      const webPerMille = Math.min(1_000, Math.max(p1.cpuPerMille, 10, 1_010 - bigPerMille));
      entries.push({
        atMs: 0,
        action: create('a0', {
          requests: requests(bigPerMille, 0),
          ...(bySelector ? { selector: OTHER_POOL } : {}),
          graceS: p0.graceS,
        }),
      });
      // Right after it, mostly within a second: before the rejected pod's Failed is back from the API.
      const webAt = p1.gapMs;
      const memoryPerMille = Math.max(1, p1.memoryPerMille / 4);
      entries.push({
        atMs: webAt,
        action: create('a1', {
          requests: zeroCpu
            ? { memoryBytes: Math.max(1, Math.round(((d.memoryMi ?? 1_024) * memoryPerMille) / 1000)) * MI }
            : requests(webPerMille, memoryPerMille),
          graceS: p1.graceS,
        }),
      });
      // Two in three restart the kubelet later, while both pods exist.
      if (d.deleteAroundRestartMs !== null)
        entries.push(restart(webAt + RUNNING_AFTER_MS + d.restart.afterMs, false));
      break;
    }
    case 'deletedWhileDown': {
      // The kubelet goes down; the pod is created (or, a third of them, was running before, and the
      // restart relabels the node so that its nodeSelector no longer matches) and deleted while it is
      // down, with a grace that keeps the object until the kubelet is back.
      const ranBefore = d.variant >= 4;
      const downAt = ranBefore ? RUNNING_AFTER_MS + d.restart.afterMs : d.restart.afterMs;
      const downForMs = Math.max(d.restart.downForMs, 2_000);
      const bySelector = d.variant % 2 === 0;
      const perMille = bySelector ? p0.cpuPerMille : 1_050 + (p0.cpuPerMille % 951);
      const createAt = ranBefore ? 0 : downAt + Math.min(p0.gapMs, downForMs / 2);
      entries.push({
        atMs: createAt,
        action: create('a0', {
          requests: requests(ranBefore ? Math.min(perMille, 1_000) : perMille, p0.memoryPerMille / 2),
          ...(ranBefore ? { selector: HOME_POOL } : bySelector ? { selector: OTHER_POOL } : {}),
          graceS: Math.max(1, p0.graceS),
        }),
      });
      entries.push({
        atMs: downAt,
        action: {
          kind: 'restartKubelet',
          node,
          downForMs,
          ...(ranBefore ? { labels: { [POOL_LABEL]: OTHER_POOL } } : {}),
        },
      });
      const deleteAt = Math.max(createAt + 10, downAt + 10 + (p1.gapMs % Math.max(10, downForMs - 1_000)));
      entries.push({ atMs: deleteAt, action: { kind: 'deletePod', pod: 'a0', gracePeriodS: null } });
      break;
    }
    case 'pvc': {
      volumes.push({
        name: 'lun-1',
        plugin: d.plugin,
        mode: 'Filesystem',
        capacityBytes: 10 * 1024 ** 3,
        accessMode: 'ReadWriteOnce',
      });
      entries.push({
        atMs: 0,
        action: create('a0', {
          requests: requests(p0.cpuPerMille, p0.memoryPerMille / 2),
          graceS: p0.graceS,
          volumes: ['lun-1'],
        }),
      });
      const deletePvcAt = VOLUME_IN_USE_BY_MS + p0.gapMs;
      entries.push({ atMs: deletePvcAt, action: { kind: 'deletePvc', volume: 'lun-1' } });
      const restartAt = deletePvcAt + 10 + d.restart.afterMs;
      entries.push(restart(restartAt, false));
      if (d.deleteAroundRestartMs !== null) {
        entries.push({
          atMs: Math.max(deletePvcAt + 10, restartAt + d.deleteAroundRestartMs),
          action: { kind: 'deletePod', pod: 'a0', gracePeriodS: null },
        });
      }
      break;
    }
  }
  return { entries, volumes, labels, allocatable };
}
