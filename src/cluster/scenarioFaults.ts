// The scenario's `fault` entries: each handed to the component it perturbs (the node's storage host, or
// the container runtime for containerStart and stopContainer), and at the end of the run, the faults with firings left
// reported as entries that never took effect (actionNoop), with the line that armed them.
import type { UID } from '../api/v1.js';
import type { ContainerStartFault } from '../runtime/fakeRuntime.js';
import {
  STOP_CONTAINER_DEFAULT_ERROR,
  STOP_CONTAINER_NOT_FOUND,
  type StopContainerFault,
} from '../runtime/stopFaults.js';
import type { Fault } from '../scenario/types.js';
import { unreachable } from '../sim/index.js';
import { publishNoop } from './actionNoop.js';
import type { ActionWorld } from './scenarioActions.js';

export class ScenarioFaults {
  /** containerStart faults injected, to report at the end those that never fired. */
  private readonly startFaults: {
    readonly line: number;
    readonly pod: string;
    readonly uid: UID;
    readonly node: string;
    readonly fault: ContainerStartFault;
  }[] = [];

  /** stopContainer faults injected, to report at the end those with firings left. */
  private readonly stopFaults: {
    readonly line: number;
    readonly pod: string;
    readonly uid: UID;
    readonly node: string;
    readonly fault: StopContainerFault;
  }[] = [];

  constructor(
    private readonly world: ActionWorld,
    /** The current holder of a scenario pod name: its UID and node (undefined before its create). */
    private readonly podOf: (name: string) => { uid: UID; node: string } | undefined,
  ) {}

  private noop(
    node: string,
    line: number,
    reason: string,
    about: { fault: string; pod?: string; volume?: string | undefined },
  ): void {
    publishNoop(this.world, node, 'fault', line, reason, about);
  }

  /** The pod a pod fault names, or undefined (reported as an entry that did nothing) before its create. */
  private holderOf(pod: string, line: number, fault: string): { uid: UID; node: string } | undefined {
    const holder = this.podOf(pod);
    if (holder === undefined)
      this.noop('', line, `no pod ${pod} has been created yet (its createPod waits)`, { fault, pod });
    return holder;
  }

  inject(f: Fault, line: number): void {
    switch (f.kind) {
      case 'containerStart': {
        const holder = this.holderOf(f.pod, line, f.kind);
        if (holder === undefined) return;
        const { uid, node: nodeName } = holder;
        const runtime = this.world.nodeOf(nodeName).host.runtime;
        const replaced = this.startFaults.find(
          (s) => s.uid === uid && runtime.pendingStartFault(uid) === s.fault,
        );
        if (replaced !== undefined)
          this.noop(
            nodeName,
            replaced.line,
            `replaced by a later containerStart fault of pod ${f.pod} before it fired`,
            { fault: 'containerStart', pod: f.pod },
          );
        const fault: ContainerStartFault = { delayMs: f.delayMs ?? 0, error: f.error ?? undefined };
        runtime.injectContainerStartFault(uid, fault);
        this.startFaults.push({ line, pod: f.pod, uid, node: nodeName, fault });
        this.world.bus.publish({
          kind: 'faultInjected',
          atMs: this.world.sim.nowMs,
          node: nodeName,
          fault: 'containerStart',
          pod: f.pod,
          delayMs: f.delayMs ?? 0,
          error: f.error ?? undefined,
        });
        return;
      }
      case 'stopContainer': {
        const holder = this.holderOf(f.pod, line, f.kind);
        if (holder === undefined) return;
        const { uid, node: nodeName } = holder;
        const fault: StopContainerFault = {
          container: f.container,
          error: f.error ?? STOP_CONTAINER_DEFAULT_ERROR,
          removes: f.error === STOP_CONTAINER_NOT_FOUND,
          remaining: f.times,
          fired: 0,
        };
        const replaced = this.world.nodeOf(nodeName).host.runtime.stopFaults.inject(uid, fault);
        const before = this.stopFaults.find((s) => s.fault === replaced);
        if (before !== undefined)
          this.noop(
            nodeName,
            before.line,
            `replaced by a later stopContainer fault of pod ${f.pod} with ${replaced?.remaining} firing(s) left`,
            { fault: 'stopContainer', pod: f.pod },
          );
        this.stopFaults.push({ line, pod: f.pod, uid, node: nodeName, fault });
        return;
      }
      case 'unmountDevice':
      case 'procMounts':
      case 'constructVolumeSpec':
      case 'tearDown':
      case 'mountDevice':
      case 'setUp':
      case 'waitForAttach':
      case 'detach':
        // A storage fault is the scenario's entry as it is, plus its line. The controller's Detach of a
        // volume from f.node runs in a plugin over that node's storage host (src/cluster/volumeWiring.ts
        // newControllerVolumePluginMgr), so a detach fault is armed there too.
        this.world.nodeOf(f.node).storage.injectFault({ ...f, line });
        return;
      case 'pvcLookup':
        // getPVCExtractPV's GET through the kubelet's client (kubeClient.CoreV1().PersistentVolumeClaims).
        this.world.nodeOf(f.node).storage.injectFault({
          kind: 'pvcLookup',
          volume: f.volume,
          times: f.times,
          error: f.error ?? pvcLookupDefaultError(f.volume),
          line,
        });
        return;
      case 'nodePartition':
        // The network, not a component: the API server cuts the node's kubelet off and heals it.
        this.world.api.partitionNode(f.node, f.durationMs);
        return;
      default:
        unreachable(f, 'fault');
    }
  }

  finish(): void {
    for (const node of this.world.nodes.values()) {
      for (const f of node.storage.faults.unfired()) {
        const reason =
          f.remaining === null
            ? 'armed until the end of the run, it never fired'
            : f.fired === 0
              ? `it never fired before the run ended (${f.remaining} firing(s) armed)`
              : `it fired ${f.fired} of ${f.fired + f.remaining} time(s) before the run ended`;
        this.noop(node.name, f.line, reason, { fault: f.label, volume: f.volume });
      }
    }
    for (const s of this.stopFaults) {
      if (s.fault.remaining === 0) continue;
      if (this.world.nodeOf(s.node).host.runtime.stopFaults.pending(s.uid) !== s.fault) continue; // replaced
      const reason =
        s.fault.fired === 0
          ? `no StopContainer of pod ${s.pod} (uid ${s.uid}) came after it (${s.fault.remaining} firing(s) armed)`
          : `it fired ${s.fault.fired} of ${s.fault.fired + s.fault.remaining} time(s) before the run ended`;
      this.noop(s.node, s.line, reason, { fault: 'stopContainer', pod: s.pod });
    }
    for (const s of this.startFaults) {
      if (this.world.nodeOf(s.node).host.runtime.pendingStartFault(s.uid) !== s.fault) continue;
      this.noop(s.node, s.line, `no container of pod ${s.pod} (uid ${s.uid}) started after it`, {
        fault: 'containerStart',
        pod: s.pod,
      });
    }
  }
}

/** A pvcLookup fault's error by default: the kubelet's GET of the claim timing out. */
export function pvcLookupDefaultError(volume: string): string {
  return `Get "https://apiserver:6443/api/v1/namespaces/default/persistentvolumeclaims/${volume}": net/http: request canceled (Client.Timeout exceeded while awaiting headers)`;
}
