// StopContainer failures in a kubelet log (kuberuntime_container.go killContainer's "Container termination
// failed with gracePeriod", and the pre-1.21 printf form that names only the container ID) become one
// stopContainer fault per container, `times` = failures in a row until the container dies, armed at the
// pod's deletion. A force-deleted pod's spec grace under the 1.20 kubelet is its podKiller's retry.
import { describe, expect, it } from 'vitest';
import { importLogs } from '../../src/import/importLogs.js';
import { STOP_CONTAINER_DEFAULT_ERROR } from '../../src/runtime/stopFaults.js';

const at = (s: number) => `I0523 09:51:${String(s).padStart(2, '0')}.000000     268`;
const e = (s: number) => `E0523 09:51:${String(s).padStart(2, '0')}.000000     268`;
const add = `${at(0)} kubelet.go:2100] "SyncLoop ADD" source="api" pods=[default/web]`;
const started = `${at(1)} kubelet.go:2145] "SyncLoop (PLEG): event for pod" pod="default/web" event=&{ID:u1 Type:ContainerStarted Data:abcdef012345}`;
const remove = (s: number) => `${at(s)} kubelet.go:2127] "SyncLoop REMOVE" source="api" pods=[default/web]`;
const who =
  'pod="default/web" podUID=u1 containerName="app" containerID="containerd://abcdef012345" gracePeriod=30';
const kill = (s: number) =>
  `${at(s)} kuberuntime_container.go:725] "Killing container with a grace period" ${who}`;
const failed = (s: number, err = 'rpc error: code = DeadlineExceeded desc = context deadline exceeded') =>
  `${e(s)} kuberuntime_container.go:730] "Container termination failed with gracePeriod" err="${err}" ${who}`;
const died = (s: number) =>
  `${at(s)} kubelet.go:2145] "SyncLoop (PLEG): event for pod" pod="default/web" event=&{ID:u1 Type:ContainerDied Data:abcdef012345}`;
const idle = (s: number) => `${at(s)} kubelet.go:2226] "SyncLoop (housekeeping)"`;
const imported = (lines: string[]) => {
  const r = importLogs([{ name: 'k.log', bytes: Buffer.from(`${lines.join('\n')}\n`) }], { name: 't' });
  return r.scenario.timeline.map((x) => ({ atMs: x.atMs, action: x.action }));
};

describe('StopContainer failures', () => {
  it('failures in a row are one fault, armed before the deletion that led to the kills, with the logged error', () => {
    const t = imported([add, started, remove(10), kill(10), failed(10), kill(11), failed(11), idle(40)]);
    const i = t.findIndex((x) => x.action.kind === 'fault');
    expect(t[i]).toEqual({
      atMs: 10_000,
      action: {
        kind: 'fault',
        fault: {
          kind: 'stopContainer',
          pod: 'web',
          container: 'app',
          times: 2,
          error: 'rpc error: code = DeadlineExceeded desc = context deadline exceeded',
        },
      },
    });
    expect(t[i + 1]?.action.kind).toBe('forceDeletePod');
  });

  it("the container's death ends a run of failures; podrace's own default text is not written back", () => {
    const t = imported([
      add,
      started,
      remove(10),
      kill(10),
      failed(10, STOP_CONTAINER_DEFAULT_ERROR.replace(/"/g, '\\"')),
      kill(12),
      died(13),
      idle(40),
    ]);
    const faults = t.flatMap((x) => (x.action.kind === 'fault' ? [x.action.fault] : []));
    expect(faults).toEqual([{ kind: 'stopContainer', pod: 'web', container: 'app', times: 1, error: null }]);
  });

  it('the pre-1.21 line names the container by ID: the pod is the one that started it', () => {
    const old = `${e(10)} kuberuntime_container.go:600] Container "containerd://abcdef012345" termination failed with gracePeriod 30: rpc error: code = Unknown desc = boom`;
    const t = imported([add, started, remove(10), old, idle(40)]);
    const faults = t.flatMap((x) => (x.action.kind === 'fault' ? [x.action.fault] : []));
    expect(faults).toEqual([
      {
        kind: 'stopContainer',
        pod: 'web',
        container: null,
        times: 1,
        error: 'rpc error: code = Unknown desc = boom',
      },
    ]);
  });

  it("a REMOVE while the container still runs after a DELETE is a force deletion; its longer kill is the spec's grace", () => {
    const del = `${at(10)} kubelet.go:2130] "SyncLoop DELETE" source="api" pods=[default/web]`;
    const k = (s: number, g: number) =>
      `${at(s)} kuberuntime_container.go:725] "Killing container with a grace period" ${who.replace('gracePeriod=30', `gracePeriod=${g}`)}`;
    const t = imported([add, started, del, k(10, 5), failed(10), remove(14), k(14, 60), died(20), idle(40)]);
    expect(t.map((x) => x.action)).toEqual([
      expect.objectContaining({ kind: 'createPod', gracePeriodS: 60 }),
      expect.objectContaining({ kind: 'fault' }),
      { kind: 'deletePod', pod: 'web', gracePeriodS: 5 },
      { kind: 'forceDeletePod', pod: 'web' },
    ]);
    // The kubelet's own REMOVE after the containers died finalises the graceful deletion: nothing more.
    const graceful = imported([add, started, del, k(10, 5), died(11), remove(12), idle(40)]);
    expect(graceful.map((x) => x.action.kind)).toEqual(['createPod', 'deletePod']);
  });

  it("a force-deleted pod's first kill at killContainer's 2 s minimum is not its spec grace; the podKiller's retry is", () => {
    const k = (s: number, g: number) =>
      `${at(s)} kuberuntime_container.go:725] "Killing container with a grace period" ${who.replace('gracePeriod=30', `gracePeriod=${g}`)}`;
    const t = imported([add, started, remove(10), k(10, 2), failed(10), k(12, 30), idle(40)]);
    expect(t[0]?.action).toEqual(expect.objectContaining({ kind: 'createPod', gracePeriodS: 30 }));
  });
});
