// The API server: pods (with graceful deletion, force deletion and the kubelet's final delete), nodes
// (volumesInUse patched by the kubelet, volumesAttached by the attach/detach controller) and their
// Leases (renewed by each kubelet), mirror pods (created and deleted by each kubelet for its static
// pods), the PersistentVolumeClaims (claims.ts), watches delivered to each node's kubelet and to the controllers after a small seeded delay, in
// order, and the controllers' client.
import { GoError, StatusError } from '../api/errors.js';
import {
  type AttachedVolume,
  ConfigMirrorAnnotationKey,
  type ContainerStatus,
  isStaticPod,
  type Node,
  newObjectMeta,
  newPod,
  newPodSpec,
  newPodStatus,
  type Pod,
  type PodStatus,
  type Taint,
  TaintNodeOutOfService,
  taintKeyExists,
  type UID,
  type UniqueVolumeName,
} from '../api/v1.js';
import type { Fact } from '../facts.js';
import type { KubeClient } from '../kubelet/kubeClient.js';
import { podRequestMemoryBytes, podRequestMilliCPU } from '../kubelet/lifecycle/fit.js';
import {
  AssertionError,
  type Co,
  codeUnitOrder,
  type Effect,
  type Rng,
  type Sim,
  sleep,
  WRITES_ALL,
} from '../sim/index.js';
import { ClaimStore } from './claims.js';

/** The apiPodCreated fields that describe the pod's spec (shared with the static pods' manifests). */
export function podCreatedFields(pod: Pod): {
  static: boolean;
  restartPolicy: string;
  containers: string[];
  startDelayMs: number;
  volumes: string[];
  gracePeriodSeconds: number;
  requests?: { cpuMilli: number; memoryBytes: number };
} {
  const cpuMilli = podRequestMilliCPU(pod);
  const memoryBytes = podRequestMemoryBytes(pod);
  const requested = pod.spec.containers.some((c) => c.resources !== undefined);
  return {
    static: isStaticPod(pod),
    restartPolicy: pod.spec.restartPolicy,
    containers: pod.spec.containers.map((c) => c.name),
    startDelayMs: pod.spec.containers.reduce((sum, c) => sum + (c.startDelayMs ?? 0), 0),
    volumes: [...pod.spec.volumes],
    // The API server defaults an unset terminationGracePeriodSeconds to 30 (DefaultTerminationGracePeriodSeconds).
    gracePeriodSeconds: pod.spec.terminationGracePeriodSeconds ?? 30,
    // Only a pod that requests something says so: the facts of every other pod stay as they were.
    ...(requested ? { requests: { cpuMilli, memoryBytes } } : {}),
  };
}

/**
 * What a DELETE did: removed the object, set or shortened its graceful deletion, changed nothing (a
 * graceful deletion with at most this grace is already pending), or found no such pod.
 */
export type DeleteOutcome = 'deleted' | 'updated' | 'pending' | 'notFound';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';
export type WatchHandler = (type: WatchEventType, pod: Pod) => void;
export type NodeWatchHandler = (type: WatchEventType, node: Node) => void;

/** API request latency and watch delivery delay, drawn per call. */
const API_LATENCY_MS = [5, 30] as const;
const WATCH_DELAY_MS = [10, 60] as const;

interface Watcher {
  lastDeliveryMs: number;
  /** The elision domain of the watcher (src/sim/elision.ts): a delivery changes the watcher's state alone. */
  readonly domain: number;
  /** Which parts of it (src/sim/masks.ts). */
  readonly writeMask: number;
  readonly queue: { atMs: number; deliver: () => void }[];
  /** The kubelets' watches share the server's stream; each controller watch draws from its own. */
  readonly rng: Rng;
  live: boolean;
  /** Its liveness as a resource (Sim.newSharedObjectId): a delivery reads it, ending the watch writes it. */
  readonly object: number;
}

interface PodWatcher extends Watcher {
  readonly handler: WatchHandler;
  /** A kubelet's watch: its reflector's LIST handler, called again for the relist after a partition. */
  readonly onList?: ((pods: Pod[]) => void) | undefined;
  /** A partition broke the watch: nothing is delivered until the reflector relists. */
  broken?: boolean;
}

interface NodeWatcher extends Watcher {
  readonly handler: NodeWatchHandler;
}

/** What the controllers ask of the API server (a narrow clientset). Every call takes virtual time. */
export interface ControllerClient {
  /** Nodes().Get: the node object as stored now. */
  getNode(name: string): Co<Node | undefined>;
  /** nodeutil.PatchNodeStatus of status.volumesAttached (the attach/detach node status updater). */
  patchNodeVolumesAttached(name: string, volumesAttached: readonly AttachedVolume[]): Co<GoError | undefined>;
}

/**
 * Every read or write of the server's state names the resource it reads (Sim.readObject) or writes
 * (Sim.touchObject): the pods (with mirror pods, and every list of them), the nodes, one node's Lease, one
 * node's network partitions, the watches. An event that wrote a resource does not commute with another
 * that read or wrote it; events that only read it, or touch different ones, may (src/sim/choices.ts). A change that reaches a watch schedules its delivery
 * (Sim.at) and a published fact goes to the one fact stream: both stay shared by every node.
 */
export class APIServer {
  private readonly pods = new Map<UID, Pod>();
  /** The UIDs of each namespace/name, oldest first (so a GET by name costs no scan of every pod). */
  private readonly podsByName = new Map<string, UID[]>();
  private readonly watchers = new Map<string, PodWatcher>();
  /** Cluster-wide pod watches of the controllers, in the order they started. */
  private readonly podWatchers: PodWatcher[] = [];
  private readonly nodeWatchers: NodeWatcher[] = [];
  private readonly nodes = new Map<string, Node>();
  /** kube-node-lease: each node's Lease spec.renewTime (the node lifecycle controller's health probe). */
  private readonly leaseRenewTimesMs = new Map<string, number>();
  /**
   * Mirror pods, apart from `pods`: the node's watch delivers them, but no controller, user action or
   * invariant takes them for pods of their own (allPods, podsOnNode and getPodByUID never list them).
   */
  private readonly mirrorPods = new Map<UID, Pod>();
  /** The mirror pod of each namespace/name: one at most, since a create of a taken name fails. */
  private readonly mirrorPodsByName = new Map<string, UID>();
  private mirrorPodSerial = 0;
  /** Test hook: node -> how many more volumesAttached patches of it fail. */
  private readonly nodeStatusFailures = new Map<string, number>();
  /** The nodePartition fault: each node's spans cut off from the API server, [fromMs, untilMs), in order. */
  private readonly partitions = new Map<string, { fromMs: number; untilMs: number }[]>();
  /** Each node's stream of reflector relist back-offs (`partition/<node>`). */
  private readonly partitionRngs = new Map<string, Rng>();
  /** The PersistentVolumeClaims: one per cluster volume, of its name. */
  readonly claims: ClaimStore;
  /** The resources' object ids for schedule footprints (Sim.newSharedObjectId). */
  private readonly podsObject: number;
  private readonly nodesObject: number;
  private readonly watchersObject: number;
  private readonly leaseObjects = new Map<string, number>();
  private readonly partitionObjects = new Map<string, number>();

  constructor(
    private readonly sim: Sim,
    private readonly rng: Rng,
    private readonly publish: (fact: Fact) => void,
  ) {
    this.claims = new ClaimStore(sim, publish);
    this.podsObject = sim.newSharedObjectId();
    this.nodesObject = sim.newSharedObjectId();
    this.watchersObject = sim.newSharedObjectId();
  }

  private touchPods(): void {
    this.sim.touchObject(this.podsObject);
  }

  private readPods(): void {
    this.sim.readObject(this.podsObject);
  }

  private readNodes(): void {
    this.sim.readObject(this.nodesObject);
  }

  private touchNodes(): void {
    this.sim.touchObject(this.nodesObject);
  }

  /** The object id of one node's resource of a kind (its Lease, its partitions). */
  private objectOf(objects: Map<string, number>, nodeName: string): number {
    let id = objects.get(nodeName);
    if (id === undefined) {
      id = this.sim.newSharedObjectId();
      objects.set(nodeName, id);
    }
    return id;
  }

  /** The node registers (its kubelet posts a first status and creates its Lease): Ready from now. */
  addNode(name: string): void {
    this.touchNodes();
    this.sim.touchObject(this.objectOf(this.leaseObjects, name));
    this.nodes.set(name, { metadata: { name }, status: { volumesInUse: [], volumesAttached: [] } });
    this.leaseRenewTimesMs.set(name, this.sim.nowMs);
  }

  /**
   * `kubectl taint node N node.kubernetes.io/out-of-service=nodeshutdown:NoExecute` (present) or its
   * removal (`...:NoExecute-`): the node object's spec.taints, delivered to the controllers' node
   * informers like a status change. Returns false when nothing changed (the taint already so).
   */
  setOutOfServiceTaint(nodeName: string, present: boolean): boolean {
    this.touchNodes();
    const node = this.getNode(nodeName);
    const taints = node.spec?.taints ?? [];
    if (taintKeyExists(taints, TaintNodeOutOfService) === present) return false;
    const next: Taint[] = taints.filter((t) => t.key !== TaintNodeOutOfService);
    if (present) next.push({ key: TaintNodeOutOfService, effect: 'NoExecute' });
    const updated: Node = Object.assign({}, node, { spec: { taints: next } });
    this.nodes.set(nodeName, updated);
    this.publish({
      kind: 'nodeTainted',
      atMs: this.sim.nowMs,
      node: nodeName,
      taint: TaintNodeOutOfService,
      effect: 'NoExecute',
      present,
    });
    this.notifyNode(updated);
    return true;
  }

  /** The node's Lease renewTime (undefined: no such node), as the node lifecycle controller reads it. */
  nodeLeaseRenewTimeMs(nodeName: string): number | undefined {
    this.sim.readObject(this.objectOf(this.leaseObjects, nodeName));
    return this.leaseRenewTimesMs.get(nodeName);
  }

  // ---- user-facing (kubectl) ----

  /**
   * The world creates a pod only once its name is free (podByName): the registry store's Create would
   * answer AlreadyExists (staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go, Create).
   */
  createPod(input: Pod): void {
    this.touchPods();
    if (this.pods.has(input.metadata.uid)) throw new AssertionError(`pod uid ${input.metadata.uid} exists`);
    if (this.byName(input.metadata.namespace, input.metadata.name) !== undefined)
      throw new AssertionError(`pods "${input.metadata.name}" already exists`);
    // rest.FillObjectMetaSystemFields sets CreationTimestamp = now; stored and watched in whole seconds.
    const meta = newObjectMeta(input.metadata);
    meta.creationTimestamp = Math.floor(this.sim.nowMs / 1000) * 1000;
    const pod = newPod(meta, newPodSpec(input.spec), newPodStatus(input.status));
    this.pods.set(pod.metadata.uid, pod);
    const key = `${pod.metadata.namespace}/${pod.metadata.name}`;
    const uids = this.podsByName.get(key);
    if (uids === undefined) this.podsByName.set(key, [pod.metadata.uid]);
    else uids.push(pod.metadata.uid);
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
  deletePodGracefully(uid: UID, gracePeriodSeconds?: number): DeleteOutcome {
    return this.deletePod(uid, gracePeriodSeconds, 'user');
  }

  /**
   * `kubectl delete --force --grace-period=0`: DeleteOptions.GracePeriodSeconds = 0. Like any delete with
   * grace 0 the object is first updated with deletionTimestamp and deletionGracePeriodSeconds = 0 (a
   * MODIFIED event), then removed (DELETED), whatever still runs on the node.
   */
  forceDeletePod(uid: UID): DeleteOutcome {
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
   * the kubelet's final delete is not a new request. Returns what the request did (DeleteOutcome).
   */
  private deletePod(
    uid: UID,
    requestedGraceSeconds: number | undefined,
    by: 'user' | 'kubelet',
  ): DeleteOutcome {
    this.touchPods();
    const removedBy = by === 'user' ? 'user-force' : 'kubelet';
    const pod = this.pods.get(uid);
    if (pod === undefined) return 'notFound';
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
        return 'deleted';
      }
      // Only a shorter grace period may be provided by a user; otherwise graceful deletion is pending.
      if (requested === undefined || requested >= current) return 'pending';
      grace = requested;
    } else {
      // CheckGracefulDelete: the user's value, else the spec's (0 if unset); a pod that is already
      // terminated (Failed / Succeeded) is deleted immediately. Every simulated pod is scheduled.
      grace = requested ?? pod.spec.terminationGracePeriodSeconds ?? 0;
      if (pod.status.phase === 'Failed' || pod.status.phase === 'Succeeded') grace = 0;
    }
    const deleting = newObjectMeta(meta);
    deleting.deletionTimestamp = meta.deletionTimestamp ?? this.sim.nowMs;
    deleting.deletionGracePeriodSeconds = grace;
    const updated = newPod(deleting, pod.spec, pod.status);
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
    if (grace === 0) {
      this.remove(updated, removedBy);
      return 'deleted';
    }
    return 'updated';
  }

  /**
   * The pod (or mirror pod) that holds a name: a create of that name fails with AlreadyExists until it is
   * gone (the registry store's Create, "object is being deleted" while it terminates).
   */
  podByName(namespace: string, name: string): Pod | undefined {
    this.readPods();
    return this.byName(namespace, name);
  }

  getPodByUID(uid: UID): Pod | undefined {
    this.readPods();
    return this.pods.get(uid);
  }

  podsOnNode(nodeName: string): Pod[] {
    this.readPods();
    return [...this.pods.values()].filter((p) => p.spec.nodeName === nodeName);
  }

  // ---- network partitions (the nodePartition fault) ----

  /**
   * The node is cut off from the API server for `durationMs` from now: its kubelet's requests fail, its
   * watch delivers nothing and its Lease renewals are lost; the controllers, on the control plane, go on.
   * A partition that overlaps one already under way extends it.
   */
  partitionNode(nodeName: string, durationMs: number): void {
    this.sim.touchObject(this.objectOf(this.partitionObjects, nodeName));
    this.sim.touchObject(this.watchersObject);
    const fromMs = this.sim.nowMs;
    let spans = this.partitions.get(nodeName);
    if (spans === undefined) {
      spans = [];
      this.partitions.set(nodeName, spans);
    }
    const last = spans[spans.length - 1];
    const untilMs = Math.max(
      fromMs + durationMs,
      last !== undefined && last.untilMs > fromMs ? last.untilMs : 0,
    );
    if (last !== undefined && last.untilMs > fromMs) last.untilMs = untilMs;
    else spans.push({ fromMs, untilMs });
    this.publish({ kind: 'nodePartitioned', atMs: fromMs, node: nodeName, untilMs });
    const w = this.watchers.get(nodeName);
    if (w !== undefined) w.broken = true;
    this.sim.at(untilMs, () => this.healPartition(nodeName));
  }

  /** The end of the node's partition under way at `atMs` (default now), or undefined if it is connected. */
  partitionUntilMs(nodeName: string, atMs: number = this.sim.nowMs): number | undefined {
    this.sim.readObject(this.objectOf(this.partitionObjects, nodeName));
    const spans = this.partitions.get(nodeName);
    if (spans === undefined) return undefined;
    for (const s of spans) if (s.fromMs <= atMs && atMs < s.untilMs) return s.untilMs;
    return undefined;
  }

  /**
   * The network heals (unless an overlapping partition extended it). The kubelet's reflector, whose watch
   * broke, relists at its next attempt: client-go's reflector (release-1.23 reflector.go NewReflector) backs
   * off 800 ms doubling to 30 s with jitter 1.0, so after a partition of minutes the attempt falls anywhere
   * in the next 60 s (drawn from the node's own stream `partition/<node>`). The LIST goes to the same
   * `onList` as at start: the apiserver source's SET, which the pod config diffs against what it has.
   */
  private healPartition(nodeName: string): void {
    this.sim.touchObject(this.objectOf(this.partitionObjects, nodeName));
    this.sim.touchObject(this.watchersObject);
    if (this.partitionUntilMs(nodeName) !== undefined) return; // extended
    this.publish({ kind: 'nodePartitionHealed', atMs: this.sim.nowMs, node: nodeName });
    const w = this.watchers.get(nodeName);
    if (w === undefined || w.onList === undefined) return;
    const onList = w.onList;
    // One stream per node, forked once: a fork per heal would restart the stream, so every heal of a node
    // would draw the same back-off.
    let rng = this.partitionRngs.get(nodeName);
    if (rng === undefined) {
      rng = this.rng.fork(`partition/${nodeName}`);
      this.partitionRngs.set(nodeName, rng);
    }
    const delayMs = rng.latencyMs(0, 60_000, 'reflector relist back-off');
    this.sim.after(delayMs, () => {
      // The watcher of that moment (a kubelet restarted meanwhile lists on its own start).
      this.sim.readObject(this.watchersObject);
      if (this.watchers.get(nodeName) !== w || !w.live || this.partitionUntilMs(nodeName) !== undefined)
        return;
      this.enqueueList(nodeName, w, onList);
    });
  }

  /**
   * A kubelet request that a partition cuts off: it fails. Upstream's loops retry at their own period; an
   * idle loop whose round failed is woken when the partition heals (the round's deadline).
   */
  private cutOff(nodeName: string | undefined): boolean {
    if (nodeName === undefined) return false;
    const untilMs = this.partitionUntilMs(nodeName);
    if (untilMs === undefined) return false;
    this.sim.noteDeadline(untilMs);
    return true;
  }

  allPods(): Pod[] {
    this.readPods();
    return [...this.pods.values()];
  }

  // ---- watches ----

  /**
   * The kubelet's reflector: a LIST now, delivered whole (`onList`: the apiserver source turns it into one
   * SET of every pod, which the pod config merges into one ADD), then every change for this node, in one
   * ordered stream.
   */
  watchNode(
    nodeName: string,
    handler: WatchHandler,
    onList: (pods: Pod[]) => void,
    domain = 0,
    writeMask = WRITES_ALL,
  ): void {
    this.unwatchNode(nodeName);
    this.sim.touchObject(this.watchersObject);
    const w: PodWatcher = {
      handler,
      onList,
      lastDeliveryMs: this.sim.nowMs,
      domain,
      writeMask,
      queue: [],
      rng: this.rng,
      live: true,
      object: this.sim.newSharedObjectId(),
    };
    this.watchers.set(nodeName, w);
    // A kubelet started during a partition cannot LIST: its reflector lists when the partition heals.
    if (this.partitionUntilMs(nodeName) !== undefined) {
      w.broken = true;
      return;
    }
    this.enqueueList(nodeName, w, onList);
  }

  /** The kubelet reflector's LIST of its node's pods, delivered whole to `onList`. */
  private enqueueList(nodeName: string, w: PodWatcher, onList: (pods: Pod[]) => void): void {
    w.broken = false;
    // Code-unit order of UIDs, not localeCompare: the same on every machine whatever its locale.
    // (Upstream's order is a cache map's; HandlePodAdditions sorts by creation time anyway.)
    const pods = byUID([...this.podsOnNode(nodeName), ...this.mirrorPodsOnNode(nodeName)]);
    this.enqueue(w, () => {
      for (const pod of pods) this.publishDeletionDelivered(nodeName, pod);
      onList(pods);
    });
  }

  unwatchNode(nodeName: string): void {
    this.sim.touchObject(this.watchersObject);
    const w = this.watchers.get(nodeName);
    if (w !== undefined) {
      w.live = false;
      this.sim.touchObject(w.object);
    }
    this.watchers.delete(nodeName);
  }

  /**
   * A controller's pod informer: a LIST of every pod now (ADDED events, then `onSynced`), then every
   * change of any pod, delivered with delays drawn from the watch's own stream `watch/<name>`.
   */
  watchPods(
    name: string,
    handler: WatchHandler,
    onSynced: () => void,
    domain = 0,
    writeMask = WRITES_ALL,
  ): void {
    this.sim.touchObject(this.watchersObject);
    const w: PodWatcher = {
      handler,
      lastDeliveryMs: this.sim.nowMs,
      domain,
      writeMask,
      queue: [],
      rng: this.rng.fork(`watch/${name}/pods`),
      live: true,
      object: this.sim.newSharedObjectId(),
    };
    this.podWatchers.push(w);
    for (const pod of byUID(this.allPods())) this.enqueue(w, () => handler('ADDED', pod));
    this.enqueue(w, onSynced);
  }

  /** A controller's node informer: a LIST of every node, then every change of a node's status. */
  watchNodes(
    name: string,
    handler: NodeWatchHandler,
    onSynced: () => void,
    domain = 0,
    writeMask = WRITES_ALL,
  ): void {
    this.sim.touchObject(this.watchersObject);
    this.touchNodes();
    const w: NodeWatcher = {
      handler,
      lastDeliveryMs: this.sim.nowMs,
      domain,
      writeMask,
      queue: [],
      rng: this.rng.fork(`watch/${name}/nodes`),
      live: true,
      object: this.sim.newSharedObjectId(),
    };
    this.nodeWatchers.push(w);
    const nodes = [...this.nodes.values()].sort((a, b) => codeUnitOrder(a.metadata.name, b.metadata.name));
    for (const node of nodes) this.enqueue(w, () => handler('ADDED', node));
    this.enqueue(w, onSynced);
  }

  private notify(type: WatchEventType, pod: Pod): void {
    this.sim.touchObject(this.watchersObject);
    const w = this.watchers.get(pod.spec.nodeName);
    // A partitioned kubelet's watch is broken: what happens meanwhile reaches it only through the relist.
    if (w !== undefined && w.broken !== true) {
      if (pod.metadata.deletionGracePeriodSeconds === undefined) this.enqueue(w, () => w.handler(type, pod));
      else
        this.enqueue(w, () => {
          this.publishDeletionDelivered(pod.spec.nodeName, pod);
          w.handler(type, pod);
        });
    }
    // A mirror pod reaches its node's kubelet only: it is no pod of the controllers' (no volumes of its own).
    if (pod.metadata.annotations[ConfigMirrorAnnotationKey] !== undefined) return;
    for (const cw of this.podWatchers) this.enqueue(cw, () => cw.handler(type, pod));
  }

  /** Ground truth for the checkers: the kubelet's watch delivered a pod marked for deletion. */
  private publishDeletionDelivered(node: string, pod: Pod): void {
    const grace = pod.metadata.deletionGracePeriodSeconds;
    if (grace === undefined || pod.metadata.annotations[ConfigMirrorAnnotationKey] !== undefined) return;
    this.publish({
      kind: 'podDeletionDelivered',
      atMs: this.sim.nowMs,
      node,
      uid: pod.metadata.uid,
      pod: pod.metadata.name,
      gracePeriodSeconds: grace,
    });
  }

  private notifyNode(node: Node): void {
    this.sim.touchObject(this.watchersObject);
    for (const w of this.nodeWatchers) this.enqueue(w, () => w.handler('MODIFIED', node));
  }

  /**
   * A watch is a stream: events arrive in the order they happened, each after a seeded delay. Events that
   * become due at the same instant are delivered from a FIFO, so the seeded tie-break never reorders them.
   */
  private enqueue(w: Watcher, deliver: () => void): void {
    this.sim.touchObject(this.watchersObject);
    const at = Math.max(
      w.lastDeliveryMs,
      this.sim.nowMs + w.rng.latencyMs(WATCH_DELAY_MS[0], WATCH_DELAY_MS[1], 'watch delivery'),
    );
    w.lastDeliveryMs = at;
    w.queue.push({ atMs: at, deliver });
    this.sim.at(
      at,
      () => {
        this.sim.readObject(w.object);
        while (w.queue.length > 0 && (w.queue[0]?.atMs ?? Number.POSITIVE_INFINITY) <= this.sim.nowMs) {
          const next = w.queue.shift();
          if (next !== undefined && w.live) next.deliver();
        }
      },
      w.domain,
      w.writeMask,
    );
  }

  private remove(pod: Pod, by: 'kubelet' | 'user-force'): void {
    this.pods.delete(pod.metadata.uid);
    const key = `${pod.metadata.namespace}/${pod.metadata.name}`;
    const uids = this.podsByName.get(key) ?? [];
    uids.splice(uids.indexOf(pod.metadata.uid), 1);
    if (uids.length === 0) this.podsByName.delete(key);
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
    this.readPods();
    return [...this.mirrorPods.values()].filter((p) => p.spec.nodeName === nodeName);
  }

  /** The stored pod of that name, the oldest first, else the mirror pod: by index, never a scan of all. */
  private byName(namespace: string, name: string): Pod | undefined {
    this.readPods();
    const key = `${namespace}/${name}`;
    const uid = this.podsByName.get(key)?.[0];
    if (uid !== undefined) return this.pods.get(uid);
    const mirror = this.mirrorPodsByName.get(key);
    return mirror === undefined ? undefined : this.mirrorPods.get(mirror);
  }

  /**
   * Pods(ns).Create from a kubelet: the API server gives the object a UID of its own (the static pod's
   * is not kept), and the name must be free. Only mirror pods come this way (NodeRestriction).
   */
  private createMirrorPod(pod: Pod): GoError | undefined {
    this.touchPods();
    const hash = pod.metadata.annotations[ConfigMirrorAnnotationKey];
    if (hash === undefined) throw new AssertionError(`a kubelet created a pod that is no mirror pod`);
    const { namespace, name } = pod.metadata;
    if (this.byName(namespace, name) !== undefined) {
      return new StatusError('AlreadyExists', `pods "${name}" already exists`);
    }
    this.mirrorPodSerial++;
    const uid = `${hash}_mirror${this.mirrorPodSerial}`;
    const mirrorMeta = newObjectMeta(pod.metadata);
    mirrorMeta.uid = uid;
    const created = newPod(mirrorMeta, newPodSpec(pod.spec), newPodStatus(pod.status));
    this.mirrorPods.set(uid, created);
    this.mirrorPodsByName.set(`${namespace}/${name}`, uid);
    this.publishMirrorPod(created, 'created');
    this.notify('ADDED', created);
    return undefined;
  }

  /** Pods(ns).Delete of a mirror pod with grace period 0: gone at once; a UID precondition if given. */
  private deleteMirrorPod(namespace: string, name: string, uid: UID | undefined): GoError | undefined {
    this.touchPods();
    const key = `${namespace}/${name}`;
    const mirrorUid = this.mirrorPodsByName.get(key);
    const found = mirrorUid === undefined ? undefined : this.mirrorPods.get(mirrorUid);
    if (found === undefined) return new StatusError('NotFound', `pods "${name}" not found`);
    if (uid !== undefined && found.metadata.uid !== uid) {
      return new StatusError('Conflict', `Precondition failed: UID in precondition: ${uid}`);
    }
    this.mirrorPods.delete(found.metadata.uid);
    this.mirrorPodsByName.delete(key);
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

  /** The node object, or undefined if no such node registered. */
  findNode(nodeName: string): Node | undefined {
    this.readNodes();
    return this.nodes.get(nodeName);
  }

  getNode(nodeName: string): Node {
    this.readNodes();
    const node = this.nodes.get(nodeName);
    if (!(node !== undefined)) throw new AssertionError(`unknown node ${nodeName}`);
    return node;
  }

  private updateNodeStatus(nodeName: string, update: Partial<Node['status']>): void {
    this.touchNodes();
    const node = this.getNode(nodeName);
    const updated: Node = Object.assign({}, node, { status: Object.assign({}, node.status, update) });
    this.nodes.set(nodeName, updated);
    this.notifyNode(updated);
  }

  /**
   * Test hook: the next `times` status patches of the node by the attach/detach controller fail, as they
   * would against an overloaded API server (upstream's tests use a failing fake status updater).
   */
  failNodeStatusUpdates(nodeName: string, times: number): void {
    this.getNode(nodeName);
    this.nodeStatusFailures.set(nodeName, times);
  }

  // ---- the controllers' client ----

  // The clients are objects of plain arrows over the generator methods below, not object literals of
  // generator methods: every generator function object gets a hidden class of its own when first called,
  // and that class keeps the function's closure (here the whole world) alive past young-generation GCs.

  /** A client whose request latencies come from its own stream `client/<name>`. */
  controllerClient(name: string): ControllerClient {
    const rng = this.rng.fork(`client/${name}`);
    return {
      getNode: (node: string) => this.controllerGetNode(rng, node),
      patchNodeVolumesAttached: (node: string, volumesAttached: readonly AttachedVolume[]) =>
        this.controllerPatchNodeVolumesAttached(rng, node, volumesAttached),
    };
  }

  private *controllerGetNode(rng: Rng, name: string): Co<Node | undefined> {
    yield* sleep(rng.latencyMs(API_LATENCY_MS[0], API_LATENCY_MS[1], 'API request'));
    this.readNodes();
    const node = this.nodes.get(name);
    if (node !== undefined) {
      this.publish({
        kind: 'nodeStatusRead',
        atMs: this.sim.nowMs,
        node: name,
        volumesInUse: node.status.volumesInUse,
      });
    }
    return node;
  }

  private *controllerPatchNodeVolumesAttached(
    rng: Rng,
    name: string,
    volumesAttached: readonly AttachedVolume[],
  ): Co<GoError | undefined> {
    yield* sleep(rng.latencyMs(API_LATENCY_MS[0], API_LATENCY_MS[1], 'API request'));
    this.touchNodes();
    if (!this.nodes.has(name)) return new GoError(`nodes "${name}" not found`);
    const left = this.nodeStatusFailures.get(name) ?? 0;
    if (left > 0) {
      this.nodeStatusFailures.set(name, left - 1);
      return new GoError(`failed to patch status of node "${name}": etcdserver: request timed out`);
    }
    this.updateNodeStatus(name, { volumesAttached: [...volumesAttached] });
    this.publish({
      kind: 'nodeVolumesAttached',
      atMs: this.sim.nowMs,
      node: name,
      volumes: volumesAttached.map((v) => v.name),
    });
    return undefined;
  }

  // ---- the kubelet's client ----

  /** The client of the kubelet on `self` (none: a client no partition cuts off). */
  client(self?: string): KubeClient {
    return {
      getPod: (namespace: string, name: string) => this.kubeletGetPod(self, namespace, name),
      patchPodStatus: (uid: UID, status: PodStatus) => this.kubeletPatchPodStatus(self, uid, status),
      deletePod: (namespace: string, name: string, uidPrecondition: UID) =>
        this.kubeletDeletePod(self, namespace, name, uidPrecondition),
      getNode: (node: string) => (this.cutOff(self) ? undefined : this.getNode(node)),
      patchNodeStatus: (node: string, volumesInUse: readonly UniqueVolumeName[]) =>
        this.kubeletPatchNodeStatus(self, node, volumesInUse),
      renewLease: (node: string, renewTimeMs: number) => this.renewLease(self, node, renewTimeMs),
      createMirrorPod: (pod: Pod) => this.kubeletCreateMirrorPod(self, pod),
      deleteMirrorPod: (namespace: string, name: string, uid: UID | undefined) =>
        this.kubeletDeleteMirrorPod(self, namespace, name, uid),
      // The node GET fails (undefined): no attached volume can be verified (VerifyControllerAttachedVolume
      // retries), and the reconstructed volumes wait for a GET that works (updateReconstructedFromNodeStatus).
      getVolumesAttached: (node: string) =>
        this.cutOff(self) ? undefined : this.getNode(node).status.volumesAttached,
    };
  }

  /** A kubelet request's round trip (the API server's own stream). */
  private latency(): Iterable<Effect, void, unknown> {
    return sleep(this.rng.latencyMs(API_LATENCY_MS[0], API_LATENCY_MS[1], 'API request'));
  }

  private *kubeletGetPod(self: string | undefined, namespace: string, name: string): Co<Pod | undefined> {
    yield* this.latency();
    this.readPods();
    // The GET fails: the status manager does nothing for the pod this round ("Failed to get status").
    if (this.cutOff(self)) return undefined;
    // The oldest pod of that name still stored: what a scan in insertion order finds first.
    const uid = this.podsByName.get(`${namespace}/${name}`)?.[0];
    return uid === undefined ? undefined : this.pods.get(uid);
  }

  private *kubeletPatchPodStatus(
    self: string | undefined,
    uid: UID,
    status: PodStatus,
  ): Co<GoError | undefined> {
    yield* this.latency();
    this.touchPods();
    if (this.cutOff(self)) return new GoError(unreachableText(`pods/${uid}/status`));
    const pod = this.pods.get(uid);
    if (pod === undefined) return new GoError(`pods "${uid}" not found`);
    const previous = pod.status;
    const updated = newPod(pod.metadata, pod.spec, newPodStatus(status));
    this.pods.set(uid, updated);
    if (previous.phase !== status.phase || previous.reason !== status.reason) {
      this.publish({
        kind: 'apiPodPhase',
        atMs: this.sim.nowMs,
        node: pod.spec.nodeName,
        uid,
        pod: pod.metadata.name,
        phase: status.phase,
        reason: status.reason,
        restartable: pod.spec.restartPolicy !== 'Never',
      });
    }
    if (containerStatesDiffer(previous.containerStatuses, updated.status.containerStatuses)) {
      this.publish({
        kind: 'apiContainerStates',
        atMs: this.sim.nowMs,
        node: pod.spec.nodeName,
        uid,
        pod: pod.metadata.name,
        restartPolicy: pod.spec.restartPolicy,
        containers: updated.status.containerStatuses,
      });
    }
    this.notify('MODIFIED', updated);
    return undefined;
  }

  private *kubeletDeletePod(
    self: string | undefined,
    namespace: string,
    name: string,
    uidPrecondition: UID,
  ): Co<GoError | undefined> {
    yield* this.latency();
    this.touchPods();
    if (this.cutOff(self)) return new GoError(unreachableText(`namespaces/${namespace}/pods/${name}`));
    const pod = this.pods.get(uidPrecondition);
    if (pod === undefined || pod.metadata.name !== name || pod.metadata.namespace !== namespace) {
      return new GoError(`Precondition failed: UID in precondition: ${uidPrecondition}`);
    }
    this.deletePod(uidPrecondition, 0, 'kubelet');
    return undefined;
  }

  /**
   * nodeutil.PatchNodeStatus from the kubelet: its status (here volumesInUse); the updated node, or
   * undefined when the request failed.
   */
  private *kubeletPatchNodeStatus(
    self: string | undefined,
    node: string,
    volumesInUse: readonly UniqueVolumeName[],
  ): Co<Node | undefined> {
    yield* this.latency();
    this.touchNodes();
    if (this.cutOff(self)) return undefined;
    const sorted = [...volumesInUse].sort();
    this.updateNodeStatus(node, { volumesInUse: sorted });
    this.publish({ kind: 'nodeVolumesInUse', atMs: this.sim.nowMs, node, volumes: sorted });
    return this.getNode(node);
  }

  /**
   * The kubelet's lease controller renews the node's Lease: only the node lifecycle controller reads it
   * (no node watcher sees it), so it is a field set at the renewal's time.
   */
  private renewLease(self: string | undefined, node: string, renewTimeMs: number): void {
    this.sim.touchObject(this.objectOf(this.leaseObjects, node));
    if (!this.leaseRenewTimesMs.has(node)) throw new AssertionError(`lease of unknown node ${node}`);
    // A renewal the partition cuts off is lost (judged at the round's own time: elision renews skipped
    // rounds later). The lease controller tries again at its next round.
    if (self !== undefined && this.partitionUntilMs(self, renewTimeMs) !== undefined) return;
    this.leaseRenewTimesMs.set(node, renewTimeMs);
  }

  private *kubeletCreateMirrorPod(self: string | undefined, pod: Pod): Co<GoError | undefined> {
    yield* this.latency();
    this.touchPods();
    if (this.cutOff(self)) return new GoError(unreachableText(`namespaces/${pod.metadata.namespace}/pods`));
    return this.createMirrorPod(pod);
  }

  private *kubeletDeleteMirrorPod(
    self: string | undefined,
    namespace: string,
    name: string,
    uid: UID | undefined,
  ): Co<GoError | undefined> {
    yield* this.latency();
    this.touchPods();
    if (this.cutOff(self)) return new GoError(unreachableText(`namespaces/${namespace}/pods/${name}`));
    return this.deleteMirrorPod(namespace, name, uid);
  }
}

/**
 * Whether a status write changes some container's state or exit code (by name; a container added or
 * dropped counts). Allocation-free: the statuses are a handful of containers.
 */
function containerStatesDiffer(a: readonly ContainerStatus[], b: readonly ContainerStatus[]): boolean {
  if (a.length !== b.length) return true;
  for (let i = 0; i < b.length; i++) {
    const y = b[i] as ContainerStatus;
    let x = a[i] as ContainerStatus;
    if (x.name !== y.name) {
      let found: ContainerStatus | undefined;
      for (let j = 0; j < a.length; j++) if ((a[j] as ContainerStatus).name === y.name) found = a[j];
      if (found === undefined) return true;
      x = found;
    }
    if (x.state !== y.state || x.exitCode !== y.exitCode) return true;
  }
  return false;
}

/** A request of a partitioned kubelet: the client's dial times out. */
function unreachableText(resource: string): string {
  return `Patch "https://apiserver:6443/api/v1/${resource}": dial tcp 10.0.0.1:6443: i/o timeout`;
}

function byUID(pods: Pod[]): Pod[] {
  return pods.sort((a, b) => codeUnitOrder(a.metadata.uid, b.metadata.uid));
}
