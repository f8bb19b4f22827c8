// Resource admission end to end: the scenario format's allocatable and resources.requests, the OutOfcpu /
// OutOfmemory rejection as rejectPod writes it, and the bundled scenarios of the races it takes part in,
// with each switch on and off: #104817 (admission-rejected-pod-inactive), #105523 / #105527
// (terminal-pod-on-first-sight) and #116408 (zero-request-fits).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Fact } from '../../src/facts.js';
import { Fixes, type FixId, type KubeletName } from '../../src/fixes.js';
import { runScenario } from '../../src/run/run.js';
import { bundledScenariosDir } from '../../src/scenario/bundled.js';
import { loadScenarioFile, parseScenarioText } from '../../src/scenario/load.js';
import { stripSourcePositions } from '../../src/scenario/types.js';
import { scenarioToYaml } from '../../src/scenario/write.js';

const bundled = (name: string) => loadScenarioFile(join(bundledScenariosDir(), `${name}.yaml`));
function run(name: string, kubelet: KubeletName, off: readonly FixId[] = []) {
  let fixes = Fixes.of(kubelet);
  for (const id of off) fixes = fixes.with(id, false);
  const r = runScenario(bundled(name), { fixes, recordFacts: true });
  const facts = (r.facts ?? []) as readonly Fact[];
  const rejections = facts.flatMap((f) =>
    f.kind === 'podRejected' ? [`${f.pod} ${f.reason}: ${f.message}`] : [],
  );
  return { violations: r.violations.map((v) => v.invariant), facts, rejections };
}

describe('scenario format: allocatable and resources.requests', () => {
  const text = `
name: resources
cluster:
  nodes:
    - {name: node-a, allocatable: {cpu: 1500m, memory: 2Gi}}
    - {name: node-b, allocatable: {memory: 1G}}
    - node-c
timeline:
  - at: 0s
    createPod:
      pod: web
      node: node-a
      containers:
        - {name: app, resources: {requests: {cpu: 0.5, memory: 128Mi}}}
        - {name: sidecar, resources: {requests: {cpu: 100m}}}
        - {name: plain}
  - at: 1s
    createPod: {pod: db, node: node-b, containers: [{name: app, resources: {requests: {cpu: 2}}}]}
`;

  it('reads quantities as the kubelet does (millicores, bytes) and round-trips', () => {
    const s = parseScenarioText(text, 'r.yaml');
    expect(s.nodeAllocatable).toEqual({
      'node-a': { cpuMilli: 1500, memoryBytes: 2 * 1024 ** 3 },
      'node-b': { memoryBytes: 1e9 },
    });
    const web = s.timeline[0]?.action;
    expect(web?.kind === 'createPod' && web.containers.map((c) => c.requests)).toEqual([
      { cpuMilli: 500, memoryBytes: 128 * 1024 ** 2 },
      { cpuMilli: 100 },
      undefined,
    ]);
    const again = parseScenarioText(scenarioToYaml(s), 'again.yaml');
    expect(stripSourcePositions(again)).toEqual(stripSourcePositions(s));
  });

  it('without allocatable every pod fits, however much it requests', () => {
    const r = runScenario(parseScenarioText(text, 'r.yaml'), { fixes: Fixes.all(), recordFacts: true });
    // node-b lists memory only: db's 2 cpus are not checked there.
    expect((r.facts ?? []).filter((f) => f.kind === 'podRejected')).toEqual([]);
    expect(
      (r.facts ?? []).filter((f) => f.kind === 'podAdmitted').map((f) => f.kind === 'podAdmitted' && f.pod),
    ).toEqual(['web', 'db']);
  });

  it("a pod that does not fit is Failed with upstream's reason and message, and never runs", () => {
    const s = parseScenarioText(
      `
name: too-big
horizon: 1m
cluster:
  nodes: [{name: node-a, allocatable: {cpu: 1, memory: 1Gi}}]
timeline:
  - at: 5s
    createPod: {pod: web, node: node-a, containers: [{name: app, resources: {requests: {cpu: 500m, memory: 2Gi}}}]}
`,
      'big.yaml',
    );
    for (const kubelet of ['1.20', '1.23', '1.31'] as const) {
      const r = runScenario(s, { fixes: Fixes.of(kubelet), recordFacts: true });
      const facts = r.facts ?? [];
      expect(r.violations, kubelet).toEqual([]);
      expect(
        facts.some((f) => f.kind === 'containerStarted'),
        kubelet,
      ).toBe(false);
      const phase = facts.find((f) => f.kind === 'apiPodPhase');
      expect(phase?.kind === 'apiPodPhase' && [phase.phase, phase.reason], kubelet).toEqual([
        'Failed',
        'OutOfmemory',
      ]);
      const rejected = facts.find((f) => f.kind === 'podRejected');
      expect(rejected?.kind === 'podRejected' && rejected.message, kubelet).toBe(
        "Node didn't have enough resource: memory, requested: 2147483648, used: 0, capacity: 1073741824",
      );
    }
  });
});

describe('the bundled scenarios of resource admission, each switch on and off', () => {
  it('#104817: a rejected pod no longer counts; without it the next pod is rejected for its cpu', () => {
    const on = run('rejected-pod-counted-by-admission', 'fixed');
    expect(on.violations).toEqual([]);
    expect(on.rejections).toEqual([
      "big OutOfcpu: Node didn't have enough resource: cpu, requested: 3000, used: 0, capacity: 2000",
    ]);
    const off = run('rejected-pod-counted-by-admission', 'fixed', ['admission-rejected-pod-inactive']);
    expect(off.violations).toEqual(['pod-rejected-with-room']);
    expect(off.rejections[1]).toBe(
      "web OutOfcpu: Node didn't have enough resource: cpu, requested: 500, used: 3000, capacity: 2000",
    );
    // Release-1.20's podIsTerminated reads the status manager's Failed: web is admitted.
    expect(run('rejected-pod-counted-by-admission', '1.20').rejections).toHaveLength(1);
  });

  it('#105523: after a restart a completed pod counted while terminated again, and a running pod was rejected', () => {
    const on = run('completed-pod-counted-after-restart', 'fixed');
    expect(on.violations).toEqual([]);
    expect(on.rejections).toEqual([]);
    const off = run('completed-pod-counted-after-restart', 'fixed', ['terminal-pod-on-first-sight']);
    expect(off.violations).toEqual(['pod-rejected-with-room']);
    expect(off.rejections).toEqual([
      "web OutOfcpu: Node didn't have enough resource: cpu, requested: 1000, used: 1000, capacity: 1500",
    ]);
    // web ran before the restart: the rejection kills it (housekeeping's orphan kill) and marks it Failed.
    const webPhases = off.facts.flatMap((f) =>
      f.kind === 'apiPodPhase' && f.pod === 'web' ? [f.phase] : [],
    );
    expect(webPhases).toEqual(['Running', 'Failed']);
    // ehashman's bisect: #104817 introduced it; with #104577's filter job's terminal API phase leaves it out.
    const before = run('completed-pod-counted-after-restart', 'fixed', [
      'terminal-pod-on-first-sight',
      'admission-rejected-pod-inactive',
    ]);
    expect(before.rejections).toEqual([]);
  });

  it('#116408: a pod asking for no cpu is OutOfcpu on a node that looks overcommitted, until 1.28', () => {
    const off = ['admission-rejected-pod-inactive'] as const;
    expect(run('zero-cpu-request-overcommitted', 'fixed', off).rejections).toHaveLength(1);
    const old = run('zero-cpu-request-overcommitted', '1.27', off);
    expect(old.violations).toEqual(['pod-rejected-with-room']);
    expect(old.rejections[1]).toBe(
      "cache OutOfcpu: Node didn't have enough resource: cpu, requested: 0, used: 3000, capacity: 2000",
    );
    expect(run('zero-cpu-request-overcommitted', '1.28', off).violations).toEqual([]);
  });

  it('reads the admission switches only where they decide: never in a scenario without allocatable', () => {
    const reads = new Map<FixId, number>();
    const s = bundled('completed-pod-readmitted-after-restart');
    runScenario(s, { fixes: Fixes.all().recording(reads, () => 0) });
    // A NodeAffinity rejection after a restart, on a node without allocatable: no fit is computed.
    expect(reads.has('zero-request-fits')).toBe(false);
    const quiet = new Map<FixId, number>();
    runScenario(bundled('pod-deleted-before-start'), { fixes: Fixes.all().recording(quiet, () => 0) });
    expect(quiet.has('admission-rejected-pod-inactive')).toBe(false);
    expect(quiet.has('zero-request-fits')).toBe(false);
  });
});
