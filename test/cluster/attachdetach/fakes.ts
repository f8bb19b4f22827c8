// Test doubles for the attach/detach controller, after upstream's (release-1.23):
// pkg/volume/testing/testing.go (FakeVolumePlugin / FakeVolume and the special node names),
// pkg/controller/volume/attachdetach/statusupdater/fake_node_status_updater.go,
// pkg/controller/volume/attachdetach/testing/testvolumespec.go (GetTestVolumeSpec, NewPod),
// client-go record.FakeRecorder, and a harness that wires them to the ported controller pieces on the
// simulated API server. Upstream's tests sleep in real time and poll; the harness runs virtual time.
import { GoError } from '../../../src/api/errors.js';
import type { AccessMode, Pod } from '../../../src/api/v1.js';
import { APIServer } from '../../../src/cluster/apiServer.js';
import { ActualStateOfWorld } from '../../../src/cluster/attachdetach/actualStateOfWorld.js';
import { DesiredStateOfWorld } from '../../../src/cluster/attachdetach/desiredStateOfWorld.js';
import {
  type NodeStatusUpdater,
  newNodeStatusUpdater,
} from '../../../src/cluster/attachdetach/nodeStatusUpdater.js';
import {
  type AttachableVolumePlugin,
  type AttachDetachVolumePluginMgr,
  OperationExecutor,
  OperationGenerator,
} from '../../../src/cluster/attachdetach/operations.js';
import { type EventRecorder, Reconciler } from '../../../src/cluster/attachdetach/reconciler.js';
import { isNodeReady, nodeMonitorGracePeriodMs } from '../../../src/cluster/nodeLifecycle.js';
import type { Fact } from '../../../src/facts.js';
import { Fixes } from '../../../src/fixes.js';
import { type Co, Sim, sleep } from '../../../src/sim/index.js';
import { NestedPendingOperations } from '../../../src/volume/util/nestedPendingOperations.js';
import type { Result, Spec } from '../../../src/volume/volume.js';

/** The node names the fake plugin treats specially (volumetesting). */
export const UncertainAttachNode = 'uncertain-attach-node';
export const FailDetachNode = 'fail-detach-node';
export const TimeoutAttachNode = 'timeout-attach-node';
export const MultiAttachNode = 'multi-attach-node';

/** How long a fake Attach / Detach takes: upstream's fake returns at once; a call here yields 1 ms. */
const FAKE_OP_MS = 1;

/** volumetesting.FakeVolume: the attacher / detacher, with call counts and the attachments it made. */
export class FakeVolume {
  attachCallCount = 0;
  detachCallCount = 0;
  /** volume name -> nodes; shared between the plugin's first attacher and its first detacher. */
  volumesAttached = new Map<string, Set<string>>();

  *attach(spec: Spec, nodeName: string): Co<Result<string>> {
    this.attachCallCount++;
    yield* sleep(FAKE_OP_MS);
    const volumeName = spec.name;
    const volumeNodes = this.volumesAttached.get(volumeName);
    if (volumeNodes !== undefined) {
      if (nodeName === UncertainAttachNode) return { value: '/dev/vdb-test', err: undefined };
      // even if volume was previously attached to time out, we need to keep returning error
      // so as reconciler can not confirm this volume as attached.
      if (nodeName === TimeoutAttachNode) {
        return {
          value: undefined,
          err: new GoError(`timed out to attach volume "${volumeName}" to node "${nodeName}"`),
        };
      }
      if (volumeNodes.has(nodeName) || volumeNodes.has(MultiAttachNode) || nodeName === MultiAttachNode) {
        volumeNodes.add(nodeName);
        return { value: '/dev/vdb-test', err: undefined };
      }
      return {
        value: undefined,
        err: new GoError(
          `volume "${volumeName}" trying to attach to node "${nodeName}" is already attached to node "${[...volumeNodes].join(',')}"`,
        ),
      };
    }
    this.volumesAttached.set(volumeName, new Set([nodeName]));
    if (nodeName === UncertainAttachNode || nodeName === TimeoutAttachNode) {
      return {
        value: undefined,
        err: new GoError(`timed out to attach volume "${volumeName}" to node "${nodeName}"`),
      };
    }
    return { value: '/dev/vdb-test', err: undefined };
  }

  *detach(volumeName: string, nodeName: string): Co<GoError | undefined> {
    this.detachCallCount++;
    yield* sleep(FAKE_OP_MS);
    const volumeNodes = this.volumesAttached.get(volumeName);
    if (volumeNodes === undefined || !volumeNodes.has(nodeName)) {
      return new GoError(
        `trying to detach volume "${volumeName}" that is not attached to the node "${nodeName}"`,
      );
    }
    if (nodeName === FailDetachNode) {
      return new GoError(`fail to detach volume "${volumeName}" to node "${nodeName}"`);
    }
    volumeNodes.delete(nodeName);
    if (volumeNodes.size === 0) this.volumesAttached.delete(volumeName);
    return undefined;
  }
}

/** volumetesting.FakeVolumePlugin: NewAttacher / NewDetacher hand out the same FakeVolume each time. */
export class FakeVolumePlugin implements AttachableVolumePlugin {
  newAttacherCallCount = 0;
  newDetacherCallCount = 0;
  readonly attachers: FakeVolume[] = [];
  readonly detachers: FakeVolume[] = [];

  getPluginName(): string {
    return 'fake-plugin';
  }

  getVolumeName(spec: Spec): string {
    return spec.name;
  }

  private getFakeVolume(list: FakeVolume[]): FakeVolume {
    const first = list[0];
    if (first !== undefined) return first;
    const volume = new FakeVolume();
    list.push(volume);
    return volume;
  }

  newAttacher(): FakeVolume {
    this.newAttacherCallCount++;
    return this.getFakeVolume(this.attachers);
  }

  newDetacher(): FakeVolume {
    this.newDetacherCallCount++;
    const detacher = this.getFakeVolume(this.detachers);
    const attacher = this.attachers[0];
    if (attacher !== undefined) detacher.volumesAttached = attacher.volumesAttached;
    return detacher;
  }
}

/**
 * statusupdater.NewFakeNodeStatusUpdater(returnError): never reads the actual state of world. `returnError`
 * may change mid-test, where upstream swaps in another fake (`rc.nodeStatusUpdater = ...`).
 */
export class FakeNodeStatusUpdater implements NodeStatusUpdater {
  constructor(public returnError: boolean) {}

  // biome-ignore lint/correctness/useYield: the fake answers at once
  *updateNodeStatuses(): Co<GoError | undefined> {
    return this.returnError ? new GoError('fake error on update node status') : undefined;
  }

  // biome-ignore lint/correctness/useYield: the fake answers at once
  *updateNodeStatusForNode(): Co<GoError | undefined> {
    return this.returnError ? new GoError('fake error on update node status') : undefined;
  }
}

/** record.FakeRecorder: "<type> <reason> <message>" per event. */
export class FakeRecorder implements EventRecorder {
  readonly events: string[] = [];
  eventf(_pod: Pod, eventType: string, reason: string, message: string): void {
    this.events.push(`${eventType} ${reason} ${message}`);
  }
}

/** controllervolumetesting.GetTestVolumeSpec: a PersistentVolume spec (GCE PD in upstream's). */
export function getTestVolumeSpec(volumeName: string, accessMode: AccessMode = 'ReadWriteOnce'): Spec {
  return {
    name: volumeName,
    plugin: 'csi',
    volumeMode: 'Filesystem',
    accessModes: [accessMode],
    capacityBytes: 1 << 30,
    readOnly: false,
  };
}

/** controllervolumetesting.NewPod(uid, name) in namespace "mynamespace". */
export function newPod(uid: string, name: string, namespace = 'mynamespace'): Pod {
  return {
    metadata: { uid, name, namespace, annotations: {} },
    spec: {
      nodeName: 'mynode',
      containers: [{ name: 'containerName' }],
      volumes: [],
      restartPolicy: 'Always',
    },
    status: { phase: 'Running', containerStatuses: [] },
  };
}

export interface HarnessOptions {
  /** The nodes registered on the simulated API server (what the real status updater and GETs see). */
  readonly nodes?: readonly string[];
  /** `fake-ok` / `fake-error`: upstream's fake updater; `api`: the real one over the simulated API server. */
  readonly nodeStatusUpdater?: 'fake-ok' | 'fake-error' | 'api';
  readonly fixes?: Fixes;
  readonly loopPeriodMs?: number;
  readonly maxWaitForUnmountDurationMs?: number;
  /** NewReconciler's disableForceDetachOnTimeout (release-1.30 on); default false. */
  readonly disableForceDetachOnTimeout?: boolean;
}

/** reconcilerLoopPeriod and maxWaitForUnmountDuration of reconciler_test.go. */
export const reconcilerLoopPeriodMs = 10;
export const maxWaitForUnmountDurationMs = 50;

/** The pieces upstream's tests build by hand: dsw, asw, operation executor, status updater, reconciler. */
export class Harness {
  readonly sim = new Sim(1);
  readonly facts: Fact[] = [];
  readonly api: APIServer;
  readonly plugin = new FakeVolumePlugin();
  readonly volumePluginMgr: AttachDetachVolumePluginMgr = { findAttachablePluginBySpec: () => this.plugin };
  readonly dsw: DesiredStateOfWorld;
  readonly asw: ActualStateOfWorld;
  readonly ad: OperationExecutor;
  readonly nsu: NodeStatusUpdater;
  readonly recorder = new FakeRecorder();
  readonly reconciler: Reconciler;
  private started = false;

  constructor(o: HarnessOptions = {}) {
    const publish = (f: Fact): void => {
      this.facts.push(f);
    };
    this.api = new APIServer(this.sim, this.sim.rng.fork('apiserver'), publish);
    for (const n of o.nodes ?? []) this.api.addNode(n);
    const client = this.api.controllerClient('attachdetach-controller');
    const now = (): number => this.sim.nowMs;
    const nodeLister = (name: string) => this.api.findNode(name);
    const nodeLeaseRenewTimeMs = (name: string) => this.api.nodeLeaseRenewTimeMs(name);
    this.dsw = new DesiredStateOfWorld(this.volumePluginMgr);
    this.asw = new ActualStateOfWorld(this.volumePluginMgr, now);
    this.ad = new OperationExecutor(
      new NestedPendingOperations(this.sim, undefined),
      new OperationGenerator({
        volumePluginMgr: this.volumePluginMgr,
        fixes: o.fixes ?? Fixes.of('1.23'),
        getNode: (name) => client.getNode(name),
        now,
        publish,
      }),
    );
    const kind = o.nodeStatusUpdater ?? 'fake-ok';
    this.nsu =
      kind === 'api'
        ? newNodeStatusUpdater(client, nodeLister, this.asw)
        : new FakeNodeStatusUpdater(kind === 'fake-error');
    this.reconciler = new Reconciler({
      loopPeriodMs: o.loopPeriodMs ?? reconcilerLoopPeriodMs,
      maxWaitForUnmountDurationMs: o.maxWaitForUnmountDurationMs ?? maxWaitForUnmountDurationMs,
      disableForceDetachOnTimeout: o.disableForceDetachOnTimeout,
      desiredStateOfWorld: this.dsw,
      actualStateOfWorld: this.asw,
      attacherDetacher: this.ad,
      nodeStatusUpdater: this.nsu,
      recorder: this.recorder,
      fixes: o.fixes ?? Fixes.of('1.23'),
      nodeLister,
      nodeLeaseRenewTimeMs,
      now,
      publish,
    });
  }

  /** `go reconciler.Run(ch)`. */
  run(): void {
    if (this.started) throw new Error('reconciler already running');
    this.started = true;
    this.sim.spawn('reconciler', this.reconciler.run());
  }

  /** One `reconciliationLoopFunc()` call, run to completion (it waits on API calls). */
  reconciliationLoopFunc(): void {
    let done = false;
    const r = this.reconciler;
    this.sim.spawn(
      'reconciliationLoopFunc',
      (function* (): Co {
        yield* r.reconciliationLoopFunc();
        done = true;
      })(),
    );
    while (!done) this.sleep(1);
  }

  /**
   * `rc.(*reconciler).nodeStatusUpdater = statusupdater.NewFakeNodeStatusUpdater(returnError)`: the
   * harness's fake updater answers with an error from now on, or no longer does.
   */
  setFakeNodeStatusUpdaterError(returnError: boolean): void {
    if (!(this.nsu instanceof FakeNodeStatusUpdater))
      throw new Error('the harness runs the real node status updater');
    this.nsu.returnError = returnError;
  }

  /**
   * Upstream's tests mark a node unhealthy by writing its Ready condition into the node informer's store.
   * Here Ready is derived from the node's Lease (src/cluster/nodeLifecycle.ts): a node registered on the
   * API server (`nodes`) is Ready until its Lease, which nothing in the harness renews, is
   * node-monitor-grace-period (40 s) old. This sleeps until then, the reconciler running meanwhile.
   */
  sleepUntilNodeNotReady(nodeName: string): void {
    const renewTimeMs = this.api.nodeLeaseRenewTimeMs(nodeName);
    if (renewTimeMs === undefined) throw new Error(`node ${nodeName} is not registered`);
    this.sleep(Math.max(0, renewTimeMs + nodeMonitorGracePeriodMs - this.sim.nowMs));
    if (isNodeReady(renewTimeMs, this.sim.nowMs)) throw new Error(`node ${nodeName} is still Ready`);
  }

  /** time.Sleep(ms) while the goroutines run. */
  sleep(ms: number): void {
    const until = this.sim.nowMs + ms;
    // A timer at the end, so that virtual time passes even when no goroutine has anything to do.
    this.sim.at(until, () => {});
    this.sim.run({ horizonMs: until, maxEvents: 10_000_000 });
  }

  /**
   * retryWithExponentialBackOff(initial, fn): wait.ExponentialBackoff{Duration: initial, Factor: 3,
   * Steps: 6}: the condition up to 6 times, sleeping initial, 3x, 9x, ... in between; false if it never held.
   */
  retryWithExponentialBackOff(initialMs: number, condition: () => boolean): boolean {
    let duration = initialMs;
    for (let steps = 6; steps > 0; steps--) {
      if (condition()) return true;
      if (steps === 1) break;
      this.sleep(duration);
      duration *= 3;
    }
    return false;
  }

  factsOf<K extends Fact['kind']>(kind: K): Extract<Fact, { kind: K }>[] {
    return this.facts.filter((f): f is Extract<Fact, { kind: K }> => f.kind === kind);
  }
}
