// The API server: pods (with graceful deletion, force deletion and the kubelet's final delete), node
// status (volumesInUse written by the kubelet, volumesAttached written by the attach/detach controller),
// mirror pods (created and deleted by each kubelet for its static pods), and watches delivered to each
// node after a small seeded delay, in order.
import { GoError, StatusError } from '../api/errors.js';
import { ConfigMirrorAnnotationKey, isStaticPod, type Pod, type PodStatus, type UID } from '../api/v1.js';
import type { Fact } from '../facts.js';
import type { AttachedVolume, KubeClient } from '../kubelet/kubeClient.js';
import { AssertionError, type Co, type Rng, type Sim, sleep } from '../sim/index.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';
export type WatchHandler = (type: WatchEventType, pod: Pod) => void;

/** API request latency and watch delivery delay, drawn per call. */
const API_LATENCY_MS = [5, 30] as const;
const WATCH_DELAY_MS = [10, 60] as const;

interface Watcher {
  readonly handler: WatchHandler;
  lastDeliveryMs: number;
  readonly queue: { atMs: number; deliver: () => void }[];
}

interface NodeStatus {
  volumesInUse: readonly string[];
  volumesAttached: AttachedVolume[];
}

export class APIServer {
  private readonly pods = new Map<UID, Pod>();
  private readonly watchers = new Map<string, Watcher>();
  private readonly nodes = new Map<string, NodeStatus>();
  /**
   * Mirror pods, apart from `pods`: the node's watch delivers them, but no controller, user action or
   * invariant takes them for pods of their own (allPods, podsOnNode and getPodByUID never list them).
   */
  private readonly mirrorPods = new Map<UID, Pod>();
  private mirrorPodSerial = 0;
  /** Bumped on every pod change, so that controllers can cache what they derive from the pods. */
  podsVersion = 0;

  constructor(
    private readonly sim: Sim,
    private readonly rng: Rng,
    private readonly publish: (fact: Fact) => void,
  ) {}

  addNode(name: string): void {
    this.nodes.set(name, { volumesInUse: [], volumesAttached: [] });
  }

  // ---- user-facing (kubectl) ----

  createPod(pod: Pod): void {
    if (this.pods.has(pod.metadata.uid)) throw new AssertionError(`pod uid ${pod.metadata.uid} exists`);
    this.pods.set(pod.metadata.uid, pod);
    this.publish({
      kind: 'apiPodCreated',
      atMs: this.sim.nowMs,
      node: pod.spec.nodeName,
      uid: pod.metadata.uid,
      pod: pod.metadata.name,
      static: isStaticPod(pod),
      restartPolicy: pod.spec.restartPolicy,
    });
    this.notify('ADDED', pod);
  }

  /** Graceful deletion: set deletionTimestamp and deletionGracePeriodSeconds (never lengthened). */
  deletePodGracefully(uid: UID, gracePeriodSeconds: number): boolean {
    const pod = this.pods.get(uid);
    if (pod === undefined) return false;
    const previous = pod.metadata.deletionGracePeriodSeconds;
    const grace = previous === undefined ? gracePeriodSeconds : Math.min(previous, gracePeriodSeconds);
    const updated: Pod = {
      ...pod,
      metadata: {
        ...pod.metadata,
        deletionTimestamp: pod.metadata.deletionTimestamp ?? this.sim.nowMs,
        deletionGracePeriodSeconds: grace,
      },
    };
    this.pods.set(uid, updated);
    this.publish({
      kind: 'apiPodDeletionRequested',
      atMs: this.sim.nowMs,
      node: pod.spec.nodeName,
      uid,
      pod: pod.metadata.name,
      gracePeriodSeconds: grace,
    });
    this.notify('MODIFIED', updated);
    return true;
  }

  /** `kubectl delete --force --grace-period=0`: the object goes at once, whatever runs on the node. */
  forceDeletePod(uid: UID): boolean {
    const pod = this.pods.get(uid);
    if (pod === undefined) return false;
    if (pod.metadata.deletionTimestamp === undefined) {
      this.publish({
        kind: 'apiPodDeletionRequested',
        atMs: this.sim.nowMs,
        node: pod.spec.nodeName,
        uid,
        pod: pod.metadata.name,
        gracePeriodSeconds: 0,
      });
    }
    this.remove(pod, 'user-force');
    return true;
  }

  getPodByUID(uid: UID): Pod | undefined {
    return this.pods.get(uid);
  }

  podsOnNode(nodeName: string): Pod[] {
    return [...this.pods.values()].filter((p) => p.spec.nodeName === nodeName);
  }

  allPods(): Pod[] {
    return [...this.pods.values()];
  }

  // ---- watches ----

  /**
   * The kubelet's reflector: a LIST now (as ADDED events, then `onSynced` in the same ordered stream),
   * then every change for this node.
   */
  watchNode(nodeName: string, handler: WatchHandler, onSynced: () => void): void {
    const w: Watcher = { handler, lastDeliveryMs: this.sim.nowMs, queue: [] };
    this.watchers.set(nodeName, w);
    for (const pod of [...this.podsOnNode(nodeName), ...this.mirrorPodsOnNode(nodeName)].sort((a, b) =>
      // Code-unit order, not localeCompare: the same on every machine whatever its locale.
      a.metadata.uid < b.metadata.uid ? -1 : a.metadata.uid > b.metadata.uid ? 1 : 0,
    )) {
      this.enqueue(nodeName, w, () => handler('ADDED', pod));
    }
    this.enqueue(nodeName, w, onSynced);
  }

  unwatchNode(nodeName: string): void {
    this.watchers.delete(nodeName);
  }

  private notify(type: WatchEventType, pod: Pod): void {
    this.podsVersion++;
    const w = this.watchers.get(pod.spec.nodeName);
    if (w !== undefined) this.enqueue(pod.spec.nodeName, w, () => w.handler(type, pod));
  }

  /**
   * A watch is a stream: events arrive in the order they happened, each after a seeded delay. Events that
   * become due at the same instant are delivered from a FIFO, so the seeded tie-break never reorders them.
   */
  private enqueue(nodeName: string, w: Watcher, deliver: () => void): void {
    const at = Math.max(
      w.lastDeliveryMs,
      this.sim.nowMs + this.rng.int(WATCH_DELAY_MS[0], WATCH_DELAY_MS[1]),
    );
    w.lastDeliveryMs = at;
    w.queue.push({ atMs: at, deliver });
    this.sim.at(at, () => {
      while (w.queue.length > 0 && (w.queue[0]?.atMs ?? Number.POSITIVE_INFINITY) <= this.sim.nowMs) {
        const next = w.queue.shift();
        if (next !== undefined && this.watchers.get(nodeName) === w) next.deliver();
      }
    });
  }

  private remove(pod: Pod, by: 'kubelet' | 'user-force'): void {
    this.pods.delete(pod.metadata.uid);
    this.publish({
      kind: 'apiPodDeleted',
      atMs: this.sim.nowMs,
      node: pod.spec.nodeName,
      uid: pod.metadata.uid,
      pod: pod.metadata.name,
      by,
    });
    this.notify('DELETED', pod);
  }

  // ---- mirror pods ----

  mirrorPodsOnNode(nodeName: string): Pod[] {
    return [...this.mirrorPods.values()].filter((p) => p.spec.nodeName === nodeName);
  }

  private byName(namespace: string, name: string): Pod | undefined {
    for (const p of [...this.pods.values(), ...this.mirrorPods.values()])
      if (p.metadata.namespace === namespace && p.metadata.name === name) return p;
    return undefined;
  }

  /**
   * Pods(ns).Create from a kubelet: the API server gives the object a UID of its own (the static pod's
   * is not kept), and the name must be free. Only mirror pods come this way (NodeRestriction).
   */
  private createMirrorPod(pod: Pod): GoError | undefined {
    const hash = pod.metadata.annotations[ConfigMirrorAnnotationKey];
    if (hash === undefined) throw new AssertionError(`a kubelet created a pod that is no mirror pod`);
    const { namespace, name } = pod.metadata;
    if (this.byName(namespace, name) !== undefined) {
      return new StatusError('AlreadyExists', `pods "${name}" already exists`);
    }
    this.mirrorPodSerial++;
    const uid = `${hash}_mirror${this.mirrorPodSerial}`;
    const created: Pod = { ...pod, metadata: { ...pod.metadata, uid } };
    this.mirrorPods.set(uid, created);
    this.publishMirrorPod(created, 'created');
    this.notify('ADDED', created);
    return undefined;
  }

  /** Pods(ns).Delete of a mirror pod with grace period 0: gone at once; a UID precondition if given. */
  private deleteMirrorPod(namespace: string, name: string, uid: UID | undefined): GoError | undefined {
    let found: Pod | undefined;
    for (const p of this.mirrorPods.values())
      if (p.metadata.namespace === namespace && p.metadata.name === name) found = p;
    if (found === undefined) return new StatusError('NotFound', `pods "${name}" not found`);
    if (uid !== undefined && found.metadata.uid !== uid) {
      return new StatusError('Conflict', `Precondition failed: UID in precondition: ${uid}`);
    }
    this.mirrorPods.delete(found.metadata.uid);
    this.publishMirrorPod(found, 'deleted');
    this.notify('DELETED', found);
    return undefined;
  }

  private publishMirrorPod(pod: Pod, op: 'created' | 'deleted'): void {
    this.publish({
      kind: 'mirrorPod',
      op,
      atMs: this.sim.nowMs,
      node: pod.spec.nodeName,
      uid: pod.metadata.uid,
      pod: pod.metadata.name,
      staticUid: pod.metadata.annotations[ConfigMirrorAnnotationKey] ?? '',
    });
  }

  // ---- node status ----

  nodeStatus(nodeName: string): NodeStatus {
    const status = this.nodes.get(nodeName);
    if (!(status !== undefined)) throw new AssertionError(`unknown node ${nodeName}`);
    return status;
  }

  setVolumesAttached(nodeName: string, attached: AttachedVolume[]): void {
    this.nodeStatus(nodeName).volumesAttached = attached;
  }

  // ---- the kubelet's client ----

  client(): KubeClient {
    const api = this;
    const latency = (): Co<void> => sleep(api.rng.int(API_LATENCY_MS[0], API_LATENCY_MS[1])) as Co<void>;
    return {
      *getPod(namespace: string, name: string): Co<Pod | undefined> {
        yield* latency();
        for (const p of api.pods.values())
          if (p.metadata.namespace === namespace && p.metadata.name === name) return p;
        return undefined;
      },
      *patchPodStatus(uid: UID, status: PodStatus): Co<GoError | undefined> {
        yield* latency();
        const pod = api.pods.get(uid);
        if (pod === undefined) return new GoError(`pods "${uid}" not found`);
        const previous = pod.status;
        const updated: Pod = { ...pod, status };
        api.pods.set(uid, updated);
        if (previous.phase !== status.phase || previous.reason !== status.reason) {
          api.publish({
            kind: 'apiPodPhase',
            atMs: api.sim.nowMs,
            node: pod.spec.nodeName,
            uid,
            pod: pod.metadata.name,
            phase: status.phase,
            reason: status.reason,
            restartable: pod.spec.restartPolicy !== 'Never',
          });
        }
        api.notify('MODIFIED', updated);
        return undefined;
      },
      *deletePod(namespace: string, name: string, uidPrecondition: UID): Co<GoError | undefined> {
        yield* latency();
        const pod = api.pods.get(uidPrecondition);
        if (pod === undefined || pod.metadata.name !== name || pod.metadata.namespace !== namespace) {
          return new GoError(`Precondition failed: UID in precondition: ${uidPrecondition}`);
        }
        api.remove(pod, 'kubelet');
        return undefined;
      },
      *updateNodeVolumesInUse(node: string, volumesInUse: readonly string[]): Co<GoError | undefined> {
        yield* latency();
        api.nodeStatus(node).volumesInUse = [...volumesInUse].sort();
        api.publish({
          kind: 'nodeVolumesInUse',
          atMs: api.sim.nowMs,
          node,
          volumes: [...volumesInUse].sort(),
        });
        return undefined;
      },
      getVolumesAttached(node: string): readonly AttachedVolume[] {
        return api.nodeStatus(node).volumesAttached;
      },
      *createMirrorPod(pod: Pod): Co<GoError | undefined> {
        yield* latency();
        return api.createMirrorPod(pod);
      },
      *deleteMirrorPod(namespace: string, name: string, uid: UID | undefined): Co<GoError | undefined> {
        yield* latency();
        return api.deleteMirrorPod(namespace, name, uid);
      },
    };
  }
}
