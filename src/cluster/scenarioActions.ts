// The scenario's timeline entries, carried out as a user, kubectl or the node would: create, delete,
// force-delete and evict pods, restart a kubelet, shut a node down, crash a container, delete a PVC,
// inject a fault.
// Nothing else: races come from ordering. An entry that changes nothing says so (an actionNoop fact with
// the reason), and so, at the end of the run, does one whose effect never came (a fault still armed, a
// create still waiting for its name: podNameWaiters.ts).

import type { ContainerSpec, Pod, UID } from '../api/v1.js';
import {
  ApiserverSource,
  ConfigHashAnnotationKey,
  ConfigSourceAnnotationKey,
  FileSource,
  getPodFullName,
  newObjectMeta,
  newPod,
  newPodSpec,
  newPodStatus,
} from '../api/v1.js';
import { WRITES_NONE } from '../elisionMasks.js';
import type { Fact } from '../facts.js';
import { hardEvictionGracePeriodOverride } from '../kubelet/eviction/evictionManager.js';
import { shutdownManagerStubReason } from '../kubelet/nodeshutdown/nodeShutdownManager.js';
import type { Action } from '../scenario/types.js';
import { type Bus, type Rng, type Sim, unreachable } from '../sim/index.js';
import { type NoopSubject, publishNoop } from './actionNoop.js';
import { type APIServer, podCreatedFields } from './apiServer.js';
import type { NodeWorld } from './nodeWorld.js';
import { PodNameWaiters } from './podNameWaiters.js';
import type { PvcProtectionController } from './pvcProtection.js';
import { ScenarioFaults } from './scenarioFaults.js';

/** A kubelet restart without `downFor` stays down 2-10 s (drawn from the seeded RNG). */
const RESTART_DOWN_MS = [2000, 10_000] as const;

/** What the actions need of the world. */
export interface ActionWorld {
  readonly sim: Sim;
  readonly bus: Bus<Fact>;
  readonly api: APIServer;
  readonly pvcProtection: Pick<PvcProtectionController, 'claimUpdated'>;
  readonly nodes: ReadonlyMap<string, NodeWorld>;
  nodeOf(name: string): NodeWorld;
  startKubelet(node: NodeWorld): void;
}

export class ScenarioActions {
  private readonly rng: Rng;
  /** The current incarnation of each scenario pod name. */
  private readonly podUIDs = new Map<string, UID>();
  private readonly podNodes = new Map<UID, string>();
  private readonly podNames = new Map<UID, string>();
  private readonly incarnations = new Map<string, number>();
  /** Creates of a name still held by an earlier object (AlreadyExists): they wait for it. */
  private readonly waiters: PodNameWaiters<Extract<Action, { kind: 'createPod' }>>;
  private listeningForNames = false;
  private readonly faults: ScenarioFaults;

  constructor(private readonly world: ActionWorld) {
    // The stream the world's own draws always came from (a restart's down time).
    this.rng = world.sim.rng.fork('world');
    this.faults = new ScenarioFaults(world, (name) => {
      const uid = this.podUIDs.get(name);
      const node = uid === undefined ? undefined : this.podNodes.get(uid);
      return uid === undefined || node === undefined ? undefined : { uid, node };
    });
    this.waiters = new PodNameWaiters(
      world.sim,
      () => world.sim.rng.fork('world/podCreator'),
      (w) => this.createPodIfFree(w.item, w.line, false),
    );
  }

  podNameOf(uid: UID): string {
    return this.podNames.get(uid) ?? uid;
  }

  /**
   * After the run: says which timeline entries never took effect (a fault still armed, a create still
   * waiting for its name), as actionNoop facts at the final time.
   */
  finish(): void {
    this.faults.finish();
    for (const w of this.waiters.pending()) {
      const holder = this.world.api.podByName('default', w.name);
      this.noop(
        w.item.node,
        'createPod',
        w.line,
        `never created: the name was still held by uid ${holder?.metadata.uid ?? '?'} when the run ended`,
        { pod: w.name },
      );
    }
  }

  private noop(node: string, action: string, line: number, reason: string, about: NoopSubject = {}): void {
    publishNoop(this.world, node, action, line, reason, about);
  }

  apply(action: Action, line: number): void {
    // An API pod's create, delete or eviction changes the API server's objects (which no polling loop
    // reads directly: they reach the kubelets and the controller as watch deliveries, events of their
    // own) or spawns the eviction: it wakes no parked loop (src/sim/elision.ts). A static pod's manifest,
    // a restart, a shutdown, a crash or a fault changes a node's state: every part, anywhere.
    const apiOnly =
      action.kind === 'evictPod' ||
      (action.kind === 'createPod' && !action.static) ||
      ((action.kind === 'deletePod' || action.kind === 'forceDeletePod') &&
        this.staticPodOf(action.pod) === undefined);
    if (apiOnly) {
      this.world.sim.writesOnly(WRITES_NONE);
      this.world.sim.readsOnly(WRITES_NONE);
    }
    switch (action.kind) {
      case 'createPod':
        this.createPodIfFree(action, line, true);
        return;
      case 'deletePod':
        this.deletePod(action.pod, action.gracePeriodS, line, 'deletePod');
        return;
      case 'forceDeletePod':
        this.deletePod(action.pod, 0, line, 'forceDeletePod');
        return;
      case 'evictPod':
        this.evictPod(action.pod, action.gracePeriodS, line);
        return;
      case 'restartKubelet': {
        const node = this.world.nodeOf(action.node);
        node.kubelet?.stop();
        node.kubelet = undefined;
        node.host.runtime.kubeletGone();
        const downMs =
          action.downForMs ?? this.rng.latencyMs(RESTART_DOWN_MS[0], RESTART_DOWN_MS[1], 'kubelet down');
        const labels = action.labels;
        this.world.sim.after(downMs, () => {
          // The kubelet comes back with other --node-labels: the node object carries them from its start.
          if (labels !== undefined) node.labels = labels;
          if (node.kubelet === undefined) this.world.startKubelet(node);
        });
        return;
      }
      case 'shutdownNode': {
        const kubelet = this.world.nodeOf(action.node).kubelet;
        const stub = kubelet === undefined ? undefined : shutdownManagerStubReason(kubelet);
        if (kubelet !== undefined && stub === undefined)
          this.world.sim.spawn(`${action.node}/nodeShutdown`, kubelet.processShutdownEvent(), kubelet.group);
        else if (stub !== undefined) this.noop(action.node, 'shutdownNode', line, stub);
        else
          this.noop(
            action.node,
            'shutdownNode',
            line,
            'the kubelet is not running: no shutdown manager sees the event',
          );
        return;
      }
      case 'crashContainer': {
        const uid = this.podUIDs.get(action.pod);
        const nodeName = uid === undefined ? undefined : this.podNodes.get(uid);
        if (uid === undefined || nodeName === undefined) {
          this.noop(
            '',
            'crashContainer',
            line,
            `no pod ${action.pod} has been created yet (its createPod waits)`,
            { pod: action.pod },
          );
        } else if (
          !this.world.nodeOf(nodeName).host.runtime.crashContainer(uid, action.container, action.exitCode)
        ) {
          this.noop(
            nodeName,
            'crashContainer',
            line,
            `container ${action.container} of pod ${action.pod} (uid ${uid}) is not running`,
            { pod: action.pod },
          );
        }
        return;
      }
      case 'deletePvc':
        this.deletePvc(action.volume, line);
        return;
      case 'outOfServiceTaint':
        // The taint only: the NoExecute eviction of the node's pods (the taint manager) and pod GC's force
        // deletion of its terminating pods (gc_controller.go gcTerminating) are not modelled; a scenario
        // writes them as deletePod and forceDeletePod.
        if (!this.world.api.setOutOfServiceTaint(action.node, !action.remove))
          this.noop(
            action.node,
            'outOfServiceTaint',
            line,
            action.remove
              ? `node ${action.node} does not carry the out-of-service taint`
              : `node ${action.node} already carries the out-of-service taint`,
          );
        return;
      case 'fault':
        this.faults.inject(action.fault, line);
        return;
      default:
        unreachable(action, 'scenario action');
    }
  }

  /**
   * A pod object's name is taken until the object leaves the API server: a create of it then fails with
   * AlreadyExists and waits (podNameWaiters.ts). Static pods are manifest files, not API objects: a new
   * manifest of the same name replaces the old one at once. Returns false if the create waits.
   */
  private createPodIfFree(a: Extract<Action, { kind: 'createPod' }>, line: number, first: boolean): boolean {
    const holder = a.static ? undefined : this.world.api.podByName('default', a.pod);
    if (holder === undefined) {
      this.createPod(a);
      return true;
    }
    if (!first) return false;
    const deleting = holder.metadata.deletionTimestamp !== undefined ? 'object is being deleted: ' : '';
    this.world.bus.publish({
      kind: 'podCreateWaiting',
      atMs: this.world.sim.nowMs,
      node: a.node,
      pod: a.pod,
      heldBy: holder.metadata.uid,
      line,
      reason: `AlreadyExists (${deleting}pods "${a.pod}" already exists, uid ${holder.metadata.uid}): the create waits until the name is free`,
    });
    this.waiters.wait({ name: a.pod, line, item: a });
    if (!this.listeningForNames) {
      this.listeningForNames = true;
      this.world.bus.subscribe((f) => {
        if (f.kind === 'apiPodDeleted' || (f.kind === 'mirrorPod' && f.op === 'deleted'))
          this.waiters.freed(f.pod);
      });
    }
    return false;
  }

  private createPod(a: Extract<Action, { kind: 'createPod' }>): void {
    const base = {
      name: a.pod,
      namespace: 'default',
      node: a.node,
      // An unset delay is undefined, not absent: one hidden class for every ContainerSpec, and the same
      // JSON (so the same static UID) either way.
      containers: a.containers.map(
        (c): ContainerSpec => ({
          name: c.name,
          startDelayMs: c.startDelayMs ?? undefined,
          preStopMs: c.preStopMs,
          // Both resources present, one undefined if not given: one hidden class for what admission reads.
          resources:
            c.requests === undefined
              ? undefined
              : { requests: { cpuMilli: c.requests.cpuMilli, memoryBytes: c.requests.memoryBytes } },
        }),
      ),
      volumes: a.volumes,
      grace: a.gracePeriodS,
      restartPolicy: a.restartPolicy,
    };
    let uid: UID;
    if (a.static) {
      // A static pod's UID is a hash of its manifest and node: the same manifest again is the same UID.
      uid = `static-${a.pod}-${fnv1a(JSON.stringify(base)).toString(16)}`;
    } else {
      const n = (this.incarnations.get(a.pod) ?? 0) + 1;
      this.incarnations.set(a.pod, n);
      uid = `${a.pod}-${n.toString(16)}`;
    }
    const pod = newPod(
      newObjectMeta({
        uid,
        name: a.pod,
        namespace: 'default',
        // A file pod's config hash is its UID (config/common.go); its mirror pod carries it.
        annotations: a.static
          ? { [ConfigSourceAnnotationKey]: FileSource, [ConfigHashAnnotationKey]: uid }
          : { [ConfigSourceAnnotationKey]: ApiserverSource },
      }),
      newPodSpec({
        nodeName: a.node,
        containers: base.containers,
        volumes: a.volumes,
        terminationGracePeriodSeconds: a.gracePeriodS,
        restartPolicy: a.restartPolicy,
        nodeSelector: a.nodeSelector,
      }),
      newPodStatus({ phase: 'Pending', containerStatuses: [] }),
    );
    this.podUIDs.set(a.pod, uid);
    this.podNodes.set(uid, a.node);
    this.podNames.set(uid, a.pod);
    if (!a.static) {
      this.world.api.createPod(pod);
      return;
    }
    const node = this.world.nodeOf(a.node);
    node.host.staticManifests.set(getPodFullName(pod), pod);
    this.world.bus.publish({
      kind: 'apiPodCreated',
      atMs: this.world.sim.nowMs,
      node: a.node,
      uid,
      pod: a.pod,
      ...podCreatedFields(pod),
    });
    node.kubelet?.staticPodEvent('ADD', pod);
  }

  private staticPodOf(name: string): { node: NodeWorld; pod: Pod } | undefined {
    const uid = this.podUIDs.get(name);
    if (uid === undefined) return undefined;
    const node = this.world.nodeOf(this.podNodes.get(uid) ?? '');
    const pod = node.host.staticManifests.get(`${name}_default`);
    return pod !== undefined && pod.metadata.uid === uid ? { node, pod } : undefined;
  }

  private removeStaticPod(node: NodeWorld, pod: Pod): void {
    node.host.staticManifests.delete(getPodFullName(pod));
    this.world.bus.publish({
      kind: 'apiPodDeletionRequested',
      atMs: this.world.sim.nowMs,
      node: node.name,
      uid: pod.metadata.uid,
      pod: pod.metadata.name,
      gracePeriodSeconds: pod.spec.terminationGracePeriodSeconds ?? 30,
    });
    node.kubelet?.staticPodEvent('REMOVE', pod);
  }

  /** deletePod and forceDeletePod (grace 0): a static pod's manifest is removed whatever the grace. */
  private deletePod(
    name: string,
    gracePeriodS: number | null,
    line: number,
    action: 'deletePod' | 'forceDeletePod',
  ): void {
    const s = this.staticPodOf(name);
    if (s !== undefined) {
      this.removeStaticPod(s.node, s.pod);
      return;
    }
    const uid = this.podUIDs.get(name);
    if (uid === undefined) {
      this.noop('', action, line, `no pod ${name} has been created yet (its createPod waits)`, { pod: name });
      return;
    }
    const node = this.podNodes.get(uid) ?? '';
    // No grace period given: the API server takes the pod's own (CheckGracefulDelete).
    const before = this.world.api.getPodByUID(uid)?.metadata.deletionGracePeriodSeconds;
    const outcome =
      action === 'forceDeletePod'
        ? this.world.api.forceDeletePod(uid)
        : this.world.api.deletePodGracefully(uid, gracePeriodS ?? undefined);
    if (outcome === 'notFound')
      this.noop(node, action, line, `pod ${name} (uid ${uid}) is already gone`, { pod: name });
    else if (outcome === 'pending')
      this.noop(
        node,
        action,
        line,
        `pod ${name} (uid ${uid}) is already being deleted with a grace period of ${before ?? '?'}s; only a shorter one changes it`,
        { pod: name },
      );
  }

  /**
   * `kubectl delete pvc`: the claim stays, being deleted, while its finalizer holds it; the pvc-protection
   * controller's PVC informer sees the update. (Not API-only for elision: the populators read claims
   * directly, not through a watch.)
   */
  private deletePvc(volume: string, line: number): void {
    const outcome = this.world.api.claims.delete(volume);
    if (outcome === 'updated') this.world.pvcProtection.claimUpdated(volume);
    else if (outcome === 'pending')
      this.noop('', 'deletePvc', line, `the PVC of volume ${volume} is already being deleted`, { volume });
    else if (outcome === 'notFound')
      this.noop('', 'deletePvc', line, `the PVC of volume ${volume} is already gone`, { volume });
  }

  private evictPod(name: string, gracePeriodS: number, line: number): void {
    const uid = this.podUIDs.get(name);
    if (uid === undefined) {
      this.noop('', 'evictPod', line, `no pod ${name} has been created yet (its createPod waits)`, {
        pod: name,
      });
      return;
    }
    const nodeName = this.podNodes.get(uid) ?? '';
    const kubelet = this.world.nodeOf(nodeName).kubelet;
    if (kubelet === undefined) {
      // the eviction manager is part of the kubelet process
      this.noop(nodeName, 'evictPod', line, 'the kubelet is not running: no eviction manager to evict it', {
        pod: name,
      });
      return;
    }
    // The eviction manager ranks the kubelet's active pods only: a pod it has not seen cannot be evicted.
    const pod = kubelet.podManager.getPodByUID(uid);
    if (pod === undefined) {
      this.noop(
        nodeName,
        'evictPod',
        line,
        `the kubelet does not know pod ${name} (uid ${uid}): not seen yet, or gone`,
        { pod: name },
      );
      return;
    }
    // A gracePeriod of 0 is a hard eviction: the manager's own override for it (#124063).
    const override = gracePeriodS === 0 ? hardEvictionGracePeriodOverride(kubelet.fixes) : gracePeriodS;
    this.world.bus.publish({
      kind: 'podEvictionRequested',
      atMs: this.world.sim.nowMs,
      node: nodeName,
      uid,
      pod: name,
      gracePeriodSeconds: override,
    });
    this.world.sim.spawn(
      `${kubelet.nodeName}/evictionManager ${name}`,
      kubelet.evictPod(pod, override),
      kubelet.group,
    );
  }
}

/** FNV-1a, 32 bit: a stable hash for static pod UIDs. */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}
