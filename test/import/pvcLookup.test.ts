// The desired state of world populator's failed reads of a claim (desired_state_of_world_populator.go:
// `"Error processing volume" err="error processing PVC <ns>/<claim>: failed to fetch PVC from API server:
// ..."`, the PV's `failed to fetch PV <pv> from API server`, and the pre-1.21 printf form) become one
// pvcLookup fault per claim and node. An excerpt shaped like upstream #120150's report: the kubelet
// restarts while the API server is unreachable and unmounts the running pod's volume.
import { describe, expect, it } from 'vitest';
import { Fixes } from '../../src/fixes.js';
import { importLogs } from '../../src/import/importLogs.js';
import { recognise } from '../../src/import/recognise.js';
import { firedInvariants, runScenario } from '../../src/run/run.js';
import type { Fault } from '../../src/scenario/types.js';

const at = (hms: string, pid = 5678, level = 'I') => `${level}0905 ${hms}     ${pid}`;
const unique = 'kubernetes.io/csi/ebs.csi.aws.com^vol-0abc';
const clientError =
  'Get \\"https://10.0.0.1:6443/api/v1/namespaces/default/persistentvolumeclaims/data-mysql-0\\": dial tcp 10.0.0.1:6443: connect: connection refused';
const lookupFailed = (hms: string) =>
  `${at(hms, 5678, 'E')} desired_state_of_world_populator.go:313] "Error processing volume" err="error processing PVC default/data-mysql-0: failed to fetch PVC from API server: ${clientError}" pod="default/mysql-0" volumeName="data"`;

const before = [
  `${at('10:00:00.000000', 1234)} kubelet.go:2100] "SyncLoop ADD" source="api" pods=[default/mysql-0]`,
  `${at('10:00:11.000000', 1234)} operation_generator.go:674] "MountVolume.MountDevice succeeded for volume \\"pvc-5f1c\\" (UniqueName: \\"${unique}\\") on node \\"node-1\\""`,
  `${at('10:00:11.100000', 1234)} operation_generator.go:751] "MountVolume.SetUp succeeded for volume \\"pvc-5f1c\\" (UniqueName: \\"${unique}\\") pod \\"mysql-0\\" (UID: \\"u1\\")" pod="default/mysql-0"`,
  `${at('10:00:12.000000', 1234)} kubelet.go:2145] "SyncLoop (PLEG): event for pod" pod="default/mysql-0" event=&{ID:u1 Type:ContainerStarted Data:abcdef012345}`,
  `${at('10:00:50.000000', 1234)} kubelet.go:2226] "SyncLoop (housekeeping)"`,
];
const restart = [
  `${at('10:00:55.000000')} server.go:446] "Kubelet version" kubeletVersion="v1.27.3"`,
  `${at('10:00:55.000000')} kubelet.go:2100] "SyncLoop ADD" source="api" pods=[default/mysql-0]`,
];
const unmounted = [
  `${at('10:01:01.300000')} reconciler_common.go:172] "operationExecutor.UnmountVolume started for volume \\"pvc-5f1c\\" (UniqueName: \\"${unique}\\") pod \\"u1\\" (UID: \\"u1\\")"`,
  `${at('10:01:01.400000')} operation_generator.go:888] UnmountVolume.TearDown succeeded for volume "pvc-5f1c" (UniqueName: "${unique}") pod "mysql-0" (UID: "u1")`,
];

const imported = (lines: string[]) =>
  importLogs([{ name: 'k.log', bytes: Buffer.from(`${lines.join('\n')}\n`) }], { name: 't' });
const faultsOf = (lines: string[]): Fault[] =>
  imported(lines).scenario.timeline.flatMap((x) => (x.action.kind === 'fault' ? [x.action.fault] : []));

describe('the populator cannot read a claim (#120150)', () => {
  const log = [
    ...before,
    ...restart,
    lookupFailed('10:01:01.200000'),
    ...unmounted,
    lookupFailed('10:01:13.200000'),
    lookupFailed('10:01:25.200000'),
  ];

  it("a restart, then failed reads of the running pod's claim: one pvcLookup fault on its volume, armed at the restart", () => {
    const r = imported(log);
    const t = r.scenario.timeline;
    const restartAt = t.find((x) => x.action.kind === 'restartKubelet');
    const fault = t.find((x) => x.action.kind === 'fault');
    expect(restartAt?.atMs).toBe(50_000);
    expect(fault?.atMs).toBe(50_000);
    expect(t.indexOf(fault!)).toBeGreaterThan(t.indexOf(restartAt!));
    expect(fault?.action).toMatchObject({
      kind: 'fault',
      fault: {
        kind: 'pvcLookup',
        node: 'node-1',
        // The claim names no volume the log mounts: the pod's only volume is the one.
        volume: 'pvc-5f1c',
        error:
          'Get "https://10.0.0.1:6443/api/v1/namespaces/default/persistentvolumeclaims/data-mysql-0": dial tcp 10.0.0.1:6443: connect: connection refused',
      },
    });
    // Three failures, still going when the log ends: more fail after it.
    const f = fault?.action.kind === 'fault' ? fault.action.fault : null;
    expect(f?.kind === 'pvcLookup' ? f.times : 0).toBeGreaterThan(3);
    expect(r.yaml).toContain('# from k.log:8,11-12');
    expect(r.yaml).toContain("guess: claim data-mysql-0 is pvc-5f1c, the pod's only volume the log names");
    expect(r.scenario.volumes.map((v) => v.name)).toEqual(['pvc-5f1c']);
  });

  it('the imported scenario tears the volume down under the running container', () => {
    const r = imported(log);
    // Under the log's release (1.27), and with every fix: the race is open upstream.
    for (const kubelet of ['1.27', 'fixed'] as const) {
      const run = runScenario(r.scenario, { fixes: Fixes.of(kubelet) });
      expect(firedInvariants(run)).toContain('volume-torn-down-while-running');
    }
  });

  it('failures followed by a SetUp of the volume: the logged count only', () => {
    const setUpAgain = `${at('10:01:40.000000')} operation_generator.go:751] "MountVolume.SetUp succeeded for volume \\"pvc-5f1c\\" (UniqueName: \\"${unique}\\") pod \\"mysql-0\\" (UID: \\"u1\\")" pod="default/mysql-0"`;
    const faults = faultsOf([...log, setUpAgain]);
    expect(faults).toEqual([expect.objectContaining({ kind: 'pvcLookup', volume: 'pvc-5f1c', times: 3 })]);
  });

  it('a claim the log names nowhere else gets a volume named after it, its plugin guessed', () => {
    const r = imported([
      `${at('10:00:00.000000')} kubelet.go:2100] "SyncLoop ADD" source="api" pods=[default/web]`,
      `${at('10:00:01.000000', 5678, 'E')} desired_state_of_world_populator.go:313] "Error processing volume" err="error processing PVC default/logs: failed to fetch PVC from API server: Get \\"https://apiserver:6443/api/v1/namespaces/default/persistentvolumeclaims/logs\\": net/http: request canceled (Client.Timeout exceeded while awaiting headers)" pod="default/web" volumeName="logs"`,
      `${at('10:05:00.000000')} kubelet.go:2226] "SyncLoop (housekeeping)"`,
    ]);
    const faults = r.scenario.timeline.flatMap((x) => (x.action.kind === 'fault' ? [x.action.fault] : []));
    // podrace's own default error (for this volume) is not written back.
    expect(faults).toEqual([{ kind: 'pvcLookup', node: 'node-a', volume: 'logs', times: 1, error: null }]);
    expect(r.scenario.volumes.map((v) => [v.name, v.plugin])).toEqual([['logs', 'csi']]);
    expect(r.yaml).toContain('guess: plugin csi: the log names no plugin');
    expect(r.yaml).toContain('guess: volume logs named after the claim');
  });

  it('reads the PV form and the pre-1.21 printf form', () => {
    expect(
      recognise(
        '"Error processing volume" err="error processing PVC ns1/data: failed to fetch PV pv-1 from API server: boom" pod="ns1/db" volumeName="d"',
      ),
    ).toEqual({
      kind: 'pvcLookupFailed',
      pod: { namespace: 'ns1', name: 'db', uid: '' },
      volumeName: 'd',
      claim: 'data',
      pv: 'pv-1',
      error: 'boom',
    });
    expect(
      recognise(
        'Error processing volume "d" for pod "db_ns1(0f3c)": error processing PVC ns1/data: failed to fetch PVC from API server: Get "https://x/y": EOF',
      ),
    ).toEqual({
      kind: 'pvcLookupFailed',
      pod: { namespace: 'ns1', name: 'db', uid: '0f3c' },
      volumeName: 'd',
      claim: 'data',
      pv: '',
      error: 'Get "https://x/y": EOF',
    });
    // Not a failed read: a claim not bound yet.
    expect(
      recognise(
        '"Error processing volume" err="error processing PVC ns1/data: PVC is not bound" pod="ns1/db" volumeName="d"',
      ),
    ).toBeNull();
  });

  it('a log with no such line gives no pvcLookup fault', () => {
    const faults = faultsOf([...before, ...restart, ...unmounted]);
    expect(faults.filter((f) => f.kind === 'pvcLookup')).toEqual([]);
  });
});
