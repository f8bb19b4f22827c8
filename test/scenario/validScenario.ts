// An arbitrary valid Scenario for property tests, built from free choices so that every reference is
// valid: every action kind, every fault, names a YAML writer must quote, any kubelet in the claims, the
// kube-controller-manager flag with the claims whose release has it.
import fc from 'fast-check';
import { controllerManagerHasFlag } from '../../src/controllerManagerFlags.js';
import { outOfServiceVolumeDetachOn } from '../../src/controllerManagerGates.js';
import { FIX_IDS, type FixId, KUBELET_NAMES, type KubeletName } from '../../src/fixes.js';
import { FINDING_IDS, INVARIANT_IDS, isFinding } from '../../src/invariants/types.js';
import {
  ACCESS_MODES,
  type Action,
  type Claim,
  type ContainerDecl,
  claimFixesLabel,
  defaultContainerName,
  type Fault,
  PLUGIN_KINDS,
  RESTART_POLICIES,
  type Scenario,
  type TimelineEntry,
  UNMOUNT_DEVICE_STAGES,
  VOLUME_MODES,
  type VolumeDecl,
} from '../../src/scenario/types.js';

/** DNS-1123 names, including ones a YAML writer must quote (numbers, booleans, null). */
const dnsName = fc.oneof(
  fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,6}[a-z0-9])?$/),
  fc.constantFrom('true', 'null', 'yes', 'on', '123', '1e3', '0x10', '0o7', 'inf', 'nan', 'a.b'),
);
const label = fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,6}[a-z0-9])?$/);
const durationMs = fc.oneof(
  fc.constant(0),
  fc.integer({ min: 1, max: 2000 }),
  fc.integer({ min: 1, max: 600 }).map((s) => s * 1000),
  fc.integer({ min: 1, max: 30 }).map((m) => m * 60_000),
);
const seconds = fc.integer({ min: 0, max: 3600 });
const text = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 40 }));

const volume: fc.Arbitrary<VolumeDecl> = fc.record(
  {
    name: dnsName,
    plugin: fc.constantFrom(...PLUGIN_KINDS),
    mode: fc.constantFrom(...VOLUME_MODES),
    capacityBytes: fc.oneof(
      fc.integer({ min: 1, max: 2 ** 40 }),
      fc.integer({ min: 1, max: 1 << 20 }).map((n) => n * 1024 ** 2),
    ),
    accessMode: fc.constantFrom(...ACCESS_MODES),
  },
  { noNullPrototype: true },
);

const STEP_KINDS = [
  'createPod',
  'deletePod',
  'forceDeletePod',
  'evictPod',
  'restartKubelet',
  'shutdownNode',
  'outOfServiceTaint',
  'crashContainer',
  'unmountDevice',
  'procMounts',
  'constructVolumeSpec',
  'containerStart',
  'tearDown',
  'mountDevice',
  'waitForAttach',
] as const;

const step = fc.record({
  deltaMs: durationMs,
  kind: fc.constantFrom(...STEP_KINDS),
  pick: fc.nat(),
  pick2: fc.nat(),
  count: fc.integer({ min: 1, max: 5 }),
  graceS: fc.option(seconds),
  delayMs: fc.option(durationMs),
  containers: fc.option(
    fc.uniqueArray(
      // A start delay fits in the kubelet's runtime-request-timeout (MAX_START_DELAY_MS, 119 s).
      fc.record(
        {
          name: label,
          startDelayMs: fc.option(
            fc.oneof(
              fc.constant(0),
              fc.integer({ min: 1, max: 119 }).map((s) => s * 1000),
            ),
          ),
        },
        { noNullPrototype: true },
      ),
      {
        selector: (c) => c.name,
        minLength: 1,
        maxLength: 3,
      },
    ),
  ),
  volumePicks: fc.uniqueArray(fc.nat({ max: 3 }), { maxLength: 3 }),
  flag: fc.boolean(),
  restartPolicy: fc.constantFrom(...RESTART_POLICIES),
  stage: fc.constantFrom(...UNMOUNT_DEVICE_STAGES),
  error: fc.option(fc.string({ minLength: 1, maxLength: 20 })),
});
type Step = typeof step extends fc.Arbitrary<infer T> ? T : never;

const claim = fc.record({
  kubelet: fc.constantFrom(...KUBELET_NAMES),
  off: fc.subarray([...FIX_IDS]),
  on: fc.subarray([...FIX_IDS]),
  violations: fc.subarray(INVARIANT_IDS.filter((id) => !isFinding(id))),
  findings: fc.option(fc.subarray([...FINDING_IDS]), { nil: null }),
});

const POD_NAMES = ['web', 'db', 'p-1', '42', 'true'];

function build(
  head: { name: string; description: string; upstream: string[]; seed: number; extraMs: number },
  nodes: string[],
  volumes: VolumeDecl[],
  steps: Step[],
  claims: Array<{
    kubelet: KubeletName;
    off: FixId[];
    on: FixId[];
    violations: Claim['violations'];
    findings: Claim['findings'];
  }>,
  disableForceDetachOnTimeout: boolean,
): Scenario {
  const pods = new Map<string, { alive: boolean; containers: string[] }>();
  const timeline: TimelineEntry[] = [];
  let atMs = 0;
  const nth = <T>(xs: readonly T[], i: number): T => xs[i % xs.length] as T;
  for (const s of steps) {
    atMs += s.deltaMs;
    const node = nth(nodes, s.pick);
    const vol = volumes.length === 0 ? undefined : nth(volumes, s.pick2).name;
    const created = [...pods.keys()];
    const pod = created.length === 0 ? undefined : nth(created, s.pick);
    let action: Action | undefined;
    const fault = (f: Fault): Action => ({ kind: 'fault', fault: f });
    switch (s.kind) {
      case 'createPod': {
        const free = POD_NAMES.filter((p) => pods.get(p)?.alive !== true);
        if (free.length === 0) break;
        const name = nth(free, s.pick2);
        const containers: ContainerDecl[] =
          s.containers === null
            ? Array.from({ length: s.count }, (_, i) => ({
                name: defaultContainerName(i),
                startDelayMs: null,
              }))
            : s.containers;
        // A static pod uses no cluster volume (the loader refuses it: they are claimed through the API).
        const vols =
          volumes.length === 0 || s.flag ? [] : [...new Set(s.volumePicks.map((i) => nth(volumes, i).name))];
        pods.set(name, { alive: true, containers: containers.map((c) => c.name) });
        action = {
          kind: 'createPod',
          pod: name,
          node,
          containers,
          volumes: vols,
          static: s.flag,
          gracePeriodS: s.graceS ?? 30,
          restartPolicy: s.restartPolicy,
        };
        break;
      }
      case 'deletePod':
      case 'forceDeletePod':
        if (pod === undefined) break;
        (pods.get(pod) as { alive: boolean }).alive = false;
        action =
          s.kind === 'deletePod' ? { kind: s.kind, pod, gracePeriodS: s.graceS } : { kind: s.kind, pod };
        break;
      case 'evictPod':
        if (pod !== undefined) action = { kind: 'evictPod', pod, gracePeriodS: s.graceS ?? 0 };
        break;
      case 'restartKubelet':
        action = { kind: 'restartKubelet', node, downForMs: s.delayMs };
        break;
      case 'shutdownNode':
        action = { kind: 'shutdownNode', node };
        break;
      case 'outOfServiceTaint':
        action = { kind: 'outOfServiceTaint', node, remove: s.pick2 % 2 === 1 };
        break;
      case 'crashContainer':
        if (pod !== undefined) {
          action = {
            kind: 'crashContainer',
            pod,
            container: nth(pods.get(pod)?.containers ?? [], s.pick2),
            exitCode: s.pick2 % 3 === 0 ? 0 : 1,
          };
        }
        break;
      case 'unmountDevice':
        if (vol !== undefined)
          action = fault({ kind: 'unmountDevice', node, volume: vol, stage: s.stage, times: s.count });
        break;
      case 'procMounts':
        action = fault({ kind: 'procMounts', node, inconsistentReads: s.count });
        break;
      case 'constructVolumeSpec':
        if (vol !== undefined) action = fault({ kind: 'constructVolumeSpec', node, volume: vol });
        break;
      case 'containerStart':
        if (pod !== undefined) {
          const error = s.error ?? (s.delayMs === null ? 'boom' : null);
          action = fault({ kind: 'containerStart', pod, delayMs: s.delayMs, error });
        }
        break;
      case 'tearDown':
        if (vol !== undefined)
          action = fault({ kind: 'tearDown', node, volume: vol, times: s.count, delayMs: null });
        break;
      case 'mountDevice': {
        // FC and iSCSI Block volumes have no staging, and only CSI's can fail uncertain (the loader's rules).
        const v = volumes.length === 0 ? undefined : nth(volumes, s.pick2);
        if (v === undefined || (v.plugin !== 'csi' && v.mode === 'Block')) break;
        const error = s.flag ? (v.plugin === 'csi' && s.count % 2 === 0 ? 'uncertain' : 'final') : null;
        action = fault({
          kind: 'mountDevice',
          node,
          volume: v.name,
          delayMs: error === null ? (s.delayMs ?? 1000) : s.delayMs,
          error,
          times: s.count,
        });
        break;
      }
      case 'waitForAttach':
        if (vol !== undefined)
          action = fault({
            kind: 'waitForAttach',
            node,
            volume: vol,
            times: s.count,
            error: s.error,
            delayMs: s.delayMs,
          });
        break;
    }
    if (action !== undefined) timeline.push({ atMs, line: 0, action });
  }
  const seen = new Set<string>();
  const uniqueClaims: Claim[] = [];
  for (const c of claims) {
    // A switch is toggled one way at most; the loader keeps FIX_IDS order.
    const off = FIX_IDS.filter((id) => c.off.includes(id));
    const on = FIX_IDS.filter((id) => c.on.includes(id) && !off.includes(id));
    const fixes = { kubelet: c.kubelet, off, on };
    const key = claimFixesLabel(fixes);
    if (seen.has(key)) continue;
    // A claim runs its kubelet's kube-controller-manager, which must have every flag the scenario sets.
    if (disableForceDetachOnTimeout && !controllerManagerHasFlag('disableForceDetachOnTimeout', c.kubelet))
      continue;
    // And one that reads the out-of-service taint, if the timeline sets it (src/controllerManagerGates.ts).
    if (timeline.some((e) => e.action.kind === 'outOfServiceTaint') && !outOfServiceVolumeDetachOn(c.kubelet))
      continue;
    seen.add(key);
    uniqueClaims.push({ line: 0, fixes, violations: c.violations, findings: c.findings });
  }
  return {
    file: '',
    name: head.name,
    description: head.description,
    upstream: head.upstream,
    seed: head.seed,
    horizonMs: atMs + head.extraMs,
    nodes,
    volumes,
    ...(disableForceDetachOnTimeout
      ? { controllerManager: { disableForceDetachOnTimeout: true, line: 0, col: 0 } as const }
      : {}),
    timeline,
    claims: uniqueClaims,
  };
}

export const validScenario: fc.Arbitrary<Scenario> = fc
  .tuple(
    fc.record({
      name: fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,15}$/),
      description: text,
      upstream: fc.array(text, { maxLength: 3 }),
      seed: fc.integer({ min: 0, max: 0xffff_ffff }),
      extraMs: fc.integer({ min: 1, max: 600_000 }),
    }),
    fc.uniqueArray(dnsName, { minLength: 1, maxLength: 3 }),
    fc.uniqueArray(volume, { selector: (v) => v.name, maxLength: 3 }),
    fc.array(step, { maxLength: 20 }),
    fc.array(claim, { maxLength: 4 }),
    // Last, so that the choices before it are the ones the seeded properties always drew.
    fc.boolean(),
  )
  .map(([head, nodes, volumes, steps, claims, noForceDetach]) =>
    build(head, nodes, volumes, steps, claims, noForceDetach),
  );
