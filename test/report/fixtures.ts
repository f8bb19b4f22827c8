// Hand-built run results for the report tests.
import type { Fact, FactKind } from '../../src/facts.js';
import { Fixes } from '../../src/fixes.js';
import type { Violation } from '../../src/invariants/types.js';
import type { RunResult } from '../../src/run/run.js';

type FactOf<K extends FactKind> = Extract<Fact, { kind: K }>;
type Fields<K extends FactKind> = Omit<FactOf<K>, 'kind' | 'atMs' | 'node'> & { node?: string };

export const WEB = { pod: 'web', uid: 'web-1' } as const;

export function fact<K extends FactKind>(kind: K, atMs: number, fields: Fields<K>): FactOf<K> {
  return { node: 'node-a', ...fields, kind, atMs } as unknown as FactOf<K>;
}

export const violation: Violation = {
  invariant: 'container-started-after-terminated',
  atMs: 1520,
  node: 'node-a',
  pod: 'web',
  uid: 'web-1',
  volume: null,
  message: 'runtime started container app of web (web-1) after the kubelet treated it as terminated',
  causes: [],
};

/** A small run: a pod created, started, killed while a second container starts, a volume, a fault. */
export function sampleFacts(podName = 'web'): Fact[] {
  const p = { pod: podName, uid: WEB.uid };
  return [
    fact('kubeletStarted', 0, {}),
    fact('kubeletStarted', 0, { node: 'node-b' }),
    fact('apiPodCreated', 10, {
      ...p,
      static: false,
      restartPolicy: 'Always',
      containers: ['c1'],
      startDelayMs: 0,
      volumes: [],
      gracePeriodSeconds: 30,
    }),
    fact('volumeAttached', 15, { volume: 'data' }),
    fact('podWorkerPhase', 20, { ...p, phase: 'sync' }),
    fact('lunAccessOpened', 30, { volume: 'data', readWrite: true }),
    fact('mountDevice', 30, { volume: 'data', ok: true }),
    fact('volumeSetUp', 40, { ...p, volume: 'data' }),
    fact('sandboxCreated', 45, p),
    fact('containerCreated', 50, { ...p, container: 'app' }),
    fact('containerStarted', 60, { ...p, container: 'app' }),
    fact('containerStarted', 70, { ...p, container: 'sidecar' }),
    fact('apiPodDeletionRequested', 1000, { ...p, gracePeriodSeconds: 30 }),
    fact('podTerminationRequested', 1000, { ...p, reason: 'deleted' }),
    fact('podWorkerPhase', 1001, { ...p, phase: 'terminating' }),
    fact('killPodStarted', 1001, { ...p, gracePeriodSeconds: 30, source: 'podWorker' }),
    fact('faultInjected', 1100, { fault: 'containerStart', pod: podName }),
    fact('killPodStarted', 1200, { ...p, gracePeriodSeconds: 1, source: 'eviction' }),
    fact('containerExited', 1300, { ...p, container: 'app', exitCode: 137 }),
    fact('killPodFinished', 1400, p),
    fact('podTerminated', 1500, { ...p, reason: 'killed' }),
    fact('podWorkerPhase', 1500, { ...p, phase: 'terminated' }),
    fact('containerStarted', 1520, { ...p, container: 'app' }),
    fact('killPodFinished', 2000, p),
    fact('volumeTearDown', 2100, { ...p, volume: 'data', ok: false }),
    fact('volumeTearDown', 2200, { ...p, volume: 'data', ok: true }),
    fact('unmountDevice', 2300, { volume: 'data', ok: true }),
    fact('deviceResidue', 2300, {
      volume: 'data',
      scsiPaths: 2,
      multipathMaps: 1,
      mounts: 0,
      pods: [],
      hostProcess: false,
      devicePathIsDevice: true,
    }),
    fact('nodeVolumesInUse', 2400, { volumes: [] }),
    fact('nodeVolumesInUse', 2500, { volumes: [] }),
    fact('kubeletStopped', 2600, { node: 'node-b' }),
  ];
}

export function sampleResult(over: Partial<RunResult> = {}): RunResult {
  return {
    scenario: 'pod-deleted-before-start',
    seed: 7,
    fixes: new Fixes(['unmount-device-uncertain', 'block-metrics']),
    events: 412,
    virtualTimeMs: 3000.5,
    outcome: 'idle',
    complete: true,
    fixesRead: [],
    fixesFirstReadMs: {},
    firedDuringRunAtMs: {},
    maxEvents: 2_000_000,
    horizonMs: 3000,
    violations: [violation],
    findings: [],
    facts: sampleFacts(),
    ...over,
  };
}
