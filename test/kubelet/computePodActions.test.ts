// computePodActions (kuberuntime_manager.go, release-1.20 and 1.23 alike) and ShouldContainerBeRestarted
// (container/helpers.go), as pure functions of the pod and its runtime status.
import { describe, expect, it } from 'vitest';
import type { Pod, RestartPolicy, RuntimeContainerStatus, RuntimePodStatus } from '../../src/api/v1.js';
import {
  computePodActions,
  shouldContainerBeRestarted,
} from '../../src/kubelet/kuberuntime/kuberuntimeManager.js';

function pod(restartPolicy: RestartPolicy, containers = ['a', 'b'], deleting = false): Pod {
  return {
    metadata: {
      uid: 'u1',
      name: 'job',
      namespace: 'default',
      annotations: {},
      ...(deleting ? { deletionTimestamp: 5000, deletionGracePeriodSeconds: 30 } : {}),
    },
    spec: {
      nodeName: 'node-a',
      containers: containers.map((name) => ({ name })),
      volumes: [],
      restartPolicy,
    },
    status: { phase: 'Running', containerStatuses: [] },
  };
}

function container(
  name: string,
  state: RuntimeContainerStatus['state'],
  createdAtMs: number,
  exitCode?: number,
): RuntimeContainerStatus {
  return { id: `u1/${name}/${createdAtMs}`, name, state, createdAtMs, exitCode };
}

function status(
  sandbox: 'none' | 'ready' | 'not-ready',
  containers: readonly RuntimeContainerStatus[],
): RuntimePodStatus {
  return {
    id: 'u1',
    name: 'job',
    namespace: 'default',
    containerStatuses: containers,
    sandboxStatuses: sandbox === 'none' ? [] : [{ id: 'u1/sandbox/1', ready: sandbox === 'ready' }],
    timestampMs: 0,
  };
}

describe('computePodActions with a sandbox to (re)create', () => {
  it('restartPolicy Never with containers in a dead sandbox: kill, no new sandbox, nothing to start', () => {
    const s = status('not-ready', [container('a', 'exited', 100, 137), container('b', 'running', 110)]);
    expect(computePodActions(pod('Never'), s)).toEqual({
      killPod: true,
      createSandbox: false,
      attempt: 1,
      containersToStart: [],
    });
  });

  it('restartPolicy Never with no container status yet: the sandbox is retried', () => {
    expect(computePodActions(pod('Never'), status('not-ready', []))).toMatchObject({
      createSandbox: true,
      containersToStart: [0, 1],
    });
  });

  it('restartPolicy Never without any sandbox (attempt 0): a first sandbox, every container', () => {
    const s = status('none', [container('a', 'exited', 100, 0)]);
    expect(computePodActions(pod('Never'), s)).toMatchObject({
      killPod: true,
      createSandbox: true,
      attempt: 0,
      containersToStart: [0, 1],
    });
  });

  it('Always restarts every container in the new sandbox', () => {
    const s = status('not-ready', [container('a', 'exited', 100, 0), container('b', 'exited', 110, 1)]);
    expect(computePodActions(pod('Always'), s)).toMatchObject({
      createSandbox: true,
      containersToStart: [0, 1],
    });
  });

  it('OnFailure skips the containers that succeeded, and creates no sandbox when all did', () => {
    const some = status('not-ready', [container('a', 'exited', 100, 0), container('b', 'exited', 110, 2)]);
    expect(computePodActions(pod('OnFailure'), some)).toMatchObject({
      createSandbox: true,
      containersToStart: [1],
    });
    const all = status('not-ready', [container('a', 'exited', 100, 0), container('b', 'exited', 110, 0)]);
    expect(computePodActions(pod('OnFailure'), all)).toEqual({
      killPod: true,
      createSandbox: false,
      attempt: 1,
      containersToStart: [],
    });
  });
});

describe('computePodActions with a ready sandbox', () => {
  it('keeps running containers and starts the missing ones', () => {
    const s = status('ready', [container('a', 'running', 100)]);
    expect(computePodActions(pod('Never'), s)).toEqual({
      killPod: false,
      createSandbox: false,
      attempt: 0,
      containersToStart: [1],
    });
  });

  it('a container left in the created state (its start never finished) is started again', () => {
    const s = status('ready', [container('a', 'running', 100), container('b', 'created', 110)]);
    expect(computePodActions(pod('Never'), s).containersToStart).toEqual([1]);
  });

  it('the newest attempt by creation decides, even if it never started', () => {
    const s = status('ready', [
      container('a', 'running', 100),
      container('b', 'exited', 50, 1),
      container('b', 'created', 120),
    ]);
    expect(computePodActions(pod('Never'), s).containersToStart).toEqual([1]);
  });

  it('a pod with nothing running and nothing to start is killed', () => {
    const s = status('ready', [container('a', 'exited', 100, 0), container('b', 'exited', 110, 1)]);
    expect(computePodActions(pod('Never'), s)).toEqual({
      killPod: true,
      createSandbox: false,
      attempt: 0,
      containersToStart: [],
    });
  });
});

describe('ShouldContainerBeRestarted', () => {
  const exited0 = status('ready', [container('a', 'exited', 100, 0)]);
  const exited1 = status('ready', [container('a', 'exited', 100, 1)]);
  it('follows the restart policy for exited containers', () => {
    expect(shouldContainerBeRestarted(pod('Always'), 'a', exited0)).toBe(true);
    expect(shouldContainerBeRestarted(pod('OnFailure'), 'a', exited0)).toBe(false);
    expect(shouldContainerBeRestarted(pod('OnFailure'), 'a', exited1)).toBe(true);
    expect(shouldContainerBeRestarted(pod('Never'), 'a', exited1)).toBe(false);
  });

  it('never restarts a container of a pod marked for deletion', () => {
    expect(shouldContainerBeRestarted(pod('Always', ['a'], true), 'a', exited1)).toBe(false);
    expect(shouldContainerBeRestarted(pod('Always', ['a'], true), 'a', status('ready', []))).toBe(false);
  });
});
