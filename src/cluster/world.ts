// The world of one run: the kernel, the API server, the attach/detach controller, the SAN, and per node
// the host (runtime, storage, cgroups, static manifests) and its kubelet process. The scenario's timeline
// is carried out by scenarioActions.ts.
import type { UID } from '../api/v1.js';
import { controllerManagerHasFlag, missingFlagMessage } from '../controllerManagerFlags.js';
import { outOfServiceGateOffMessage, outOfServiceVolumeDetachOn } from '../controllerManagerGates.js';
import { WRITES_NONE } from '../elisionMasks.js';
import type { Fact } from '../facts.js';
import type { Fixes } from '../fixes.js';
import { Kubelet } from '../kubelet/kubelet.js';
import { FakeRuntime } from '../runtime/fakeRuntime.js';
import { PodCgroups } from '../runtime/podCgroups.js';
import { InputError } from '../scenario/errors.js';
import type { Scenario } from '../scenario/types.js';
import { AssertionError, Bus, Sim } from '../sim/index.js';
import { Host } from '../storage/host.js';
import { San } from '../storage/san.js';
import { APIServer } from './apiServer.js';
import { AttachDetachController } from './attachdetach/controller.js';
import type { NodeWorld } from './nodeWorld.js';
import { PvcProtectionController } from './pvcProtection.js';
import { ScenarioActions } from './scenarioActions.js';
import { newControllerVolumePluginMgr, newKubeletVolumeManager, volumeSpecOf } from './volumeWiring.js';

/**
 * The kube-controller-manager of the run's release must have every flag the scenario gives it: an older
 * one exits at start ("unknown flag"), so such a run is refused, located at the flag (exit 2).
 */
function checkControllerManagerFlags(scenario: Scenario, fixes: Fixes): void {
  const cm = scenario.controllerManager;
  const kubelet = fixes.base;
  if (cm === undefined || kubelet === undefined) return;
  if (controllerManagerHasFlag('disableForceDetachOnTimeout', kubelet)) return;
  const field = 'cluster.controllerManager.disableForceDetachOnTimeout';
  const message = `${missingFlagMessage('disableForceDetachOnTimeout', kubelet)}: run with --kubelet 1.30 or later, or fixed`;
  if (scenario.file === '') throw new InputError(`scenario ${scenario.name}: ${field}: ${message}`);
  throw new InputError(`${scenario.file}:${cm.line}:${cm.col}: ${field}: ${message}`, { located: true });
}

/**
 * A run whose kube-controller-manager ignores the out-of-service taint (NodeOutOfServiceVolumeDetach off
 * by default, or absent) is refused at the first `outOfServiceTaint` entry (exit 2).
 */
function checkOutOfServiceGate(scenario: Scenario, fixes: Fixes): void {
  const kubelet = fixes.base;
  if (kubelet === undefined || outOfServiceVolumeDetachOn(kubelet)) return;
  const index = scenario.timeline.findIndex((e) => e.action.kind === 'outOfServiceTaint');
  const entry = scenario.timeline[index];
  if (entry === undefined) return;
  const field = `timeline[${index}].outOfServiceTaint`;
  const message = `${outOfServiceGateOffMessage(kubelet)}: run with --kubelet 1.26 or later, or fixed`;
  if (scenario.file === '' || entry.line === 0)
    throw new InputError(`scenario ${scenario.name}: ${field}: ${message}`);
  throw new InputError(`${scenario.file}:${entry.line}:${entry.col ?? 1}: ${field}: ${message}`, {
    located: true,
  });
}

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
  readonly pvcProtection: PvcProtectionController;
  readonly nodes = new Map<string, NodeWorld>();
  readonly scenario: Scenario;
  readonly fixes: Fixes;
  private readonly actions: ScenarioActions;

  constructor(o: WorldOptions) {
    checkControllerManagerFlags(o.scenario, o.fixes);
    checkOutOfServiceGate(o.scenario, o.fixes);
    this.scenario = o.scenario;
    this.fixes = o.fixes;
    this.sim = new Sim(o.seed, { elide: o.elide });
    // A published fact is an effect: a loop round that publishes one was not idle (src/sim/elision.ts).
    // The fact stream is one (the invariant monitor reads facts of every node in order): shared.
    this.bus.subscribe(() => {
      this.sim.noteEffect();
      this.sim.noteShared();
    });
    const publish = (fact: Fact): void => this.bus.publish(fact);
    this.api = new APIServer(this.sim, this.sim.rng.fork('apiserver'), publish);
    this.san = new San({ now: () => this.sim.nowMs, publish, touched: () => this.sim.noteShared() });
    for (const v of o.scenario.volumes) {
      this.api.claims.add(v.name);
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
        host: {
          runtime,
          podCgroups: new PodCgroups(
            name,
            () => this.sim.nowMs,
            publish,
            (uid) => this.actions.podNameOf(uid),
          ),
          staticManifests: new Map(),
        },
        kubelet: undefined,
        kubeletGeneration: 0,
        labels: o.scenario.nodeLabels?.[name] ?? {},
      });
    }
    this.pvcProtection = new PvcProtectionController(this.sim, this.api);
    this.actions = new ScenarioActions(this);
    this.adc = new AttachDetachController({
      sim: this.sim,
      api: this.api,
      volumePluginMgr: newControllerVolumePluginMgr(this),
      volumeSpecLister: (name) => volumeSpecOf(this, name),
      fixes: o.fixes,
      disableForceDetachOnTimeout: o.scenario.controllerManager?.disableForceDetachOnTimeout === true,
      domain: o.scenario.nodes.length + 1,
      publish,
    });
  }

  /** Starts every kubelet and the controllers, and schedules the scenario's timeline. */
  start(): void {
    for (const node of this.nodes.values()) this.startKubelet(node);
    this.adc.start();
    for (const entry of this.scenario.timeline) {
      this.sim.atOrdered(entry.atMs, () => this.actions.apply(entry.action, entry.line));
    }
  }

  /** A node's elision domain: its changes wake only its own parked loops (src/sim/elision.ts). */
  private domainOf(nodeName: string): number {
    return this.scenario.nodes.indexOf(nodeName) + 1;
  }

  podNameOf(uid: UID): string {
    return this.actions.podNameOf(uid);
  }

  /**
   * After the run: which timeline entries never took effect (a fault still armed, a create still
   * waiting for its name), as actionNoop facts at the final time.
   */
  finish(): void {
    this.actions.finish();
  }

  nodeOf(name: string): NodeWorld {
    const node = this.nodes.get(name);
    if (!(node !== undefined)) throw new AssertionError(`unknown node ${name}`);
    return node;
  }

  /**
   * True while some injected fault has fired and still has firings left (the liveness checks are not
   * judged then); one that never fired changed nothing.
   */
  faultsActive(): boolean {
    for (const node of this.nodes.values()) {
      if (node.storage.faults.active() || node.host.runtime.stopFaults.active()) return true;
    }
    return false;
  }

  /** Ground truth for the checkers: the volumes pod `uid` still has set up on node `name` (none if no such node). */
  podVolumeMounts(name: string, uid: string): readonly string[] {
    return this.nodes.get(name)?.storage.podVolumeMounts(uid) ?? [];
  }

  // ---- kubelet processes ----

  startKubelet(node: NodeWorld): void {
    const kubelet = new Kubelet({
      sim: this.sim,
      rng: this.sim.rng.fork(`${node.name}/kubelet/${node.kubeletGeneration}`),
      nodeName: node.name,
      domain: this.domainOf(node.name),
      fixes: this.fixes,
      shutdown: this.scenario.nodeShutdown?.[node.name],
      nodeLabels: () => node.labels,
      allocatable: this.scenario.nodeAllocatable?.[node.name],
      kubeClient: this.api.client(node.name),
      // A delivery feeds the pod config, which only syncLoop reads (woken by its channel, an event of
      // its own): it changes nothing a parked loop reads (src/elisionMasks.ts).
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
}
