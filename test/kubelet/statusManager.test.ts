// status_manager.go's guard against illegal container state transitions, and the terminated status that
// convertToAPIContainerStatuses keeps for a container the runtime no longer lists.
import { describe, expect, it } from 'vitest';
import type { ContainerStatus, Pod, RestartPolicy } from '../../src/api/v1.js';
import type { KubeClient } from '../../src/kubelet/kubeClient.js';
import { apiContainerStatuses, generateAPIPodStatus } from '../../src/kubelet/status/generate.js';
import { checkContainerStateTransition, StatusManager } from '../../src/kubelet/status/statusManager.js';
import { ProcessGroup, Sim } from '../../src/sim/index.js';

const terminated = (exitCode: number): ContainerStatus => ({ name: 'app', state: 'terminated', exitCode });
const running: ContainerStatus = { name: 'app', state: 'running' };
const waiting: ContainerStatus = { name: 'app', state: 'waiting', reason: 'ContainerCreating' };

function pod(restartPolicy: RestartPolicy): Pod {
  return {
    metadata: { uid: 'u1', name: 'job', namespace: 'default', annotations: {} },
    spec: { nodeName: 'node-a', containers: [{ name: 'app' }], volumes: [], restartPolicy },
    status: { phase: 'Pending', containerStatuses: [] },
  };
}

describe('checkContainerStateTransition', () => {
  it('refuses terminated -> running or waiting for Never, and for OnFailure after exit 0', () => {
    for (const next of [running, waiting]) {
      expect(checkContainerStateTransition([terminated(0)], [next], 'Never')?.message).toBe(
        'terminated container app attempted illegal transition to non-terminated state',
      );
      expect(checkContainerStateTransition([terminated(1)], [next], 'Never')).toBeDefined();
      expect(checkContainerStateTransition([terminated(0)], [next], 'OnFailure')).toBeDefined();
    }
  });

  it('allows Always, OnFailure after a failure, and anything that was not terminated', () => {
    expect(checkContainerStateTransition([terminated(0)], [running], 'Always')).toBeUndefined();
    expect(checkContainerStateTransition([terminated(1)], [running], 'OnFailure')).toBeUndefined();
    expect(checkContainerStateTransition([running], [terminated(0)], 'Never')).toBeUndefined();
    expect(checkContainerStateTransition([waiting], [running], 'Never')).toBeUndefined();
    expect(checkContainerStateTransition([terminated(0)], [terminated(137)], 'Never')).toBeUndefined();
  });
});

describe('StatusManager.setPodStatus', () => {
  /** The manager is never started: these tests read its cache, no API call is made. */
  function manager(): { sm: StatusManager } {
    const sim = new Sim(1);
    const unused = (): never => {
      throw new Error('the status manager called the API server');
    };
    const client: KubeClient = {
      getPod: unused,
      patchPodStatus: unused,
      deletePod: unused,
      getNode: unused,
      patchNodeStatus: unused,
      renewLease: unused,
      getVolumesAttached: unused,
      createMirrorPod: unused,
      deleteMirrorPod: unused,
    };
    const sm = new StatusManager(
      sim,
      new ProcessGroup('kubelet'),
      client,
      { getPodByUID: () => undefined },
      { podResourcesAreReclaimed: () => false },
    );
    return { sm };
  }

  it('aborts an update that would take a Never pod container out of terminated', () => {
    const { sm } = manager();
    const p = pod('Never');
    sm.setPodStatus(p, { phase: 'Succeeded', containerStatuses: [terminated(0)] });
    sm.setPodStatus(p, { phase: 'Running', containerStatuses: [running] });
    expect(sm.getPodStatus('u1')).toEqual({ phase: 'Succeeded', containerStatuses: [terminated(0)] });
  });

  it('judges the first update against the API status when nothing is cached', () => {
    const { sm } = manager();
    const p: Pod = {
      ...pod('OnFailure'),
      status: { phase: 'Succeeded', containerStatuses: [terminated(0)] },
    };
    sm.setPodStatus(p, { phase: 'Running', containerStatuses: [running] });
    expect(sm.getPodStatus('u1')).toBeUndefined();
  });

  it('lets an Always pod restart its container', () => {
    const { sm } = manager();
    const p = pod('Always');
    sm.setPodStatus(p, { phase: 'Running', containerStatuses: [terminated(1)] });
    sm.setPodStatus(p, { phase: 'Running', containerStatuses: [running] });
    expect(sm.getPodStatus('u1')?.containerStatuses).toEqual([running]);
  });
});

describe('convertToAPIContainerStatuses', () => {
  it('keeps the previous terminated status of a container the runtime no longer lists', () => {
    const p = pod('Never');
    const gone = { id: 'u1', name: 'job', namespace: 'default', containerStatuses: [], sandboxStatuses: [] };
    const runtime = { ...gone, timestampMs: 0 };
    expect(apiContainerStatuses(p, runtime, [terminated(0)])).toEqual([terminated(0)]);
    expect(apiContainerStatuses(p, runtime, [running])).toEqual([waiting]);
    const status = generateAPIPodStatus(p, runtime, {
      phase: 'Succeeded',
      containerStatuses: [terminated(0)],
    });
    expect(status).toEqual({ phase: 'Succeeded', containerStatuses: [terminated(0)] });
  });
});

describe('StatusManager.syncPod against a pod re-created under the same name', () => {
  // status_manager.go syncPod: a fetched pod whose UID differs was deleted and re-created ("skipping
  // status update", and the old UID's status is dropped); otherwise the patch and the final delete carry
  // the fetched pod's UID as their precondition.
  function world(apiPod: Pod) {
    const sim = new Sim(1);
    const calls: string[] = [];
    const unused = (): never => {
      throw new Error('unexpected API call');
    };
    const client: KubeClient = {
      // biome-ignore lint/correctness/useYield: a fake API answering at once
      getPod: function* () {
        calls.push(`get ${apiPod.metadata.name}`);
        return apiPod;
      },
      // biome-ignore lint/correctness/useYield: a fake API answering at once
      patchPodStatus: function* (uid) {
        calls.push(`patch ${uid}`);
        return undefined;
      },
      // biome-ignore lint/correctness/useYield: a fake API answering at once
      deletePod: function* (_ns, _name, uid) {
        calls.push(`delete ${uid}`);
        return undefined;
      },
      getNode: unused,
      patchNodeStatus: unused,
      renewLease: unused,
      getVolumesAttached: unused,
      createMirrorPod: unused,
      deleteMirrorPod: unused,
    };
    const sm = new StatusManager(
      sim,
      new ProcessGroup('kubelet'),
      client,
      { getPodByUID: () => undefined },
      { podResourcesAreReclaimed: () => true },
    );
    sm.start();
    return { sim, sm, calls };
  }

  it("skips the old UID's status and forgets it when the name now holds another pod", () => {
    const old = pod('Never');
    const recreated: Pod = { ...old, metadata: { ...old.metadata, uid: 'u2' } };
    const { sim, sm, calls } = world(recreated);
    sm.setPodStatus(old, { phase: 'Succeeded', containerStatuses: [terminated(0)] });
    sim.run({ horizonMs: 25_000, maxEvents: 10_000 });
    expect(calls).toEqual(['get job']);
    expect(sm.getPodStatus('u1')).toBeUndefined();
  });

  it('patches and deletes the fetched pod with its own UID as the precondition', () => {
    const p = pod('Never');
    const deleting: Pod = { ...p, metadata: { ...p.metadata, deletionTimestamp: 1_000 } };
    const { sim, sm, calls } = world(deleting);
    sm.setPodStatus(deleting, { phase: 'Succeeded', containerStatuses: [terminated(0)] });
    sim.run({ horizonMs: 5_000, maxEvents: 10_000 });
    expect(calls).toEqual(['get job', 'patch u1', 'delete u1']);
  });
});
