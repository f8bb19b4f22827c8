// device-left-mounted: the checker on synthetic facts (fires exactly; quiet while a pod mount, a wanting
// pod, a fault, a down kubelet or too little time explains the mount), and the planted bug it exists for
// in a run: an iSCSI DetachDisk that returns success before it unmounts anything (StrykerJS's sample,
// mutant 39) leaves the global mount for good while the kubelet retries UnmountDevice; the ported one
// unmounts it.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { GoError } from '../../src/api/errors.js';
import type { Fact } from '../../src/facts.js';
import { Fixes } from '../../src/fixes.js';
import { DeviceLeftMounted, UNMOUNT_BOUND_MS } from '../../src/invariants/deviceLeftMounted.js';
import type { Violation } from '../../src/invariants/types.js';
import { runScenario } from '../../src/run/run.js';
import { parseScenarioText } from '../../src/scenario/load.js';
import type { Co } from '../../src/sim/index.js';

const planted = vi.hoisted(() => ({ on: false }));

vi.mock('../../src/volume/iscsiUtil.js', async (importOriginal) => {
  const orig = await importOriginal<typeof import('../../src/volume/iscsiUtil.js')>();
  return {
    ...orig,
    detachDisk: function* (...args: Parameters<typeof orig.detachDisk>): Co<GoError | undefined> {
      if (planted.on) return undefined; // BUG: "success" before the unmount, the device deletes and the logout
      return yield* orig.detachDisk(...args);
    },
  };
});

afterEach(() => {
  planted.on = false;
});

const GLOBAL = '/var/lib/kubelet/plugins/kubernetes.io/iscsi/iface-default/portal-lun-0';
const POD = '/var/lib/kubelet/pods/db-1/volumes/kubernetes.io~iscsi/lun-1';

function mount(atMs: number, scope: 'global' | 'pod', mounted: boolean, node = 'node-a'): Fact {
  return {
    kind: 'hostMount',
    atMs,
    node,
    volume: 'lun-1',
    path: scope === 'global' ? GLOBAL : POD,
    mounted,
    scope,
    ...(scope === 'pod' ? { uid: 'db-1', pod: 'db' } : {}),
  };
}

const created: Fact = {
  kind: 'apiPodCreated',
  atMs: 0,
  node: 'node-a',
  uid: 'db-1',
  pod: 'db',
  static: false,
  volumes: ['lun-1'],
} as unknown as Fact;
const deleted: Fact = {
  kind: 'apiPodDeleted',
  atMs: 30_000,
  node: 'node-a',
  uid: 'db-1',
  pod: 'db',
} as unknown as Fact;

function check(facts: readonly Fact[], endMs: number, faultsActive = false): Violation[] {
  const c = new DeviceLeftMounted({ faultsActiveAtEnd: () => faultsActive });
  const out: Violation[] = [];
  for (const f of facts) if (c.kinds.includes(f.kind)) c.onFact(f);
  c.onEnd(endMs, (v) => out.push(v));
  return out;
}

describe('device-left-mounted on facts', () => {
  const life = [
    created,
    mount(10_000, 'global', true),
    mount(10_100, 'pod', true),
    mount(28_000, 'pod', false),
    deleted,
  ];
  const late = 30_000 + UNMOUNT_BOUND_MS;

  it('fires for a global mount left once the pod mount and the pod are gone for the bound', () => {
    const v = check(life, late);
    expect(v.map((x) => [x.invariant, x.node, x.volume])).toEqual([
      ['device-left-mounted', 'node-a', 'lun-1'],
    ]);
  });

  it('is quiet when the global mount went, or too little time passed, or a fault is active', () => {
    expect(check([...life, mount(40_000, 'global', false)], late + 60_000)).toEqual([]);
    expect(check(life, late - 1)).toEqual([]);
    expect(check(life, late, true)).toEqual([]);
  });

  it('is quiet while a pod mount stays, a pod still wants the volume, or the kubelet is down', () => {
    expect(
      check(
        life.filter((f) => f !== life[3]),
        late,
      ),
    ).toEqual([]);
    expect(
      check(
        life.filter((f) => f !== deleted),
        late,
      ),
    ).toEqual([]);
    const stopped: Fact = { kind: 'kubeletStopped', atMs: 50_000, node: 'node-a' } as unknown as Fact;
    expect(check([...life, stopped], late + 60_000)).toEqual([]);
    const restarted: Fact = { kind: 'kubeletStarted', atMs: 60_000, node: 'node-a' } as unknown as Fact;
    expect(check([...life, stopped, restarted], 60_000 + UNMOUNT_BOUND_MS - 1)).toEqual([]);
    expect(check([...life, stopped, restarted], 60_000 + UNMOUNT_BOUND_MS)).toHaveLength(1);
  });
});

const SCENARIO = [
  'name: iscsi-detach-disk-left-mount',
  'seed: 1',
  'horizon: 5m',
  'cluster:',
  '  nodes: [node-a]',
  '  volumes:',
  '    - { name: lun-1, plugin: iscsi, mode: Filesystem, capacity: 10Gi }',
  'timeline:',
  '  - at: 0s',
  '    createPod: { pod: db, node: node-a, containers: 1, volumes: [lun-1], gracePeriod: 2s }',
  '  - at: 30s',
  '    deletePod: { pod: db }',
].join('\n');

describe('planted bug: iSCSI DetachDisk reports success before it unmounts', () => {
  const fired = () =>
    runScenario(parseScenarioText(SCENARIO, 'left.yaml'), { fixes: Fixes.all() }).violations.map(
      (v) => v.invariant,
    );

  it('holds with the port as it is', () => {
    expect(fired()).toEqual([]);
  });

  it('fires when DetachDisk returns at once', () => {
    planted.on = true;
    expect(fired()).toContain('device-left-mounted');
  });
});
