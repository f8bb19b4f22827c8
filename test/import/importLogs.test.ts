// The importer end to end below the CLI: log text in, a scenario that the normal loader reads out, each
// entry commented with its source lines, guesses marked, faults inferred from failures.
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { importLogs, sourceText } from '../../src/import/importLogs.js';
import { readLogText } from '../../src/import/logLines.js';
import { InputError } from '../../src/scenario/errors.js';
import { parseScenarioText } from '../../src/scenario/load.js';

const log = (lines: string[]) => `${lines.join('\n')}\n`;
const run = (files: Record<string, string>) =>
  importLogs(
    Object.entries(files).map(([name, text]) => ({ name, bytes: Buffer.from(text) })),
    { name: 't' },
  );
const actions = (r: ReturnType<typeof run>) => r.scenario.timeline.map((e) => [e.atMs, e.action.kind]);
const UNIQUE = 'kubernetes.io/iscsi/10.0.0.1:3260:iqn.x:lun-0';
const op = (t: string, what: string, tail: string, pid = 268) =>
  `I0523 ${t}     ${pid} operation_generator.go:1] ${what} for volume "pvc-1" (UniqueName: "${UNIQUE}") ${tail}`;

const BASIC = log([
  'I0523 09:50:58.000000     268 kubelet.go:2100] "SyncLoop ADD" source="api" pods=[default/web-0]',
  op(
    '09:51:08.000000',
    'MountVolume.MountDevice succeeded',
    'pod "web-0" (UID: "u1") device mount path "/x"',
  ),
  'I0523 09:52:00.000000     268 kubelet.go:2130] "SyncLoop DELETE" source="api" pods=[default/web-0]',
  'I0523 09:52:00.100000     268 kuberuntime_container.go:725] "Killing container with a grace period" pod="default/web-0" podUID=u1 containerName="app" containerID="containerd://ab" gracePeriod=20',
  'E0523 09:52:06.000000     268 nestedpendingoperations.go:335] Operation for "{volumeName:x podName: nodeName:}" failed. Error: ' +
    `UnmountDevice failed for volume "pvc-1" (UniqueName: "${UNIQUE}") on node "node-1" : umount: /x: target is busy.`,
  'I0523 09:52:07.000000     268 reconciler.go:1] "Reconciler: start to sync state"',
]);

describe('importLogs', () => {
  it('MountVolume.WaitForAttach failures in a row: one waitForAttach fault, closed by the mount that follows', () => {
    const failed = (t: string) =>
      `E0523 ${t}     268 nestedpendingoperations.go:335] Operation for "{volumeName:x podName: nodeName:}" failed. Error: ` +
      `MountVolume.WaitForAttach failed for volume "pvc-1" (UniqueName: "${UNIQUE}") pod "web-0" (UID: "u1") : failed to get any path for iscsi disk`;
    const r = run({
      'k.log': log([
        'I0523 09:50:58.000000     268 kubelet.go:2100] "SyncLoop ADD" source="api" pods=[default/web-0]',
        failed('09:50:59.000000'),
        failed('09:50:59.500000'),
        failed('09:51:00.500000'),
        op(
          '09:51:08.000000',
          'MountVolume.MountDevice succeeded',
          'pod "web-0" (UID: "u1") device mount path "/x"',
        ),
        failed('09:52:00.000000'),
      ]),
    });
    const faults = r.scenario.timeline.flatMap((e) =>
      e.action.kind === 'fault' ? [[e.atMs, e.action.fault]] : [],
    );
    expect(faults).toEqual([
      [
        1_000,
        { kind: 'waitForAttach', node: 'node-a', volume: 'pvc-1', times: 3, error: null, delayMs: null },
      ],
      [
        62_000,
        { kind: 'waitForAttach', node: 'node-a', volume: 'pvc-1', times: 1, error: null, delayMs: null },
      ],
    ]);
    expect(parseScenarioText(r.yaml, 't.yaml').timeline).toEqual(r.scenario.timeline);
  });

  it('a pod, its volume, its deletion and an UnmountDevice failure, with the source of each entry', () => {
    const r = run({ 'k.log': BASIC });
    expect(r.scenario.nodes).toEqual(['node-1']);
    expect(r.scenario.volumes).toEqual([
      {
        name: 'pvc-1',
        plugin: 'iscsi',
        mode: 'Filesystem',
        capacityBytes: 1024 ** 3,
        accessMode: 'ReadWriteOnce',
      },
    ]);
    expect(actions(r)).toEqual([
      [0, 'fault'],
      [0, 'createPod'],
      [62_000, 'deletePod'],
    ]);
    expect(r.scenario.timeline[0]!.action).toMatchObject({
      fault: { kind: 'unmountDevice', stage: 'beforeUnmount', times: 1 },
    });
    expect(r.scenario.timeline[1]!.action).toMatchObject({
      containers: [{ name: 'app' }],
      volumes: ['pvc-1'],
      gracePeriodS: 20,
    });
    expect(r.yaml).toContain('# from k.log:5\n');
    expect(r.yaml).toContain('# from k.log:1\n');
    expect(r.yaml).toContain('# guess: capacity 1Gi');
    expect(r.used).toBe(5);
    expect(r.unused).toEqual([{ file: 'k.log', line: 6, text: '"Reconciler: start to sync state"' }]);
    // The text loads with the normal loader to the same scenario.
    expect(parseScenarioText(r.yaml, 't.yaml').timeline.map((e) => e.action)).toEqual(
      r.scenario.timeline.map((e) => e.action),
    );
  });

  it('a PID change is a kubelet restart; a reconstruction failure after it is a fault armed just before it', () => {
    const r = run({
      'k.log': log([
        'I0523 09:50:58.000000     100 kubelet.go:2100] "SyncLoop ADD" source="api" pods=[default/web-0]',
        op('09:51:08.000000', 'MountVolume.SetUp succeeded', 'pod "web-0" (UID: "u1")', 100),
        'I0523 09:52:00.000000     100 kubelet.go:1] "Updating node status"',
        'I0523 09:52:30.000000     200 server.go:446] "Kubelet version" kubeletVersion="v1.21.14"',
        'I0523 09:52:31.000000     200 reconciler.go:388] "Could not construct volume information, cleaning up mounts" podName=u1 volumeSpecName="pvc-1" err="no volume plugin matched"',
      ]),
    });
    expect(actions(r)).toEqual([
      [0, 'createPod'],
      [62_000, 'fault'],
      [62_000, 'restartKubelet'],
    ]);
    expect(r.scenario.timeline[2]!.action).toEqual({
      kind: 'restartKubelet',
      node: 'node-a',
      downForMs: 30_000,
    });
    expect(r.scenario.timeline[1]!.action).toMatchObject({
      fault: { kind: 'constructVolumeSpec', volume: 'pvc-1' },
    });
    expect(r.release).toBe('1.21');
  });

  it('a pod first seen by anything but its ADD ran before the log: created 60 s before the first line', () => {
    const r = run({
      'k.log': log([
        'I0523 09:52:00.000000     268 kubelet.go:2130] "SyncLoop DELETE" source="api" pods=[default/db-0]',
        'I0523 09:52:01.000000     268 kubelet.go:2127] "SyncLoop REMOVE" source="api" pods=[default/db-0]',
      ]),
    });
    expect(actions(r)).toEqual([
      [0, 'createPod'],
      [60_000, 'deletePod'],
    ]);
    expect(r.yaml).toContain('# guess: running before the log begins');
  });

  it('reconstruction in the first process: a restart before the log, its pods re-listed from 0s', () => {
    const r = run({
      'k.log': log([
        'I0523 09:52:30.000000 200 server.go:446] "Kubelet version" kubeletVersion="v1.23.4"',
        'I0523 09:52:31.000000 200 kubelet.go:2100] "SyncLoop ADD" source="api" pods=[default/web-0]',
        'I0523 09:52:31.500000 200 reconciler.go:388] "Could not construct volume information, cleaning up mounts" podName=6a6c0a8e-1 volumeSpecName="pvc-1" err="could not get consistent content of /proc/mounts after 3 attempts"',
        'I0523 09:52:32.000000 200 kubelet_volumes.go:1] Orphaned pod "6a6c0a8e-1" found, but volume paths are still present on disk',
      ]),
    });
    expect(r.scenario.timeline.map((e) => [e.atMs, e.action])).toEqual([
      [
        0,
        {
          kind: 'createPod',
          pod: 'web-0',
          node: 'node-a',
          containers: [{ name: 'c1', startDelayMs: null }],
          volumes: ['pvc-1'],
          static: false,
          gracePeriodS: 30,
          restartPolicy: 'Always',
        },
      ],
      [59_000, { kind: 'fault', fault: { kind: 'procMounts', node: 'node-a', inconsistentReads: 3 } }],
      [59_000, { kind: 'restartKubelet', node: 'node-a', downForMs: 1000 }],
    ]);
    expect(r.scenario.volumes[0]).toMatchObject({ plugin: 'iscsi' });
    expect(r.yaml).toContain('# guess: plugin iscsi: reconstruction read /proc/mounts');
  });

  it('static pods: ADD and REMOVE from file; a REMOVE of an API pod without DELETE is a force deletion', () => {
    const r = run({
      'k.log': log([
        'I0523 09:00:00.000000 1 kubelet.go:1] "SyncLoop ADD" source="file" pods=[kube-system/etcd-m1]',
        'I0523 09:00:01.000000 1 kubelet.go:1] "SyncLoop ADD" source="api" pods=[default/a]',
        'I0523 09:00:05.000000 1 kubelet.go:1] "SyncLoop REMOVE" source="file" pods=[kube-system/etcd-m1]',
        'I0523 09:00:06.000000 1 kubelet.go:1] "SyncLoop REMOVE" source="api" pods=[default/a]',
      ]),
    });
    expect(r.scenario.timeline.map((e) => e.action)).toMatchObject([
      { kind: 'createPod', pod: 'etcd-m1', static: true },
      { kind: 'createPod', pod: 'a', static: false },
      { kind: 'deletePod', pod: 'etcd-m1' },
      { kind: 'forceDeletePod', pod: 'a' },
    ]);
  });

  it('map in use, then UnmapDevice fails: multipathFlushBusy, once per refusal; a Block volume from its op', () => {
    const lines = (last: string) =>
      log([
        'I0523 09:00:00.000000 1 kubelet.go:1] "SyncLoop ADD" source="api" pods=[default/a]',
        op('09:00:10.000000', 'MapVolume.MapPodDevice succeeded', 'pod "a" (UID: "u")', 1),
        'E0523 09:01:00.000000 1 multipath.go:1] multipath -f mpatha: map in use',
        'E0523 09:01:01.000000 1 multipath.go:1] multipath -f mpatha: map in use',
        last,
      ]);
    const failed = run({
      'k.log': lines(
        op('09:01:05.000000', 'UnmapDevice failed', 'on node "n1" : flushing the multipath device failed', 1),
      ),
    });
    expect(failed.scenario.volumes[0]).toMatchObject({ mode: 'Block' });
    expect(failed.scenario.timeline.map((e) => e.action)).toContainEqual({
      kind: 'fault',
      fault: { kind: 'unmountDevice', node: 'n1', volume: 'pvc-1', stage: 'multipathFlushBusy', times: 2 },
    });
    // The kubelet went on past the refused flushes: something held the device open (PR #107789).
    const passed = run({ 'k.log': lines(op('09:01:05.000000', 'UnmapDevice succeeded', 'on node "n1"', 1)) });
    expect(passed.scenario.timeline.map((e) => e.action)).toContainEqual({
      kind: 'fault',
      fault: { kind: 'unmountDevice', node: 'n1', volume: 'pvc-1', stage: 'deviceStillOpen', times: 2 },
    });
  });

  it('two files merged by time: a controller-manager line names nodes, a journald host names its node', () => {
    const r = run({
      'node.log': 'May 23 09:00:00 worker-1 kubelet[5]: SyncLoop (ADD, "api"): "web-0_default(u1)"\n',
      'kcm.log':
        'I0523 09:00:01.000000 1 attach_detach_controller.go:1] AttachVolume.Attach succeeded for volume "pvc-9" (UniqueName: "kubernetes.io/csi/ebs^vol-1") from node "worker-1"\n',
    });
    expect(r.scenario.nodes).toEqual(['worker-1']);
    expect(r.scenario.volumes.map((v) => [v.name, v.plugin])).toEqual([['pvc-9', 'csi']]);
  });

  it('no kubelet line: exit-2 error naming the file', () => {
    expect(() => run({ 'x.log': 'hello\n' })).toThrow(InputError);
    expect(() => run({ 'x.log': 'I0523 09:00:00.000000 1 a.go:1] "nothing we know"\n' })).toThrow(
      /x\.log: no kubelet/,
    );
  });

  it('an API pod added again with a new UID while never deleted: the error names the line', () => {
    expect(() =>
      run({
        'k.log': log([
          'I0523 09:00:00.000000 1 kubelet.go:1] SyncLoop (ADD, "api"): "a_default(u1)"',
          'I0523 09:00:01.000000 1 kubelet.go:1] SyncLoop (ADD, "api"): "a_default(u2)"',
        ]),
      }),
    ).toThrow(/^k\.log:2: pod default\/a is added with UID u2/);
  });
});

describe('sourceText', () => {
  it('groups lines per file into ranges', () => {
    const a = readLogText(
      'a.log',
      'I0523 09:00:00.000000 1 a.go:1] x\n more\nI0523 09:00:00.000000 1 a.go:1] y\n',
    ).records;
    const b = readLogText('b.log', 'I0523 09:00:00.000000 1 a.go:1] z\n').records;
    expect(sourceText([...a, ...b])).toBe('a.log:1-3; b.log:1');
  });

  it('a gzip file that does not unpack is one located error naming the file; one cut short imports and says so', () => {
    const notGzip = Buffer.from([0x1f, 0x8b, 0x6e, 0x6f, 0x74]);
    expect(() => importLogs([{ name: 'k.log.gz', bytes: notGzip }], { name: 't' })).toThrow(
      /^k\.log\.gz: starts as gzip but does not unpack/,
    );
    const packed = gzipSync(Buffer.from(BASIC));
    const cut = importLogs([{ name: 'k.log.gz', bytes: packed.subarray(0, packed.length - 12) }], {
      name: 't',
    });
    expect(cut.cutShort).toEqual(['k.log.gz']);
    expect(cut.yaml).toContain('# k.log.gz is a gzip stream cut short: what it holds was read');
  });
});
