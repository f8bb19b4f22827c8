// Reads scenario files (docs/scenario-format.md) into the normalised Scenario (write.ts writes them back).
//
// Three passes, each reporting every mistake it finds as `file:line:col: field.path: message` (one line
// each, sorted by position, at most MAX_ERRORS), thrown together as one InputError:
//   1. YAML syntax (the yaml package, the first error of each region: yamlSyntax.ts; duplicate keys and
//      the aliases bound: yamlTree.ts);
//   2. shape (schema.ts: types, enums, unknown and missing keys, duration and size syntax, one action);
//   3. meaning (below: unknown nodes / volumes / pods / containers, duplicates, pod lifetimes, horizon).
// Positions come from the YAML syntax tree (yamlTree.ts): the node at the issue's path, its key for an
// unknown or duplicate key, the nearest existing mapping for a missing key. Every bound of LIMITS is checked
// before anything proportional to it is built, and every check here is linear in the size of the file.
import { LineCounter, parseDocument } from 'yaml';
import type { z } from 'zod';
import { parseQuantity } from '../api/quantity.js';
import { controllerManagerHasFlag, missingFlagMessage } from '../controllerManagerFlags.js';
import { outOfServiceGateOffMessage, outOfServiceVolumeDetachOn } from '../controllerManagerGates.js';
import { FIX_IDS, type KubeletName } from '../fixes.js';
import { INVARIANT_IDS, type InvariantId, isFinding } from '../invariants/types.js';
import { MAX_START_DELAY_MS } from '../runtime/runtimeRequestTimeout.js';
import { isNotFoundText, STOP_CONTAINER_NOT_FOUND } from '../runtime/stopFaults.js';
import { parseDurationMs, parseSizeBytes } from '../sim/units.js';
import { InputError } from './errors.js';
import { readScenarioText } from './files.js';
import { FILE_BYTES_TEXT, LIMITS, nodeHoursProblem, tooMany } from './limits.js';
import {
  type ClaimFile,
  didYouMean,
  expected,
  type FaultFile,
  quantityText,
  type ScenarioFile,
  ScenarioFileSchema,
  type TimelineEntryFile,
  UNKNOWN_KEY_PREFIX,
} from './schema.js';
import {
  ACTION_KINDS,
  type Action,
  type Claim,
  type ContainerDecl,
  type ControllerManagerConfig,
  claimFixesLabel,
  DEFAULTS,
  defaultContainerName,
  type Fault,
  type NodeShutdownConfig,
  type ResourceAmounts,
  type Scenario,
  sortedLabels,
  type TimelineEntry,
  type VolumeDecl,
} from './types.js';
import { formatDuration } from './write.js';
import { firstOfEachRegion, unclosedQuote } from './yamlSyntax.js';
import { type PathSeg, ScenarioTree } from './yamlTree.js';

export { formatDuration, formatSize, type ScenarioToYamlOptions, scenarioToYaml } from './write.js';

/** At most this many error lines are printed; a last line counts the rest. */
export const MAX_ERRORS = 10;

/**
 * Only the first this many meaning problems get a "did you mean" and a list of the names there are: each
 * costs time in the number of names, and a file may name 25,000 unknown pods.
 */
const HINTED_PROBLEMS = 100;

interface Problem {
  /** The field the message is about (printed). */
  readonly path: readonly PathSeg[];
  readonly message: string;
  /** Where to point, when not at `path`'s value: a key (unknown / duplicate / second action). */
  readonly keyAt?: readonly PathSeg[];
  /** A known source offset (YAML syntax errors). */
  readonly offset?: number;
  /** A duplicate key: where the key was first set. */
  readonly firstOffset?: number;
}

// ---- entry points ---------------------------------------------------------------------------------------

/**
 * Reads and loads one scenario file (a regular file, or a pipe named explicitly); a missing, unreadable,
 * too large or invalid file throws InputError (exit code 2).
 */
export function loadScenarioFile(path: string): Scenario {
  return parseScenarioText(readScenarioText(path), path);
}

/** Parses scenario YAML; `fileName` is used in error messages and as Scenario.file. */
export function parseScenarioText(text: string, fileName: string): Scenario {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > LIMITS.fileBytes) {
    throw new InputError(`${fileName}: too large: ${bytes} bytes (at most ${FILE_BYTES_TEXT})`, {
      located: true,
    });
  }
  // A lone CR is a line break in YAML 1.2 (classic Mac files); the yaml package breaks lines at LF only.
  // One character for one: every offset, line and column stays where it was.
  const lines = text.includes('\r') ? text.replace(/\r(?!\n)/g, '\n') : text;
  const lineCounter = new LineCounter();
  // uniqueKeys: false: the yaml package's check is quadratic; ScenarioTree finds duplicates in one walk.
  const doc = parseDocument(lines, { lineCounter, uniqueKeys: false, prettyErrors: false });
  const tree = new ScenarioTree(doc);
  const report = (problems: readonly Problem[]): never => {
    throw new InputError(formatProblems(problems, fileName, tree, lineCounter), { located: true });
  };

  const duplicates = tree.duplicates.map(
    (d): Problem => ({
      path: d.path,
      message: `duplicate key ${JSON.stringify(d.key)}`,
      offset: d.offset,
      ...(d.firstOffset !== undefined && d.firstOffset !== d.offset ? { firstOffset: d.firstOffset } : {}),
    }),
  );
  // A tag the schema does not know (`!foo`, `!!binary`) is only a warning to the yaml package, which then
  // reads the value as if untagged: refused, as a typo in a tag would otherwise be silently ignored.
  const tags = doc.warnings
    .filter((w) => w.code === 'TAG_RESOLVE_FAILED')
    .map(
      (w): Problem => ({
        path: [],
        message: `${oneLine(w.message)}; a scenario file uses no YAML tags`,
        offset: w.pos[0],
      }),
    );
  // Of each region of errors only the first: the rest is the cascade of a parser that lost its place.
  const errors = firstOfEachRegion(
    doc.errors.map((e) => ({ code: e.code, message: e.message, offset: e.pos[0] })),
    (offset) => lineCounter.linePos(offset).line,
  ).map((e) => unclosedQuote(e, lines));
  const syntax = [...errors.map((e): Problem => yamlErrorProblem(e.code, e.message, e.offset)), ...tags].sort(
    (a, b) => (a.offset ?? 0) - (b.offset ?? 0),
  );
  if (syntax.length > 0) report([...syntax, ...duplicates]);
  const excessAlias = tree.aliases[LIMITS.yamlAliases];
  if (excessAlias !== undefined) {
    report([
      ...duplicates,
      {
        path: [],
        message: tooMany('YAML aliases', tree.aliases.length, LIMITS.yamlAliases),
        offset: excessAlias.range?.[0] ?? 0,
      },
    ]);
  }

  if (doc.contents === null) {
    throw new InputError(
      `${fileName}:1:1: the file is empty; expected a scenario mapping {name, cluster, timeline, ...}`,
      { located: true },
    );
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 1000 });
  } catch (err) {
    report([
      ...duplicates,
      { path: [], message: `cannot read the YAML: ${oneLine(String(err))}`, offset: 0 },
    ]);
  }

  const parsed = ScenarioFileSchema.safeParse(data, { error: fallbackMessage });
  if (!parsed.success) report([...duplicates, ...parsed.error.issues.flatMap((i) => issueProblems(i, []))]);
  else if (duplicates.length > 0) report(duplicates);
  const raw = parsed.data as ScenarioFile;

  const posOf = (path: readonly PathSeg[]) => lineCounter.linePos(tree.offsetOf(path, false));
  const { scenario, problems } = normalise(raw, fileName, posOf);
  if (problems.length > 0) report(problems);
  return scenario;
}

// ---- errors ---------------------------------------------------------------------------------------------

function oneLine(text: string): string {
  return text.split('\n', 1)[0]?.trim() ?? '';
}

/** For issues that no schema leaf words itself (there should be none): still one clear line. */
function fallbackMessage(issue: { code?: string; input?: unknown; expected?: string }): string | undefined {
  if (issue.code === 'invalid_type') return expected(issue.expected ?? 'another type')(issue);
  return undefined;
}

function yamlErrorProblem(code: string, message: string, offset: number): Problem {
  if (code === 'MULTIPLE_DOCS') {
    return {
      path: [],
      message: "a scenario file holds one YAML document; remove the '---' and what follows",
      offset,
    };
  }
  return { path: [], message: oneLine(message), offset };
}

function issueProblems(issue: z.core.$ZodIssue, base: readonly PathSeg[]): Problem[] {
  const path = [...base, ...(issue.path as PathSeg[])];
  switch (issue.code) {
    case 'unrecognized_keys': {
      const allowed = issue.message.startsWith(UNKNOWN_KEY_PREFIX)
        ? issue.message.slice(UNKNOWN_KEY_PREFIX.length).split(', ')
        : [];
      return issue.keys.map((key) => ({
        path,
        message: `unknown key ${JSON.stringify(key)}${didYouMean(key, allowed)}; ${issue.message}`,
        keyAt: [...path, key],
      }));
    }
    case 'invalid_union': {
      // Follow the one branch whose type matches the input (a list of containers, a fix-set mapping).
      const matching = issue.errors.filter(
        (branch) =>
          !branch.some(
            (i) => i.path.length === 0 && (i.code === 'invalid_type' || i.code === 'invalid_value'),
          ),
      );
      if (matching.length === 1 && matching[0] !== undefined) {
        return matching[0].flatMap((i) => issueProblems(i, path));
      }
      return [{ path, message: issue.message }];
    }
    case 'custom': {
      const key = (issue.params as { key?: unknown } | undefined)?.key;
      return [
        { path, message: issue.message, ...(typeof key === 'string' ? { keyAt: [...path, key] } : {}) },
      ];
    }
    default:
      return [{ path, message: issue.message }];
  }
}

export function formatPath(path: readonly PathSeg[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out === '' ? seg : `.${seg}`;
  }
  return out;
}

function formatProblems(
  problems: readonly Problem[],
  file: string,
  tree: ScenarioTree,
  lc: LineCounter,
): string {
  const located = problems.map((p, index) => {
    const offset =
      p.offset ?? (p.keyAt !== undefined ? tree.offsetOf(p.keyAt, true) : tree.offsetOf(p.path, false));
    const { line, col } = lc.linePos(offset);
    const first = p.firstOffset === undefined ? undefined : lc.linePos(p.firstOffset);
    const suffix = first === undefined ? '' : ` (first set at ${first.line}:${first.col})`;
    const field = formatPath(p.path);
    const text = `${file}:${line}:${col}: ${field === '' ? '' : `${field}: `}${oneLine(p.message)}${suffix}`;
    return { offset, index, text };
  });
  located.sort((a, b) => a.offset - b.offset || a.index - b.index);
  const lines = [...new Set(located.map((l) => l.text))];
  if (lines.length <= MAX_ERRORS) return lines.join('\n');
  const more = lines.length - MAX_ERRORS;
  return [...lines.slice(0, MAX_ERRORS), `${file}: ... and ${more} more error${more === 1 ? '' : 's'}`].join(
    '\n',
  );
}

function listNames(names: Iterable<string>, size: number): string {
  const first: string[] = [];
  for (const name of names) {
    if (first.length === 10) break;
    first.push(name);
  }
  return size <= 10 ? first.join(', ') : `${first.join(', ')}, ... (${size} in all)`;
}

/** The first index of each value; the indexes of the values seen before (duplicates), in order. */
function repeats<T>(values: readonly T[]): number[] {
  const seen = new Set<T>();
  const out: number[] = [];
  values.forEach((v, i) => {
    if (seen.has(v)) out.push(i);
    else seen.add(v);
  });
  return out;
}

// ---- meaning --------------------------------------------------------------------------------------------

function durationMs(text: string): number {
  const parsed = parseDurationMs(text);
  return parsed.ok ? parsed.value : 0; // the schema has checked it
}

/** A checked cpu / memory list as amounts (the schema has reported a bad quantity already). */
function resourceAmounts(list: {
  cpu?: string | number | undefined;
  memory?: string | number | undefined;
}): ResourceAmounts {
  const amount = (q: string | number) => {
    const parsed = parseQuantity(quantityText(q));
    return parsed.ok ? parsed.value : { milli: 0, value: 0 };
  };
  return {
    ...(list.cpu === undefined ? {} : { cpuMilli: amount(list.cpu).milli }),
    ...(list.memory === undefined ? {} : { memoryBytes: amount(list.memory).value }),
  };
}

function sizeBytes(text: string): number {
  const parsed = parseSizeBytes(text);
  return parsed.ok ? parsed.value : 0;
}

interface PodRecord {
  alive: boolean;
  line: number;
  containers: readonly string[];
}

function normalise(
  raw: ScenarioFile,
  file: string,
  posOf: (path: readonly PathSeg[]) => { line: number; col: number },
): { scenario: Scenario; problems: Problem[] } {
  const lineOf = (path: readonly PathSeg[]) => posOf(path).line;
  const problems: Problem[] = [];
  const problem = (path: readonly PathSeg[], message: string) => problems.push({ path, message });
  /** A did-you-mean and a list of names, while they are cheap enough (HINTED_PROBLEMS). */
  const hinting = () => problems.length < HINTED_PROBLEMS;

  const nodes = raw.cluster.nodes.map((n) => (typeof n === 'string' ? n : n.name));
  const nodeSet = new Set(nodes);
  for (const i of repeats(nodes)) {
    problem(['cluster', 'nodes', i], `duplicate node ${JSON.stringify(nodes[i])}`);
  }
  const nodeShutdown: Record<string, NodeShutdownConfig> = {};
  const nodeLabels: Record<string, Record<string, string>> = {};
  const nodeAllocatable: Record<string, ResourceAmounts> = {};
  raw.cluster.nodes.forEach((n, i) => {
    if (typeof n === 'string') return;
    if (n.labels !== undefined && Object.keys(n.labels).length > 0)
      nodeLabels[n.name] = sortedLabels(n.labels);
    if (n.allocatable !== undefined) nodeAllocatable[n.name] = resourceAmounts(n.allocatable);
    const period = n.shutdownGracePeriod === undefined ? 0 : durationMs(n.shutdownGracePeriod) / 1000;
    const critical =
      n.shutdownGracePeriodCriticalPods === undefined
        ? 0
        : durationMs(n.shutdownGracePeriodCriticalPods) / 1000;
    // The kubelet's own validation (validation.go ValidateKubeletConfiguration): it refuses to start.
    if (critical > period) {
      problem(
        ['cluster', 'nodes', i, 'shutdownGracePeriodCriticalPods'],
        `shutdownGracePeriodCriticalPods ${formatDuration(critical * 1000)} must be <= shutdownGracePeriod ${formatDuration(period * 1000)} (the kubelet refuses such a configuration)`,
      );
    }
    nodeShutdown[n.name] = { shutdownGracePeriodS: period, shutdownGracePeriodCriticalPodsS: critical };
  });
  const rawVolumes = raw.cluster.volumes ?? [];
  for (const i of repeats(rawVolumes.map((v) => v.name))) {
    problem(['cluster', 'volumes', i, 'name'], `duplicate volume ${JSON.stringify(rawVolumes[i]?.name)}`);
  }
  const volumes = rawVolumes.map((v): VolumeDecl => {
    return {
      name: v.name,
      plugin: v.plugin,
      mode: v.mode ?? DEFAULTS.volumeMode,
      capacityBytes: sizeBytes(v.capacity),
      accessMode: v.accessMode ?? DEFAULTS.accessMode,
    };
  });
  const volumeNames = volumes.map((v) => v.name);
  const volumeSet = new Set(volumeNames);

  const checkNode = (path: readonly PathSeg[], name: string) => {
    if (nodeSet.has(name)) return;
    const hint = hinting()
      ? `${didYouMean(name, nodes)}; cluster.nodes are ${listNames(nodes, nodes.length)}`
      : '';
    problem(path, `unknown node ${JSON.stringify(name)}${hint}`);
  };
  const checkVolume = (path: readonly PathSeg[], name: string) => {
    if (volumeSet.has(name)) return;
    let hint = '';
    if (volumeNames.length === 0) hint = '; cluster.volumes declares none';
    else if (hinting()) {
      hint = `${didYouMean(name, volumeNames)}; cluster.volumes are ${listNames(volumeNames, volumeNames.length)}`;
    }
    problem(path, `unknown volume ${JSON.stringify(name)}${hint}`);
  };

  const horizonMs = raw.horizon === undefined ? DEFAULTS.horizonMs : durationMs(raw.horizon);
  if (horizonMs === 0) problem(['horizon'], 'expected a horizon longer than 0s');
  // Only a horizon the file gives can exceed it: the default (10m) on the most nodes (1,000) is 167 node-hours.
  const nodeHours =
    raw.horizon === undefined
      ? undefined
      : nodeHoursProblem(nodes.length, horizonMs, String(raw.horizon), formatDuration);
  if (nodeHours !== undefined) problem(['horizon'], nodeHours);

  // Sort stably by time; equal times keep file order.
  const entries = raw.timeline.map((entry, index) => ({ entry, index, atMs: durationMs(entry.at) }));
  entries.sort((a, b) => a.atMs - b.atMs || a.index - b.index);

  const pods = new Map<string, PodRecord>();
  const creations = new Map<string, number>(); // pod name -> line of its first createPod in time order
  for (const { entry, index } of entries) {
    const created = entry.createPod?.pod;
    if (created !== undefined && !creations.has(created)) creations.set(created, lineOf(['timeline', index]));
  }
  const checkPod = (path: readonly PathSeg[], name: string): PodRecord | undefined => {
    const record = pods.get(name);
    if (record !== undefined) return record;
    const later = creations.get(name);
    if (later !== undefined) {
      problem(
        path,
        `pod ${JSON.stringify(name)} is not created before this entry (its createPod is at line ${later})`,
      );
      return undefined;
    }
    let hint = '';
    if (pods.size === 0) hint = '; no pod is created before this entry';
    else if (hinting()) {
      const known = [...pods.keys()];
      hint = `${didYouMean(name, known)}; pods created before this entry: ${listNames(known, known.length)}`;
    }
    problem(path, `unknown pod ${JSON.stringify(name)}${hint}`);
    return undefined;
  };

  const timeline: TimelineEntry[] = [];
  for (const { entry, index, atMs } of entries) {
    const at: PathSeg[] = ['timeline', index];
    const line = lineOf(at);
    if (atMs > horizonMs) {
      problem([...at, 'at'], `${entry.at} is after the horizon (${formatDuration(horizonMs)})`);
    }
    const action = normaliseAction(entry, at, line, {
      problem,
      checkNode,
      checkVolume,
      checkPod,
      pods,
      volumeDecl: (name) => volumes.find((v) => v.name === name),
    });
    if (action?.kind === 'outOfServiceTaint') {
      timeline.push({ atMs, line, col: posOf([...at, 'outOfServiceTaint']).col, action });
    } else if (action !== undefined) timeline.push({ atMs, line, action });
  }

  const claims = (raw.claims ?? []).map((c, i) => normaliseClaim(c, ['claims', i], problem, lineOf));
  const controllerManager = normaliseControllerManager(raw, posOf);
  // A claim runs the kube-controller-manager of its kubelet name: one older than a flag the scenario sets
  // does not start with it (src/controllerManagerFlags.ts).
  if (controllerManager !== undefined) {
    (raw.claims ?? []).forEach((c, i) => {
      const kubelet = claims[i]?.fixes.kubelet;
      if (kubelet === undefined || controllerManagerHasFlag('disableForceDetachOnTimeout', kubelet)) return;
      problem(
        ['claims', i, c.kubelet === undefined ? 'fixes' : 'kubelet'],
        `cluster.controllerManager sets disableForceDetachOnTimeout (line ${controllerManager.line}), but ${missingFlagMessage('disableForceDetachOnTimeout', kubelet)}: claim kubelet 1.30 or later, or fixes: all`,
      );
    });
  }
  // A claim whose kube-controller-manager ignores the out-of-service taint (NodeOutOfServiceVolumeDetach
  // off by default, or absent) cannot show what the taint does (src/controllerManagerGates.ts).
  const taintEntry = timeline.find((e) => e.action.kind === 'outOfServiceTaint');
  if (taintEntry !== undefined) {
    (raw.claims ?? []).forEach((c, i) => {
      const kubelet = claims[i]?.fixes.kubelet;
      if (kubelet === undefined || outOfServiceVolumeDetachOn(kubelet)) return;
      problem(
        ['claims', i, c.kubelet === undefined ? 'fixes' : 'kubelet'],
        `the timeline sets the out-of-service taint (line ${taintEntry.line}), but ${outOfServiceGateOffMessage(kubelet)}: claim kubelet 1.26 or later, or fixes: all`,
      );
    });
  }
  const seen = new Map<string, number>();
  claims.forEach((claim, i) => {
    const label = claimFixesLabel(claim.fixes);
    const earlier = seen.get(label);
    if (earlier !== undefined) {
      problem(
        ['claims', i, 'fixes'],
        `the same fixes (${label}) as the claim at line ${earlier}; each claim needs its own set of fixes`,
      );
    } else seen.set(label, claim.line);
  });

  const scenario: Scenario = {
    file,
    name: raw.name,
    description: raw.description ?? '',
    upstream: raw.upstream ?? [],
    seed: raw.seed ?? DEFAULTS.seed,
    horizonMs,
    nodes,
    ...(Object.keys(nodeShutdown).length > 0 ? { nodeShutdown } : {}),
    ...(Object.keys(nodeLabels).length > 0 ? { nodeLabels } : {}),
    ...(Object.keys(nodeAllocatable).length > 0 ? { nodeAllocatable } : {}),
    volumes,
    ...(controllerManager === undefined ? {} : { controllerManager }),
    timeline,
    claims,
  };
  return { scenario, problems };
}

/** cluster.controllerManager, kept only for a flag set to true (false is the default, as no key). */
function normaliseControllerManager(
  raw: ScenarioFile,
  posOf: (path: readonly PathSeg[]) => { line: number; col: number },
): ControllerManagerConfig | undefined {
  if (raw.cluster.controllerManager?.disableForceDetachOnTimeout !== true) return undefined;
  const { line, col } = posOf(['cluster', 'controllerManager', 'disableForceDetachOnTimeout']);
  return { disableForceDetachOnTimeout: true, line, col };
}

interface Checks {
  problem(path: readonly PathSeg[], message: string): void;
  checkNode(path: readonly PathSeg[], name: string): void;
  checkVolume(path: readonly PathSeg[], name: string): void;
  checkPod(path: readonly PathSeg[], name: string): PodRecord | undefined;
  pods: Map<string, PodRecord>;
  /** The declared volume of that name (undefined for an unknown one, which checkVolume reports). */
  volumeDecl(name: string): VolumeDecl | undefined;
}

function normaliseAction(
  entry: TimelineEntryFile,
  at: readonly PathSeg[],
  line: number,
  c: Checks,
): Action | undefined {
  if (entry.createPod !== undefined) {
    const a = entry.createPod;
    const path = [...at, 'createPod'];
    c.checkNode([...path, 'node'], a.node);
    const containers: ContainerDecl[] =
      typeof a.containers === 'number'
        ? Array.from({ length: a.containers }, (_, i) => ({
            name: defaultContainerName(i),
            startDelayMs: null,
          }))
        : a.containers.map((k) => ({
            name: k.name,
            startDelayMs: k.startDelay === undefined ? null : durationMs(k.startDelay),
            ...(k.preStop === undefined ? {} : { preStopMs: durationMs(k.preStop) }),
            ...(k.resources === undefined ? {} : { requests: resourceAmounts(k.resources.requests) }),
          }));
    containers.forEach((k, i) => {
      if (k.startDelayMs === null || k.startDelayMs <= MAX_START_DELAY_MS) return;
      // Every attempt would take as long, and the kubelet gives up on each (src/runtime/fakeRuntime.ts).
      c.problem(
        [...path, 'containers', i, 'startDelay'],
        `expected at most ${formatDuration(MAX_START_DELAY_MS)}, got ${formatDuration(k.startDelayMs)}: a start must fit in the kubelet's runtime-request-timeout (2m, with the runtime's own latency), or StartContainer fails with DeadlineExceeded on every attempt and the container never starts; for a start that fails, use fault.containerStart`,
      );
    });
    for (const i of repeats(containers.map((k) => k.name))) {
      c.problem(
        [...path, 'containers', i, 'name'],
        `duplicate container ${JSON.stringify(containers[i]?.name)}`,
      );
    }
    const volumes = a.volumes ?? [];
    const seenVolumes = new Set<string>();
    volumes.forEach((v, i) => {
      if (seenVolumes.has(v)) c.problem([...path, 'volumes', i], `duplicate volume ${JSON.stringify(v)}`);
      else c.checkVolume([...path, 'volumes', i], v);
      seenVolumes.add(v);
    });
    if (a.static === true && volumes.length > 0) {
      // Cluster volumes are PersistentVolumes, claimed by the pod. A static pod's spec cannot refer to API
      // objects: NodeRestriction refuses its mirror pod ("can not create pods that reference
      // persistentvolumeclaims", admission.go) and the node authorizer its claim lookup, so upstream never
      // sets the volume up. Said here, rather than simulated as a pod that silently never starts.
      c.problem(
        [...path, 'volumes'],
        "a static pod cannot use cluster volumes: they are PersistentVolumes claimed through the API, which a static pod's spec cannot refer to (NodeRestriction refuses its mirror pod); drop `static` or the volumes",
      );
    }
    if (a.static === true) {
      // kubetypes.IsCriticalPod: every static pod is critical, and a critical pod that does not fit is
      // admitted by preempting other pods (CriticalPodAdmissionHandler, preemption.go), never rejected
      // OutOfcpu. That is not modelled; said here rather than simulated as a rejection upstream never makes.
      containers.forEach((k, i) => {
        if (k.requests === undefined) return;
        c.problem(
          [...path, 'containers', i, 'resources'],
          'a static pod cannot carry resource requests here: the kubelet counts every static pod as critical and admits one that does not fit by preempting other pods (preemption.go), which podrace does not model; drop `static` or the resources',
        );
      });
    }
    const previous = c.pods.get(a.pod);
    if (previous?.alive === true) {
      c.problem(
        [...path, 'pod'],
        `pod ${JSON.stringify(a.pod)} already exists (created at line ${previous.line} and not deleted since); delete it first or use another name`,
      );
    }
    c.pods.set(a.pod, { alive: true, line, containers: containers.map((k) => k.name) });
    return {
      kind: 'createPod',
      pod: a.pod,
      node: a.node,
      containers,
      volumes,
      static: a.static ?? false,
      gracePeriodS: a.gracePeriod === undefined ? DEFAULTS.podGracePeriodS : durationMs(a.gracePeriod) / 1000,
      restartPolicy: a.restartPolicy ?? DEFAULTS.restartPolicy,
      ...(a.nodeSelector !== undefined && Object.keys(a.nodeSelector).length > 0
        ? { nodeSelector: sortedLabels(a.nodeSelector) }
        : {}),
    };
  }
  if (entry.deletePod !== undefined) {
    const a = entry.deletePod;
    const pod = c.checkPod([...at, 'deletePod', 'pod'], a.pod);
    if (pod !== undefined) pod.alive = false;
    return {
      kind: 'deletePod',
      pod: a.pod,
      gracePeriodS: a.gracePeriod === undefined ? null : durationMs(a.gracePeriod) / 1000,
    };
  }
  if (entry.forceDeletePod !== undefined) {
    const a = entry.forceDeletePod;
    const pod = c.checkPod([...at, 'forceDeletePod', 'pod'], a.pod);
    if (pod !== undefined) pod.alive = false;
    return { kind: 'forceDeletePod', pod: a.pod };
  }
  if (entry.evictPod !== undefined) {
    const a = entry.evictPod;
    c.checkPod([...at, 'evictPod', 'pod'], a.pod);
    return {
      kind: 'evictPod',
      pod: a.pod,
      gracePeriodS:
        a.gracePeriod === undefined ? DEFAULTS.evictGracePeriodS : durationMs(a.gracePeriod) / 1000,
    };
  }
  if (entry.restartKubelet !== undefined) {
    const a = entry.restartKubelet;
    c.checkNode([...at, 'restartKubelet', 'node'], a.node);
    return {
      kind: 'restartKubelet',
      node: a.node,
      downForMs: a.downFor === undefined ? null : durationMs(a.downFor),
      ...(a.labels !== undefined ? { labels: sortedLabels(a.labels) } : {}),
    };
  }
  if (entry.shutdownNode !== undefined) {
    c.checkNode([...at, 'shutdownNode', 'node'], entry.shutdownNode.node);
    return { kind: 'shutdownNode', node: entry.shutdownNode.node };
  }
  if (entry.crashContainer !== undefined) {
    const a = entry.crashContainer;
    const path = [...at, 'crashContainer'];
    const pod = c.checkPod([...path, 'pod'], a.pod);
    const names = pod?.containers ?? [];
    const container = a.container ?? names[0] ?? '';
    if (pod !== undefined && a.container !== undefined && !names.includes(a.container)) {
      c.problem(
        [...path, 'container'],
        `unknown container ${JSON.stringify(a.container)}${didYouMean(a.container, names)}; pod ${JSON.stringify(a.pod)} has ${listNames(names, names.length)}`,
      );
    }
    return { kind: 'crashContainer', pod: a.pod, container, exitCode: a.exitCode ?? DEFAULTS.crashExitCode };
  }
  if (entry.deletePvc !== undefined) {
    c.checkVolume([...at, 'deletePvc', 'volume'], entry.deletePvc.volume);
    return { kind: 'deletePvc', volume: entry.deletePvc.volume };
  }
  if (entry.outOfServiceTaint !== undefined) {
    const a = entry.outOfServiceTaint;
    c.checkNode([...at, 'outOfServiceTaint', 'node'], a.node);
    return { kind: 'outOfServiceTaint', node: a.node, remove: a.remove === true };
  }
  if (entry.fault !== undefined) {
    const fault = normaliseFault(entry.fault, [...at, 'fault'], c);
    return fault === undefined ? undefined : { kind: 'fault', fault };
  }
  c.problem(at, `no action; expected exactly one of ${ACTION_KINDS.join(', ')}`); // the schema has checked it
  return undefined;
}

function normaliseFault(f: FaultFile, at: readonly PathSeg[], c: Checks): Fault | undefined {
  if (f.unmountDevice !== undefined) {
    const a = f.unmountDevice;
    c.checkNode([...at, 'unmountDevice', 'node'], a.node);
    c.checkVolume([...at, 'unmountDevice', 'volume'], a.volume);
    return {
      kind: 'unmountDevice',
      node: a.node,
      volume: a.volume,
      stage: a.stage,
      times: a.times ?? DEFAULTS.faultTimes,
    };
  }
  if (f.procMounts !== undefined) {
    c.checkNode([...at, 'procMounts', 'node'], f.procMounts.node);
    return { kind: 'procMounts', node: f.procMounts.node, inconsistentReads: f.procMounts.inconsistentReads };
  }
  if (f.constructVolumeSpec !== undefined) {
    const a = f.constructVolumeSpec;
    c.checkNode([...at, 'constructVolumeSpec', 'node'], a.node);
    c.checkVolume([...at, 'constructVolumeSpec', 'volume'], a.volume);
    return { kind: 'constructVolumeSpec', node: a.node, volume: a.volume };
  }
  if (f.containerStart !== undefined) {
    const a = f.containerStart;
    c.checkPod([...at, 'containerStart', 'pod'], a.pod);
    if (a.delay === undefined && a.error === undefined) {
      c.problem(
        [...at, 'containerStart'],
        'expected a delay, an error or both; without either the fault does nothing',
      );
    }
    return {
      kind: 'containerStart',
      pod: a.pod,
      delayMs: a.delay === undefined ? null : durationMs(a.delay),
      error: a.error ?? null,
    };
  }
  if (f.tearDown !== undefined) {
    const a = f.tearDown;
    c.checkNode([...at, 'tearDown', 'node'], a.node);
    c.checkVolume([...at, 'tearDown', 'volume'], a.volume);
    return {
      kind: 'tearDown',
      node: a.node,
      volume: a.volume,
      times: a.times ?? DEFAULTS.faultTimes,
      delayMs: a.delay === undefined ? null : durationMs(a.delay),
    };
  }
  if (f.mountDevice !== undefined) return normaliseMountDeviceFault(f.mountDevice, [...at, 'mountDevice'], c);
  if (f.waitForAttach !== undefined) {
    const a = f.waitForAttach;
    c.checkNode([...at, 'waitForAttach', 'node'], a.node);
    c.checkVolume([...at, 'waitForAttach', 'volume'], a.volume);
    return {
      kind: 'waitForAttach',
      node: a.node,
      volume: a.volume,
      times: a.times ?? DEFAULTS.faultTimes,
      error: a.error ?? null,
      delayMs: a.delay === undefined ? null : durationMs(a.delay),
    };
  }
  if (f.setUp !== undefined) {
    const a = f.setUp;
    const path = [...at, 'setUp'];
    c.checkNode([...path, 'node'], a.node);
    c.checkVolume([...path, 'volume'], a.volume);
    const v = c.volumeDecl(a.volume);
    if (v !== undefined && v.plugin !== 'csi' && v.mode === 'Block') {
      // FC and iSCSI MapPodDevice is the kubelet's own MapBlockVolume: no plugin call to fail.
      c.problem(
        [...path, 'volume'],
        `volume ${JSON.stringify(a.volume)} is an ${v.plugin} Block volume, whose MapPodDevice is the kubelet's own bind mount; use a Filesystem volume or a csi one`,
      );
    }
    if (v !== undefined && v.plugin !== 'csi' && a.error === 'uncertain') {
      c.problem(
        [...path, 'error'],
        `volume ${JSON.stringify(a.volume)} is an ${v.plugin} volume, whose SetUp fails with mount-utils' final errors only; uncertain needs a csi volume`,
      );
    }
    return {
      kind: 'setUp',
      node: a.node,
      volume: a.volume,
      times: a.times ?? DEFAULTS.faultTimes,
      error: a.error ?? 'final',
    };
  }
  if (f.detach !== undefined) {
    const a = f.detach;
    const path = [...at, 'detach'];
    c.checkNode([...path, 'node'], a.node);
    c.checkVolume([...path, 'volume'], a.volume);
    const v = c.volumeDecl(a.volume);
    if (v !== undefined && v.plugin !== 'csi') {
      // csi_attacher.go's Detach is the only one with an external attacher behind it; the in-tree iSCSI
      // and FC Detach return nil without doing anything (PR #48940).
      c.problem(
        [...path, 'volume'],
        `volume ${JSON.stringify(a.volume)} is an ${v.plugin} volume, whose in-tree Detach does nothing and cannot fail; a detach fault needs a csi volume`,
      );
    }
    return {
      kind: 'detach',
      node: a.node,
      volume: a.volume,
      stage: a.stage ?? DEFAULTS.detachStage,
      times: a.times ?? DEFAULTS.faultTimes,
    };
  }
  if (f.pvcLookup !== undefined) {
    const a = f.pvcLookup;
    const path = [...at, 'pvcLookup'];
    c.checkNode([...path, 'node'], a.node);
    c.checkVolume([...path, 'volume'], a.volume);
    return {
      kind: 'pvcLookup',
      node: a.node,
      volume: a.volume,
      times: a.times ?? DEFAULTS.faultTimes,
      error: a.error ?? null,
    };
  }
  if (f.stopContainer !== undefined) {
    const a = f.stopContainer;
    const path = [...at, 'stopContainer'];
    const pod = c.checkPod([...path, 'pod'], a.pod);
    const names = pod?.containers ?? [];
    if (pod !== undefined && a.container !== undefined && !names.includes(a.container)) {
      c.problem(
        [...path, 'container'],
        `unknown container ${JSON.stringify(a.container)}${didYouMean(a.container, names)}; pod ${JSON.stringify(a.pod)} has ${listNames(names, names.length)}`,
      );
    }
    // A NotFound answer means the runtime no longer holds the container: written as free text it would
    // leave the container running, which no runtime answers, so only the keyword (which removes it) says it.
    if (a.error !== undefined && a.error !== STOP_CONTAINER_NOT_FOUND && isNotFoundText(a.error)) {
      c.problem(
        [...path, 'error'],
        `a NotFound answer is written \`error: ${STOP_CONTAINER_NOT_FOUND}\`: it removes the container, as NotFound means the runtime no longer holds it (free text leaves it running)`,
      );
    }
    return {
      kind: 'stopContainer',
      pod: a.pod,
      container: a.container ?? null,
      times: a.times ?? DEFAULTS.faultTimes,
      error: a.error ?? null,
    };
  }
  if (f.nodePartition !== undefined) {
    const a = f.nodePartition;
    const path = [...at, 'nodePartition'];
    c.checkNode([...path, 'node'], a.node);
    const ms = durationMs(a.duration);
    if (ms === 0)
      c.problem(
        [...path, 'duration'],
        'expected a duration more than 0s: a partition that lasts 0s cuts nothing off',
      );
    return { kind: 'nodePartition', node: a.node, durationMs: ms };
  }
  return undefined; // the schema has checked that there is one
}

function normaliseMountDeviceFault(
  a: NonNullable<FaultFile['mountDevice']>,
  path: readonly PathSeg[],
  c: Checks,
): Fault {
  c.checkNode([...path, 'node'], a.node);
  c.checkVolume([...path, 'volume'], a.volume);
  if (a.delay === undefined && a.error === undefined) {
    c.problem(path, 'expected a delay, an error or both; without either the fault does nothing');
  }
  const v = c.volumeDecl(a.volume);
  if (v !== undefined && v.plugin !== 'csi' && v.mode === 'Block') {
    // MapVolume's SetUpDevice is "", nil for FC and iSCSI (fc.go, iscsi.go): the login and the path wait
    // are WaitForAttach's, so there is no staging call to slow down or fail.
    c.problem(
      [...path, 'volume'],
      `volume ${JSON.stringify(a.volume)} is an ${v.plugin} Block volume, which has no device staging: FC and iSCSI SetUpDevice does nothing (the login and path wait are WaitForAttach's); use a Filesystem volume or a csi one`,
    );
  }
  if (v !== undefined && v.plugin !== 'csi' && a.error === 'uncertain') {
    // attacher.go MountDevice of FC and iSCSI returns mount-utils' errors, none of them an
    // UncertainProgressError: only CSI's NodeStageVolume (csi_client.go isFinalError) can be uncertain.
    c.problem(
      [...path, 'error'],
      `"uncertain" needs a csi volume: ${v.plugin} MountDevice (FormatAndMount) only fails with final errors; use error: final`,
    );
  }
  return {
    kind: 'mountDevice',
    node: a.node,
    volume: a.volume,
    delayMs: a.delay === undefined ? null : durationMs(a.delay),
    error: a.error ?? null,
    times: a.times ?? DEFAULTS.faultTimes,
  };
}

function uniqueInOrder<T extends string>(
  values: readonly T[],
  order: readonly T[],
  path: readonly PathSeg[],
  what: string,
  problem: (path: readonly PathSeg[], message: string) => void,
): T[] {
  for (const i of repeats(values)) problem([...path, i], `duplicate ${what} ${JSON.stringify(values[i])}`);
  const present = new Set(values);
  return order.filter((v) => present.has(v));
}

function normaliseClaim(
  c: ClaimFile,
  path: readonly PathSeg[],
  problem: (path: readonly PathSeg[], message: string) => void,
  lineOf: (path: readonly PathSeg[]) => number,
): Claim {
  const f = c.fixes;
  const kubelet: KubeletName =
    c.kubelet ??
    (f === 'none' || (typeof f === 'object' && f.on !== undefined && f.off === undefined)
      ? 'legacy'
      : 'fixed');
  const toggles = typeof f === 'object' ? f : {};
  const off = uniqueInOrder(toggles.off ?? [], FIX_IDS, [...path, 'fixes', 'off'], 'fix ID', problem);
  const on = uniqueInOrder(toggles.on ?? [], FIX_IDS, [...path, 'fixes', 'on'], 'fix ID', problem);
  for (const id of off) {
    if (on.includes(id)) problem([...path, 'fixes', 'on'], `${id} is both off and on`);
  }
  const violations: InvariantId[] = uniqueInOrder(
    c.violations,
    INVARIANT_IDS,
    [...path, 'violations'],
    'invariant ID',
    problem,
  );
  violations.forEach((id) => {
    if (isFinding(id)) {
      problem(
        [...path, 'violations', c.violations.indexOf(id)],
        `${id} is a finding, not a violation: list it under findings`,
      );
    }
  });
  const findings =
    c.findings === undefined
      ? null
      : uniqueInOrder(c.findings, INVARIANT_IDS, [...path, 'findings'], 'finding ID', problem);
  if (c.exhaustive === true && violations.length > 0)
    problem(
      [...path, 'exhaustive'],
      'exhaustive: true needs violations: [] (it checks that no schedule fires one)',
    );
  const claim: Claim = { line: lineOf(path), fixes: { kubelet, off, on }, violations, findings };
  return c.exhaustive === true ? Object.assign(claim, { exhaustive: true }) : claim;
}
