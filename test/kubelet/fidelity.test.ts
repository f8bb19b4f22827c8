// Upstream behaviours the kubelet port must keep, checked end to end through the facts of a run.
import { describe, expect, it } from 'vitest';
import type { Fact } from '../../src/facts.js';
import { Fixes } from '../../src/fixes.js';
import { firedInvariants, runScenario } from '../../src/run/run.js';
import { loadScenarioFile, parseScenarioText } from '../../src/scenario/load.js';

function scenario(timeline: string, horizon = '2m'): ReturnType<typeof parseScenarioText> {
  return parseScenarioText(
    `name: probe\nseed: 1\nhorizon: ${horizon}\ncluster:\n  nodes: [node-a]\ntimeline:\n${timeline}`,
    'probe.yaml',
  );
}

function facts(kind: Fact['kind'], all: readonly Fact[] | undefined): Fact[] {
  return (all ?? []).filter((f) => f.kind === kind);
}

describe('kubelet fidelity', () => {
  it('PLEG reports a container that exited within one relist (ContainerDied on first sight)', () => {
    const s = scenario(
      '  - at: 0s\n    createPod: {pod: job, node: node-a, containers: 1, restartPolicy: Never}\n  - at: 500ms\n    crashContainer: {pod: job}\n',
    );
    const r = runScenario(s, { fixes: Fixes.all(), recordFacts: true });
    const requested = facts('podTerminationRequested', r.facts)[0];
    expect(requested).toBeDefined();
    // The relist after the crash triggers a sync that sees the terminal phase: well within 2 s, not at the 1 min resync.
    expect(requested?.atMs).toBeLessThan(2500);
  });

  it('release-1.23 never publishes Failed while an evicted pod could still have running containers', () => {
    const s = scenario(
      '  - at: 0s\n    createPod: {pod: batch, node: node-a, containers: 1, gracePeriod: 30s}\n  - at: 5s\n    evictPod: {pod: batch, gracePeriod: 4s}\n',
    );
    const r = runScenario(s, { fixes: Fixes.all(), recordFacts: true });
    const failed = facts('apiPodPhase', r.facts).find(
      (f) => f.kind === 'apiPodPhase' && f.phase === 'Failed',
    );
    const exited = facts('containerExited', r.facts).at(-1);
    expect(failed).toBeDefined();
    expect(exited).toBeDefined();
    expect(failed?.atMs).toBeGreaterThanOrEqual(exited?.atMs ?? Number.POSITIVE_INFINITY);
  });

  it('release-1.20 eviction builds a fresh status, so a later deletion still finishes', () => {
    const s = scenario(
      '  - at: 0s\n    createPod: {pod: batch, node: node-a, containers: 1, gracePeriod: 30s}\n  - at: 5s\n    evictPod: {pod: batch, gracePeriod: 4s}\n  - at: 20s\n    deletePod: {pod: batch}\n',
      '5m',
    );
    const legacy = runScenario(s, { fixes: Fixes.none(), recordFacts: true });
    expect(firedInvariants(legacy)).not.toContain('termination-stuck');
    expect(facts('apiPodDeleted', legacy.facts)).toHaveLength(1);
    expect(firedInvariants(runScenario(s, { fixes: Fixes.all() }))).toEqual([]);
  });

  it('the container deletor keeps the newest dead attempt of a crash-looping container', () => {
    const s = scenario(
      '  - at: 0s\n    createPod: {pod: web, node: node-a, containers: 1}\n  - at: 3s\n    crashContainer: {pod: web}\n  - at: 30s\n    crashContainer: {pod: web}\n',
    );
    const r = runScenario(s, { fixes: Fixes.all(), recordFacts: true });
    expect(facts('containerStarted', r.facts).length).toBeGreaterThanOrEqual(3);
    // Two crashes, three attempts: only the oldest dead attempt is removed while the pod runs.
    expect(facts('containerRemoved', r.facts)).toHaveLength(1);
  });
});

describe('kubelet fidelity around restarts and eviction', () => {
  it('a volume shared by two pods is reconstructed for one of them only before #110670', () => {
    // web and batch share lun-1 on disk. Release-1.23 reconstruction keeps one pod per volume (#110547),
    // so batch's mount never reaches the actual state and stays mounted. With #110670 (fix
    // reconstruct-every-pod-of-volume) both pods are cleaned up.
    const s = loadScenarioFile('scenarios/shared-volume-reconstruction.yaml');
    const r = runScenario(s, { fixes: Fixes.of('1.23'), recordFacts: true });
    const lost = (r.facts ?? []).filter((f) => f.kind === 'volumeSetUp' && f.pod === 'batch');
    expect(lost.length).toBeGreaterThan(0);
    const tornDown = (f: readonly Fact[] | undefined) =>
      (f ?? []).some((x) => x.kind === 'volumeTearDown' && x.pod === 'batch' && x.ok);
    expect(tornDown(r.facts)).toBe(false);
    expect(
      (r.facts ?? []).some(
        (f) => f.kind === 'volumeReconstruction' && f.pod === 'batch' && f.outcome === 'lostToAnotherPod',
      ),
    ).toBe(true);
    const fixed = runScenario(s, { fixes: Fixes.all(), recordFacts: true });
    expect(tornDown(fixed.facts)).toBe(true);
  });

  it('#114326: a restarted kubelet keeps the volume of a terminating pod whose container runs', () => {
    // Pod db is deleted with a 60 s grace period and its kubelet restarts 2 s later (#113979). Release-1.23's
    // populator skips the terminating pod, so syncStates puts the reconstructed volume into the actual
    // state with no desired pod and the reconciler tears it down under the running container. With the
    // switch the populator's first rounds add db, and the volume waits for its container.
    const s = loadScenarioFile('scenarios/terminating-pod-volume-torn-down-on-restart.yaml');
    const off = runScenario(s, {
      fixes: Fixes.of('1.25').with('dsw-terminating-pod-on-restart', false),
      recordFacts: true,
    });
    expect(firedInvariants(off)).toEqual(['volume-torn-down-while-running']);
    const reconstructed = (r: typeof off) =>
      facts('volumeReconstruction', r.facts).map((f) => f.kind === 'volumeReconstruction' && f.outcome);
    expect(reconstructed(off)).toEqual(['addedToActualState']);
    const on = runScenario(s, { fixes: Fixes.of('1.25'), recordFacts: true });
    expect(firedInvariants(on)).toEqual([]);
    expect(reconstructed(on)).not.toContain('addedToActualState');
    // The volume is still torn down, after db's container exited.
    const exited = facts('containerExited', on.facts).at(-1)?.atMs ?? Number.POSITIVE_INFINITY;
    const tornDown = facts('volumeTearDown', on.facts).find((f) => f.kind === 'volumeTearDown' && f.ok);
    expect(tornDown?.atMs).toBeGreaterThanOrEqual(exited);
  });

  it('the eviction manager only evicts pods the kubelet already manages', () => {
    const s = scenario(
      '  - at: 0s\n    createPod: {pod: web, node: node-a, containers: 1}\n  - at: 0s\n    evictPod: {pod: web}\n',
    );
    const r = runScenario(s, { fixes: Fixes.all(), recordFacts: true });
    expect(facts('killPodStarted', r.facts)).toHaveLength(0);
    expect(facts('containerStarted', r.facts)).toHaveLength(1);
  });
});

describe('pod config', () => {
  it('more updates at once than the 50-slot updates channel holds wait their turn, in order', () => {
    let timeline = '';
    for (let i = 0; i < 80; i++)
      timeline += `  - at: 0s\n    createPod: {pod: p${i}, node: node-a, containers: 1}\n`;
    const r = runScenario(scenario(timeline), { fixes: Fixes.all(), recordFacts: true });
    expect(r.violations).toEqual([]);
    expect(
      new Set(facts('containerStarted', r.facts).map((f) => f.kind === 'containerStarted' && f.pod)).size,
    ).toBe(80);
  });
});
