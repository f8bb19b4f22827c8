// Small fake volume plugins and a fake kubelet around the volume manager, for the volume manager tests.
// Each plugin call takes a few virtual milliseconds and is recorded; failures are injected by count.

import { GoError, UncertainProgressError } from '../../../src/api/errors.js';
import {
  type PersistentVolumeClaim,
  type Pod,
  PVCProtectionFinalizer,
  type RuntimePod,
  type UID,
  type VolumeMode,
} from '../../../src/api/v1.js';
import type { Fact } from '../../../src/facts.js';
import { Fixes } from '../../../src/fixes.js';
import { ActualStateOfWorld } from '../../../src/kubelet/volumemanager/cache/actualStateOfWorld.js';
import type {
  LegacyPodStatusProvider,
  PodManager,
  PodVolumeOnDisk,
  VolumeHost,
  VolumePluginMgr,
} from '../../../src/kubelet/volumemanager/host.js';
import type { MarkVolumeOpts } from '../../../src/kubelet/volumemanager/operationexecutor/operationExecutor.js';
import { VolumeManager } from '../../../src/kubelet/volumemanager/volumeManager.js';
import { type Co, ProcessGroup, Sim, sleep } from '../../../src/sim/index.js';
import type { PluginKind, Result, Spec, VolumePlugin } from '../../../src/volume/volume.js';

export const OP_MS = 5;

function ok<T>(value: T): Result<T> {
  return { value, err: undefined };
}
function fail<T>(message: string): Result<T> {
  return { value: undefined, err: new GoError(message) };
}

/** Counts of injected failures still to fire, by call name. */
export type FailureName =
  | 'unmountDevice'
  | 'tearDown'
  | 'mountDevice'
  | 'setUp'
  | 'constructVolumeSpec'
  | 'constructBlockVolumeSpec';

export class FakePlugin implements VolumePlugin {
  readonly calls: string[] = [];
  readonly failures = new Map<FailureName, number>();
  readonly uncertain = new Set<FailureName>();

  /** When set, GetDeviceMountPath "fails with does not exist" (answers ''). */
  deviceMountPathGone = false;

  constructor(readonly kind: PluginKind = 'fc') {}

  count(name: string): number {
    return this.calls.filter((c) => c.startsWith(`${name}(`)).length;
  }

  /** The next `times` calls of `name` fail; with `uncertain`, with an UncertainProgressError (a timeout). */
  failNext(name: FailureName, times = 1, uncertain = false): void {
    this.failures.set(name, times);
    if (uncertain) this.uncertain.add(name);
    else this.uncertain.delete(name);
  }

  private *act(call: string, failure?: FailureName): Co<GoError | undefined> {
    this.calls.push(call);
    yield* sleep(OP_MS);
    if (failure !== undefined) {
      const left = this.failures.get(failure) ?? 0;
      if (left > 0) {
        this.failures.set(failure, left - 1);
        const message = `fake ${failure} failure`;
        return this.uncertain.has(failure) ? new UncertainProgressError(message) : new GoError(message);
      }
    }
    return undefined;
  }

  getPluginName(): string {
    return `kubernetes.io/${this.kind}`;
  }
  isAttachable(): boolean {
    return true;
  }
  newAttacher() {
    const p = this;
    return {
      *attach(): Co<Result<string>> {
        yield* sleep(0);
        return ok('');
      },
      *waitForAttach(spec: Spec): Co<Result<string>> {
        yield* p.act(`waitForAttach(${spec.name})`);
        return ok(`/dev/fake-${spec.name}`);
      },
      getDeviceMountPath(spec: Spec): string {
        if (p.deviceMountPathGone) return '';
        return `/var/lib/kubelet/plugins/${p.getPluginName()}/${spec.name}`;
      },
      *mountDevice(spec: Spec): Co<GoError | undefined> {
        return yield* p.act(`mountDevice(${spec.name})`, 'mountDevice');
      },
    };
  }
  newDetacher() {
    const p = this;
    return {
      *detach(): Co<GoError | undefined> {
        yield* sleep(0);
        return undefined;
      },
      *unmountDevice(path: string): Co<GoError | undefined> {
        return yield* p.act(`unmountDevice(${path})`, 'unmountDevice');
      },
    };
  }
  newMounter(spec: Spec, podUID: UID) {
    const p = this;
    return {
      getPath: () => `/var/lib/kubelet/pods/${podUID}/volumes/${spec.name}`,
      *setUp(): Co<GoError | undefined> {
        return yield* p.act(`setUp(${spec.name},${podUID})`, 'setUp');
      },
      *getMetrics(): Co<Result<{ capacityBytes: number }>> {
        yield* sleep(0);
        return ok({ capacityBytes: spec.capacityBytes });
      },
    };
  }
  newUnmounter(volumeName: string, podUID: UID) {
    const p = this;
    return {
      getPath: () => `/var/lib/kubelet/pods/${podUID}/volumes/${volumeName}`,
      *tearDown(): Co<GoError | undefined> {
        return yield* p.act(`tearDown(${volumeName},${podUID})`, 'tearDown');
      },
    };
  }
  newBlockVolumeMapper(spec: Spec, podUID: UID) {
    const p = this;
    return {
      supportsMetrics: () => false,
      getGlobalMapPath: (s: Spec) => `/var/lib/kubelet/plugins/${p.getPluginName()}/volumeDevices/${s.name}`,
      getPodDeviceMapPath: () => `/var/lib/kubelet/pods/${podUID}/volumeDevices/${spec.name}`,
      *setUpDevice(): Co<Result<string>> {
        yield* p.act(`setUpDevice(${spec.name})`);
        return ok('');
      },
      *mapPodDevice(): Co<Result<string>> {
        const err = yield* p.act(`mapPodDevice(${spec.name},${podUID})`, 'setUp');
        return err === undefined ? ok(`/dev/fake-${spec.name}`) : { value: undefined, err };
      },
      *getMetrics(): Co<Result<{ capacityBytes: number }>> {
        yield* sleep(0);
        return fail('not supported');
      },
    };
  }
  newBlockVolumeUnmapper(volumeName: string, podUID: UID) {
    const p = this;
    return {
      *tearDownDevice(): Co<GoError | undefined> {
        return yield* p.act(`tearDownDevice(${volumeName})`, 'unmountDevice');
      },
      *unmapPodDevice(): Co<GoError | undefined> {
        return yield* p.act(`unmapPodDevice(${volumeName},${podUID})`, 'tearDown');
      },
    };
  }
  *constructVolumeSpec(volumeName: string, _mountPath: string): Co<Result<Spec>> {
    const err = yield* this.act(`constructVolumeSpec(${volumeName})`, 'constructVolumeSpec');
    if (err !== undefined) return { value: undefined, err };
    return ok(makeSpec(volumeName, this.kind));
  }
  *constructBlockVolumeSpec(podUID: string, volumeName: string, _mapPath: string): Co<Result<Spec>> {
    const err = yield* this.act(
      `constructBlockVolumeSpec(${podUID},${volumeName})`,
      'constructBlockVolumeSpec',
    );
    if (err !== undefined) return { value: undefined, err };
    return ok(makeSpec(volumeName, this.kind, 'Block'));
  }
  *getDeviceMountRefs(): Co<Result<string[]>> {
    yield* sleep(0);
    return ok([]);
  }
}

export function makeSpec(
  name: string,
  plugin: PluginKind = 'fc',
  volumeMode: VolumeMode = 'Filesystem',
): Spec {
  return {
    name,
    plugin,
    volumeMode,
    accessModes: ['ReadWriteOnce'],
    capacityBytes: 1 << 30,
    readOnly: false,
  };
}

export function makePod(name: string, volumes: string[]): Pod {
  return {
    metadata: { uid: `uid-${name}`, name, namespace: 'default', annotations: {} },
    spec: { nodeName: 'node-a', containers: [{ name: 'c' }], volumes, restartPolicy: 'Always' },
    status: { phase: 'Pending', containerStatuses: [] },
  };
}

export interface HarnessOptions {
  fixes?: Fixes;
  volumes?: Spec[];
  podsOnDisk?: PodVolumeOnDisk[];
  /** Simulates the kubelet's node status loop: reports volumesInUse every 100 ms. Default true. */
  reportInUse?: boolean;
}

/** A volume manager on node-a with a fake kubelet around it. */
export class Harness {
  readonly sim = new Sim(1);
  readonly group = new ProcessGroup('kubelet/node-a');
  readonly plugin = new FakePlugin('fc');
  readonly pods = new Map<UID, Pod>();
  /** Pod worker answers (fix on): UIDs whose runtime may be removed / that are terminating. */
  readonly runtimeRemovable = new Set<UID>();
  readonly terminating = new Set<UID>();
  /** Legacy answers (fix off): status-terminated pods and the runtime's running pods. */
  readonly statusTerminated = new Set<UID>();
  runningRuntimePods: RuntimePod[] = [];
  readonly facts: Fact[] = [];
  readonly volumesInUseSeen = new Set<string>();
  /** node.status.volumesAttached; undefined: the GET of the node fails. */
  volumesAttached: { name: string; devicePath: string }[] | undefined;
  readonly vm: VolumeManager;
  deviceOpened = false;
  /** Paths that exist on the node (a Block volume's pod device link); undefined: every path exists. */
  existingPaths: Set<string> | undefined = undefined;
  /** Pod volume paths that are no mount point (release-1.23's reconstruction checks them). */
  readonly notMountPoints = new Set<string>();
  /** The kubelet's pod sources (the populator's hasAddedPods waits for them). */
  sourcesReady = true;
  /** The API server's claims, by name, where a test sets one (a claim being deleted). */
  readonly claims = new Map<string, PersistentVolumeClaim>();

  constructor(o: HarnessOptions = {}) {
    const specs = new Map((o.volumes ?? [makeSpec('lun-1')]).map((s) => [s.name, s]));
    this.volumesAttached = [...specs.keys()].map((name) => ({ name, devicePath: `/dev/fake-${name}` }));
    const plugin = this.plugin;
    const pluginMgr: VolumePluginMgr = { findPluginBySpec: () => plugin, findPluginByName: () => plugin };
    const podManager: PodManager = {
      getPods: () => [...this.pods.values()],
      getPodByUID: (uid) => this.pods.get(uid),
    };
    const legacy: LegacyPodStatusProvider = {
      isPodTerminated: (pod) => this.statusTerminated.has(pod.metadata.uid),
      getRunningRuntimePods: () => this.runningRuntimePods,
    };
    const host: VolumeHost = {
      // Every volume's claim is bound and not being deleted unless a test puts one in `claims`.
      getPersistentVolumeClaim: (name) =>
        this.claims.get(name) ?? (specs.has(name) ? boundClaim(name) : undefined),
      getVolumeSpec: (name) => specs.get(name),
      getVolumesAttached: () => this.volumesAttached,
      getVolumesFromPodDir: () => o.podsOnDisk ?? [],
      isDeviceOpened: () => this.deviceOpened,
      getDeviceBindMountRefs: () => ({ value: [], err: undefined }),
      pathExists: (path) => this.existingPaths?.has(path) ?? true,
      isLikelyMountPoint: (path) => !this.notMountPoints.has(path),
      sourcesReady: () => this.sourcesReady,
      publish: (f) => this.facts.push(f),
    };
    this.vm = new VolumeManager({
      sim: this.sim,
      group: this.group,
      nodeName: 'node-a',
      fixes: o.fixes ?? Fixes.all(),
      volumePluginMgr: pluginMgr,
      podManager,
      podStateProvider: {
        shouldPodContainersBeTerminating: (uid) => this.terminating.has(uid),
        shouldPodRuntimeBeRemoved: (uid) => this.runtimeRemovable.has(uid),
      },
      legacyPodStatusProvider: legacy,
      host,
    });
    this.vm.run();
    const vm = this.vm;
    const seen = this.volumesInUseSeen;
    const report = o.reportInUse ?? true;
    this.sim.spawn(
      'node-status',
      (function* (): Co {
        for (;;) {
          const inUse = vm.getVolumesInUse();
          for (const v of inUse) seen.add(v);
          if (report) vm.markVolumesAsReportedInUse(inUse);
          yield* sleep(100);
        }
      })(),
      this.group,
    );
  }

  addPod(pod: Pod): Pod {
    this.pods.set(pod.metadata.uid, pod);
    return pod;
  }

  /** Runs the simulation until virtual time `ms`. */
  runUntil(ms: number): void {
    this.sim.run({ horizonMs: ms, maxEvents: 10_000_000 });
  }

  factsOf(kind: Fact['kind']): Fact[] {
    return this.facts.filter((f) => f.kind === kind);
  }
}

/** An empty actual state of world of node-a whose plugin lookups all answer one FakePlugin. */
export function newASW(): ActualStateOfWorld {
  const plugin = new FakePlugin();
  return new ActualStateOfWorld('node-a', { findPluginBySpec: () => plugin, findPluginByName: () => plugin });
}

/** MarkVolumeOpts of pod uid-a's mount of lun-1, in `volumeMountState`. */
export function podMountOpts(volumeMountState: MarkVolumeOpts['volumeMountState']): MarkVolumeOpts {
  return {
    podName: 'uid-a',
    podUID: 'uid-a',
    volumeName: 'lun-1',
    outerVolumeSpecName: 'lun-1',
    volumeGidVolume: '',
    volumeSpec: makeSpec('lun-1'),
    volumeMountState,
  };
}

/** A claim of the volume's name, bound to it, with the admission plugin's finalizer (src/cluster/claims.ts). */
export function boundClaim(name: string, deletionTimestamp?: number): PersistentVolumeClaim {
  return {
    metadata: { name, namespace: 'default', finalizers: [PVCProtectionFinalizer], deletionTimestamp },
    spec: { volumeName: name },
    status: { phase: 'Bound' },
  };
}
