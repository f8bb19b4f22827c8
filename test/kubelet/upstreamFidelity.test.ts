// Kubelet behaviours pinned to the upstream source line by line (v1.23.13 kubelet.go and kuberuntime,
// v1.20.4 where the legacy paths differ), checked on a whole world.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { GoError } from '../../src/api/errors.js';
import type { PodStatus } from '../../src/api/v1.js';
import { World } from '../../src/cluster/world.js';
import type { Fact } from '../../src/facts.js';
import { Fixes } from '../../src/fixes.js';
import { Kubelet } from '../../src/kubelet/kubelet.js';
import { parseScenarioText } from '../../src/scenario/load.js';
import { sleep } from '../../src/sim/index.js';

function scenarioText(timeline: string, horizon = '2m'): string {
  return `name: probe\nseed: 1\nhorizon: ${horizon}\ncluster:\n  nodes: [node-a]\ntimeline:\n${timeline}`;
}

interface Probe {
  readonly world: World;
  readonly facts: Fact[];
  run(): void;
}

function probe(timeline: string, fixes: Fixes, horizon = '2m', seed = 1): Probe {
  const scenario = parseScenarioText(scenarioText(timeline, horizon), 'probe.yaml');
  const world = new World({ scenario, seed, fixes });
  const facts: Fact[] = [];
  world.bus.subscribe((f) => facts.push(f));
  return {
    world,
    facts,
    run: () => {
      world.sim.run({ horizonMs: scenario.horizonMs, maxEvents: 2_000_000 });
    },
  };
}

describe('syncTerminatingPod (kubelet.go v1.23.13)', () => {
  it('sets the pod status before the kill and none after it', () => {
    const p = probe(
      '  - at: 0s\n    createPod: {pod: web, node: node-a, containers: 1, gracePeriod: 3s}\n' +
        '  - at: 5s\n    deletePod: {pod: web}\n',
      Fixes.all(),
    );
    p.world.start();
    const kubelet = p.world.nodeOf('node-a').kubelet;
    if (kubelet === undefined) throw new Error('no kubelet');
    const writes: { atMs: number; status: PodStatus }[] = [];
    const original = kubelet.statusManager.setPodStatus.bind(kubelet.statusManager);
    kubelet.statusManager.setPodStatus = (pod, status) => {
      writes.push({ atMs: p.world.sim.nowMs, status });
      original(pod, status);
    };
    p.run();
    const killStarted = p.facts.find((f) => f.kind === 'killPodStarted' && f.source === 'syncTerminatingPod');
    const killFinished = p.facts.find((f) => f.kind === 'killPodFinished');
    const terminatedPhase = p.facts.find((f) => f.kind === 'podWorkerPhase' && f.phase === 'terminated');
    expect(killStarted).toBeDefined();
    expect(killFinished).toBeDefined();
    expect(terminatedPhase).toBeDefined();
    // One write at the kill (before it), then nothing until syncTerminatedPod.
    expect(writes.some((w) => w.atMs === killStarted?.atMs)).toBe(true);
    const between = writes.filter(
      (w) =>
        w.atMs >= (killFinished?.atMs ?? Number.POSITIVE_INFINITY) &&
        w.atMs < (terminatedPhase?.atMs ?? Number.NEGATIVE_INFINITY),
    );
    expect(between).toEqual([]);
  });
});

/** The node's runtime fails the first `times` StopContainer calls (CRI errors the fake never produces). */
function failStops(world: World, times: number): void {
  const runtime = world.nodeOf('node-a').host.runtime;
  const stop = runtime.stopContainer.bind(runtime);
  let left = times;
  runtime.stopContainer = function* (uid, containerId, grace) {
    if (left > 0) {
      left--;
      yield* sleep(10);
      return new GoError('rpc error: code = Unknown desc = failed to stop container');
    }
    return yield* stop(uid, containerId, grace);
  };
}

describe('KillPod errors (killPodWithSyncResult aggregates, the pod worker retries)', () => {
  const timeline =
    '  - at: 0s\n    createPod: {pod: web, node: node-a, containers: 1, gracePeriod: 2s}\n' +
    '  - at: 5s\n    deletePod: {pod: web}\n';

  it('the runtime manager returns the aggregated StopContainer error', () => {
    const p = probe(timeline, Fixes.all());
    failStops(p.world, 1);
    p.world.start();
    const kubelet = p.world.nodeOf('node-a').kubelet;
    if (kubelet === undefined) throw new Error('no kubelet');
    const errors: (string | undefined)[] = [];
    const killPod = kubelet.killPod.bind(kubelet);
    kubelet.killPod = function* (pod, runningPod, grace, source) {
      const err = yield* killPod(pod, runningPod, grace, source);
      errors.push(err?.message);
      return err;
    };
    p.run();
    expect(errors[0]).toBe(
      'failed to "KillContainer" for "c1" with KillContainerError: "rpc error: code = Unknown desc = failed to stop container"',
    );
    expect(errors.slice(1).every((e) => e === undefined)).toBe(true);
  });

  const stopError =
    'failed to "KillContainer" for "c1" with KillContainerError: "rpc error: code = Unknown desc = failed to stop container"';

  it('release-1.23: syncTerminatingPod returns the kill error, the pod stays terminating and is killed again', () => {
    const p = probe(timeline, Fixes.all());
    failStops(p.world, 1);
    p.world.start();
    const kubelet = p.world.nodeOf('node-a').kubelet;
    if (kubelet === undefined) throw new Error('no kubelet');
    const errors: (string | undefined)[] = [];
    const syncTerminatingPod = kubelet.syncTerminatingPod.bind(kubelet);
    kubelet.syncTerminatingPod = function* (...args) {
      const err = yield* syncTerminatingPod(...args);
      errors.push(err?.message);
      return err;
    };
    p.run();
    // The kill's own error, not the CRI-violation guard that re-reads the runtime afterwards. A later
    // call may kill the pod's sandbox again as an orphaned runtime pod (HandlePodCleanups reads the
    // runtime cache, up to 2 s old, after the API object is gone); it succeeds too.
    expect(errors.slice(0, 2)).toEqual([stopError, undefined]);
    expect(errors.slice(2).every((e) => e === undefined)).toBe(true);
    const kills = p.facts.filter((f) => f.kind === 'killPodStarted' && f.source === 'syncTerminatingPod');
    const terminated = p.facts.filter(
      (f) => f.kind === 'podTerminated' && f.reason === 'syncTerminatingPod completed',
    );
    expect(kills).toHaveLength(2);
    expect(terminated).toHaveLength(1);
    expect(terminated[0]?.atMs).toBeGreaterThan(kills[1]?.atMs ?? Number.POSITIVE_INFINITY);
    expect(p.facts.some((f) => f.kind === 'apiPodDeleted')).toBe(true);
  });

  it('release-1.20: syncPod returns the kill error and the worker kills again', () => {
    const p = probe(timeline, Fixes.none());
    failStops(p.world, 1);
    p.world.start();
    const legacy = p.world.nodeOf('node-a').kubelet?.legacy;
    if (legacy === undefined) throw new Error('no legacy kubelet');
    const errors: (string | undefined)[] = [];
    const syncPod = legacy.syncPod.bind(legacy);
    legacy.syncPod = function* (o) {
      const err = yield* syncPod(o);
      if (o.pod.metadata.deletionTimestamp !== undefined) errors.push(err?.message);
      return err;
    };
    p.run();
    expect(errors[0]).toBe(stopError);
    const exited = p.facts.find((f) => f.kind === 'containerExited');
    const kills = p.facts.filter((f) => f.kind === 'killPodStarted');
    expect(exited?.atMs).toBeGreaterThan(kills[1]?.atMs ?? Number.POSITIVE_INFINITY);
    expect(p.facts.some((f) => f.kind === 'apiPodDeleted')).toBe(true);
  });
});

describe('SyncPod after the sandbox died (computePodActions)', () => {
  /** The sandbox of `web` dies at `atMs` (the network namespace is gone): the runtime stops it. */
  function killSandboxAt(p: Probe, atMs: number): void {
    const runtime = p.world.nodeOf('node-a').host.runtime;
    p.world.sim.at(atMs, () => {
      const uid = runtime.knownUIDs()[0] ?? '';
      p.world.sim.spawn('sandbox dies', runtime.stopPodSandbox(uid));
    });
  }

  for (const [name, fixes] of [
    ['release-1.23', Fixes.all()],
    ['release-1.20', Fixes.none()],
  ] as const) {
    it(`${name}: a restartPolicy Never pod gets no new sandbox; its container is killed, not restarted`, () => {
      const p = probe(
        '  - at: 0s\n    createPod: {pod: web, node: node-a, containers: 1, restartPolicy: Never, gracePeriod: 2s}\n',
        fixes,
        '1m',
      );
      p.world.start();
      killSandboxAt(p, 5000);
      p.run();
      expect(p.facts.filter((f) => f.kind === 'sandboxCreated')).toHaveLength(1);
      expect(p.facts.filter((f) => f.kind === 'containerStarted')).toHaveLength(1);
      const kill = p.facts.find((f) => f.kind === 'killPodStarted');
      expect(kill?.kind === 'killPodStarted' && kill.source).toBe('SyncPod: all containers dead');
      expect(p.facts.some((f) => f.kind === 'containerExited')).toBe(true);
    });

    it(`${name}: a restartPolicy Always pod gets a new sandbox and its container runs again`, () => {
      const p = probe(
        '  - at: 0s\n    createPod: {pod: web, node: node-a, containers: 1, gracePeriod: 2s}\n',
        fixes,
        '1m',
      );
      p.world.start();
      killSandboxAt(p, 5000);
      p.run();
      expect(p.facts.filter((f) => f.kind === 'sandboxCreated')).toHaveLength(2);
      expect(p.facts.filter((f) => f.kind === 'containerStarted')).toHaveLength(2);
    });
  }

  it('a container whose start the kubelet restart cut short (left created) is started by the next kubelet', () => {
    const p = probe(
      '  - at: 0s\n    createPod: {pod: web, node: node-a, containers: [{name: app, startDelay: 3s}]}\n' +
        '  - at: 1500ms\n    restartKubelet: {node: node-a, downFor: 2s}\n',
      Fixes.all(),
      '1m',
    );
    p.world.start();
    p.run();
    expect(p.facts.filter((f) => f.kind === 'containerCreated')).toHaveLength(2);
    expect(p.facts.filter((f) => f.kind === 'containerStarted')).toHaveLength(1);
  });
});

describe('kubectl delete --force --grace-period=0 as the kubelets see it (MODIFIED with grace 0, then DELETED)', () => {
  const timeline =
    '  - at: 0s\n    createPod: {pod: web, node: node-a, containers: 1, gracePeriod: 30s}\n' +
    '  - at: 5s\n    forceDeletePod: {pod: web}\n';

  it('release-1.20 kills with the 2 s minimum grace period (killContainer: DeletionGracePeriodSeconds 0 < minimumGracePeriodInSeconds)', () => {
    const p = probe(timeline, Fixes.none());
    p.world.start();
    p.run();
    // The kills of the deletion itself (syncPod's, and the podKiller's of the API pod). A later podKiller
    // kill of the runtime pod restores the spec's 30 s from the container's labels (killContainer with a
    // nil pod), which is another path.
    const deletionDone = p.facts.find((f) => f.kind === 'killPodFinished')?.atMs ?? Number.POSITIVE_INFINITY;
    const kills = p.facts.filter((f) => f.kind === 'killPodStarted' && f.atMs < deletionDone);
    expect(kills.length).toBeGreaterThan(0);
    expect(kills.map((f) => f.kind === 'killPodStarted' && f.gracePeriodSeconds)).toEqual(kills.map(() => 2));
    expect(p.facts.find((f) => f.kind === 'apiPodDeleted')).toMatchObject({ by: 'user-force', atMs: 5000 });
  });

  it('release-1.23 to 1.30 mark the pod deleted ("marked for graceful deletion") and keep the spec grace period (#115819)', () => {
    const p = probe(timeline, Fixes.of('1.30'));
    p.world.start();
    p.run();
    // (Later, housekeeping kills what is left in the runtime as an orphaned runtime pod.)
    const requested = p.facts.find((f) => f.kind === 'podTerminationRequested');
    expect(requested).toMatchObject({ reason: 'marked for graceful deletion', atMs: expect.any(Number) });
    expect(requested?.atMs).toBeLessThan(5100);
    const kill = p.facts.find((f) => f.kind === 'killPodStarted');
    expect(kill).toMatchObject({ gracePeriodSeconds: 30, source: 'syncTerminatingPod' });
  });

  it("1.31 (#124063, pod_workers.go at v1.31.12): the deletion's 0 counts as overridden and becomes 1 s", () => {
    const p = probe(timeline, Fixes.of('1.31'));
    p.world.start();
    p.run();
    const kill = p.facts.find((f) => f.kind === 'killPodStarted');
    // The pod worker's 1 s, raised to killContainer's 2 s minimum (applied last since #115835).
    expect(kill).toMatchObject({ gracePeriodSeconds: 2, source: 'syncTerminatingPod' });
  });
});

describe('HandlePodAdditions sorts by creation time (sliceutils.PodsByCreationTime)', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('the API server stamps creationTimestamp in whole seconds; a static pod has none (zero time)', () => {
    const p = probe(
      '  - at: 1500ms\n    createPod: {pod: web, node: node-a, containers: 1}\n' +
        '  - at: 1500ms\n    createPod: {pod: agent, node: node-a, containers: 1, static: true}\n',
      Fixes.all(),
      '3s',
    );
    p.world.start();
    p.run();
    const pods = p.world.nodeOf('node-a').kubelet?.podManager.getPods() ?? [];
    const byName = new Map(pods.map((x) => [x.metadata.name, x.metadata.creationTimestamp]));
    expect(byName.get('web')).toBe(1000);
    expect(byName.has('agent')).toBe(true);
    expect(byName.get('agent')).toBeUndefined();
  });

  it('after a kubelet restart the LIST arrives as one ADD and pods are admitted oldest first, static pods before all', () => {
    // UID order (the LIST's order here) is a-1, b-1, z-1; creation order is z-1, b-1, a-1.
    const p = probe(
      '  - at: 0s\n    createPod: {pod: z, node: node-a, containers: 1}\n' +
        '  - at: 2s\n    createPod: {pod: b, node: node-a, containers: 1}\n' +
        '  - at: 4s\n    createPod: {pod: a, node: node-a, containers: 1}\n' +
        '  - at: 4s\n    createPod: {pod: s, node: node-a, containers: 1, static: true}\n' +
        '  - at: 10s\n    restartKubelet: {node: node-a, downFor: 2s}\n',
      Fixes.all(),
      '20s',
    );
    const additions: string[][] = [];
    const dispatched: string[] = [];
    const handleOriginal = Kubelet.prototype.handlePodAdditions;
    const dispatchOriginal = Kubelet.prototype.dispatchWork;
    vi.spyOn(Kubelet.prototype, 'handlePodAdditions').mockImplementation(function (this: Kubelet, pods) {
      if (p.world.sim.nowMs >= 10_000) additions.push(pods.map((x) => x.metadata.name));
      handleOriginal.call(this, pods);
    });
    vi.spyOn(Kubelet.prototype, 'dispatchWork').mockImplementation(function (
      this: Kubelet,
      pod,
      syncType,
      mirrorPod,
    ) {
      if (p.world.sim.nowMs >= 10_000 && syncType === 'SyncPodCreate') dispatched.push(pod.metadata.name);
      dispatchOriginal.call(this, pod, syncType, mirrorPod);
    });
    p.world.start();
    p.run();
    // The LIST carries the static pod's mirror pod too (created after a and b); HandlePodAdditions hands it
    // to handleMirrorPod, not to the pod workers.
    expect(additions).toEqual([['s'], ['a', 'b', 's', 'z']]);
    expect(dispatched).toEqual(['s', 'z', 'b', 'a']);
  });
});
