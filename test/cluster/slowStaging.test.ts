// A slow device staging (the mountDevice fault) in a whole cluster: the delay only makes the volume's
// MountVolume operation take virtual time, and the pod's deletion then overlaps it. What happens next comes
// from the kubelet's own rules: the pod terminates once syncPod's WaitForAttachAndMount (2 min 3 s) gives
// up, the operation outlives it, the reconciler leaves a volume with a pending operation alone and cleans up
// what the operation staged, and the replacement on another node waits for the device to be released.
import { describe, expect, it } from 'vitest';
import type { Fact } from '../../src/facts.js';
import { Fixes } from '../../src/fixes.js';
import { runScenario } from '../../src/run/run.js';
import { loadScenarioFile, parseScenarioText } from '../../src/scenario/load.js';

const ofKind = <K extends Fact['kind']>(facts: readonly Fact[] | undefined, kind: K) =>
  (facts ?? []).filter((f): f is Extract<Fact, { kind: K }> => f.kind === kind);

const at = <K extends Fact['kind']>(
  facts: readonly Fact[] | undefined,
  kind: K,
  match: (f: Extract<Fact, { kind: K }>) => boolean = () => true,
): number => {
  const f = ofKind(facts, kind).find(match);
  if (f === undefined) throw new Error(`no ${kind} fact`);
  return f.atMs;
};

describe('slow-mount-device-outlives-pod (iSCSI, MountDevice 3 min slower, the pod deleted at 20 s)', () => {
  const s = loadScenarioFile('scenarios/slow-mount-device-outlives-pod.yaml');
  const r = runScenario(s, { fixes: Fixes.all(), recordFacts: true });
  const onA = (f: { node: string }) => f.node === 'node-a';

  it('the staging starts after the attach and runs through the deletion', () => {
    const staging = at(r.facts, 'faultInjected', (f) => f.fault === 'mountDevice');
    expect(staging).toBeGreaterThan(5_000);
    expect(staging).toBeLessThan(20_000); // before the deletion at 20 s
    const mounted = at(r.facts, 'mountDevice', (f) => onA(f) && f.ok);
    expect(mounted - staging).toBeGreaterThanOrEqual(180_000);
  });

  it("the pod's API object is gone before the staging ends; the operation sets it up anyway, then tears it down", () => {
    const deleted = at(r.facts, 'apiPodDeleted', (f) => f.uid === 'web-1');
    expect(deleted).toBeGreaterThan(123_000); // WaitForAttachAndMount gave up at 2 min 3 s
    const mounted = at(r.facts, 'mountDevice', (f) => onA(f) && f.ok);
    expect(mounted).toBeGreaterThan(deleted);
    const setUp = at(r.facts, 'volumeSetUp', (f) => f.uid === 'web-1');
    const tornDown = at(r.facts, 'volumeTearDown', (f) => f.uid === 'web-1');
    const unmounted = at(r.facts, 'unmountDevice', (f) => onA(f) && f.ok);
    expect(setUp).toBeGreaterThanOrEqual(mounted);
    expect(tornDown).toBeGreaterThan(setUp);
    expect(unmounted).toBeGreaterThan(tornDown);
  });

  it('node-a reports lun-1 in use until it is unmounted; node-b mounts it only after that', () => {
    const unmounted = at(r.facts, 'unmountDevice', (f) => onA(f) && f.ok);
    const unused = ofKind(r.facts, 'nodeVolumesInUse').filter((f) => onA(f) && !f.volumes.includes('lun-1'));
    expect(unused.filter((f) => f.atMs > 20_000 && f.atMs < unmounted)).toEqual([]);
    const opened = at(r.facts, 'lunAccessOpened', (f) => f.node === 'node-b');
    expect(opened).toBeGreaterThan(unmounted);
    expect(r.violations).toEqual([]);
  });
});

describe('a CSI staging whose answer is lost while its pod goes (error: uncertain)', () => {
  const text = [
    'name: csi-uncertain',
    'horizon: 6m',
    'cluster:',
    '  nodes: [node-a]',
    '  volumes: [{name: lun-1, plugin: csi, capacity: 10Gi}]',
    'timeline:',
    '  - {at: 0s, fault: {mountDevice: {node: node-a, volume: lun-1, delay: 118s, error: uncertain}}}',
    '  - {at: 0s, createPod: {pod: web, node: node-a, containers: 1, volumes: [lun-1]}}',
    '  - {at: 20s, deletePod: {pod: web}}',
  ].join('\n');
  const r = runScenario(parseScenarioText(text, 'csi.yaml'), { fixes: Fixes.all(), recordFacts: true });

  it('the device staged behind the failed answer is uncertain, so the kubelet unstages it', () => {
    const deleted = at(r.facts, 'apiPodDeleted');
    const failed = at(r.facts, 'mountDevice', (f) => !f.ok);
    expect(failed).toBeGreaterThan(deleted); // the pod had left the desired state of world
    const staged = at(r.facts, 'lunAccessOpened');
    expect(staged).toBe(failed);
    const unstaged = at(r.facts, 'unmountDevice', (f) => f.ok);
    expect(unstaged).toBeGreaterThan(failed);
    expect(at(r.facts, 'lunAccessClosed')).toBeLessThanOrEqual(unstaged);
    expect(ofKind(r.facts, 'volumeSetUp')).toEqual([]);
    expect(r.violations).toEqual([]);
  });
});
