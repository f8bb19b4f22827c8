// The API server: pods (with graceful deletion, force deletion and the kubelet's final delete), node
// status (volumesInUse written by the kubelet, volumesAttached written by the attach/detach controller),
// and watches delivered to each node after a small seeded delay, in order.
import { GoError } from '../api/errors.js';
import { isStaticPod, type Pod, type PodStatus, type UID } from '../api/v1.js';
import type { Fact } from '../facts.js';
import type { AttachedVolume, KubeClient } from '../kubelet/kubeClient.js';
import { AssertionError, type Co, type Rng, type Sim, sleep } from '../sim/index.js';

/** The apiPodCreated fields that describe the pod's spec (shared with the static pods' manifests). */
export function podCreatedFields(pod: Pod): {
  static: boolean;
  restartPolicy: string;
  containers: string[];
  startDelayMs: number;
  volumes: string[];
} {
  return {
    static: isStaticPod(pod),
    restartPolicy: pod.spec.restartPolicy,
    containers: pod.spec.containers.map((c) => c.name),
    startDelayMs: pod.spec.containers.reduce((sum, c) => sum + (c.startDelayMs ?? 0), 0),
    volumes: [...pod.spec.volumes],
  };
}

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

  createPod(input: Pod): void {
    if (this.pods.has(input.metadata.uid)) throw new AssertionError(`pod uid ${input.metadata.uid} exists`);
    // rest.FillObjectMetaSystemFields sets CreationTimestamp = now; stored and watched in whole seconds.
    const pod: Pod = {
      ...input,
      metadata: { ...input.metadata, creationTimestamp: Math.floor(this.sim.nowMs / 1000) * 1000 },
    };
    this.pods.set(pod.metadata.uid, pod);
    this.publish({
      kind: 'apiPodCreated',
      atMs: this.sim.nowMs,
      node: pod.spec.nodeName,
      uid: pod.metadata.uid,
      pod: pod.metadata.name,
      ...podCreatedFields(pod),
    });
    this.notify('ADDED', pod);
  }

  /** `kubectl delete` (gracePeriodSeconds undefined: the pod's own terminationGracePeriodSeconds). */
  deletePodGracefully(uid: UID, gracePeriodSeconds?: number): boolean {
    return this.deletePod(uid, gracePeriodSeconds, 'user');
  }

  /**
   * `kubectl delete --force --grace-period=0`: DeleteOptions.GracePeriodSeconds = 0. Like any delete with
   * grace 0 the object is first updated with deletionTimestamp and deletionGracePeriodSeconds = 0 (a
   * MODIFIED event), then removed (DELETED), whatever still runs on the node.
   */
  forceDeletePod(uid: UID): boolean {
    return this.deletePod(uid, 0, 'user');
  }

  /**
   * A DELETE of a pod, by a user or by the kubelet's status manager (grace 0 with a UID precondition,
   * checked by the caller): the registry store's Delete (staging/src/k8s.io/apiserver/pkg/registry/
   * generic/registry/store.go) with rest.BeforeDelete (registry/rest/delete.go) and the pod strategy's
   * CheckGracefulDelete (pkg/registry/core/pod/strategy.go). A graceful delete sets deletionTimestamp and
   * deletionGracePeriodSeconds in one update (GuaranteedUpdate: a watch MODIFIED); when that grace is 0
   * (updateForGracefulDeletionAndFinalizers: lastGraceful == 0, deleteImmediately) the object is then
   * deleted from storage (DELETED). "The deletion operation happens in two phases" (BeforeDelete). No
   * finalizers and no preconditions are modelled. The simulator's deletionTimestamp is the instant of the
   * first request, not upstream's now + grace; a shortening keeps it, as upstream's `old - old grace + new`
   * keeps the deadline arithmetic consistent. A user's request is published as apiPodDeletionRequested;
   * the kubelet's final delete is not a new request. Returns false if the pod does not exist.
   */
  private deletePod(uid: UID, requestedGraceSeconds: number | undefined, by: 'user' | 'kubelet'): boolean {
    const removedBy = by === 'user' ? 'user-force' : 'kubelet';
    const pod = this.pods.get(uid);
    if (pod === undefined) return false;
    // Negative values will be treated as the value `1s` on the delete path.
    const requested =
      requestedGraceSeconds !== undefined && requestedGraceSeconds < 0 ? 1 : requestedGraceSeconds;
    let grace: number;
    const meta = pod.metadata;
    if (meta.deletionTimestamp !== undefined) {
      const current = meta.deletionGracePeriodSeconds;
      if (current === undefined || current === 0) {
        // An earlier update to 0 whose delete did not happen: delete immediately.
        this.remove(pod, removedBy);
        return true;
      }
      // Only a shorter grace period may be provided by a user; otherwise graceful deletion is pending.
      if (requested === undefined || requested >= current) return true;
      grace = requested;
    } else {
      // CheckGracefulDelete: the user's value, else the spec's (0 if unset); a pod that is already
      // terminated (Failed / Succeeded) is deleted immediately. Every simulated pod is scheduled.
      grace = requested ?? pod.spec.terminationGracePeriodSeconds ?? 0;
      if (pod.status.phase === 'Failed' || pod.status.phase === 'Succeeded') grace = 0;
    }
    const updated: Pod = {
      ...pod,
      metadata: {
        ...meta,
        deletionTimestamp: meta.deletionTimestamp ?? this.sim.nowMs,
        deletionGracePeriodSeconds: grace,
      },
    };
    this.pods.set(uid, updated);
    if (by === 'user') {
      this.publish({
        kind: 'apiPodDeletionRequested',
        atMs: this.sim.nowMs,
        node: pod.spec.nodeName,
        uid,
        pod: meta.name,
        gracePeriodSeconds: grace,
      });
    }
    this.notify('MODIFIED', updated);
    if (grace === 0) this.remove(updated, removedBy);
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
   * The kubelet's reflector: a LIST now, delivered whole (`onList`: the apiserver source turns it into one
   * SET of every pod, which the pod config merges into one ADD), then every change for this node, in one
   * ordered stream.
   */
  watchNode(nodeName: string, handler: WatchHandler, onList: (pods: Pod[]) => void): void {
    const w: Watcher = { handler, lastDeliveryMs: this.sim.nowMs, queue: [] };
    this.watchers.set(nodeName, w);
    // Code-unit order, not localeCompare: the same on every machine whatever its locale. (Upstream's
    // order is a cache map's; HandlePodAdditions sorts by creation time anyway.)
    const pods = this.podsOnNode(nodeName).sort((a, b) =>
      a.metadata.uid < b.metadata.uid ? -1 : a.metadata.uid > b.metadata.uid ? 1 : 0,
    );
    this.enqueue(nodeName, w, () => onList(pods));
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
        api.deletePod(uidPrecondition, 0, 'kubelet');
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
    };
  }
}
