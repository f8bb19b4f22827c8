// What happened while a kubelet was down, read off what the restarted one logs (nodeEvents.ts readRelist,
// podEvents.ts): its config sources list the node's pods as they are then, one ADD per source, and it
// logs nothing of a pod deleted meanwhile. A pod that ran before and is not listed was deleted while it
// was down; a listed pod it kills at once, with nothing before the kill, was listed terminating (deleted
// gracefully meanwhile); a static pod whose containers come back under another UID had its manifest
// changed. Housekeeping's 1 s orphan kill is not read as a pod's grace.
import { describe, expect, it } from 'vitest';
import { importLogs } from '../../src/import/importLogs.js';

const run = (lines: string[]) =>
  importLogs([{ name: 'k.log', bytes: Buffer.from(`${lines.join('\n')}\n`) }], { name: 't' });
const actions = (r: ReturnType<typeof run>) =>
  r.scenario.timeline.map((e) => {
    const a = e.action;
    const pod = 'pod' in a ? ` ${a.pod}` : '';
    return `${e.atMs / 1000}s ${a.kind}${pod}`;
  });
const created = (r: ReturnType<typeof run>, pod: string) =>
  r.scenario.timeline.find((e) => e.action.kind === 'createPod' && e.action.pod === pod)?.action;

const h = (t: string, pid: number, src: string) => `I0523 09:${t}     ${pid} ${src}]`;
const add = (t: string, pid: number, pods: string, source = 'api') =>
  `${h(t, pid, 'kubelet.go:2100')} "SyncLoop ADD" source="${source}" pods=[${pods}]`;
const started = (t: string, pid: number, pod: string, uid: string, id: string) =>
  `${h(t, pid, 'kubelet.go:2145')} "SyncLoop (PLEG): event for pod" pod="default/${pod}" event=&{ID:${uid} Type:ContainerStarted Data:${id}}`;
const kill = (t: string, pid: number, pod: string, uid: string, id: string, grace: number) =>
  `${h(t, pid, 'kuberuntime_container.go:725')} "Killing container with a grace period" pod="default/${pod}" podUID=${uid} containerName="c1" containerID="containerd://${id}" gracePeriod=${grace}`;

describe('a kubelet restart', () => {
  it('a pod the restarted kubelet does not list was deleted while it was down; its orphan kill is no grace', () => {
    const r = run([
      add('50:00.000000', 100, 'default/web default/db'),
      started('50:01.000000', 100, 'web', 'u-web', 'aaa'),
      started('50:01.000000', 100, 'db', 'u-db', 'bbb'),
      add('50:40.000000', 200, 'default/db'),
      kill('50:42.000000', 200, 'web', 'u-web', 'aaa', 1),
    ]);
    expect(actions(r)).toEqual([
      '0s createPod web',
      '0s createPod db',
      '1s restartKubelet',
      '20.5s forceDeletePod web',
    ]);
    expect(r.yaml).toContain(
      '# guess: deleted while the kubelet was down (the restarted kubelet does not list it)',
    );
    expect(created(r, 'web')).not.toHaveProperty('gracePeriodS', 1);
  });

  it('a restarted kubelet that lists no API pod (no ADD, its sync loop logging) lost them all', () => {
    const r = run([
      add('50:00.000000', 100, 'default/web'),
      started('50:01.000000', 100, 'web', 'u-web', 'aaa'),
      `${h('50:40.000000', 200, 'kubelet.go:2145')} "SyncLoop (PLEG): event for pod" pod="default/web" event=&{ID:u-web Type:ContainerDied Data:aaa}`,
    ]);
    expect(actions(r)).toContain('20.5s forceDeletePod web');
  });

  it('a listed pod killed at once, nothing before: deleted gracefully while down, with the grace its kill shows', () => {
    const r = run([
      add('50:00.000000', 100, 'default/db'),
      started('50:01.000000', 100, 'db', 'u-db', 'bbb'),
      add('50:40.000000', 200, 'default/db'),
      kill('50:41.000000', 200, 'db', 'u-db', 'bbb', 45),
    ]);
    expect(actions(r)).toEqual(['0s createPod db', '1s restartKubelet', '20.5s deletePod db']);
    expect(created(r, 'db')).toMatchObject({ gracePeriodS: 45 });
    expect(r.yaml).toContain('the restarted kubelet listed it, then killed it');
  });

  it('a listed pod killed more than a minute after the start is no deletion while down', () => {
    const r = run([
      add('50:00.000000', 100, 'default/db'),
      started('50:01.000000', 100, 'db', 'u-db', 'bbb'),
      add('50:40.000000', 200, 'default/db'),
      kill('52:00.000000', 200, 'db', 'u-db', 'bbb', 45),
    ]);
    expect(actions(r)).toEqual(['0s createPod db', '1s restartKubelet']);
  });

  it('a static pod whose containers come back under another UID: its manifest changed while the kubelet was down', () => {
    const r = run([
      add('50:00.000000', 100, 'default/etcd', 'file'),
      started('50:00.200000', 100, 'etcd', 'static-1', 'aaa'),
      add('50:15.000000', 200, 'default/etcd', 'file'),
      started('50:15.400000', 200, 'etcd', 'static-2', 'ccc'),
      kill('50:17.000000', 200, 'etcd', 'static-1', 'aaa', 1),
    ]);
    expect(actions(r)).toEqual([
      '0s createPod etcd',
      '0.2s restartKubelet',
      '7.6s deletePod etcd',
      '15s createPod etcd',
    ]);
    expect(r.yaml).toContain('its manifest changed while the kubelet was down');
  });

  it('a start line after other work is a restart, with the same PID (a kubelet in a container) or none (JSON)', () => {
    const starting = (t: string, pid: number) =>
      `${h(t, pid, 'kubelet.go:2031')} "Starting kubelet main sync loop"`;
    const version = (t: string, pid: number) =>
      `${h(t, pid, 'server.go:446')} "Kubelet version" kubeletVersion="v1.23.13"`;
    const samePid = run([
      version('50:00.000000', 1),
      starting('50:00.000000', 1),
      add('50:00.000000', 1, 'default/web'),
      started('50:01.000000', 1, 'web', 'u-web', 'aaa'),
      version('50:30.000000', 1),
      starting('50:30.000000', 1),
      add('50:30.000000', 1, 'default/web'),
    ]);
    expect(actions(samePid)).toEqual(['0s createPod web', '1s restartKubelet']);
    expect(samePid.scenario.timeline[1]?.action).toMatchObject({ downForMs: 29_000 });
    expect(samePid.yaml).toContain('# the kubelet started again (the same PID, 1)');
    // Its start lines in a row are one start, and a log that begins with them has no restart before.
    expect(
      actions(
        run([version('50:00.000000', 1), starting('50:00.000000', 1), add('50:00.000000', 1, 'default/web')]),
      ),
    ).toEqual(['0s createPod web']);

    const json = (ts: number, msg: string, kv: Record<string, unknown> = {}) =>
      JSON.stringify({ ts, caller: 'kubelet/kubelet.go:2031', msg, v: 0, ...kv });
    const t0 = Date.UTC(2024, 4, 23, 9, 50, 0);
    const noPid = run([
      json(t0, 'Starting kubelet main sync loop'),
      json(t0 + 500, 'SyncLoop ADD', { source: 'api', pods: [{ name: 'web', namespace: 'default' }] }),
      json(t0 + 40_000, 'Starting kubelet main sync loop'),
      json(t0 + 40_500, 'SyncLoop ADD', { source: 'api', pods: [{ name: 'db', namespace: 'default' }] }),
    ]);
    expect(actions(noPid)).toEqual([
      '0.5s createPod web',
      '0.5s restartKubelet',
      '20.25s forceDeletePod web',
      '40.5s createPod db',
    ]);
    expect(noPid.yaml).toContain('# the kubelet started again (the log names no PID)');
  });

  it("the file source's list first says nothing of the API's: a pod listed by the API ADD after it stays", () => {
    const r = run([
      add('50:00.000000', 100, 'default/etcd', 'file'),
      add('50:00.000000', 100, 'default/web'),
      started('50:01.000000', 100, 'web', 'u-web', 'aaa'),
      add('50:40.000000', 200, 'default/etcd', 'file'),
      add('50:40.000000', 200, 'default/web'),
    ]);
    expect(actions(r)).toEqual(['0s createPod etcd', '0s createPod web', '1s restartKubelet']);
  });
});
