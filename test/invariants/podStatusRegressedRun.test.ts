// pod-status-regressed against planted bugs in the kubelet port (not in the ground truth): each test runs a
// small scenario with the ported code as it is (the invariant holds) and with one plausible mistake put
// back (it fires), restoring the code afterwards.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isPodPhaseTerminal, type Pod, type PodStatus, type RuntimePodStatus } from '../../src/api/v1.js';
import { Fixes } from '../../src/fixes.js';
import * as generate from '../../src/kubelet/status/generate.js';
import { StatusManager } from '../../src/kubelet/status/statusManager.js';
import { runScenario } from '../../src/run/run.js';
import { parseScenarioText } from '../../src/scenario/load.js';

/** The planted generateAPIPodStatus, when a test sets it; the port's otherwise. */
const planted: {
  generateAPIPodStatus?:
    | ((pod: Pod, podStatus: RuntimePodStatus | undefined, old: PodStatus) => PodStatus)
    | undefined;
} = {};

vi.mock('../../src/kubelet/status/generate.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/kubelet/status/generate.js')>();
  return {
    ...original,
    generateAPIPodStatus: (pod: Pod, podStatus: RuntimePodStatus | undefined, old: PodStatus) =>
      (planted.generateAPIPodStatus ?? original.generateAPIPodStatus)(pod, podStatus, old),
  };
});

afterEach(() => {
  planted.generateAPIPodStatus = undefined;
  vi.restoreAllMocks();
});

const regressions = (lines: readonly string[], fixes: Fixes): string[] =>
  runScenario(parseScenarioText(lines.join('\n'), 'status.yaml'), { fixes })
    .violations.filter((v) => v.invariant === 'pod-status-regressed')
    .map((v) => `${v.uid}@${v.atMs}: ${v.message}`);

describe('pod-status-regressed in a run', () => {
  // Release-1.20's generateAPIPodStatus guarded the phase with the API's alone ("Check for illegal phase
  // transition": force back to pod.Status.Phase); #102344 added the status manager's phase to the merge.
  // The pod a worker syncs is the one of its last update, with the status of that moment: a port that
  // keeps only the API guard lets syncTerminatedPod (restartPolicy Always: stopped containers are
  // "restarting", Running) overwrite the Failed (Evicted) that was published once syncTerminatingPod
  // found nothing to kill (the container is in its crash-loop back-off).
  const evictedWhileBackingOff = [
    'name: evicted-in-backoff',
    'seed: 2',
    'horizon: 1m',
    'cluster: {nodes: [node-a]}',
    'timeline:',
    '  - at: 0s',
    '    createPod: {pod: web, node: node-a, containers: 1}',
    '  - at: 5s',
    '    crashContainer: {pod: web}',
    '  - at: 6s',
    '    crashContainer: {pod: web}',
    '  - at: 7s',
    '    evictPod: {pod: web}',
  ];

  it('fires when generateAPIPodStatus keeps only the API terminal phase (release-1.20 guard)', () => {
    expect(regressions(evictedWhileBackingOff, Fixes.all())).toEqual([]);
    // The port's function without the status manager's branch of the three-way merge: the API's terminal
    // phase is the only one kept (what release-1.20 had).
    planted.generateAPIPodStatus = (pod, podStatus, old) => {
      const containerStatuses = generate.apiContainerStatuses(pod, podStatus, old.containerStatuses);
      let phase = generate.getPhase(pod.spec, containerStatuses);
      if (isPodPhaseTerminal(pod.status.phase)) phase = pod.status.phase;
      if (phase !== old.phase) return { phase, containerStatuses };
      const reason = old.reason || pod.status.reason;
      const message = old.message || pod.status.message;
      return { phase, reason, message, containerStatuses };
    };
    // Without #115331's TerminatePod (1.27), whose Failed for a pod still Running in the status manager
    // replaces the planted Running before the status manager writes it.
    const found = regressions(
      evictedWhileBackingOff,
      Fixes.all().with('status-deletes-finished-pods', false),
    );
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/written with phase Running .* after phase Failed \(Evicted\)/);
  });

  // Before #102344 (fix pod-worker-lifecycle off) dispatchWork finishes a deleting pod whose cached
  // container statuses are not running (here still the Waiting of the sync that is starting them) with
  // TerminatePod, which writes them terminated (exit 137), while the worker's next sync sees them running.
  // With restartPolicy Never, checkContainerStateTransition aborts that status ("Status update on pod
  // aborted"); a port without the check publishes the containers running again.
  const deletedWhileStarting = [
    'name: never-deleted-while-starting',
    'seed: 18',
    'horizon: 1m',
    'cluster: {nodes: [node-a]}',
    'timeline:',
    '  - at: 0s',
    '    createPod:',
    '      pod: job',
    '      node: node-a',
    '      containers: [{name: c1, startDelay: 340ms}, {name: c2}, {name: c3}]',
    '      gracePeriod: 0s',
    '      restartPolicy: Never',
    '  - at: 1910ms',
    '    deletePod: {pod: job, gracePeriod: 27s}',
  ];
  const legacy = Fixes.all().with('pod-worker-lifecycle', false);

  it('fires when the status manager drops checkContainerStateTransition (release-1.20 pod worker)', () => {
    expect(regressions(deletedWhileStarting, legacy)).toEqual([]);
    expect(regressions(deletedWhileStarting, Fixes.all())).toEqual([]);
    // StatusManager.updateStatusInternal without its checkContainerStateTransition: the rest as ported.
    const proto = StatusManager.prototype as unknown as Internals;
    vi.spyOn(proto, 'updateStatusInternal').mockImplementation(function (
      this: Internals,
      pod: Pod,
      status: PodStatus,
      forceUpdate: boolean,
    ) {
      const uid = pod.metadata.uid;
      const cached = this.podStatuses.get(uid);
      if (cached !== undefined && !forceUpdate && sameStatus(cached.status, status)) return false;
      this.podStatuses.set(uid, {
        status,
        version: (cached?.version ?? 0) + 1,
        podName: pod.metadata.name,
        podNamespace: pod.metadata.namespace,
      });
      this.podStatusChannel.trySend(uid);
      return true;
    });
    const found = regressions(deletedWhileStarting, legacy);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/container c1 .* written running .* after terminated \(exit 137\)/);
    // With #102344 the container is never reported terminated before it stops: nothing to abort.
    expect(regressions(deletedWhileStarting, Fixes.all())).toEqual([]);
  });
});

interface Versioned {
  status: PodStatus;
  version: number;
  podName: string;
  podNamespace: string;
}

/** The StatusManager's private parts the planted copy uses. */
interface Internals {
  podStatuses: { get(uid: string): Versioned | undefined; set(uid: string, v: Versioned): void };
  podStatusChannel: { trySend(uid: string): boolean };
  updateStatusInternal(pod: Pod, status: PodStatus, forceUpdate: boolean): boolean;
}

function sameStatus(a: PodStatus, b: PodStatus): boolean {
  if (a.phase !== b.phase || a.reason !== b.reason || a.message !== b.message) return false;
  if (a.containerStatuses.length !== b.containerStatuses.length) return false;
  return a.containerStatuses.every((x, i) => {
    const y = b.containerStatuses[i];
    return x.name === y?.name && x.state === y.state && x.exitCode === y.exitCode;
  });
}
