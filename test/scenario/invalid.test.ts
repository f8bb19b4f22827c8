import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIX_IDS } from '../../src/fixes.js';
import { INVARIANT_IDS } from '../../src/invariants/types.js';
import { InputError } from '../../src/scenario/errors.js';
import { loadScenarioFile, MAX_ERRORS, parseScenarioText } from '../../src/scenario/load.js';

const dir = 'test/fixtures/invalid';

/** Each invalid fixture and the one line it must produce (after `file:`). */
const EXPECTED: ReadonlyArray<readonly [string, string]> = [
  ['after-horizon.yaml', '6:9: timeline[0].at: 90s is after the horizon (1m)'],
  ['bad-plugin.yaml', '5:29: cluster.volumes[0].plugin: expected one of fc, iscsi, csi, got "nfs"'],
  [
    'bad-pod-name.yaml',
    "6:22: timeline[0].createPod.pod: expected a pod name of lower-case letters, digits, '-' and '.', starting and ending with a letter or digit, got \"Web_1\"",
  ],
  ['bad-size.yaml', '5:43: cluster.volumes[0].capacity: expected a size like 512Mi, 10Gi or 1Ti, got "10GB"'],
  [
    'claim-fixes-garbled.yaml',
    '6:12: claims[0].fixes: expected all, none, {off: [fix IDs]} or {on: [fix IDs]}, got "some"',
  ],
  [
    'container-start-no-effect.yaml',
    '8:29: timeline[1].fault.containerStart: expected a delay, an error or both; without either the fault does nothing',
  ],
  [
    'containers-zero.yaml',
    '6:53: timeline[0].createPod.containers: expected a number of containers (1 or more), got 0',
  ],
  [
    'duplicate-claim.yaml',
    '8:5: claims[1].fixes: the same fixes (fixes: all) as the claim at line 6; each claim needs its own set of fixes',
  ],
  [
    'exhaustive-with-violations.yaml',
    '8:17: claims[0].exhaustive: exhaustive: true needs violations: [] (it checks that no schedule fires one)',
  ],
  ['duplicate-key.yaml', '6:56: timeline[0].createPod: duplicate key "node" (first set at 6:27)'],
  ['duplicate-node.yaml', '3:27: cluster.nodes[2]: duplicate node "node-a"'],
  [
    'controller-manager-bad-value.yaml',
    '4:53: cluster.controllerManager.disableForceDetachOnTimeout: expected true or false, got "yes"',
  ],
  [
    'controller-manager-flag-too-new.yaml',
    '9:14: claims[1].kubelet: cluster.controllerManager sets disableForceDetachOnTimeout (line 4), but the kube-controller-manager of 1.29 has no --disable-force-detach-on-timeout (#120344, from 1.30) and does not start with it ("unknown flag"): claim kubelet 1.30 or later, or fixes: all',
  ],
  [
    'controller-manager-unknown-key.yaml',
    '5:5: cluster.controllerManager: unknown key "disableForceDetachOnTimeOut" (did you mean "disableForceDetachOnTimeout"?); expected one of disableForceDetachOnTimeout',
  ],
  [
    'node-entry-unknown-key.yaml',
    '4:23: cluster.nodes[0]: unknown key "shutdownGracePeriods" (did you mean "shutdownGracePeriod"?); expected one of name, shutdownGracePeriod, shutdownGracePeriodCriticalPods, labels, allocatable',
  ],
  [
    'shutdown-critical-over-period.yaml',
    '4:82: cluster.nodes[0].shutdownGracePeriodCriticalPods: shutdownGracePeriodCriticalPods 20s must be <= shutdownGracePeriod 10s (the kubelet refuses such a configuration)',
  ],
  [
    'shutdown-grace-fraction.yaml',
    '5:44: cluster.nodes[1].shutdownGracePeriod: expected a whole number of seconds (Kubernetes grace periods are integer seconds), got "1500ms"',
  ],
  [
    'detach-iscsi.yaml',
    '8:44: timeline[0].fault.detach.volume: volume "lun-1" is an iscsi volume, whose in-tree Detach does nothing and cannot fail; a detach fault needs a csi volume',
  ],
  [
    'detach-bad-stage.yaml',
    '8:58: timeline[0].fault.detach.stage: expected one of beforeDetach, afterDetach, got "afterUnmount"',
  ],
  [
    'duration-without-unit.yaml',
    '5:9: timeline[0].at: expected a duration like 250ms, 30s or 5m (with a unit), got 0',
  ],
  ['empty.yaml', '1:1: the file is empty; expected a scenario mapping {name, cluster, timeline, ...}'],
  [
    'fault-no-kind.yaml',
    '6:12: timeline[0].fault: no fault kind; expected exactly one of unmountDevice, procMounts, constructVolumeSpec, containerStart, tearDown, mountDevice, waitForAttach, stopContainer, setUp, pvcLookup, nodePartition, detach',
  ],
  [
    'fault-two-kinds.yaml',
    '10:7: timeline[0].fault: 2 fault kinds in one fault (unmountDevice, tearDown); expected exactly one',
  ],
  [
    'garbled-duration.yaml',
    '8:40: timeline[1].deletePod.gracePeriod: expected a duration like 250ms, 30s or 5m, got "abc"',
  ],
  [
    'grace-period-fraction.yaml',
    '8:39: timeline[1].evictPod.gracePeriod: expected a whole number of seconds (Kubernetes grace periods are integer seconds), got "1500ms"',
  ],
  [
    'missing-field.yaml',
    '8:28: timeline[0].fault.unmountDevice.stage: missing; expected one of beforeUnmount, afterUnmount, multipathFlushBusy, deviceStillOpen',
  ],
  ['missing-name.yaml', '1:1: name: missing; expected a scenario name'],
  [
    'mount-device-bad-error.yaml',
    '8:63: timeline[0].fault.mountDevice.error: expected one of final, uncertain, got "timeout"',
  ],
  [
    'mount-device-block-iscsi.yaml',
    `8:49: timeline[0].fault.mountDevice.volume: volume "lun-1" is an iscsi Block volume, which has no device staging: FC and iSCSI SetUpDevice does nothing (the login and path wait are WaitForAttach's); use a Filesystem volume or a csi one`,
  ],
  [
    'mount-device-no-effect.yaml',
    '8:26: timeline[0].fault.mountDevice: expected a delay, an error or both; without either the fault does nothing',
  ],
  [
    'mount-device-uncertain-fc.yaml',
    '8:74: timeline[0].fault.mountDevice.error: "uncertain" needs a csi volume: fc MountDevice (FormatAndMount) only fails with final errors; use error: final',
  ],
  [
    'misspelt-action.yaml',
    '6:5: timeline[0]: unknown key "creatPod" (did you mean "createPod"?); expected one of at, createPod, deletePod, forceDeletePod, evictPod, restartKubelet, shutdownNode, crashContainer, deletePvc, outOfServiceTaint, fault',
  ],
  [
    'multiple-documents.yaml',
    "5:1: a scenario file holds one YAML document; remove the '---' and what follows",
  ],
  ['negative-duration.yaml', '5:9: timeline[0].at: durations cannot be negative, got "-1s"'],
  [
    'no-action.yaml',
    '5:5: timeline[0]: no action; expected exactly one of createPod, deletePod, forceDeletePod, evictPod, restartKubelet, shutdownNode, crashContainer, deletePvc, outOfServiceTaint, fault',
  ],
  [
    'pod-not-created-yet.yaml',
    '8:27: timeline[1].crashContainer.pod: pod "web" is not created before this entry (its createPod is at line 5)',
  ],
  [
    'pod-recreated-while-alive.yaml',
    '10:22: timeline[2].createPod.pod: pod "web" already exists (created at line 5 and not deleted since); delete it first or use another name',
  ],
  ['seed-out-of-range.yaml', '2:7: seed: expected an integer from 0 to 4294967295, got 4294967296'],
  [
    'static-pod-volume.yaml',
    "8:80: timeline[0].createPod.volumes: a static pod cannot use cluster volumes: they are PersistentVolumes claimed through the API, which a static pod's spec cannot refer to (NodeRestriction refuses its mirror pod); drop `static` or the volumes",
  ],
  ['static-not-boolean.yaml', '6:64: timeline[0].createPod.static: expected true or false, got "yes"'],
  ['syntax-bad-indent.yaml', '5:1: All mapping items must start at the same column'],
  // 22 errors from the yaml package, one mistake: only the first of the region.
  ['syntax-cascade.yaml', '7:40: Unexpected flow-map-end token in YAML stream: "}"'],
  [
    'syntax-unclosed-quote.yaml',
    '7:22: missing closing ": the string that starts here runs to the end of the file',
  ],
  [
    'syntax-unclosed-flow.yaml',
    '5:1: Flow sequence in block collection must be sufficiently indented and end with a ]',
  ],
  ['top-level-list.yaml', '1:1: expected a scenario mapping {name, cluster, timeline, ...}, got a list'],
  [
    'two-actions.yaml',
    '7:5: timeline[0]: 2 actions in one entry (createPod, deletePod); expected exactly one',
  ],
  [
    'unknown-container.yaml',
    '11:43: timeline[1].crashContainer.container: unknown container "sidecra" (did you mean "sidecar"?); pod "web" has app, sidecar',
  ],
  [
    'stop-container-not-found-text.yaml',
    '8:46: timeline[1].fault.stopContainer.error: a NotFound answer is written `error: notFound`: it removes the container, as NotFound means the runtime no longer holds it (free text leaves it running)',
  ],
  [
    'stop-container-unknown-container.yaml',
    '11:50: timeline[1].fault.stopContainer.container: unknown container "sidecra" (did you mean "sidecar"?); pod "web" has app, sidecar',
  ],
  [
    'unknown-fix.yaml',
    `6:19: claims[0].fixes.off[0]: expected a fix ID (one of ${FIX_IDS.join(', ')}), got "pod-worker"`,
  ],
  [
    'unknown-invariant.yaml',
    `7:54: claims[0].violations[1]: expected an invariant ID (one of ${INVARIANT_IDS.join(', ')}), got "multi-node-mounts" (did you mean "multi-node-mount"?)`,
  ],
  [
    'unknown-key-top.yaml',
    '2:1: unknown key "colour"; expected one of name, description, upstream, seed, horizon, cluster, timeline, claims',
  ],
  [
    'unknown-key-volume.yaml',
    '8:7: cluster.volumes[0]: unknown key "colour"; expected one of name, plugin, mode, capacity, accessMode',
  ],
  [
    'unknown-node.yaml',
    '6:33: timeline[0].createPod.node: unknown node "node-c" (did you mean "node-a"?); cluster.nodes are node-a, node-b',
  ],
  [
    'unknown-pod.yaml',
    '8:22: timeline[1].deletePod.pod: unknown pod "db"; pods created before this entry: web',
  ],
  [
    'delete-pvc-unknown-volume.yaml',
    '8:25: timeline[0].deletePvc.volume: unknown volume "dta" (did you mean "data"?); cluster.volumes are data',
  ],
  [
    'out-of-service-taint-gate-off.yaml',
    '10:14: claims[1].kubelet: the timeline sets the out-of-service taint (line 5), but the kube-controller-manager of 1.25 has the NodeOutOfServiceVolumeDetach feature gate off by default (alpha): the out-of-service taint would change nothing (on by default from 1.26): claim kubelet 1.26 or later, or fixes: all',
  ],
  [
    'out-of-service-taint-unknown-node.yaml',
    '6:31: timeline[0].outOfServiceTaint.node: unknown node "node-b" (did you mean "node-a"?); cluster.nodes are node-a',
  ],
  [
    'out-of-service-taint-bad-remove.yaml',
    '6:47: timeline[0].outOfServiceTaint.remove: expected true or false, got "yes"',
  ],
  [
    'unknown-volume.yaml',
    '8:66: timeline[0].createPod.volumes[0]: unknown volume "lun-2" (did you mean "lun-1"?); cluster.volumes are lun-1',
  ],
  [
    'wrong-type-containers.yaml',
    '6:53: timeline[0].createPod.containers: expected a number of containers (1 or more) or a list of {name, startDelay?, preStop?, resources?}, got "two"',
  ],
  ['wrong-type-nodes.yaml', '3:10: cluster.nodes: expected a list of nodes, got "node-a"'],
  [
    'bad-quantity.yaml',
    '6:94: timeline[0].createPod.containers[0].resources.requests.cpu: expected a quantity like 500m, 1, 2.5, 128Mi or 1Gi, got "1.5cores"',
  ],
  [
    'negative-allocatable.yaml',
    '4:52: cluster.nodes[0].allocatable.memory: a quantity must be greater than or equal to 0, got "-1Gi"',
  ],
  [
    'unknown-quantity-suffix.yaml',
    '10:54: timeline[0].createPod.containers[0].resources.requests.memory: unknown quantity suffix "mi" in "128mi"',
  ],
  ['allocatable-empty.yaml', '4:35: cluster.nodes[0].allocatable: expected cpu, memory or both'],
  [
    'resources-limits.yaml',
    '6:98: timeline[0].createPod.containers[0].resources: unknown key "limits"; expected one of requests',
  ],
  [
    'static-pod-requests.yaml',
    '7:93: timeline[0].createPod.containers[0].resources: a static pod cannot carry resource requests here: the kubelet counts every static pod as critical and admits one that does not fit by preempting other pods (preemption.go), which podrace does not model; drop `static` or the resources',
  ],
];

function errorOf(load: () => unknown): InputError {
  try {
    load();
  } catch (err) {
    if (err instanceof InputError) return err;
    throw err;
  }
  throw new Error('expected an InputError');
}

describe('invalid scenario files', () => {
  it('has an expectation for every fixture, and at least 20 fixtures', () => {
    const files = readdirSync(dir).filter((f) => f.endsWith('.yaml'));
    expect(files.sort()).toEqual(EXPECTED.map(([f]) => f).sort());
    expect(files.length).toBeGreaterThanOrEqual(20);
  });

  it.each(EXPECTED)('%s', (file, line) => {
    const err = errorOf(() => loadScenarioFile(`${dir}/${file}`));
    expect(err.message).toBe(`${dir}/${file}:${line}`);
    expect(err.message).not.toContain('\n');
  });

  it('reports a file that cannot be read, located at its path', () => {
    const missing = errorOf(() => loadScenarioFile(`${dir}/does-not-exist.yaml`));
    expect(missing.message).toBe(
      `${dir}/does-not-exist.yaml: cannot read (ENOENT: no such file or directory)`,
    );
    expect(missing.located).toBe(true);
    expect(errorOf(() => loadScenarioFile(dir)).message).toBe(
      `${dir}: is a directory; expected a scenario file`,
    );
  });

  it('marks every loader error as located (the CLI prints it with no prefix)', () => {
    expect(errorOf(() => loadScenarioFile(`${dir}/unknown-node.yaml`)).located).toBe(true);
    expect(errorOf(() => parseScenarioText('~\n', 'x.yaml')).located).toBe(true);
  });

  it('reports whitespace-only and null documents clearly', () => {
    expect(errorOf(() => parseScenarioText('\n  \n', 'x.yaml')).message).toBe(
      'x.yaml:1:1: the file is empty; expected a scenario mapping {name, cluster, timeline, ...}',
    );
    expect(errorOf(() => parseScenarioText('~\n', 'x.yaml')).message).toBe(
      'x.yaml:1:1: expected a scenario mapping {name, cluster, timeline, ...}, got null',
    );
  });

  it('reports several mistakes at once, in file order, one line each', () => {
    const text = [
      'name: several', // 1
      'cluster:', // 2
      '  nodes: [node-a]', // 3
      'timeline:', // 4
      '  - at: 1s', // 5
      '    createPod: {pod: web, node: node-b, containers: 1}', // 6
      '  - at: soon', // 7
      '    deletePod: {pod: web}', // 8
      'seed: x', // 9
    ].join('\n');
    // Shape errors come first; meaning errors (node-b) only once the shape is right.
    expect(errorOf(() => parseScenarioText(text, 's.yaml')).message).toBe(
      [
        's.yaml:7:9: timeline[1].at: expected a duration like 250ms, 30s or 5m, got "soon"',
        's.yaml:9:7: seed: expected an integer from 0 to 4294967295, got "x"',
      ].join('\n'),
    );
  });

  it(`stops after ${MAX_ERRORS} lines and counts the rest`, () => {
    const entries = Array.from({ length: 13 }, (_, i) => `  - {at: ${i}s, shutdownNode: {node: n${i}}}`);
    const text = ['name: many', 'cluster:', '  nodes: [node-a]', 'timeline:', ...entries].join('\n');
    const lines = errorOf(() => parseScenarioText(text, 'm.yaml')).message.split('\n');
    expect(lines).toHaveLength(MAX_ERRORS + 1);
    expect(lines[0]).toBe(
      'm.yaml:5:35: timeline[0].shutdownNode.node: unknown node "n0"; cluster.nodes are node-a',
    );
    expect(lines[MAX_ERRORS]).toBe('m.yaml: ... and 3 more errors');
  });

  it('reports a duplicate key together with shape errors', () => {
    const text = 'name: a\nname: b\ncluster: {nodes: [node-a]}\ntimeline: 3\n';
    expect(errorOf(() => parseScenarioText(text, 'd.yaml')).message).toBe(
      [
        'd.yaml:2:1: duplicate key "name" (first set at 1:1)',
        'd.yaml:4:11: timeline: expected a list of timeline entries, got 3',
      ].join('\n'),
    );
  });

  it('points into aliases and at keys with no value', () => {
    const text = [
      'name: alias',
      'cluster: {nodes: [node-a]}',
      'base: &b {pod: web, node: node-a}',
      'timeline:',
      '  - at:',
      '    shutdownNode: {node: node-a}',
    ].join('\n');
    expect(errorOf(() => parseScenarioText(text, 'a.yaml')).message).toBe(
      [
        'a.yaml:3:1: unknown key "base"; expected one of name, description, upstream, seed, horizon, cluster, timeline, claims',
        'a.yaml:5:5: timeline[0].at: expected a duration like 250ms, 30s or 5m, got null',
      ].join('\n'),
    );
  });

  it('reads a file written to a temporary directory', () => {
    const tmp = mkdtempSync(join(tmpdir(), 'podrace-scenario-'));
    try {
      const path = join(tmp, 'x.yaml');
      writeFileSync(path, 'name: x\ncluster: {nodes: [node-a]}\ntimeline: []\n');
      expect(loadScenarioFile(path).file).toBe(path);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
