// An eviction's grace period read from the kill after it, by release: release-1.20 kills with the override,
// 1.22 to 1.30 turn a hard eviction's 0 into the spec's grace (#115819), 1.31 kills a hard eviction in 1 s
// (#124063). The importer turns #115819's report into a hard eviction of a pod whose spec grace it shows.
import { describe, expect, it } from 'vitest';
import { readEviction } from '../../src/import/evictionGrace.js';
import { importLogs } from '../../src/import/importLogs.js';

const kubeletLog = (version: string, grace: number) =>
  [
    `I0523 09:50:58.000000     268 server.go:446] "Kubelet version" kubeletVersion="v${version}"`,
    'I0523 09:50:58.100000     268 kubelet.go:2100] "SyncLoop ADD" source="api" pods=[default/evictdiskpod]',
    'I0523 09:51:10.000000     268 eviction_manager.go:566] "Evicting pod" pod="default/evictdiskpod" podUID=u1 message="The node was low on resource: ephemeral-storage."',
    `I0523 09:51:10.040000     268 kuberuntime_container.go:725] "Killing container with a grace period" pod="default/evictdiskpod" podUID=u1 containerName="busybox" containerID="containerd://ab" gracePeriod=${grace}`,
    '',
  ].join('\n');
const imported = (version: string, grace: number) =>
  importLogs([{ name: 'k.log', bytes: Buffer.from(kubeletLog(version, grace)) }], { name: 't' });

describe('the grace period of an eviction in a log', () => {
  it('reads a kill of G > 1 before 1.31 as a hard eviction of a pod whose spec grace is G (#115819)', () => {
    expect(readEviction('1.30', 60)).toMatchObject({ overrideS: 0, specGraceS: 60 });
    expect(readEviction('1.22', 60)).toMatchObject({ overrideS: 0, specGraceS: 60 });
    const r = imported('1.30.2', 60);
    const actions = r.scenario.timeline.map((e) => e.action);
    expect(actions).toContainEqual(expect.objectContaining({ kind: 'createPod', gracePeriodS: 60 }));
    expect(actions).toContainEqual({ kind: 'evictPod', pod: 'evictdiskpod', gracePeriodS: 0 });
    expect(r.yaml).toContain('# guess: a kill of 60s after it: a hard eviction');
  });

  it('reads 1.31 by #124063: a kill of 1 s is a hard eviction, a longer one a soft eviction', () => {
    expect(readEviction('1.31', 1)).toMatchObject({ overrideS: 0, specGraceS: null });
    expect(readEviction('1.31', 20)).toMatchObject({ overrideS: 20, specGraceS: null });
    const actions = imported('1.31.0', 1).scenario.timeline.map((e) => e.action);
    expect(actions).toContainEqual({ kind: 'evictPod', pod: 'evictdiskpod', gracePeriodS: 0 });
  });

  it("reads release-1.20's and an unnamed release's kill as the override itself", () => {
    expect(readEviction('1.20', 0)).toEqual({ overrideS: 0, specGraceS: null, guess: null });
    expect(readEviction('1.20', 5)).toEqual({ overrideS: 5, specGraceS: null, guess: null });
    expect(readEviction(null, 5)).toEqual({ overrideS: 5, specGraceS: null, guess: null });
    expect(readEviction('1.25', null)).toMatchObject({ overrideS: 0, specGraceS: null });
  });
});

describe('a second deletion of a pod that is terminating', () => {
  const log = (secondKillGrace: number | null) =>
    [
      'I0523 09:50:58.100000     268 kubelet.go:2100] "SyncLoop ADD" source="api" pods=[default/web-0]',
      'I0523 09:51:00.000000     268 kubelet.go:2110] "SyncLoop DELETE" source="api" pods=[default/web-0]',
      'I0523 09:51:00.040000     268 kuberuntime_container.go:725] "Killing container with a grace period" pod="default/web-0" podUID=u1 containerName="app" containerID="containerd://ab" gracePeriod=30',
      'I0523 09:51:03.000000     268 kubelet.go:2110] "SyncLoop DELETE" source="api" pods=[default/web-0]',
      ...(secondKillGrace === null
        ? []
        : [
            `I0523 09:51:03.040000     268 kuberuntime_container.go:725] "Killing container with a grace period" pod="default/web-0" podUID=u1 containerName="app" containerID="containerd://ab" gracePeriod=${secondKillGrace}`,
          ]),
      'I0523 09:51:05.000000     268 kubelet.go:2120] "SyncLoop REMOVE" source="api" pods=[default/web-0]',
      '',
    ].join('\n');
  const deletions = (secondKillGrace: number | null) =>
    importLogs([{ name: 'k.log', bytes: Buffer.from(log(secondKillGrace)) }], { name: 't' })
      .scenario.timeline.filter((e) => e.action.kind === 'deletePod')
      .map((e) => [e.atMs, e.action.kind === 'deletePod' ? e.action.gracePeriodS : undefined]);

  it('reads a DELETE followed by a shorter kill as a deletion with that grace (kubectl delete --grace-period)', () => {
    expect(deletions(5)).toEqual([
      [1900, null],
      [4900, 5],
    ]);
  });

  it('reads a DELETE with no shorter kill after it as no deletion (the pod object changed otherwise)', () => {
    expect(deletions(null)).toEqual([[1900, null]]);
    expect(deletions(30)).toEqual([[1900, null]]);
  });
});
