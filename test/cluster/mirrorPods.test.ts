// Mirror pods in the API server and in the kubelet's pod manager and config: API objects the node's
// watch delivers, kept apart from the pods that users, controllers and invariants count.
import { describe, expect, it } from 'vitest';
import { GoError, StatusError } from '../../src/api/errors.js';
import {
  ApiserverSource,
  ConfigHashAnnotationKey,
  ConfigMirrorAnnotationKey,
  ConfigSourceAnnotationKey,
  FileSource,
  isStaticPod,
  type Pod,
} from '../../src/api/v1.js';
import { APIServer } from '../../src/cluster/apiServer.js';
import type { Fact } from '../../src/facts.js';
import { PodConfig, type PodUpdate } from '../../src/kubelet/config/podConfig.js';
import { BasicMirrorClient } from '../../src/kubelet/pod/mirrorClient.js';
import { BasicPodManager } from '../../src/kubelet/pod/podManager.js';
import { type Co, ProcessGroup, Sim } from '../../src/sim/index.js';

function staticPod(uid: string, name = 'etcd'): Pod {
  return {
    metadata: {
      uid,
      name,
      namespace: 'default',
      annotations: { [ConfigSourceAnnotationKey]: FileSource, [ConfigHashAnnotationKey]: uid },
    },
    spec: { nodeName: 'node-a', containers: [{ name: 'c1' }], volumes: [], restartPolicy: 'Always' },
    status: { phase: 'Pending', containerStatuses: [] },
  };
}

function apiPod(uid: string, name: string): Pod {
  return {
    metadata: {
      uid,
      name,
      namespace: 'default',
      annotations: { [ConfigSourceAnnotationKey]: ApiserverSource },
    },
    spec: { nodeName: 'node-a', containers: [{ name: 'c1' }], volumes: [], restartPolicy: 'Always' },
    status: { phase: 'Pending', containerStatuses: [] },
  };
}

function world() {
  const sim = new Sim(1);
  const facts: Fact[] = [];
  const api = new APIServer(sim, sim.rng.fork('apiserver'), (f) => facts.push(f));
  api.addNode('node-a');
  const client = new BasicMirrorClient(api.client());
  const run = (body: () => Co<void>): void => {
    sim.spawn('test', body());
    sim.run({ horizonMs: sim.nowMs + 60_000, maxEvents: 100_000 });
  };
  return { sim, api, facts, client, run };
}

describe('mirror pods in the API server', () => {
  it('CreateMirrorPod: a copy with the hash and a UID of its own, delivered by the watch, not a pod', () => {
    const w = world();
    const seen: string[] = [];
    w.api.watchNode(
      'node-a',
      (type, p) => seen.push(`${type} ${p.metadata.uid}`),
      () => seen.push('SYNCED'),
    );
    let err: GoError | undefined = new GoError('not run');
    w.run(function* () {
      err = yield* w.client.createMirrorPod(staticPod('static-etcd-1'));
    });
    expect(err).toBeUndefined();
    const [mirror] = w.api.mirrorPodsOnNode('node-a');
    expect(mirror?.metadata.uid).not.toBe('static-etcd-1');
    expect(mirror?.metadata.annotations[ConfigMirrorAnnotationKey]).toBe('static-etcd-1');
    expect(seen).toEqual(['SYNCED', `ADDED ${mirror?.metadata.uid}`]);
    // Not a pod: users, the attach/detach controller and the invariants never see it as one.
    expect(w.api.allPods()).toEqual([]);
    expect(w.api.podsOnNode('node-a')).toEqual([]);
    expect(w.facts.map((f) => f.kind)).toEqual(['mirrorPod']);
    expect(w.facts[0]).toMatchObject({ op: 'created', staticUid: 'static-etcd-1', pod: 'etcd' });
  });

  it('a second create of the same name is AlreadyExists; a new watch lists the mirror pod', () => {
    const w = world();
    let second: GoError | undefined;
    w.run(function* () {
      yield* w.client.createMirrorPod(staticPod('static-etcd-1'));
      second = yield* w.client.createMirrorPod(staticPod('static-etcd-2'));
    });
    expect(second).toBeInstanceOf(StatusError);
    expect((second as StatusError | undefined)?.reason).toBe('AlreadyExists');
    const listed: string[] = [];
    w.api.watchNode(
      'node-a',
      (type, p) => listed.push(`${type} ${p.metadata.name}`),
      (pods) => listed.push(...pods.map((p) => `LIST ${p.metadata.name}`)),
    );
    w.sim.run({ horizonMs: w.sim.nowMs + 1000, maxEvents: 1000 });
    expect(listed).toEqual(['LIST etcd']);
  });

  it('DeleteMirrorPod: by name, with a UID precondition if given; NotFound and Conflict delete nothing', () => {
    const w = world();
    const results: boolean[] = [];
    w.run(function* () {
      yield* w.client.createMirrorPod(staticPod('static-etcd-1'));
      results.push((yield* w.client.deleteMirrorPod('etcd_default', 'some-other-uid')).deleted);
      results.push((yield* w.client.deleteMirrorPod('etcd_default', undefined)).deleted);
      results.push((yield* w.client.deleteMirrorPod('etcd_default', undefined)).deleted);
    });
    expect(results).toEqual([false, true, false]);
    expect(w.api.mirrorPodsOnNode('node-a')).toEqual([]);
    expect(
      w.facts.filter((f) => f.kind === 'mirrorPod').map((f) => (f.kind === 'mirrorPod' ? f.op : '')),
    ).toEqual(['created', 'deleted']);
  });
});

describe('mirror pods in the kubelet', () => {
  it('the API source marks every pod it delivers as coming from the API, a mirror pod too', () => {
    const sim = new Sim(1);
    const updates = sim.chan<PodUpdate>(10, 'updates');
    const config = new PodConfig(updates, sim, new ProcessGroup('kubelet'));
    const mirror: Pod = {
      ...staticPod('etcd-mirror-uid'),
      metadata: {
        ...staticPod('etcd-mirror-uid').metadata,
        annotations: {
          ...staticPod('etcd-mirror-uid').metadata.annotations,
          [ConfigMirrorAnnotationKey]: 'static-etcd-1',
        },
      },
    };
    config.onAPIEvent('ADDED', mirror);
    const got = updates.poll();
    const delivered = typeof got === 'object' && got !== null && 'pods' in got ? got.pods[0] : undefined;
    expect(delivered?.metadata.annotations[ConfigSourceAnnotationKey]).toBe(ApiserverSource);
    expect(delivered !== undefined && isStaticPod(delivered)).toBe(false);
  });

  it('the pod manager keeps mirror pods by full name, apart from the pods to run', () => {
    const pm = new BasicPodManager();
    const pod = staticPod('static-etcd-1');
    const mirror: Pod = {
      ...apiPod('m-1', 'etcd'),
      metadata: {
        ...apiPod('m-1', 'etcd').metadata,
        annotations: {
          [ConfigSourceAnnotationKey]: ApiserverSource,
          [ConfigMirrorAnnotationKey]: 'static-etcd-1',
        },
      },
    };
    pm.addPod(mirror);
    expect(pm.getPods()).toEqual([]);
    expect(pm.getOrphanedMirrorPodNames()).toEqual(['etcd_default']);
    pm.addPod(pod);
    pm.addPod(apiPod('web-1', 'web'));
    expect(pm.getPods().map((p) => p.metadata.uid)).toEqual(['static-etcd-1', 'web-1']);
    expect(pm.getMirrorPodByPod(pod)).toBe(mirror);
    expect(pm.getPodByMirrorPod(mirror)).toBe(pod);
    expect(pm.getOrphanedMirrorPodNames()).toEqual([]);
    expect(pm.isMirrorPodOf(mirror, pod)).toBe(true);
    // An edited manifest is a new UID, hence a new hash: the mirror pod no longer matches.
    expect(pm.isMirrorPodOf(mirror, staticPod('static-etcd-2'))).toBe(false);
    expect(pm.getPodsAndMirrorPods().mirrorPods).toEqual([mirror]);
    pm.deletePod(pod);
    expect(pm.getOrphanedMirrorPodNames()).toEqual(['etcd_default']);
    pm.deletePod(mirror);
    expect(pm.getOrphanedMirrorPodNames()).toEqual([]);
    expect(pm.getMirrorPodByPod(pod)).toBeUndefined();
  });
});
