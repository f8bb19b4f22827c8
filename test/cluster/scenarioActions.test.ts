// What the world does with timeline entries that cannot take effect: a create of a name whose earlier
// object still exists waits for it (AlreadyExists); entries that change nothing, and faults still armed
// at the end, are reported as facts.
import { describe, expect, it } from 'vitest';
import type { Fact } from '../../src/facts.js';
import { Fixes } from '../../src/fixes.js';
import { scenariosOfCases } from '../../src/fuzz/shrink.js';
import { formatTimeline } from '../../src/report/terminalTimeline.js';
import { runScenario } from '../../src/run/run.js';
import { parseScenarioText } from '../../src/scenario/load.js';

function run(timeline: string, o: { nodes?: string; volumes?: string; horizon?: string } = {}) {
  const text = [
    'name: actions',
    `horizon: ${o.horizon ?? '3m'}`,
    'cluster:',
    `  nodes: [${o.nodes ?? 'node-a'}]`,
    ...(o.volumes === undefined ? [] : [`  volumes: ${o.volumes}`]),
    'timeline:',
    timeline,
  ].join('\n');
  return runScenario(parseScenarioText(text, 'actions.yaml'), { fixes: Fixes.all(), recordFacts: true });
}

const ofKind = <K extends Fact['kind']>(facts: readonly Fact[] | undefined, kind: K) =>
  (facts ?? []).filter((f): f is Extract<Fact, { kind: K }> => f.kind === kind);

describe('createPod of a name whose earlier object still exists', () => {
  const r = run(
    [
      '  - {at: 0s, createPod: {pod: web, node: node-a, containers: 1, gracePeriod: 20s}}',
      '  - {at: 10s, deletePod: {pod: web}}',
      '  - {at: 11s, createPod: {pod: web, node: node-a, containers: 1}}',
    ].join('\n'),
  );

  it('waits (podCreateWaiting, AlreadyExists while the object is being deleted) until the name is free', () => {
    const waiting = ofKind(r.facts, 'podCreateWaiting');
    expect(waiting).toHaveLength(1);
    expect(waiting[0]).toMatchObject({ atMs: 11_000, pod: 'web', heldBy: 'web-1', line: 8 });
    expect(waiting[0]?.reason).toContain('AlreadyExists (object is being deleted: pods "web" already exists');
    const deleted = ofKind(r.facts, 'apiPodDeleted').find((f) => f.uid === 'web-1');
    const created = ofKind(r.facts, 'apiPodCreated').find((f) => f.uid === 'web-2');
    expect(deleted).toBeDefined();
    expect(created).toBeDefined();
    // Created after the old object left the API server, within the informer's delay.
    const gap = (created?.atMs ?? 0) - (deleted?.atMs ?? 0);
    expect(gap).toBeGreaterThanOrEqual(10);
    expect(gap).toBeLessThanOrEqual(60);
    // Never two objects of one name at once: the new pod's containers start after the old one's end.
    const started = ofKind(r.facts, 'containerStarted').find((f) => f.uid === 'web-2');
    expect(started?.atMs).toBeGreaterThan(deleted?.atMs ?? Number.POSITIVE_INFINITY);
    expect(r.violations).toEqual([]);
    expect(formatTimeline(r, { color: false }).join('\n')).toContain(
      'podCreateWaiting (line 8): AlreadyExists',
    );
  });

  it('is created at once when the old object was force deleted', () => {
    const forced = run(
      [
        '  - {at: 0s, createPod: {pod: web, node: node-a, containers: 1}}',
        '  - {at: 10s, forceDeletePod: {pod: web}}',
        '  - {at: 11s, createPod: {pod: web, node: node-a, containers: 1}}',
      ].join('\n'),
    );
    expect(ofKind(forced.facts, 'podCreateWaiting')).toEqual([]);
    expect(ofKind(forced.facts, 'apiPodCreated').find((f) => f.uid === 'web-2')?.atMs).toBe(11_000);
  });

  it('a static pod is a manifest, not an API object: a new one of the name never waits', () => {
    const s = run(
      [
        '  - {at: 0s, createPod: {pod: etcd, node: node-a, containers: 1, static: true}}',
        '  - {at: 10s, deletePod: {pod: etcd}}',
        '  - {at: 10s, createPod: {pod: etcd, node: node-a, containers: 2, static: true}}',
      ].join('\n'),
    );
    expect(ofKind(s.facts, 'podCreateWaiting')).toEqual([]);
  });

  it('says so at the end when the name never became free', () => {
    // The preStop hook holds the kill past the horizon, whatever the container's SIGTERM draw.
    const stuck = run(
      [
        '  - {at: 0s, createPod: {pod: web, node: node-a, containers: [{name: c1, preStop: 15s}], gracePeriod: 20s}}',
        '  - {at: 10s, deletePod: {pod: web}}',
        '  - {at: 11s, createPod: {pod: web, node: node-a, containers: 1}}',
      ].join('\n'),
      { horizon: '12s' },
    );
    const noop = ofKind(stuck.facts, 'actionNoop');
    expect(noop).toEqual([
      expect.objectContaining({
        action: 'createPod',
        line: 8,
        pod: 'web',
        reason: 'never created: the name was still held by uid web-1 when the run ended',
      }),
    ]);
  });
});

describe('entries that change nothing', () => {
  it('a delete of a pod already gone, a second graceful delete, a crash without a running container', () => {
    // The preStop hook keeps the pod until the shorter delete at 12s, whatever the container's SIGTERM draw.
    const r = run(
      [
        '  - {at: 0s, createPod: {pod: web, node: node-a, containers: [{name: c1, preStop: 4s}], gracePeriod: 5s}}',
        '  - {at: 10s, deletePod: {pod: web}}',
        '  - {at: 11s, deletePod: {pod: web, gracePeriod: 30s}}',
        '  - {at: 12s, deletePod: {pod: web, gracePeriod: 1s}}',
        '  - {at: 60s, deletePod: {pod: web}}',
        '  - {at: 61s, forceDeletePod: {pod: web}}',
        '  - {at: 62s, crashContainer: {pod: web}}',
        '  - {at: 63s, evictPod: {pod: web}}',
      ].join('\n'),
    );
    const noops = ofKind(r.facts, 'actionNoop').map((f) => [f.action, f.line, f.reason]);
    expect(noops).toEqual([
      [
        'deletePod',
        8,
        'pod web (uid web-1) is already being deleted with a grace period of 5s; only a shorter one changes it',
      ],
      ['deletePod', 10, 'pod web (uid web-1) is already gone'],
      ['forceDeletePod', 11, 'pod web (uid web-1) is already gone'],
      ['crashContainer', 12, 'container c1 of pod web (uid web-1) is not running'],
      ['evictPod', 13, 'the kubelet does not know pod web (uid web-1): not seen yet, or gone'],
    ]);
    // The shorter grace period at 12s did change the deletion: no noop for line 10.
    expect(noops.some(([, line]) => line === 9)).toBe(false);
  });

  it('an eviction and a node shutdown without a running kubelet', () => {
    const r = run(
      [
        '  - {at: 0s, createPod: {pod: web, node: node-a, containers: 1}}',
        '  - {at: 10s, restartKubelet: {node: node-a, downFor: 20s}}',
        '  - {at: 11s, evictPod: {pod: web}}',
        '  - {at: 12s, shutdownNode: {node: node-a}}',
      ].join('\n'),
    );
    expect(ofKind(r.facts, 'actionNoop').map((f) => [f.action, f.node, f.reason])).toEqual([
      ['evictPod', 'node-a', 'the kubelet is not running: no eviction manager to evict it'],
      ['shutdownNode', 'node-a', 'the kubelet is not running: no shutdown manager sees the event'],
    ]);
  });

  it('a node shutdown does nothing where upstream has no shutdown manager: 0 s (the default) or the gate off', () => {
    const shutdown = (node: string, fixes: Fixes) =>
      runScenario(
        parseScenarioText(
          [
            'name: shutdown',
            'horizon: 2m',
            'cluster:',
            `  nodes: [${node}]`,
            'timeline:',
            '  - {at: 0s, createPod: {pod: web, node: node-a, containers: 1, gracePeriod: 60s}}',
            '  - {at: 10s, shutdownNode: {node: node-a}}',
          ].join('\n'),
          'shutdown.yaml',
        ),
        { fixes, recordFacts: true },
      );
    const noop = (r: ReturnType<typeof shutdown>) => ofKind(r.facts, 'actionNoop').map((f) => f.reason);
    const kills = (r: ReturnType<typeof shutdown>) =>
      ofKind(r.facts, 'killPodStarted').map((f) => [f.atMs, f.gracePeriodSeconds]);
    // No configuration: shutdownGracePeriod 0s, migrateConfig is empty, NewManager returns the stub.
    const plain = shutdown('node-a', Fixes.all());
    expect(noop(plain)).toEqual([
      'shutdownGracePeriod is 0s (the default): the kubelet has no node shutdown manager',
    ]);
    expect(kills(plain)).toEqual([]);
    expect(ofKind(plain.facts, 'nodeShutdownStarted')).toEqual([]);
    // 45 s, 15 s of them for critical pods: the other pods' grace is capped at 30 s.
    const node = '{name: node-a, shutdownGracePeriod: 45s, shutdownGracePeriodCriticalPods: 15s}';
    const on = shutdown(node, Fixes.all());
    expect(noop(on)).toEqual([]);
    expect(ofKind(on.facts, 'nodeShutdownStarted').map((f) => f.podGracePeriodSeconds)).toEqual([30]);
    expect(kills(on)[0]?.[1]).toBe(30);
    // 1.20: GracefulNodeShutdown is alpha and off by default; the configuration alone does nothing.
    const gateOff = shutdown(node, Fixes.of('1.20'));
    expect(noop(gateOff)).toEqual([
      'the GracefulNodeShutdown feature gate is off (alpha, off by default before 1.21): the kubelet has no node shutdown manager',
    ]);
    expect(kills(gateOff)).toEqual([]);
    expect(kills(shutdown(node, Fixes.of('1.20').with('graceful-node-shutdown-beta', true)))[0]?.[1]).toBe(
      30,
    );
  });

  it('faults that never fired, or fired fewer times than asked, are reported at the end', () => {
    const r = run(
      [
        '  - {at: 0s, createPod: {pod: web, node: node-a, containers: 1, volumes: [lun-1]}}',
        '  - {at: 1s, fault: {tearDown: {node: node-a, volume: lun-1, times: 2}}}',
        '  - {at: 1s, fault: {procMounts: {node: node-a, inconsistentReads: 2}}}',
        '  - {at: 1s, fault: {constructVolumeSpec: {node: node-a, volume: lun-1}}}',
        '  - {at: 60s, fault: {containerStart: {pod: web, delay: 1s}}}',
      ].join('\n'),
      { volumes: '[{name: lun-1, plugin: fc, capacity: 1Gi}]' },
    );
    const noops = ofKind(r.facts, 'actionNoop');
    expect(noops.every((f) => f.atMs === r.virtualTimeMs && f.action === 'fault')).toBe(true);
    expect(noops.map((f) => [f.fault, f.line, f.reason])).toEqual([
      ['tearDown', 8, 'it never fired before the run ended (2 firing(s) armed)'],
      ['procMounts', 9, 'it never fired before the run ended (2 firing(s) armed)'],
      ['constructVolumeSpec', 10, 'armed until the end of the run, it never fired'],
      ['containerStart', 11, 'no container of pod web (uid web-1) started after it'],
    ]);
  });

  it('a fault that fired is not reported', () => {
    const r = run(
      [
        '  - {at: 0s, createPod: {pod: web, node: node-a, containers: 1, volumes: [lun-1]}}',
        '  - {at: 1s, fault: {tearDown: {node: node-a, volume: lun-1}}}',
        '  - {at: 20s, deletePod: {pod: web}}',
      ].join('\n'),
      { volumes: '[{name: lun-1, plugin: fc, capacity: 1Gi}]' },
    );
    expect(ofKind(r.facts, 'faultInjected').some((f) => f.fault === 'tearDown')).toBe(true);
    expect(ofKind(r.facts, 'actionNoop')).toEqual([]);
  });
});

describe('generated cases that reuse a pod name', () => {
  it('run without a simulator error; replacements of API pods wait for the old object', () => {
    let waited = 0;
    for (const s of scenariosOfCases(
      1,
      Array.from({ length: 40 }, (_, i) => i),
    )) {
      const r = runScenario(s, { fixes: Fixes.none(), recordFacts: true });
      const waits = ofKind(r.facts, 'podCreateWaiting');
      waited += waits.length;
      // Every wait ends in a create of that name after its holder left, or is reported at the end.
      for (const w of waits) {
        const created = ofKind(r.facts, 'apiPodCreated').some((f) => f.pod === w.pod && f.atMs > w.atMs);
        const reported = ofKind(r.facts, 'actionNoop').some(
          (f) => f.action === 'createPod' && f.pod === w.pod,
        );
        expect(created || reported).toBe(true);
      }
    }
    expect(waited).toBeGreaterThan(0);
  });
});
