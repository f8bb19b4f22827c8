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
