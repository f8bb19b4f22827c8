// Container start delays read from a log: PLEG's ContainerStarted later than the pod could start the
// container (its ADD, or its last volume set up) by more than the runtime's own pace is a startDelay.
import { describe, expect, it } from 'vitest';
import { importLogs } from '../../src/import/importLogs.js';
import type { Action } from '../../src/scenario/types.js';

const UNIQUE = 'kubernetes.io/iscsi/10.0.0.1:3260:iqn.x:lun-0';
const add = (t: string) =>
  `I0523 ${t}     268 kubelet.go:2100] "SyncLoop ADD" source="api" pods=[default/web-0]`;
const started = (t: string, id: string) =>
  `I0523 ${t}     268 kubelet.go:2145] "SyncLoop (PLEG): event for pod" pod="default/web-0" event=&{ID:u1 Type:ContainerStarted Data:${id}}`;
const kill = (t: string, name: string, id: string) =>
  `I0523 ${t}     268 kuberuntime_container.go:725] "Killing container with a grace period" pod="default/web-0" podUID=u1 containerName="${name}" containerID="containerd://${id}" gracePeriod=30`;
const setUp = (t: string) =>
  `I0523 ${t}     268 operation_generator.go:1] MountVolume.SetUp succeeded for volume "pvc-1" (UniqueName: "${UNIQUE}") pod "web-0" (UID: "u1")`;

const create = (lines: string[]) => {
  const r = importLogs([{ name: 'k.log', bytes: Buffer.from(`${lines.join('\n')}\n`) }], { name: 't' });
  const c = r.scenario.timeline.find((e) => e.action.kind === 'createPod')?.action;
  return { yaml: r.yaml, containers: (c as Extract<Action, { kind: 'createPod' }>).containers };
};

describe('start delays from PLEG', () => {
  it('a container named by its kill, started 5 s after the ADD: 4.7 s', () => {
    const r = create([
      add('09:50:00.000000'),
      started('09:50:05.000000', 'abcdef01'),
      kill('09:50:09.000000', 'app', 'abcdef01'),
    ]);
    expect(r.containers).toEqual([{ name: 'app', startDelayMs: 4_700 }]);
    expect(r.yaml).toContain('# guess: container app started 4.70s later than the pod could start it');
  });

  it('unnamed containers take the started IDs in order; a prompt one gets none', () => {
    const r = create([
      add('09:50:00.000000'),
      started('09:50:00.500000', 'aaaaaa01'),
      started('09:50:03.300000', 'bbbbbb02'),
    ]);
    expect(r.containers).toEqual([
      { name: 'c1', startDelayMs: null },
      { name: 'c2', startDelayMs: 3_000 },
    ]);
  });

  it('counts from the last volume set up: a start right after its mount is no delay', () => {
    const r = create([
      add('09:50:00.000000'),
      setUp('09:50:12.000000'),
      started('09:50:12.400000', 'abcdef01'),
    ]);
    expect(r.containers).toEqual([{ name: 'c1', startDelayMs: null }]);
  });
});
