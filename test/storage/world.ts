// Test harness: a SAN, hosts and plugin managers on one Sim, with every fact recorded.
import type { AccessMode, VolumeMode } from '../../src/api/v1.js';
import type { Fact } from '../../src/facts.js';
import { Fixes } from '../../src/fixes.js';
import { type Co, Sim } from '../../src/sim/index.js';
import { Host } from '../../src/storage/host.js';
import { type LunPlugin, San } from '../../src/storage/san.js';
import { VolumePluginMgr } from '../../src/volume/plugins.js';
import type { Spec } from '../../src/volume/volume.js';

export const GiB = 1024 ** 3;

export interface VolumeArgs {
  name: string;
  plugin: LunPlugin;
  mode?: VolumeMode;
  accessMode?: AccessMode;
  capacityBytes?: number;
}

export class World {
  readonly sim: Sim;
  readonly facts: Fact[] = [];
  readonly san: San;
  readonly hosts = new Map<string, Host>();

  constructor(nodes: string[] = ['node-a'], seed = 1) {
    this.sim = new Sim(seed);
    this.san = new San({ now: () => this.sim.nowMs, publish: (f) => this.facts.push(f) });
    for (const node of nodes) {
      this.hosts.set(
        node,
        new Host({ node, sim: this.sim, san: this.san, publish: (f) => this.facts.push(f) }),
      );
    }
  }

  host(node = 'node-a'): Host {
    const h = this.hosts.get(node);
    if (h === undefined) throw new Error(`no host ${node}`);
    return h;
  }

  plugins(node = 'node-a', fixes: Fixes = Fixes.all()): VolumePluginMgr {
    return new VolumePluginMgr(this.host(node), fixes);
  }

  volume(v: VolumeArgs): Spec {
    const lun = this.san.addLun({
      name: v.name,
      plugin: v.plugin,
      mode: v.mode ?? 'Filesystem',
      accessMode: v.accessMode ?? 'ReadWriteOnce',
      capacityBytes: v.capacityBytes ?? 10 * GiB,
    });
    return {
      name: lun.name,
      plugin: lun.plugin,
      volumeMode: lun.mode,
      accessModes: [lun.accessMode],
      capacityBytes: lun.capacityBytes,
      readOnly: false,
    };
  }

  /** Runs `body` as a process to completion and returns its result (and the virtual time it took). */
  run<T>(body: Co<T>): { value: T; tookMs: number } {
    const start = this.sim.nowMs;
    let value: { v: T } | undefined;
    this.sim.spawn(
      'test',
      (function* () {
        value = { v: yield* body };
      })(),
    );
    this.sim.run({ horizonMs: this.sim.nowMs + 3_600_000, maxEvents: 1_000_000 });
    if (value === undefined) throw new Error('process did not finish');
    return { value: value.v, tookMs: this.sim.nowMs - start };
  }

  factsOf<K extends Fact['kind']>(kind: K): Extract<Fact, { kind: K }>[] {
    return this.facts.filter((f): f is Extract<Fact, { kind: K }> => f.kind === kind);
  }
}

/** WaitForAttach + MountDevice + SetUp for one pod, as the volume manager would run them. */
export function* mountForPod(mgr: VolumePluginMgr, spec: Spec, podUID: string): Co<string> {
  const plugin = mgr.findPluginBySpec(spec);
  const attacher = plugin.newAttacher();
  const dev = yield* attacher.waitForAttach(spec, '', podUID, 120_000);
  if (dev.err !== undefined) throw new Error(`waitForAttach: ${dev.err.message}`);
  const path = attacher.getDeviceMountPath(spec);
  if (mgr.host.mounts.at(path) === undefined) {
    const err = yield* attacher.mountDevice(spec, dev.value, path);
    if (err !== undefined) throw new Error(`mountDevice: ${err.message}`);
  }
  const setUpErr = yield* plugin.newMounter(spec, podUID).setUp();
  if (setUpErr !== undefined) throw new Error(`setUp: ${setUpErr.message}`);
  return path;
}
