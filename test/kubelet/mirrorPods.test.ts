// Mirror pods end to end, and the switches around static pods seen through the facts of a run: the
// kubelet creates a mirror pod for each static pod it syncs, replaces it when the manifest changes, keeps
// it across a kubelet restart, and deletes it once the static pod has left the config and, where the
// release has the guard, has finished terminating.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { World } from '../../src/cluster/world.js';
import type { Fact } from '../../src/facts.js';
import { Fixes } from '../../src/fixes.js';
import { runScenario } from '../../src/run/run.js';
import { loadScenarioFile, parseScenarioText } from '../../src/scenario/load.js';

const bundled = (name: string) => loadScenarioFile(join(import.meta.dirname, '..', '..', 'scenarios', name));

function scenario(seed: number, timeline: string): ReturnType<typeof parseScenarioText> {
  return parseScenarioText(
    `name: probe\nseed: ${seed}\nhorizon: 2m\ncluster:\n  nodes: [node-a]\ntimeline:\n${timeline}`,
    'probe.yaml',
  );
}

function run(s: ReturnType<typeof parseScenarioText>, fixes: Fixes): readonly Fact[] {
  return runScenario(s, { fixes, recordFacts: true }).facts ?? [];
}

type MirrorFact = Extract<Fact, { kind: 'mirrorPod' }>;
const mirrorFacts = (facts: readonly Fact[]): MirrorFact[] =>
  facts.filter((f): f is MirrorFact => f.kind === 'mirrorPod');
const firstAt = (facts: readonly Fact[], kind: Fact['kind']): number =>
  facts.find((f) => f.kind === kind)?.atMs ?? Number.NaN;

// The container's preStop hook takes the whole grace period (10 s), so the kill lasts at least that long
// whatever the seed draws for its SIGTERM.
const removed = scenario(
  2,
  '  - at: 0s\n    createPod: {pod: proxy, node: node-a, containers: [{name: c1, preStop: 10s}], static: true, gracePeriod: 10s}\n' +
    '  - at: 5s\n    deletePod: {pod: proxy}\n',
);

describe('mirror pods', () => {
  it('are created for a static pod, and deleted only once its termination has finished (1.23)', () => {
    const facts = run(removed, Fixes.all());
    const [created, deleted, ...rest] = mirrorFacts(facts);
    expect(rest).toEqual([]);
    expect(created?.op).toBe('created');
    expect(created?.staticUid).toMatch(/^static-proxy-/);
    expect(deleted?.op).toBe('deleted');
    expect(deleted?.uid).toBe(created?.uid);
    // IsPodForMirrorPodTerminatingByFullName keeps the orphaned mirror pod while the kill runs.
    const killed = firstAt(facts, 'killPodFinished');
    expect(killed).toBeGreaterThanOrEqual(15_000);
    expect(deleted?.atMs).toBeGreaterThanOrEqual(killed);
  });

  it('before #104743 the terminating static pod is tracked by fullname for the same guard (1.22.0-1.22.4)', () => {
    const facts = run(removed, Fixes.of('1.22').with('static-pod-start-exclusion', false));
    const deleted = mirrorFacts(facts).find((f) => f.op === 'deleted');
    expect(deleted?.atMs).toBeGreaterThanOrEqual(firstAt(facts, 'killPodFinished'));
  });

  it('release-1.20.3+ keeps the mirror pod while the static pod is pending termination; 1.20.0-1.20.2 not', () => {
    const on = run(removed, Fixes.of('1.20'));
    const killedOn = firstAt(on, 'killPodFinished');
    expect(mirrorFacts(on).find((f) => f.op === 'deleted')?.atMs).toBeGreaterThanOrEqual(killedOn);
    const off = run(removed, Fixes.of('1.20').with('mirror-pod-pending-termination', false));
    const killedOff = firstAt(off, 'killPodFinished');
    expect(mirrorFacts(off).find((f) => f.op === 'deleted')?.atMs).toBeLessThan(killedOff);
  });

  it('release-1.20.3+ keeps the pod cgroup of a static pod pending termination; 1.20.0-1.20.2 not', () => {
    /** Whether the removed static pod's cgroup still exists 4 s into its 10 s kill. */
    const cgroupDuringKill = (fixes: Fixes): boolean => {
      const world = new World({ scenario: removed, seed: removed.seed, fixes });
      world.start();
      world.sim.run({ horizonMs: 9000, maxEvents: 1_000_000 });
      const cgroups = world.nodeOf('node-a').host.podCgroups;
      return [...cgroups].some((uid) => uid.startsWith('static-proxy-'));
    };
    expect(cgroupDuringKill(Fixes.of('1.20'))).toBe(true);
    expect(cgroupDuringKill(Fixes.of('1.20').with('mirror-pod-pending-termination', false))).toBe(false);
  });

  it('an edited manifest replaces the mirror pod (its hash is the old UID)', () => {
    const s = bundled('static-pod-replaced-before-stop.yaml');
    const m = mirrorFacts(run(s, Fixes.all()));
    expect(m.map((f) => f.op)).toEqual(['created', 'deleted', 'created']);
    expect(m[1]?.staticUid).toBe(m[0]?.staticUid);
    expect(m[2]?.staticUid).not.toBe(m[0]?.staticUid);
    expect(m[2]?.uid).not.toBe(m[0]?.uid);
  });

  it('are never pods of their own: no worker, no apiPod facts, in either release', () => {
    for (const fixes of [Fixes.all(), Fixes.none()]) {
      const facts = run(bundled('static-pod-rapid-updates.yaml'), fixes);
      const mirrorUIDs = new Set(mirrorFacts(facts).map((f) => f.uid));
      expect(mirrorUIDs.size).toBeGreaterThan(0);
      const other = facts.filter(
        (f) => 'uid' in f && f.uid !== undefined && mirrorUIDs.has(f.uid) && f.kind !== 'mirrorPod',
      );
      expect(other).toEqual([]);
    }
  });

  it('survive a kubelet restart: the new kubelet lists the mirror pod and keeps it', () => {
    const s = scenario(
      1,
      '  - at: 0s\n    createPod: {pod: proxy, node: node-a, containers: 1, static: true}\n' +
        '  - at: 5s\n    restartKubelet: {node: node-a, downFor: 3s}\n',
    );
    for (const fixes of [Fixes.all(), Fixes.none()]) {
      expect(mirrorFacts(run(s, fixes)).map((f) => f.op)).toEqual(['created']);
    }
  });
});

describe('terminal-pod-on-first-sight (#105527) after a kubelet restart', () => {
  const s = bundled('terminal-pod-kubelet-restart.yaml');
  /** The pod worker phases of the Failed pod after the kubelet came back. */
  function phasesAfterRestart(fixes: Fixes): string[] {
    const facts = run(s, fixes);
    const restartedAt = facts.filter((f) => f.kind === 'kubeletStarted')[1]?.atMs ?? Number.POSITIVE_INFINITY;
    return facts.flatMap((f) => (f.kind === 'podWorkerPhase' && f.atMs >= restartedAt ? [f.phase] : []));
  }

  it('on (1.22.3 to 1.26): the Failed pod never gets a worker again', () => {
    expect(phasesAfterRestart(Fixes.of('1.26'))).toEqual([]);
  });

  it('with #117019 (1.27.2 on): its worker runs SyncTerminatedPod only, no termination again', () => {
    expect(phasesAfterRestart(Fixes.all())).toEqual(['terminated', 'finished']);
    expect(phasesAfterRestart(Fixes.all().with('terminal-pod-first-sight-synced', false))).toEqual([]);
  });

  it('off (1.22.0-1.22.2): it is terminated a second time by a fresh worker', () => {
    expect(phasesAfterRestart(Fixes.all().with('terminal-pod-on-first-sight', false))).toEqual([
      'terminating',
      'terminated',
      'finished',
    ]);
  });
});
