import { describe, expect, it } from 'vitest';
import { loadScenarioFile, parseScenarioText, scenarioToYaml } from '../../src/scenario/load.js';
import type { Scenario } from '../../src/scenario/types.js';

const dir = 'test/fixtures/valid';
const GiB = 1024 ** 3;

describe('valid scenario files', () => {
  it('applies every default to a minimal file', () => {
    const expected: Scenario = {
      file: `${dir}/minimal.yaml`,
      name: 'minimal',
      description: '',
      upstream: [],
      seed: 1,
      horizonMs: 600_000,
      nodes: ['node-a'],
      volumes: [],
      timeline: [],
      claims: [],
    };
    expect(loadScenarioFile(`${dir}/minimal.yaml`)).toStrictEqual(expected);
  });

  it('keeps cluster.controllerManager.disableForceDetachOnTimeout: true with where it is, and false as no key', () => {
    const text = (value: string) =>
      `name: cm\ncluster:\n  nodes: [node-a]\n  controllerManager:\n    disableForceDetachOnTimeout: ${value}\ntimeline: []\nclaims:\n  - kubelet: '1.30'\n    violations: []\n`;
    expect(parseScenarioText(text('true'), 'cm.yaml').controllerManager).toStrictEqual({
      disableForceDetachOnTimeout: true,
      line: 5,
      col: 34,
    });
    // false is kube-controller-manager's default in every release: nothing to check against a claim's.
    expect(parseScenarioText(text('false'), 'cm.yaml').controllerManager).toBeUndefined();
    expect(scenarioToYaml(parseScenarioText(text('true'), 'cm.yaml'))).toContain(
      '  controllerManager: {disableForceDetachOnTimeout: true}\n',
    );
  });

  it('loads the reference example of the format', () => {
    const expected: Scenario = {
      file: `${dir}/spec-example.yaml`,
      name: 'pod-deleted-before-start',
      description: 'A pod deleted before it starts.\n',
      upstream: ['kubernetes/kubernetes#102344'],
      seed: 7,
      horizonMs: 300_000,
      nodes: ['node-a', 'node-b'],
      volumes: [
        {
          name: 'lun-1',
          plugin: 'fc',
          mode: 'Filesystem',
          capacityBytes: 10 * GiB,
          accessMode: 'ReadWriteOnce',
        },
      ],
      timeline: [
        {
          atMs: 0,
          line: 13,
          action: {
            kind: 'createPod',
            pod: 'web',
            node: 'node-a',
            containers: [{ name: 'c1', startDelayMs: null }],
            volumes: ['lun-1'],
            static: false,
            gracePeriodS: 30,
            restartPolicy: 'Always',
          },
        },
        { atMs: 20, line: 15, action: { kind: 'deletePod', pod: 'web', gracePeriodS: 30 } },
        {
          atMs: 1000,
          line: 17,
          action: {
            kind: 'fault',
            fault: {
              kind: 'unmountDevice',
              node: 'node-a',
              volume: 'lun-1',
              stage: 'afterUnmount',
              times: 1,
            },
          },
        },
      ],
      claims: [
        { line: 20, fixes: { kubelet: 'fixed', off: [], on: [] }, violations: [], findings: null },
        {
          line: 22,
          fixes: { kubelet: 'fixed', off: ['pod-worker-lifecycle'], on: [] },
          violations: ['container-started-after-terminated'],
          findings: null,
        },
      ],
    };
    expect(loadScenarioFile(`${dir}/spec-example.yaml`)).toStrictEqual(expected);
  });

  it('loads every action and fault, sorted stably by time', () => {
    const s = loadScenarioFile(`${dir}/every-action.yaml`);
    expect(s.name).toBe('every-action');
    expect(s.description).toBe('Not a race: a tour of the format.\nSecond line.\n');
    expect(s.nodes).toEqual(['node-a', 'node-b']);
    // Only node-b's entry configures graceful node shutdown; node-a keeps upstream's 0 s.
    expect(s.nodeShutdown).toEqual({
      'node-b': { shutdownGracePeriodS: 30, shutdownGracePeriodCriticalPodsS: 10 },
    });
    expect(s.upstream).toEqual(['kubernetes/kubernetes#102344', 'kubernetes/kubernetes#100183']);
    expect(s.seed).toBe(255);
    expect(s.horizonMs).toBe(120_000);
    expect(s.volumes).toStrictEqual([
      {
        name: 'lun-1',
        plugin: 'fc',
        mode: 'Filesystem',
        capacityBytes: 10 * GiB,
        accessMode: 'ReadWriteOnce',
      },
      {
        name: 'lun-2',
        plugin: 'iscsi',
        mode: 'Block',
        capacityBytes: 512 * 1024 ** 2,
        accessMode: 'ReadWriteMany',
      },
      { name: 'disk-3', plugin: 'csi', mode: 'Filesystem', capacityBytes: GiB, accessMode: 'ReadOnlyMany' },
    ]);
    expect(s.timeline.map((e) => [e.atMs, e.line, e.action])).toStrictEqual([
      [
        0,
        23,
        {
          kind: 'createPod',
          pod: 'web',
          node: 'node-a',
          containers: [
            { name: 'app', startDelayMs: 1500 },
            { name: 'sidecar', startDelayMs: null },
          ],
          volumes: ['lun-1', 'lun-2'],
          static: false,
          gracePeriodS: 60,
          restartPolicy: 'Never',
        },
      ],
      [0, 33, { kind: 'fault', fault: { kind: 'containerStart', pod: 'web', delayMs: 250, error: null } }],
      [500, 35, { kind: 'crashContainer', pod: 'web', container: 'app', exitCode: 1 }],
      [500, 37, { kind: 'crashContainer', pod: 'web', container: 'sidecar', exitCode: 1 }],
      [1000, 21, { kind: 'deletePod', pod: 'web', gracePeriodS: 0 }],
      [1000, 39, { kind: 'forceDeletePod', pod: 'web' }],
      [
        2000,
        41,
        {
          kind: 'createPod',
          pod: 'web',
          node: 'node-b',
          containers: [
            { name: 'c1', startDelayMs: null },
            { name: 'c2', startDelayMs: null },
          ],
          volumes: [],
          static: true,
          gracePeriodS: 30,
          restartPolicy: 'Always',
        },
      ],
      [3000, 43, { kind: 'evictPod', pod: 'web', gracePeriodS: 0 }],
      [4000, 45, { kind: 'evictPod', pod: 'web', gracePeriodS: 5 }],
      [
        5000,
        47,
        {
          kind: 'fault',
          fault: { kind: 'containerStart', pod: 'web', delayMs: null, error: 'CreateContainerError: boom' },
        },
      ],
      [10_000, 49, { kind: 'restartKubelet', node: 'node-a', downForMs: null }],
      [10_000, 51, { kind: 'restartKubelet', node: 'node-b', downForMs: 30_000 }],
      [20_000, 53, { kind: 'shutdownNode', node: 'node-b' }],
      [
        30_000,
        55,
        {
          kind: 'fault',
          fault: {
            kind: 'unmountDevice',
            node: 'node-a',
            volume: 'lun-1',
            stage: 'multipathFlushBusy',
            times: 3,
          },
        },
      ],
      [30_000, 57, { kind: 'fault', fault: { kind: 'procMounts', node: 'node-a', inconsistentReads: 4 } }],
      [
        30_000,
        59,
        { kind: 'fault', fault: { kind: 'constructVolumeSpec', node: 'node-a', volume: 'lun-2' } },
      ],
      [
        30_000,
        61,
        {
          kind: 'fault',
          fault: { kind: 'tearDown', node: 'node-a', volume: 'disk-3', times: 1, delayMs: 90_000 },
        },
      ],
      [120_000, 63, { kind: 'deletePod', pod: 'web', gracePeriodS: null }],
      [120_000, 65, { kind: 'deletePvc', volume: 'disk-3' }],
    ]);
    expect(s.claims).toStrictEqual([
      {
        line: 68,
        fixes: { kubelet: 'legacy', off: [], on: [] },
        violations: ['kubelet-panic', 'termination-stuck'],
        findings: null,
      },
    ]);
  });
});
