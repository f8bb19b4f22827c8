// The shape of a scenario file (docs/scenario-format.md) as a zod schema: types, enums, required and unknown keys,
// duration / size syntax and "exactly one action". Every leaf carries its own message ("expected X, got Y")
// so that the loader can print one line per mistake. Cross-references (unknown nodes, volumes, pods) and
// defaults are the loader's job (load.ts). The JSON Schema for editors is generated from this file.
import * as z from 'zod';
import { parseQuantity } from '../api/quantity.js';
import {
  FIX_IDS,
  KUBELET_NAMES,
  looksLikeRelease,
  RELEASE_PRESETS,
  UNMODELLED_RELEASE_HINT,
} from '../fixes.js';
import { FINDING_IDS, INVARIANT_IDS } from '../invariants/types.js';
import { parseDurationMs, parseSizeBytes } from '../sim/units.js';
import { didYouMean } from './didYouMean.js';
import { DURATION_TEXT, FILE_BYTES_TEXT, LIMITS, tooLong, tooMany } from './limits.js';
import {
  ACCESS_MODES,
  ACTION_KINDS,
  DETACH_STAGES,
  FAULT_KINDS,
  MOUNT_DEVICE_ERRORS,
  PLUGIN_KINDS,
  RESTART_POLICIES,
  UNMOUNT_DEVICE_STAGES,
  VOLUME_MODES,
} from './types.js';

/** A value as a message shows it: strings quoted (and cut short), collections by kind. */
export function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'string')
    return JSON.stringify(value.length > 40 ? `${value.slice(0, 37)}...` : value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return String(value);
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return typeof value;
}

export { didYouMean };

type IssueLike = { readonly code?: string; readonly input?: unknown };
type ErrorFn = (issue: IssueLike) => string;

/** "expected X, got Y", or "missing; expected X" for an absent required field. */
export function expected(phrase: string): ErrorFn {
  return (issue) =>
    issue.input === undefined
      ? `missing; expected ${phrase}`
      : `expected ${phrase}, got ${show(issue.input)}`;
}

/** A list's or string's bound: `too many nodes: 1001 (at most 1000)`, `too long: 300 characters (at most 253)`. */
function atMost(what: string, max: number): { error: ErrorFn } {
  return { error: (issue) => tooMany(what, Array.isArray(issue.input) ? issue.input.length : 0, max) };
}
function charsAtMost(max: number): { error: ErrorFn } {
  return { error: (issue) => tooLong(typeof issue.input === 'string' ? issue.input.length : 0, max) };
}

function oneOf(values: readonly string[]): string {
  return `one of ${values.join(', ')}`;
}

/** The message of an unknown key lists the keys that are allowed; load.ts adds the key itself. */
export const UNKNOWN_KEY_PREFIX = 'expected one of ';

function mapping<S extends z.core.$ZodLooseShape>(shape: S, phrase: string) {
  const keys = Object.keys(shape);
  const asMapping = expected(phrase);
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys' ? `${UNKNOWN_KEY_PREFIX}${keys.join(', ')}` : asMapping(issue),
  });
}

function enumOf<const T extends readonly [string, ...string[]]>(values: T, what?: string) {
  const message = expected(what ?? oneOf(values));
  return z.enum(values, {
    error: (issue) => {
      const hint = typeof issue.input === 'string' ? didYouMean(issue.input, values) : '';
      return hint === '' ? message(issue) : `${message(issue)}${hint}`;
    },
  });
}

// ---- names ----------------------------------------------------------------------------------------------

/** DNS-1123 subdomain (pod, node and PersistentVolume names in Kubernetes). */
const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** DNS-1123 label (container names). */
const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

function k8sName(kind: string, pattern: RegExp, max: number) {
  const what = `a ${kind} name`;
  const rule =
    pattern === LABEL ? "lower-case letters, digits and '-'" : "lower-case letters, digits, '-' and '.'";
  return z
    .string({ error: expected(what) })
    .max(max, {
      error: (i) =>
        `too long for ${what}: ${typeof i.input === 'string' ? i.input.length : 0} characters (at most ${max})`,
    })
    .regex(pattern, {
      error: (i) =>
        `expected ${what} of ${rule}, starting and ending with a letter or digit, got ${show(i.input)}`,
    })
    .meta({ description: `${kind} name (${pattern === LABEL ? 'DNS-1123 label' : 'DNS-1123 subdomain'})` });
}

const PodName = k8sName('pod', SUBDOMAIN, LIMITS.objectNameChars);
const NodeName = k8sName('node', SUBDOMAIN, LIMITS.objectNameChars);
const VolumeName = k8sName('volume', SUBDOMAIN, LIMITS.objectNameChars);
const ContainerName = k8sName('container', LABEL, LIMITS.containerNameChars);

// ---- labels ---------------------------------------------------------------------------------------------

/**
 * A label key (validation.IsQualifiedName): an optional DNS-1123 subdomain prefix and '/', then a name of
 * at most 63 characters, alphanumerics with '-', '_' or '.' inside.
 */
const LABEL_KEY =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
/** A label value (validation.IsValidLabelValue): empty, or as a key's name part. */
const LABEL_VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;
const LABELS_PHRASE = 'a mapping of label keys to values, like {pool: blue}';

const labelKeyError = (input: unknown) =>
  `expected a label key (an optional DNS-1123 prefix and '/', then at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit), got ${show(input)}`;
const labelsError = expected(LABELS_PHRASE);

function labelsSchema(description: string) {
  return z
    .record(
      z.string().regex(LABEL_KEY, { error: (i) => labelKeyError(i.input) }),
      z
        .string({ error: expected('a label value (a string; quote numbers and booleans)') })
        .regex(LABEL_VALUE, {
          error: (i) =>
            `expected a label value (at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit, or empty), got ${show(i.input)}`,
        }),
      // A bad key reaches the record's own error function (zod's invalid_key): said as the key's.
      { error: (issue) => (issue.code === 'invalid_key' ? labelKeyError(issue.input) : labelsError(issue)) },
    )
    .check(
      z.superRefine((labels: Record<string, string>, ctx) => {
        const n = Object.keys(labels).length;
        if (n > LIMITS.labels) ctx.addIssue({ code: 'custom', message: tooMany('labels', n, LIMITS.labels) });
      }),
    )
    .meta({ description });
}

// ---- durations, sizes, counts ---------------------------------------------------------------------------

const DURATION_PATTERN = /^\d+(\.\d+)?(ms|s|m|h)$/;
const DURATION_PHRASE = 'a duration like 250ms, 30s or 5m';

function durationError(issue: IssueLike): string {
  const input = issue.input;
  if (typeof input === 'number') return `expected ${DURATION_PHRASE} (with a unit), got ${input}`;
  if (typeof input === 'string' && /^\s*-/.test(input))
    return `durations cannot be negative, got ${show(input)}`;
  return expected(DURATION_PHRASE)(issue);
}

function durationSchema(description: string, wholeSeconds: boolean) {
  return z
    .string({ error: durationError })
    .regex(DURATION_PATTERN, { error: durationError })
    .check(
      z.superRefine((text: string, ctx) => {
        if (!DURATION_PATTERN.test(text)) return; // reported by the pattern
        const parsed = parseDurationMs(text);
        if (!parsed.ok) ctx.addIssue({ code: 'custom', message: parsed.error, input: text });
        else if (parsed.value > LIMITS.durationMs) {
          ctx.addIssue({
            code: 'custom',
            message: `too long: ${text} (at most ${DURATION_TEXT})`,
            input: text,
          });
        } else if (wholeSeconds && parsed.value % 1000 !== 0) {
          ctx.addIssue({
            code: 'custom',
            message: `expected a whole number of seconds (Kubernetes grace periods are integer seconds), got ${show(text)}`,
            input: text,
          });
        }
      }),
    )
    .meta({ description: `${description}; at most ${DURATION_TEXT}` });
}

const Duration = (description: string) => durationSchema(description, false);
const GracePeriod = durationSchema(
  'grace period: a duration that is a whole number of seconds, 0s allowed',
  true,
);

const SIZE_PATTERN = /^\d+(Ki|Mi|Gi|Ti)?$/;
const SIZE_PHRASE = 'a size like 512Mi, 10Gi or 1Ti';
const Size = z
  .string({ error: expected(SIZE_PHRASE) })
  .regex(SIZE_PATTERN, { error: expected(SIZE_PHRASE) })
  .check(
    z.superRefine((text: string, ctx) => {
      if (!SIZE_PATTERN.test(text)) return;
      const parsed = parseSizeBytes(text);
      if (!parsed.ok) ctx.addIssue({ code: 'custom', message: parsed.error, input: text });
      else if (parsed.value === 0)
        ctx.addIssue({ code: 'custom', message: 'a capacity must be more than 0' });
    }),
  )
  .meta({ description: 'size in bytes with an optional binary suffix Ki, Mi, Gi or Ti' });

function count(phrase: string, description: string, what: string, max: number) {
  return z
    .int({ error: expected(phrase) })
    .min(1, { error: expected(phrase) })
    .max(max, { error: (issue) => tooMany(what, Number(issue.input), max) })
    .meta({ description });
}

// ---- resource quantities --------------------------------------------------------------------------------

const QUANTITY_PHRASE = 'a quantity like 500m, 1, 2.5, 128Mi or 1Gi';

/** The text a quantity is parsed from: a YAML number as its decimal text, as JSON gives it to Quantity. */
export function quantityText(value: string | number): string {
  return typeof value === 'number' ? String(value) : value;
}

/** A resource.Quantity (cpu or memory), checked by parseQuantity (src/api/quantity.ts). */
function quantity(description: string) {
  return z
    .union([z.string(), z.number()], { error: expected(QUANTITY_PHRASE) })
    .check(
      z.superRefine((value: string | number, ctx) => {
        const parsed = parseQuantity(quantityText(value));
        if (!parsed.ok) ctx.addIssue({ code: 'custom', message: parsed.error, input: value });
      }),
    )
    .meta({ description: `${description}: ${QUANTITY_PHRASE} (Kubernetes quantity syntax)` });
}

/** cpu and memory, as a container's requests or a node's allocatable list them. */
function resourceList(what: string, atLeastOne: boolean) {
  const schema = mapping(
    {
      cpu: quantity(`${what} cpu, in cores (500m is half a core)`).optional(),
      memory: quantity(`${what} memory, in bytes (128Mi, 1Gi, 1G)`).optional(),
    },
    'a mapping {cpu?, memory?}',
  );
  if (!atLeastOne) return schema;
  return schema.check(
    z.superRefine((list: { cpu?: unknown; memory?: unknown }, ctx) => {
      if (list.cpu === undefined && list.memory === undefined)
        ctx.addIssue({ code: 'custom', message: 'expected cpu, memory or both' });
    }),
  );
}

// ---- cluster --------------------------------------------------------------------------------------------

const VolumeSchema = mapping(
  {
    name: VolumeName,
    plugin: enumOf(PLUGIN_KINDS).meta({
      description: 'volume plugin; csi is attachable (Detach fences the disk)',
    }),
    mode: enumOf(VOLUME_MODES).optional().meta({ description: 'volumeMode, default Filesystem' }),
    capacity: Size,
    accessMode: enumOf(ACCESS_MODES).optional().meta({ description: 'default ReadWriteOnce' }),
  },
  'a volume {name, plugin, capacity, mode?, accessMode?}',
);

const NODE_PHRASE =
  'a node name or a mapping {name, shutdownGracePeriod?, shutdownGracePeriodCriticalPods?, labels?, allocatable?}';
const NodeSchema = z.union(
  [
    NodeName,
    mapping(
      {
        name: NodeName,
        shutdownGracePeriod: GracePeriod.optional().meta({
          description:
            "the kubelet's shutdownGracePeriod: how long a graceful node shutdown waits for its pods; default 0s (upstream's: the kubelet does nothing on a shutdown)",
        }),
        shutdownGracePeriodCriticalPods: GracePeriod.optional().meta({
          description:
            "the part of shutdownGracePeriod kept for critical pods (the rest is the other pods' grace period cap); default 0s, at most shutdownGracePeriod",
        }),
        labels: labelsSchema(
          "the node object's labels, which the kubelet's admission matches a pod's nodeSelector against; default none",
        ).optional(),
        allocatable: resourceList('allocatable', true).optional().meta({
          description:
            "the node's status.allocatable: the kubelet's admission rejects a pod whose requests do not fit beside the admitted pods' (OutOfcpu, OutOfmemory); a resource not given is not checked; default none: every pod fits",
        }),
      },
      'a node {name, shutdownGracePeriod?, shutdownGracePeriodCriticalPods?, labels?, allocatable?}',
    ),
  ],
  { error: expected(NODE_PHRASE) },
);

const ControllerManagerSchema = mapping(
  {
    disableForceDetachOnTimeout: z
      .boolean({ error: expected('true or false') })
      .optional()
      .meta({
        description:
          'kube-controller-manager --disable-force-detach-on-timeout (#120344, from 1.30): the attach/detach controller never force-detaches a volume its node still reports in use once maxWaitForUnmountDuration (6 min) passed; default false. True needs a kubelet preset of 1.30 or later (or fixed): an older kube-controller-manager has no such flag',
      }),
  },
  'a mapping {disableForceDetachOnTimeout?}',
);

const ClusterSchema = mapping(
  {
    nodes: z
      .array(NodeSchema, { error: expected('a list of nodes') })
      .min(1, { error: 'expected at least one node' })
      .max(LIMITS.nodes, atMost('nodes', LIMITS.nodes)),
    volumes: z
      .array(VolumeSchema, { error: expected('a list of volumes') })
      .max(LIMITS.volumes, atMost('volumes', LIMITS.volumes))
      .optional(),
    controllerManager: ControllerManagerSchema.optional().meta({
      description: 'flags of the kube-controller-manager (its attach/detach controller); default: none set',
    }),
  },
  'a mapping {nodes, volumes?, controllerManager?}',
);

// ---- actions --------------------------------------------------------------------------------------------

const ContainerSchema = mapping(
  {
    name: ContainerName,
    startDelay: Duration('how long the runtime takes to start it; default: drawn from the seed').optional(),
    preStop: Duration(
      'its lifecycle.preStop hook, an exec that runs this long before the kill signals it (its exit cuts the hook short); default: no hook',
    ).optional(),
    resources: mapping({ requests: resourceList('requested', false) }, 'a mapping {requests}')
      .optional()
      .meta({
        description:
          "resources.requests (cpu, memory): what the kubelet's admission counts against the node's allocatable; no limits are modelled; default none",
      }),
  },
  'a container {name, startDelay?, preStop?, resources?}',
);

const CONTAINERS_PHRASE =
  'a number of containers (1 or more) or a list of {name, startDelay?, preStop?, resources?}';
const Containers = z.union(
  [
    count(
      'a number of containers (1 or more)',
      'that many containers, named c1 ... cN',
      'containers in one pod',
      LIMITS.containersPerPod,
    ),
    z
      .array(ContainerSchema, { error: expected(CONTAINERS_PHRASE) })
      .min(1, { error: 'expected at least one container' })
      .max(LIMITS.containersPerPod, atMost('containers in one pod', LIMITS.containersPerPod)),
  ],
  { error: expected(CONTAINERS_PHRASE) },
);

const CreatePod = mapping(
  {
    pod: PodName,
    node: NodeName,
    containers: Containers,
    volumes: z
      .array(VolumeName, { error: expected('a list of volume names') })
      .max(LIMITS.volumesPerPod, atMost('volumes in one pod', LIMITS.volumesPerPod))
      .optional()
      .meta({ description: 'names from cluster.volumes' }),
    static: z
      .boolean({ error: expected('true or false') })
      .optional()
      .meta({
        description: 'a static pod (manifest file); its fullname is name_namespace; takes no volumes',
      }),
    gracePeriod: GracePeriod.optional().meta({ description: 'terminationGracePeriodSeconds, default 30s' }),
    restartPolicy: enumOf(RESTART_POLICIES).optional().meta({ description: 'default Always' }),
    nodeSelector: labelsSchema(
      "spec.nodeSelector: labels the node must carry, or the kubelet's admission rejects the pod (NodeAffinity); default none",
    ).optional(),
  },
  'a mapping {pod, node, containers, volumes?, static?, gracePeriod?, restartPolicy?, nodeSelector?}',
);

const DeletePod = mapping(
  {
    pod: PodName,
    gracePeriod: GracePeriod.optional().meta({ description: "default: the pod's own grace period" }),
  },
  'a mapping {pod, gracePeriod?}',
);
const ForceDeletePod = mapping({ pod: PodName }, 'a mapping {pod}');
const EvictPod = mapping(
  {
    pod: PodName,
    gracePeriod: GracePeriod.optional().meta({ description: 'default 0s (hard eviction)' }),
  },
  'a mapping {pod, gracePeriod?}',
);
const RestartKubelet = mapping(
  {
    node: NodeName,
    downFor: Duration('how long the kubelet stays down; default: drawn from the seed').optional(),
    labels: labelsSchema(
      "the node's labels from this restart on (the kubelet comes back with other --node-labels); default: unchanged",
    ).optional(),
  },
  'a mapping {node, downFor?, labels?}',
);
const ShutdownNode = mapping({ node: NodeName }, 'a mapping {node}');
const DeletePvc = mapping({ volume: VolumeName }, 'a mapping {volume}');
const OutOfServiceTaint = mapping(
  {
    node: NodeName,
    remove: z
      .boolean({ error: expected('true or false') })
      .optional()
      .meta({ description: 'true: remove the taint (the node is back in service); default false' }),
  },
  'a mapping {node, remove?}',
);
const CrashContainer = mapping(
  {
    pod: PodName,
    container: ContainerName.optional().meta({ description: "default: the pod's first container" }),
    exitCode: z
      .int({ error: expected('an integer from 0 to 255') })
      .min(0, { error: expected('an integer from 0 to 255') })
      .max(255, { error: expected('an integer from 0 to 255') })
      .optional()
      .meta({ description: 'the exit code, default 1 (an error); 0: the container completed' }),
  },
  'a mapping {pod, container?, exitCode?}',
);

/** An error message a faulted call returns (`containerStart`, `waitForAttach`, `stopContainer`). */
const ErrorText = (description: string) =>
  z
    .string({ error: expected('an error message') })
    .min(1, { error: expected('an error message') })
    .max(LIMITS.errorChars, charsAtMost(LIMITS.errorChars))
    .optional()
    .meta({ description });

const Times = count('an integer >= 1', 'how many calls fail, default 1', 'failing calls', LIMITS.faultCount);

const UnmountDevice = mapping(
  {
    node: NodeName,
    volume: VolumeName,
    stage: enumOf(UNMOUNT_DEVICE_STAGES),
    times: Times.optional(),
  },
  'a mapping {node, volume, stage, times?}',
);
const Detach = mapping(
  {
    node: NodeName,
    volume: VolumeName,
    stage: enumOf(DETACH_STAGES).optional().meta({
      description:
        "default afterDetach: ControllerUnpublishVolume fenced the node's path, then its answer was lost; beforeDetach: it failed and nothing changed",
    }),
    times: Times.optional(),
  },
  'a mapping {node, volume, stage?, times?}',
);
const ProcMounts = mapping(
  {
    node: NodeName,
    inconsistentReads: count(
      'an integer >= 1',
      'how many reads of /proc/mounts are inconsistent',
      'inconsistent reads',
      LIMITS.faultCount,
    ),
  },
  'a mapping {node, inconsistentReads}',
);
const ConstructVolumeSpec = mapping({ node: NodeName, volume: VolumeName }, 'a mapping {node, volume}');
const ContainerStart = mapping(
  {
    pod: PodName,
    delay: Duration('extra delay before the runtime starts the containers').optional(),
    error: ErrorText('the container start fails with this error'),
  },
  'a mapping {pod, delay?, error?}',
);
const TearDown = mapping(
  {
    node: NodeName,
    volume: VolumeName,
    times: Times.optional(),
    delay: Duration(
      'how long each faulted TearDown / unmap hangs before it fails (a umount stuck on a dead path); default none',
    ).optional(),
  },
  'a mapping {node, volume, times?, delay?}',
);
const MountDevice = mapping(
  {
    node: NodeName,
    volume: VolumeName,
    delay: Duration(
      'how much longer the staging takes (MountDevice; NodeStageVolume for CSI, also of a Block volume)',
    ).optional(),
    error: enumOf(MOUNT_DEVICE_ERRORS).optional().meta({
      description:
        'after the delay the staging fails: final (over, nothing staged) or uncertain (CSI only: staged, the answer lost)',
    }),
    times: count(
      'an integer >= 1',
      'how many MountDevice calls are slow or fail, default 1',
      'faulted calls',
      LIMITS.faultCount,
    ).optional(),
  },
  'a mapping {node, volume, delay?, error?, times?}',
);

const WaitForAttach = mapping(
  {
    node: NodeName,
    volume: VolumeName,
    times: Times.optional(),
    error: ErrorText(
      "the error each failing WaitForAttach returns; default: the plugin's upstream text (iSCSI: no path to the target, FC: no fc disk found, CSI: the VolumeAttachment GET fails)",
    ),
    delay: Duration(
      'how long each failing WaitForAttach takes before it fails (a login or path wait timing out); default none',
    ).optional(),
  },
  'a mapping {node, volume, times?, error?, delay?}',
);

const StopContainer = mapping(
  {
    pod: PodName,
    container: z
      .string({ error: expected('a container name') })
      .min(1, { error: expected('a container name') })
      .optional()
      .meta({ description: "the container whose stops fail; default: any of the pod's" }),
    times: Times.optional(),
    error: ErrorText(
      "the error each failing StopContainer returns; default: the runtime's socket refusing connections (Unavailable); `notFound`: the container was removed under the kubelet (crictl rm, garbage collection), so it is gone from the runtime and the call answers NotFound",
    ),
  },
  'a mapping {pod, container?, times?, error?}',
);

const SetUp = mapping(
  {
    node: NodeName,
    volume: VolumeName,
    times: Times.optional(),
    error: enumOf(MOUNT_DEVICE_ERRORS).optional().meta({
      description:
        'how each SetUp fails: final (default; an in-tree bind mount that fails, CSI codes.Internal) or uncertain (CSI only: DeadlineExceeded)',
    }),
  },
  'a mapping {node, volume, times?, error?}',
);

const PvcLookup = mapping(
  {
    node: NodeName,
    volume: VolumeName,
    times: Times.optional(),
    error: ErrorText("the API client's error; default: the request timing out"),
  },
  'a mapping {node, volume, times?, error?}',
);

const NodePartition = mapping(
  {
    node: NodeName,
    duration: Duration(
      "how long the node is cut off from the API server (its kubelet's requests fail, its watch and Lease stop), more than 0s",
    ),
  },
  'a mapping {node, duration}',
);

/**
 * A mapping that must hold exactly one of `keys` (timeline entries, faults, claim fix sets). The check runs
 * even when other parts of the mapping are wrong, so a second action is reported with the rest. The issue
 * sits at the mapping; `params.key` names the key to point at (the second one, or none for a missing one).
 */
function exactlyOne(keys: readonly string[], none: string, many: (found: string[]) => string) {
  return z.superRefine(
    (value: unknown, ctx) => {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
      const present = Object.keys(value);
      const found = present.filter((k) => keys.includes(k));
      if (found.length === 1) return;
      if (found.length === 0) {
        // An unknown key is most likely a misspelt one of `keys`: its own message lists them. (`value` is
        // the parsed mapping, without unknown keys; the mapping's own issues are in ctx.issues.)
        if (ctx.issues.some((i) => i.code === 'unrecognized_keys' && (i.path ?? []).length === 0)) return;
        ctx.addIssue({ code: 'custom', message: none });
        return;
      }
      ctx.addIssue({ code: 'custom', message: many(found), params: { key: found[1] } });
    },
    { when: () => true },
  );
}

const FaultSchema = mapping(
  {
    unmountDevice: UnmountDevice.optional().meta({ description: 'UnmountDevice fails at this stage' }),
    procMounts: ProcMounts.optional().meta({ description: 'inconsistent reads of /proc/mounts' }),
    constructVolumeSpec: ConstructVolumeSpec.optional().meta({
      description: 'ConstructVolumeSpec fails with a non-retryable error',
    }),
    containerStart: ContainerStart.optional().meta({
      description: 'delay or fail container starts of a pod',
    }),
    tearDown: TearDown.optional().meta({ description: 'TearDown / unmap fails' }),
    mountDevice: MountDevice.optional().meta({
      description: 'MountDevice (device staging) is slow and/or fails',
    }),
    waitForAttach: WaitForAttach.optional().meta({
      description: 'WaitForAttach fails before MountDevice (MountVolume.WaitForAttach failed), then behaves',
    }),
    setUp: SetUp.optional().meta({
      description: "a pod's SetUp of the volume (a CSI Block volume's MapPodDevice) fails, then behaves",
    }),
    pvcLookup: PvcLookup.optional().meta({
      description:
        "the node's kubelet cannot read the volume's PVC / PV from the API server (the populator's getPVCExtractPV fails), then can",
    }),
    stopContainer: StopContainer.optional().meta({
      description:
        'CRI StopContainer fails and the container runs on (the kill fails), then behaves; with error notFound the container is removed and the call answers NotFound',
    }),
    detach: Detach.optional().meta({
      description:
        "the attach/detach controller's Detach of a CSI volume from the node fails (the VolumeAttachment's detachError), then behaves",
    }),
    nodePartition: NodePartition.optional().meta({
      description:
        'the node loses the API server for a while (network partition): its kubelet and pods go on, its Lease stops (not Ready after 40s), then it heals',
    }),
  },
  `a fault mapping with exactly one of ${FAULT_KINDS.join(', ')}`,
).check(
  exactlyOne(
    FAULT_KINDS,
    `no fault kind; expected exactly one of ${FAULT_KINDS.join(', ')}`,
    (found) => `${found.length} fault kinds in one fault (${found.join(', ')}); expected exactly one`,
  ),
);

const TimelineEntrySchema = mapping(
  {
    at: Duration('virtual time of the action; equal times keep file order'),
    createPod: CreatePod.optional(),
    deletePod: DeletePod.optional().meta({ description: 'graceful API deletion (static: manifest removed)' }),
    forceDeletePod: ForceDeletePod.optional().meta({ description: 'API deletion with grace 0 and force' }),
    evictPod: EvictPod.optional().meta({ description: "the kubelet's eviction manager evicts the pod" }),
    restartKubelet: RestartKubelet.optional().meta({
      description: 'the kubelet process dies and starts again; mounts and containers stay',
    }),
    shutdownNode: ShutdownNode.optional().meta({ description: 'graceful node shutdown' }),
    crashContainer: CrashContainer.optional(),
    deletePvc: DeletePvc.optional().meta({
      description:
        "API deletion of the volume's PVC: it stays, being deleted, while kubernetes.io/pvc-protection holds it (a pod uses it)",
    }),
    outOfServiceTaint: OutOfServiceTaint.optional().meta({
      description:
        'the node.kubernetes.io/out-of-service:NoExecute taint of non-graceful node shutdown (KEP-2268) is set on the node (remove: true: taken off); kube-controller-manager 1.26 or later',
    }),
    fault: FaultSchema.optional(),
  },
  `a timeline entry {at, and one of ${ACTION_KINDS.join(', ')}}`,
).check(
  exactlyOne(
    ACTION_KINDS,
    `no action; expected exactly one of ${ACTION_KINDS.join(', ')}`,
    (found) => `${found.length} actions in one entry (${found.join(', ')}); expected exactly one`,
  ),
);

// ---- claims ---------------------------------------------------------------------------------------------

const FixIdSchema = enumOf(FIX_IDS, `a fix ID (${oneOf(FIX_IDS)})`);
const FixList = (description: string) =>
  z
    .array(FixIdSchema, { error: expected('a list of fix IDs') })
    .min(1, { error: 'expected at least one fix ID' })
    .max(LIMITS.claimListEntries, atMost('fix IDs', LIMITS.claimListEntries))
    .meta({ description });

const FIXES_PHRASE = 'all, none, {off: [fix IDs]} or {on: [fix IDs]}';
const ClaimFixesObject = mapping(
  {
    off: FixList('these fixes off').optional(),
    on: FixList('these fixes on').optional(),
  },
  FIXES_PHRASE,
).check(
  z.superRefine((value: unknown, ctx) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
    if (Object.keys(value).some((k) => k === 'off' || k === 'on')) return;
    if (ctx.issues.some((i) => i.code === 'unrecognized_keys' && (i.path ?? []).length === 0)) return;
    ctx.addIssue({
      code: 'custom',
      message: 'expected {off: [fix IDs]} or {on: [fix IDs]}, got an empty mapping',
    });
  }),
);

const KUBELET_PHRASE = `fixed, legacy or a modelled release (${RELEASE_PRESETS.join(', ')})`;
/**
 * `kubelet: 1.23`: YAML reads an unquoted 1.20 as the number 1.2, so a number names the release it equals.
 */
const KubeletNameSchema = z
  .union([z.string(), z.number()], { error: expected(KUBELET_PHRASE) })
  .transform((value, ctx) => {
    const name = typeof value === 'number' ? RELEASE_PRESETS.find((p) => Number(p) === value) : value.trim();
    const known = KUBELET_NAMES.find((k) => k === name);
    if (known !== undefined) return known;
    const hint = looksLikeRelease(String(value))
      ? UNMODELLED_RELEASE_HINT
      : typeof value === 'string'
        ? didYouMean(value, KUBELET_NAMES)
        : '';
    ctx.addIssue({ code: 'custom', message: `expected ${KUBELET_PHRASE}, got ${show(value)}${hint}` });
    return z.NEVER;
  })
  .meta({ description: 'fixed (every fix on), legacy (every fix off) or a release preset' });

const ClaimSchema = mapping(
  {
    kubelet: KubeletNameSchema.optional().meta({
      description: 'run with this kubelet (as --kubelet); fixes: {off, on} then toggles switches',
    }),
    fixes: z
      .union([z.enum(['all', 'none'], { error: expected(FIXES_PHRASE) }), ClaimFixesObject], {
        error: expected(FIXES_PHRASE),
      })
      .optional(),
    violations: z
      .array(enumOf(INVARIANT_IDS, `an invariant ID (${oneOf(INVARIANT_IDS)})`), {
        error: expected('a list of invariant IDs ([] for none)'),
      })
      .max(LIMITS.claimListEntries, atMost('invariant IDs', LIMITS.claimListEntries))
      .meta({ description: 'the exact set of invariants that must fire; [] means none' }),
    findings: z
      .array(enumOf(FINDING_IDS, `a finding ID (${oneOf(FINDING_IDS)})`), {
        error: expected('a list of finding IDs ([] for none)'),
      })
      .max(LIMITS.claimListEntries, atMost('finding IDs', LIMITS.claimListEntries))
      .optional()
      .meta({ description: 'the exact set of findings that must be recorded; not checked when absent' }),
    exhaustive: z
      .boolean({ error: expected('true or false') })
      .optional()
      .meta({
        description:
          'violations: [] holds over every order of same-instant events within verify --bound deviations (default 1; podrace explore), not only the default',
      }),
  },
  'a claim {fixes or kubelet, violations, findings?, exhaustive?}',
).check(
  z.superRefine(
    (value: unknown, ctx) => {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
      const v = value as { kubelet?: unknown; fixes?: unknown };
      if (v.kubelet === undefined && v.fixes === undefined) {
        if (ctx.issues.some((i) => (i.path ?? []).length <= 1)) return;
        ctx.addIssue({ code: 'custom', message: 'missing; expected fixes or kubelet', path: ['fixes'] });
        return;
      }
      if (v.kubelet !== undefined && (v.fixes === 'all' || v.fixes === 'none')) {
        ctx.addIssue({
          code: 'custom',
          path: ['fixes'],
          message: `fixes: ${v.fixes} together with kubelet; with kubelet, fixes takes {off: [...], on: [...]}`,
        });
        return;
      }
      if (v.kubelet === undefined && typeof v.fixes === 'object' && v.fixes !== null) {
        const f = v.fixes as { off?: unknown; on?: unknown };
        if (f.off !== undefined && f.on !== undefined)
          ctx.addIssue({
            code: 'custom',
            path: ['fixes'],
            message: 'both off and on; expected exactly one of them (or name a kubelet to toggle both ways)',
          });
      }
    },
    { when: () => true },
  ),
);

// ---- the file -------------------------------------------------------------------------------------------

/**
 * The pods and the containers of a whole timeline: each createPod is small, so only their sum can ask for
 * too much (25,000 pods of `containers: 100`). Reported at the entry that passes the bound. It runs even
 * when entries have mistakes of their own (as zod runs checks after issues that do not abort), so it reads
 * them as unknown and skips a pod whose own count is wrong (reported there).
 */
const podAndContainerTotals = z.superRefine((entries: readonly unknown[], ctx) => {
  let pods = 0;
  let containers = 0;
  for (const [index, entry] of entries.entries()) {
    if (typeof entry !== 'object' || entry === null) continue;
    const pod: unknown = (entry as { createPod?: unknown }).createPod;
    if (typeof pod !== 'object' || pod === null) continue;
    pods++;
    if (pods > LIMITS.pods) {
      const total = entries.filter(
        (e) => typeof e === 'object' && e !== null && (e as { createPod?: unknown }).createPod !== undefined,
      ).length;
      ctx.addIssue({
        code: 'custom',
        path: [index, 'createPod'],
        message: tooMany('pods', total, LIMITS.pods),
      });
      return;
    }
    const declared: unknown = (pod as { containers?: unknown }).containers;
    const count = typeof declared === 'number' ? declared : Array.isArray(declared) ? declared.length : 0;
    if (!Number.isSafeInteger(count) || count > LIMITS.containersPerPod) continue;
    containers += count;
    if (containers > LIMITS.containers) {
      ctx.addIssue({
        code: 'custom',
        path: [index, 'createPod', 'containers'],
        message: `too many containers in all pods: ${containers} by this entry (at most ${LIMITS.containers})`,
      });
      return;
    }
  }
});

export const ScenarioFileSchema = mapping(
  {
    name: z
      .string({ error: expected('a scenario name') })
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, {
        error: expected("a scenario name of letters, digits, '.', '_' and '-'"),
      })
      .max(LIMITS.scenarioNameChars, {
        error: (i) =>
          `too long for a scenario name: ${typeof i.input === 'string' ? i.input.length : 0} characters (at most ${LIMITS.scenarioNameChars})`,
      })
      .meta({ description: 'unique in a folder' }),
    description: z
      .string({ error: expected('a string') })
      .max(LIMITS.descriptionChars, charsAtMost(LIMITS.descriptionChars))
      .optional()
      .meta({ description: 'what race this shows, in plain words' }),
    upstream: z
      .array(
        z
          .string({ error: expected('a reference like kubernetes/kubernetes#102344') })
          .max(LIMITS.upstreamRefChars, charsAtMost(LIMITS.upstreamRefChars)),
        { error: expected('a list of references') },
      )
      .max(LIMITS.upstreamRefs, atMost('references', LIMITS.upstreamRefs))
      .optional(),
    seed: z
      .int({ error: expected('an integer from 0 to 4294967295') })
      .min(0, { error: expected('an integer from 0 to 4294967295') })
      .max(0xffff_ffff, { error: expected('an integer from 0 to 4294967295') })
      .optional()
      .meta({ description: 'uint32, default 1' }),
    horizon: Duration('virtual-time bound, default 10m').optional(),
    cluster: ClusterSchema,
    timeline: z
      .array(TimelineEntrySchema, { error: expected('a list of timeline entries') })
      .max(LIMITS.timelineEntries, atMost('timeline entries', LIMITS.timelineEntries))
      .check(podAndContainerTotals)
      .meta({
        description: `at most ${LIMITS.pods} createPod entries, with at most ${LIMITS.containers} containers in all`,
      }),
    claims: z
      .array(ClaimSchema, { error: expected('a list of claims') })
      .max(LIMITS.claims, atMost('claims', LIMITS.claims))
      .optional()
      .meta({ description: 'what `podrace verify` checks' }),
  },
  'a scenario mapping {name, cluster, timeline, ...}',
).meta({
  title: 'podrace scenario',
  description: `A podrace scenario file, at most ${FILE_BYTES_TEXT}; the format and every limit are in docs/scenario-format.md`,
});

export type ScenarioFile = z.output<typeof ScenarioFileSchema>;
export type TimelineEntryFile = z.output<typeof TimelineEntrySchema>;
export type FaultFile = z.output<typeof FaultSchema>;
export type ClaimFile = z.output<typeof ClaimSchema>;

/** The draft-7 JSON Schema for editors (docs/scenario.schema.json). */
export function scenarioJsonSchema(): Record<string, unknown> {
  const oneKeyOf = new Map<unknown, readonly string[]>([
    [TimelineEntrySchema, ACTION_KINDS],
    [FaultSchema, FAULT_KINDS],
  ]);
  const schema = z.toJSONSchema(ScenarioFileSchema, {
    target: 'draft-7',
    io: 'input',
    override: (ctx) => {
      const keys = oneKeyOf.get(ctx.zodSchema);
      if (keys !== undefined) ctx.jsonSchema.oneOf = keys.map((k) => ({ required: [k] }));
    },
  });
  return schema as Record<string, unknown>;
}
