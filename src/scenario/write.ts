// Writes a Scenario back as a scenario file (docs/scenario-format.md) that load.ts reads to the same
// Scenario: defaults left out, durations and sizes in the largest exact unit, flow style for short lists.
import { Document } from 'yaml';
import { formatMemoryBytes, formatMilliCPU } from '../api/quantity.js';
import { formatDurationMs } from '../sim/units.js';
import {
  type Action,
  DEFAULTS,
  defaultContainerName,
  type Fault,
  type ResourceAmounts,
  type Scenario,
} from './types.js';

/** A duration in the largest unit that keeps it exact (`0s`, `250ms`, `30s`, `5m`). */
export function formatDuration(ms: number): string {
  return ms === 0 ? '0s' : formatDurationMs(ms);
}

/** A size in the largest binary unit that keeps it exact (`10Gi`, `1536Ki`, `1000`). */
export function formatSize(bytes: number): string {
  for (const [unit, factor] of [
    ['Ti', 1024 ** 4],
    ['Gi', 1024 ** 3],
    ['Mi', 1024 ** 2],
    ['Ki', 1024],
  ] as const) {
    if (bytes % factor === 0 && bytes !== 0) return `${bytes / factor}${unit}`;
  }
  return String(bytes);
}

export interface ScenarioToYamlOptions {
  /** Adds `# yaml-language-server: $schema=PATH` (PATH relative to where the file will be written). */
  readonly schemaPath?: string;
  /**
   * Comments to write (without the `#`; a string of several lines gives several comment lines): above the
   * file, above each volume and above each timeline entry (by index; null or missing: none). `podrace
   * import` says where each entry came from this way.
   */
  readonly comments?: {
    readonly header?: string;
    readonly volumes?: readonly (string | null)[];
    readonly timeline?: readonly (string | null)[];
  };
}

/** `text` as yaml's comment: each line prefixed by a space (yaml adds the `#`). */
function commentText(text: string): string {
  return text
    .split('\n')
    .map((l) => ` ${l}`)
    .join('\n');
}

/**
 * Writes a scenario file that parseScenarioText reads back to the same Scenario (up to `file` and the
 * `line` fields). Defaults are left out; durations and sizes use the largest exact unit.
 */
export function scenarioToYaml(s: Scenario, options: ScenarioToYamlOptions = {}): string {
  const doc = new Document();
  const flow = (value: unknown) => doc.createNode(value, { flow: true });
  const top: Record<string, unknown> = { name: s.name };
  if (s.description !== '') top['description'] = s.description;
  if (s.upstream.length > 0) top['upstream'] = flow([...s.upstream]);
  top['seed'] = s.seed;
  top['horizon'] = formatDuration(s.horizonMs);
  const nodes = s.nodes.map((name) => {
    const c = s.nodeShutdown?.[name];
    const labels = s.nodeLabels?.[name];
    const allocatable = s.nodeAllocatable?.[name];
    if (c === undefined && labels === undefined && allocatable === undefined) return name;
    const out: Record<string, unknown> = { name };
    if (c !== undefined && c.shutdownGracePeriodS !== 0)
      out['shutdownGracePeriod'] = formatDuration(c.shutdownGracePeriodS * 1000);
    if (c !== undefined && c.shutdownGracePeriodCriticalPodsS !== 0)
      out['shutdownGracePeriodCriticalPods'] = formatDuration(c.shutdownGracePeriodCriticalPodsS * 1000);
    if (labels !== undefined) out['labels'] = { ...labels };
    if (allocatable !== undefined) out['allocatable'] = resourcesToYaml(allocatable);
    return out;
  });
  // A list of names stays on one line; one node with its configuration makes it a block list of entries.
  const cluster: Record<string, unknown> = {
    nodes: nodes.every((n) => typeof n === 'string') ? flow(nodes) : nodes.map(flow),
  };
  if (s.volumes.length > 0) {
    cluster['volumes'] = s.volumes.map((v, i) => {
      const out: Record<string, unknown> = { name: v.name, plugin: v.plugin };
      if (v.mode !== DEFAULTS.volumeMode) out['mode'] = v.mode;
      out['capacity'] = formatSize(v.capacityBytes);
      if (v.accessMode !== DEFAULTS.accessMode) out['accessMode'] = v.accessMode;
      const node = flow(out);
      const comment = options.comments?.volumes?.[i];
      if (comment !== undefined && comment !== null) node.commentBefore = commentText(comment);
      return node;
    });
  }
  if (s.controllerManager !== undefined)
    cluster['controllerManager'] = flow({ disableForceDetachOnTimeout: true });
  top['cluster'] = cluster;
  top['timeline'] = s.timeline.map((e, i) => {
    const [key, body] = actionToYaml(e.action);
    // A pod with a list of containers reads better as a block mapping than as one long line.
    const containers = body['containers'];
    let entry: Record<string, unknown>;
    if (!Array.isArray(containers)) entry = { at: formatDuration(e.atMs), [key]: flow(body) };
    else {
      const block: Record<string, unknown> = { ...body, containers: containers.map(flow) };
      if (body['volumes'] !== undefined) block['volumes'] = flow(body['volumes']);
      entry = { at: formatDuration(e.atMs), [key]: block };
    }
    const comment = options.comments?.timeline?.[i];
    if (comment === undefined || comment === null) return entry;
    const node = doc.createNode(entry);
    node.commentBefore = commentText(comment);
    return node;
  });
  if (s.claims.length > 0) {
    top['claims'] = s.claims.map((c) => {
      const out: Record<string, unknown> = {};
      const { kubelet, off, on } = c.fixes;
      if (kubelet === 'fixed' && on.length === 0)
        out['fixes'] = off.length === 0 ? 'all' : flow({ off: [...off] });
      else if (kubelet === 'legacy' && off.length === 0)
        out['fixes'] = on.length === 0 ? 'none' : flow({ on: [...on] });
      else {
        out['kubelet'] = kubelet;
        const toggles: Record<string, unknown> = {};
        if (off.length > 0) toggles['off'] = [...off];
        if (on.length > 0) toggles['on'] = [...on];
        if (off.length + on.length > 0) out['fixes'] = flow(toggles);
      }
      out['violations'] = flow([...c.violations]);
      if (c.findings !== null) out['findings'] = flow([...c.findings]);
      if (c.exhaustive === true) out['exhaustive'] = true;
      return out;
    });
  }
  doc.contents = doc.createNode(top) as typeof doc.contents;
  const header = [
    ...(options.schemaPath === undefined ? [] : [` yaml-language-server: $schema=${options.schemaPath}`]),
    ...(options.comments?.header === undefined ? [] : [commentText(options.comments.header)]),
  ];
  if (header.length > 0) doc.commentBefore = header.join('\n');
  return doc.toString({ lineWidth: 0, flowCollectionPadding: false });
}

/** cpu and memory as Kubernetes writes them (500m, 2; 128Mi, 1Gi): what the loader reads back the same. */
function resourcesToYaml(r: ResourceAmounts): Record<string, string> {
  const out: Record<string, string> = {};
  if (r.cpuMilli !== undefined) out['cpu'] = formatMilliCPU(r.cpuMilli);
  if (r.memoryBytes !== undefined) out['memory'] = formatMemoryBytes(r.memoryBytes);
  return out;
}

function grace(seconds: number): string {
  return formatDuration(seconds * 1000);
}

function actionToYaml(a: Action): [string, Record<string, unknown>] {
  switch (a.kind) {
    case 'createPod': {
      const plain = a.containers.every(
        (k, i) =>
          k.name === defaultContainerName(i) &&
          k.startDelayMs === null &&
          k.preStopMs === undefined &&
          k.requests === undefined,
      );
      const body: Record<string, unknown> = {
        pod: a.pod,
        node: a.node,
        containers: plain
          ? a.containers.length
          : a.containers.map((k) => ({
              name: k.name,
              ...(k.startDelayMs === null ? {} : { startDelay: formatDuration(k.startDelayMs) }),
              ...(k.preStopMs === undefined ? {} : { preStop: formatDuration(k.preStopMs) }),
              ...(k.requests === undefined ? {} : { resources: { requests: resourcesToYaml(k.requests) } }),
            })),
      };
      if (a.volumes.length > 0) body['volumes'] = [...a.volumes];
      if (a.static) body['static'] = true;
      if (a.gracePeriodS !== DEFAULTS.podGracePeriodS) body['gracePeriod'] = grace(a.gracePeriodS);
      if (a.restartPolicy !== DEFAULTS.restartPolicy) body['restartPolicy'] = a.restartPolicy;
      if (a.nodeSelector !== undefined) body['nodeSelector'] = { ...a.nodeSelector };
      return ['createPod', body];
    }
    case 'deletePod':
      return [
        'deletePod',
        a.gracePeriodS === null ? { pod: a.pod } : { pod: a.pod, gracePeriod: grace(a.gracePeriodS) },
      ];
    case 'forceDeletePod':
      return ['forceDeletePod', { pod: a.pod }];
    case 'evictPod':
      return [
        'evictPod',
        a.gracePeriodS === DEFAULTS.evictGracePeriodS
          ? { pod: a.pod }
          : { pod: a.pod, gracePeriod: grace(a.gracePeriodS) },
      ];
    case 'restartKubelet':
      return [
        'restartKubelet',
        {
          node: a.node,
          ...(a.downForMs === null ? {} : { downFor: formatDuration(a.downForMs) }),
          ...(a.labels === undefined ? {} : { labels: { ...a.labels } }),
        },
      ];
    case 'shutdownNode':
      return ['shutdownNode', { node: a.node }];
    case 'crashContainer':
      return [
        'crashContainer',
        a.exitCode === DEFAULTS.crashExitCode
          ? { pod: a.pod, container: a.container }
          : { pod: a.pod, container: a.container, exitCode: a.exitCode },
      ];
    case 'deletePvc':
      return ['deletePvc', { volume: a.volume }];
    case 'outOfServiceTaint':
      return ['outOfServiceTaint', a.remove ? { node: a.node, remove: true } : { node: a.node }];
    case 'fault':
      return ['fault', faultToYaml(a.fault)];
  }
}

function faultToYaml(f: Fault): Record<string, unknown> {
  const times = (n: number) => (n === DEFAULTS.faultTimes ? {} : { times: n });
  switch (f.kind) {
    case 'unmountDevice':
      return { unmountDevice: { node: f.node, volume: f.volume, stage: f.stage, ...times(f.times) } };
    case 'procMounts':
      return { procMounts: { node: f.node, inconsistentReads: f.inconsistentReads } };
    case 'constructVolumeSpec':
      return { constructVolumeSpec: { node: f.node, volume: f.volume } };
    case 'containerStart':
      return {
        containerStart: {
          pod: f.pod,
          ...(f.delayMs === null ? {} : { delay: formatDuration(f.delayMs) }),
          ...(f.error === null ? {} : { error: f.error }),
        },
      };
    case 'tearDown':
      return {
        tearDown: {
          node: f.node,
          volume: f.volume,
          ...times(f.times),
          ...(f.delayMs === null ? {} : { delay: formatDuration(f.delayMs) }),
        },
      };
    case 'mountDevice':
      return {
        mountDevice: {
          node: f.node,
          volume: f.volume,
          ...(f.delayMs === null ? {} : { delay: formatDuration(f.delayMs) }),
          ...(f.error === null ? {} : { error: f.error }),
          ...times(f.times),
        },
      };
    case 'waitForAttach':
      return {
        waitForAttach: {
          node: f.node,
          volume: f.volume,
          ...times(f.times),
          ...(f.error === null ? {} : { error: f.error }),
          ...(f.delayMs === null ? {} : { delay: formatDuration(f.delayMs) }),
        },
      };
    case 'setUp':
      return {
        setUp: {
          node: f.node,
          volume: f.volume,
          ...times(f.times),
          ...(f.error === 'final' ? {} : { error: f.error }),
        },
      };
    case 'pvcLookup':
      return {
        pvcLookup: {
          node: f.node,
          volume: f.volume,
          ...times(f.times),
          ...(f.error === null ? {} : { error: f.error }),
        },
      };
    case 'detach':
      return {
        detach: {
          node: f.node,
          volume: f.volume,
          ...(f.stage === DEFAULTS.detachStage ? {} : { stage: f.stage }),
          ...times(f.times),
        },
      };
    case 'nodePartition':
      return { nodePartition: { node: f.node, duration: formatDuration(f.durationMs) } };
    case 'stopContainer':
      return {
        stopContainer: {
          pod: f.pod,
          ...(f.container === null ? {} : { container: f.container }),
          ...times(f.times),
          ...(f.error === null ? {} : { error: f.error }),
        },
      };
  }
}
