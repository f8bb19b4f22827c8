// preStop hooks read from kubelet logs (src/import/preStopHooks.ts): executePreStopHook's lines give the
// container's `preStop`, exactly from its start to its end, else as a stated guess (to the SIGTERM after
// it; past the grace the kubelet stopped waiting at); the kill's grace after a hook is what the hook left
// of the pod's where the release logs the remainder (before 1.22, from 1.28).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Fixes } from '../../src/fixes.js';
import { importLogs } from '../../src/import/importLogs.js';
import { firedInvariants, runScenario } from '../../src/run/run.js';
import type { Action } from '../../src/scenario/types.js';

type CreatePod = Extract<Action, { kind: 'createPod' }>;

const imported = (name: string, text: string) => {
  const r = importLogs([{ name, bytes: Buffer.from(text) }], { name: 't' });
  const c = r.scenario.timeline.find((e) => e.action.kind === 'createPod')?.action as CreatePod;
  return { r, yaml: r.yaml, create: c };
};

const lines = (ls: string[]) => `${ls.join('\n')}\n`;
const POD = 'pod="default/web-0" podUID=u1 containerName="app" containerID="containerd://abcdef01"';
const version = (v: string) =>
  `I0523 09:49:59.000000     268 server.go:446] "Kubelet version" kubeletVersion="v${v}.0"`;
const add = `I0523 09:50:00.000000     268 kubelet.go:2100] "SyncLoop ADD" source="api" pods=[default/web-0]`;
const started = `I0523 09:50:00.300000     268 kubelet.go:2145] "SyncLoop (PLEG): event for pod" pod="default/web-0" event=&{ID:u1 Type:ContainerStarted Data:abcdef01}`;
const del = `I0523 09:50:10.000000     268 kubelet.go:2130] "SyncLoop DELETE" source="api" pods=[default/web-0]`;
const hookStart = `I0523 09:50:10.050000     268 kuberuntime_container.go:641] "Running preStop hook" ${POD}`;
const hookDone = (t: string) =>
  `I0523 ${t}     268 kuberuntime_container.go:657] "PreStop hook completed" ${POD}`;
const kill = (t: string, grace: number) =>
  `I0523 ${t}     268 kuberuntime_container.go:725] "Killing container with a grace period" ${POD} gracePeriod=${grace}`;

describe('preStop hooks from kubelet logs', () => {
  it('#117373: a hook not completed in the 300 s grace is longer than it (a guess), and exceeds the grace before 1.28', () => {
    const file = join(import.meta.dirname, 'fixtures', 'k8s-117373-prestop-beyond-grace.log');
    const { r, yaml, create } = imported('k8s-117373.log', readFileSync(file, 'utf8'));
    expect(create.gracePeriodS).toBe(300);
    const [app] = create.containers;
    expect(app?.name).toBe('app');
    expect(app?.preStopMs).toBeGreaterThan(300_000);
    expect(yaml).toMatch(
      /# guess: container app's preStop hook was not done when the kubelet stopped waiting for it after its 300s grace \(k8s-117373\.log:3\)/,
    );
    const fired = (k: '1.27' | '1.28') => firedInvariants(runScenario(r.scenario, { fixes: Fixes.of(k) }));
    expect(fired('1.27')).toContain('grace-period-exceeded');
    expect(fired('1.28')).not.toContain('grace-period-exceeded');
  });

  it('a completed hook gives its exact duration, with no guess', () => {
    const { yaml, create } = imported(
      'k.log',
      lines([
        version('1.27'),
        add,
        started,
        del,
        hookStart,
        hookDone('09:50:22.550000'),
        kill('09:50:22.560000', 30),
      ]),
    );
    expect(create.containers).toEqual([{ name: 'app', startDelayMs: null, preStopMs: 12_500 }]);
    expect(create.gracePeriodS).toBe(30);
    expect(yaml).toContain(
      "# container app's preStop hook ran 12.50s: from its start (k.log:5) to its end (k.log:6)",
    );
    expect(yaml).not.toContain('# guess');
  });

  it('from 1.28 the kill logs what the hook left of the grace: the pod grace is the two together', () => {
    const { create } = imported(
      'k.log',
      lines([
        version('1.28'),
        add,
        started,
        del,
        hookStart,
        hookDone('09:50:22.550000'),
        kill('09:50:22.560000', 18),
      ]),
    );
    expect(create.containers[0]?.preStopMs).toBe(12_500);
    expect(create.gracePeriodS).toBe(30);
  });

  it('a hook start and the SIGTERM after it: the time between them, as a guess', () => {
    const { yaml, create } = imported(
      'k.log',
      lines([version('1.27'), add, started, del, hookStart, kill('09:50:30.050000', 30)]),
    );
    expect(create.containers[0]?.preStopMs).toBe(20_000);
    expect(yaml).toContain(
      "# guess: container app's preStop hook ran 20.00s: from its start (k.log:5) to the container's SIGTERM after it (k.log:6)",
    );
  });

  it('a hook start and nothing after it: the pod grace, as a guess', () => {
    const { yaml, create } = imported('k.log', lines([add, started, del, hookStart]));
    expect(create.containers[0]?.preStopMs).toBe(30_000);
    expect(yaml).toContain(
      "# guess: container app's preStop hook started (k.log:4) and nothing after it ends it",
    );
  });

  it('the printf forms before 1.21 name the container by ID', () => {
    const { create } = imported(
      'k.log',
      lines([
        'I0523 09:50:00.000000     268 kubelet.go:1917] SyncLoop (ADD, "api"): "web-0_default(u1)"',
        'I0523 09:50:00.300000     268 kubelet.go:1951] SyncLoop (PLEG): "web-0_default(u1)", event: &pleg.PodLifecycleEvent{ID:"u1", Type:"ContainerStarted", Data:"abcdef01"}',
        'I0523 09:50:10.000000     268 kubelet.go:1923] SyncLoop (DELETE, "api"): "web-0_default(u1)"',
        'I0523 09:50:10.050000     268 kuberuntime_container.go:568] Running preStop hook for container "docker://abcdef01"',
        'I0523 09:50:15.050000     268 kuberuntime_container.go:583] preStop hook for container "docker://abcdef01" completed',
      ]),
    );
    expect(create.containers).toEqual([{ name: 'c1', startDelayMs: null, preStopMs: 5_000 }]);
  });

  it('a log with no hook lines gives no preStop', () => {
    const { yaml, create } = imported(
      'k.log',
      lines([version('1.27'), add, started, del, kill('09:50:10.050000', 30)]),
    );
    expect(create.containers).toEqual([{ name: 'app', startDelayMs: null }]);
    expect(create.containers[0]).not.toHaveProperty('preStopMs');
    expect(yaml).not.toContain('preStop');
  });
});
