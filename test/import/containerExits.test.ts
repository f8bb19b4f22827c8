// A container that exits on its own in a kubelet log (PLEG's ContainerDied with no kill of it before, its
// exit code from generic.go's "container finished") is a crashContainer, and what the kubelet did next
// says the restart policy: started again means Always (or OnFailure), never again while the pod lived on
// means Never. A killed container's death is the kill's, not a crash.
import { describe, expect, it } from 'vitest';
import { RESTART_SEEN_WITHIN_MS, restartPolicyOf } from '../../src/import/containerExits.js';
import { importLogs } from '../../src/import/importLogs.js';

const at = (s: number) => `I0523 09:51:${String(s).padStart(2, '0')}.000000     268`;
const add = `${at(0)} kubelet.go:2100] "SyncLoop ADD" source="api" pods=[default/job]`;
const started = (s: number) =>
  `${at(s)} kubelet.go:2145] "SyncLoop (PLEG): event for pod" pod="default/job" event=&{ID:u1 Type:ContainerStarted Data:abcdef012345}`;
const died = (s: number, exitCode: number) => [
  `${at(s)} generic.go:296] "Generic (PLEG): container finished" podID=u1 containerID="abcdef012345" exitCode=${exitCode}`,
  `${at(s)} kubelet.go:2145] "SyncLoop (PLEG): event for pod" pod="default/job" event=&{ID:u1 Type:ContainerDied Data:abcdef012345}`,
];
const kill = (s: number) =>
  `${at(s)} kuberuntime_container.go:725] "Killing container with a grace period" pod="default/job" podUID=u1 containerName="c1" containerID="containerd://abcdef012345" gracePeriod=30`;
const idle = (s: number) => `${at(s)} kubelet.go:2226] "SyncLoop (housekeeping)"`;
const imported = (lines: string[]) => {
  const r = importLogs([{ name: 'k.log', bytes: Buffer.from(`${lines.join('\n')}\n`) }], { name: 't' });
  return r.scenario.timeline.map((e) => e.action);
};

describe('containers that exit on their own', () => {
  it('a completed container not started again for the rest of the log: a crash with its code, Never', () => {
    const actions = imported([add, started(1), ...died(5, 0), idle(40)]);
    expect(actions).toContainEqual({ kind: 'crashContainer', pod: 'job', container: 'c1', exitCode: 0 });
    expect(actions).toContainEqual(expect.objectContaining({ kind: 'createPod', restartPolicy: 'Never' }));
  });

  it('a failed container started again: a crash, Always', () => {
    const actions = imported([add, started(1), ...died(5, 2), started(6), idle(40)]);
    expect(actions).toContainEqual({ kind: 'crashContainer', pod: 'job', container: 'c1', exitCode: 2 });
    expect(actions).toContainEqual(expect.objectContaining({ kind: 'createPod', restartPolicy: 'Always' }));
  });

  it("a killed container's death is no crash, and tells no policy", () => {
    const actions = imported([add, started(1), kill(4), ...died(5, 137), idle(40)]);
    expect(actions.some((a) => a.kind === 'crashContainer')).toBe(false);
    expect(actions).toContainEqual(expect.objectContaining({ kind: 'createPod', restartPolicy: 'Always' }));
  });

  it('a log that ends too soon after the exit leaves the policy at Always', () => {
    const actions = imported([add, started(1), ...died(5, 0), idle(8)]);
    expect(actions).toContainEqual({ kind: 'crashContainer', pod: 'job', container: 'c1', exitCode: 0 });
    expect(actions).toContainEqual(expect.objectContaining({ kind: 'createPod', restartPolicy: 'Always' }));
  });

  it('restartPolicyOf: OnFailure when only the failed exits were started again', () => {
    const exits = [
      { atMs: 1_000, container: 'c1', exitCode: 1 },
      { atMs: 5_000, container: 'c1', exitCode: 0 },
    ];
    expect(restartPolicyOf(exits, [2_000], 60_000)?.policy).toBe('OnFailure');
    expect(restartPolicyOf(exits, [2_000, 6_000], 60_000)?.policy).toBe('Always');
    expect(restartPolicyOf(exits, [], 60_000)?.policy).toBe('Never');
    expect(restartPolicyOf(exits, [], 5_000 + RESTART_SEEN_WITHIN_MS - 1)?.policy).toBe('Never');
    expect(restartPolicyOf(exits.slice(1), [], 5_000 + RESTART_SEEN_WITHIN_MS - 1)).toBeNull();
    expect(restartPolicyOf([], [], 60_000)).toBeNull();
  });
});
