// The world of one run: the kernel, the API server, the attach/detach controller, the SAN, and per node
// the host (runtime, storage, cgroups, static manifests) and its kubelet process. It turns scenario
// actions into what a user, kubectl or the node would do, and nothing else: races come from ordering.
import type { Pod, UID } from '../api/v1.js';
import {
  ApiserverSource,
  ConfigHashAnnotationKey,
  ConfigSourceAnnotationKey,
  FileSource,
  getPodFullName,
} from '../api/v1.js';
import type { Fact } from '../facts.js';
import type { Fixes } from '../fixes.js';
import { WRITES_NONE } from '../kubelet/elisionMasks.js';
import { Kubelet } from '../kubelet/kubelet.js';
import { FakeRuntime } from '../runtime/fakeRuntime.js';
import type { Action, Fault, Scenario } from '../scenario/types.js';
import { AssertionError, Bus, type Co, type Rng, Sim, unreachable, VersionedSet } from '../sim/index.js';
import { Host } from '../storage/host.js';
import { San } from '../storage/san.js';
import { APIServer, podCreatedFields } from './apiServer.js';
import { AttachDetachController } from './attachdetach/controller.js';
import type { NodeWorld } from './nodeWorld.js';
import { newControllerVolumePluginMgr, newKubeletVolumeManager, volumeSpecOf } from './volumeWiring.js';

/** A kubelet restart without `downFor` stays down 2-10 s (drawn from the seeded RNG). */
const RESTART_DOWN_MS = [2000, 10_000] as const;
/** systemd's RestartSec for the kubelet unit: a crashed kubelet comes back after 10 s. */
const KUBELET_RESTART_SEC_MS = 10_000;

export interface WorldOptions {
  readonly scenario: Scenario;
  readonly seed: number;
  readonly fixes: Fixes;
  /** Skip idle loop rounds (src/sim/elision.ts); off: every round runs (`--no-elide`). */
  readonly elide?: boolean | undefined;
}

export class World {
  readonly sim: Sim;
  readonly bus = new Bus<Fact>();
  readonly api: APIServer;
  readonly san: San;
  readonly adc: AttachDetachController;
  readonly nodes = new Map<string, NodeWorld>();
  readonly scenario: Scenario;
  readonly fixes: Fixes;
  private readonly rng: Rng;
  /** The current incarnation of each scenario pod name. */
  private readonly podUIDs = new Map<string, UID>();
  private readonly podNodes = new Map<UID, string>();
  private readonly podNames = new Map<UID, string>();
  private readonly incarnations = new Map<string, number>();

  constructor(o: WorldOptions) {
    this.scenario = o.scenario;
    this.fixes = o.fixes;
    this.sim = new Sim(o.seed, { elide: o.elide });
    // A published fact is an effect: a loop round that publishes one was not idle (src/sim/elision.ts).
    this.bus.subscribe(() => this.sim.noteEffect());
    this.rng = this.sim.rng.fork('world');
    const publish = (fact: Fact): void => this.bus.publish(fact);
    this.api = new APIServer(this.sim, this.sim.rng.fork('apiserver'), publish);
    this.san = new San({ now: () => this.sim.nowMs, publish });
    for (const v of o.scenario.volumes) {
      this.san.addLun({
        name: v.name,
        plugin: v.plugin,
        capacityBytes: v.capacityBytes,
        accessMode: v.accessMode,
        mode: v.mode,
      });
    }
    for (const name of o.scenario.nodes) {
      this.api.addNode(name);
      const storage = new Host({
        node: name,
        sim: this.sim,
        san: this.san,
        publish,
        rng: this.sim.rng.fork(`${name}/storage`),
        podNameOf: (uid) => this.podNameOf(uid),
      });
      const runtime = new FakeRuntime(
        this.sim,
        this.sim.rng.fork(`${name}/runtime`),
        name,
        publish,
        storage,
        this.domainOf(name),
      );
      this.nodes.set(name, {
        name,
        storage,
        host: { runtime, podCgroups: new VersionedSet(), staticManifests: new Map() },
        kubelet: undefined,
        kubeletGeneration: 0,
      });
    }
    this.adc = new AttachDetachController({
      sim: this.sim,
      api: this.api,
      volumePluginMgr: newControllerVolumePluginMgr(this),
      volumeSpecLister: (name) => volumeSpecOf(this, name),
      fixes: o.fixes,
      publish,
      domain: o.scenario.nodes.length + 1,
    });
  }

  /** Starts every kubelet and the controllers, and schedules the scenario's timeline. */
  start(): void {
    for (const node of this.nodes.values()) this.startKubelet(node);
    this.adc.start();
    for (const entry of this.scenario.timeline) {
      this.sim.atOrdered(entry.atMs, () => this.apply(entry.action));
    }
  }

  /** A node's elision domain: its changes wake only its own parked loops (src/sim/elision.ts). */
  private domainOf(nodeName: string): number {
    return this.scenario.nodes.indexOf(nodeName) + 1;
  }

  podNameOf(uid: UID): string {
    return this.podNames.get(uid) ?? uid;
  }

  nodeOf(name: string): NodeWorld {
    const node = this.nodes.get(name);
    if (!(node !== undefined)) throw new AssertionError(`unknown node ${name}`);
    return node;
  }

  /** True while some injected fault has not fired yet (termination-stuck is not judged then). */
  faultsActive(): boolean {
    for (const node of this.nodes.values()) if (node.storage.faults.active()) return true;
    return false;
  }

  // ---- kubelet processes ----

  private startKubelet(node: NodeWorld): void {
    const kubelet = new Kubelet({
      sim: this.sim,
      rng: this.sim.rng.fork(`${node.name}/kubelet/${node.kubeletGeneration}`),
      nodeName: node.name,
      domain: this.domainOf(node.name),
      fixes: this.fixes,
      kubeClient: this.api.client(),
      // A delivery feeds the pod config, which only syncLoop reads (woken by its channel, an event of
      // its own): it changes nothing a parked loop reads (src/kubelet/elisionMasks.ts).
      watch: (handler, onList) =>
        this.api.watchNode(node.name, handler, onList, this.domainOf(node.name), WRITES_NONE),
      unwatch: () => this.api.unwatchNode(node.name),
      host: node.host,
      publish: (fact) => this.bus.publish(fact),
      newVolumeManager: (kl) => newKubeletVolumeManager(this, node, kl),
      onCrash: () => {
        node.kubelet = undefined;
        this.sim.after(KUBELET_RESTART_SEC_MS, () => {
          if (node.kubelet === undefined) this.startKubelet(node);
        });
      },
    });
    node.kubelet = kubelet;
    node.kubeletGeneration++;
    kubelet.start();
  }

  // ---- actions ----

  private apply(action: Action): void {
    switch (action.kind) {
      case 'createPod':
        this.createPod(action);
        return;
      case 'deletePod':
        this.deletePod(action.pod, action.gracePeriodS);
        return;
      case 'forceDeletePod':
        this.forceDeletePod(action.pod);
        return;
      case 'evictPod':
        this.evictPod(action.pod, action.gracePeriodS);
        return;
      case 'restartKubelet': {
        const node = this.nodeOf(action.node);
        node.kubelet?.stop();
        node.kubelet = undefined;
        const downMs = action.downForMs ?? this.rng.int(RESTART_DOWN_MS[0], RESTART_DOWN_MS[1]);
        this.sim.after(downMs, () => {
          if (node.kubelet === undefined) this.startKubelet(node);
        });
        return;
      }
      case 'shutdownNode': {
        const kubelet = this.nodeOf(action.node).kubelet;
        if (kubelet !== undefined)
          this.sim.spawn(`${action.node}/nodeShutdown`, kubelet.processShutdownEvent(), kubelet.group);
        return;
      }
      case 'crashContainer': {
        const uid = this.podUIDs.get(action.pod);
        const nodeName = uid === undefined ? undefined : this.podNodes.get(uid);
        if (uid !== undefined && nodeName !== undefined)
          this.nodeOf(nodeName).host.runtime.crashContainer(uid, action.container);
        return;
      }
      case 'fault':
        this.injectFault(action.fault);
        return;
      default:
        unreachable(action, 'scenario action');
    }
  }

  private createPod(a: Extract<Action, { kind: 'createPod' }>): void {
    const base = {
      name: a.pod,
      namespace: 'default',
      node: a.node,
      containers: a.containers.map((c) => ({
        name: c.name,
        ...(c.startDelayMs === null ? {} : { startDelayMs: c.startDelayMs }),
      })),
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
    const pod: Pod = {
      metadata: {
        uid,
        name: a.pod,
        namespace: 'default',
        // A file pod's config hash is its UID (config/common.go); its mirror pod carries it.
        annotations: a.static
          ? { [ConfigSourceAnnotationKey]: FileSource, [ConfigHashAnnotationKey]: uid }
          : { [ConfigSourceAnnotationKey]: ApiserverSource },
      },
      spec: {
        nodeName: a.node,
        containers: base.containers,
        volumes: a.volumes,
        terminationGracePeriodSeconds: a.gracePeriodS,
        restartPolicy: a.restartPolicy,
      },
      status: { phase: 'Pending', containerStatuses: [] },
    };
    this.podUIDs.set(a.pod, uid);
    this.podNodes.set(uid, a.node);
    this.podNames.set(uid, a.pod);
    if (!a.static) {
      this.api.createPod(pod);
      return;
    }
    const node = this.nodeOf(a.node);
    node.host.staticManifests.set(getPodFullName(pod), pod);
    this.bus.publish({
      kind: 'apiPodCreated',
      atMs: this.sim.nowMs,
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
    const node = this.nodeOf(this.podNodes.get(uid) ?? '');
    const pod = node.host.staticManifests.get(`${name}_default`);
    return pod !== undefined && pod.metadata.uid === uid ? { node, pod } : undefined;
  }

  private removeStaticPod(node: NodeWorld, pod: Pod): void {
    node.host.staticManifests.delete(getPodFullName(pod));
    this.bus.publish({
      kind: 'apiPodDeletionRequested',
      atMs: this.sim.nowMs,
      node: node.name,
      uid: pod.metadata.uid,
      pod: pod.metadata.name,
      gracePeriodSeconds: pod.spec.terminationGracePeriodSeconds ?? 30,
    });
    node.kubelet?.staticPodEvent('REMOVE', pod);
  }

  private deletePod(name: string, gracePeriodS: number | null): void {
    const s = this.staticPodOf(name);
    if (s !== undefined) {
      this.removeStaticPod(s.node, s.pod);
      return;
    }
    const uid = this.podUIDs.get(name);
    if (uid === undefined) return;
    // No grace period given: the API server takes the pod's own (CheckGracefulDelete).
    this.api.deletePodGracefully(uid, gracePeriodS ?? undefined);
  }

  private forceDeletePod(name: string): void {
    const s = this.staticPodOf(name);
    if (s !== undefined) {
      this.removeStaticPod(s.node, s.pod);
      return;
    }
    const uid = this.podUIDs.get(name);
    if (uid !== undefined) this.api.forceDeletePod(uid);
  }

  private evictPod(name: string, gracePeriodS: number): void {
    const uid = this.podUIDs.get(name);
    if (uid === undefined) return;
    const kubelet = this.nodeOf(this.podNodes.get(uid) ?? '').kubelet;
    if (kubelet === undefined) return; // the eviction manager is part of the kubelet process
    // The eviction manager ranks the kubelet's active pods only: a pod it has not seen cannot be evicted.
    const pod = kubelet.podManager.getPodByUID(uid);
    if (pod === undefined) return;
    this.sim.spawn(
      `${kubelet.nodeName}/evictionManager ${name}`,
      (function* (): Co {
        yield* kubelet.evictPod(pod, gracePeriodS);
      })(),
      kubelet.group,
    );
  }

  private injectFault(f: Fault): void {
    switch (f.kind) {
      case 'containerStart': {
        const uid = this.podUIDs.get(f.pod);
        const nodeName = uid === undefined ? undefined : this.podNodes.get(uid);
        if (uid === undefined || nodeName === undefined) return;
        this.nodeOf(nodeName).host.runtime.injectContainerStartFault(uid, {
          delayMs: f.delayMs ?? 0,
          error: f.error ?? undefined,
        });
        this.bus.publish({
          kind: 'faultInjected',
          atMs: this.sim.nowMs,
          node: nodeName,
          fault: 'containerStart',
          pod: f.pod,
          delayMs: f.delayMs ?? 0,
          error: f.error ?? undefined,
        });
        return;
      }
      case 'unmountDevice':
        this.nodeOf(f.node).storage.injectFault({
          kind: 'unmountDevice',
          volume: f.volume,
          stage: f.stage,
          times: f.times,
        });
        return;
      case 'procMounts':
        this.nodeOf(f.node).storage.injectFault({
          kind: 'procMounts',
          inconsistentReads: f.inconsistentReads,
        });
        return;
      case 'constructVolumeSpec':
        this.nodeOf(f.node).storage.injectFault({ kind: 'constructVolumeSpec', volume: f.volume });
        return;
      case 'tearDown':
        this.nodeOf(f.node).storage.injectFault({ kind: 'tearDown', volume: f.volume, times: f.times });
        return;
      default:
        unreachable(f, 'fault');
    }
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
