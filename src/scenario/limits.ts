// Every count and size a scenario file may hold. A hostile or mistaken file (`containers: 4294967296`, a
// 7 MB timeline, /dev/zero) must be refused at once with the limit, not allocated, parsed for minutes or run
// out of memory. The reader (files.ts) checks the file size before reading more; the schema (schema.ts)
// checks every other bound before the loader (load.ts) builds anything proportional to a count. Each bound
// leaves room for what users run, and a file at the bounds loads in about a second: the YAML parser reads
// about 2 MB a second and holds up to 400 bytes of memory per byte of a file, so the file size is the bound
// that decides, and it holds a 20,000-pod scale test (about 75 bytes a createPod entry).
// docs/scenario-format.md ("Limits") lists LIMIT_ROWS; a test keeps the two equal.

const MiB = 1024 * 1024;
const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

import { MAX_START_DELAY_MS } from '../runtime/runtimeRequestTimeout.js';

export const LIMITS = {
  /** Bytes of one scenario file. */
  fileBytes: 2 * MiB,
  /** YAML aliases (`*name`) of one file: resolving each costs time in the size of the document. */
  yamlAliases: 100,
  scenarioNameChars: 100,
  descriptionChars: 10_000,
  upstreamRefs: 100,
  upstreamRefChars: 200,
  nodes: 1_000,
  /** Entries of cluster.volumes. */
  volumes: 20_000,
  timelineEntries: 50_000,
  /** createPod entries of one scenario. */
  pods: 25_000,
  containersPerPod: 100,
  /** Containers of all createPod entries together (`containers: N` counts N). */
  containers: 200_000,
  volumesPerPod: 100,
  /** A fault's `times` and `inconsistentReads`. */
  faultCount: 1_000_000,
  errorChars: 1_000,
  /** Every duration: horizon, at, gracePeriod, startDelay, downFor, delay. */
  durationMs: DAY_MS,
  /**
   * Nodes times horizon. Every node's kubelet heartbeats (node status, lease, PLEG relists that reach
   * the API) whether or not a pod runs there: an idle node-hour costs about 600 events, a few ms. 200
   * node-hours (1,000 nodes for 12m, 8 for a day) run in under 10 s on a loaded 2-core machine; a day on
   * 1,000 nodes would run for minutes, and once more per claim.
   */
  nodeHours: 200,
  claims: 100,
  /** Entries of one claim list: fixes.off, fixes.on, violations, findings. */
  claimListEntries: 100,
  /** Pod, node and volume names (DNS-1123 subdomains, as in Kubernetes). */
  objectNameChars: 253,
  /** Container names (DNS-1123 labels). */
  containerNameChars: 63,
  /** Entries of one `labels` or `nodeSelector` mapping. */
  labels: 64,
} as const;

/** `2 MiB`, `24h`: how a limit reads in messages and in the docs. */
export const FILE_BYTES_TEXT = '2 MiB';
export const DURATION_TEXT = '24h';

export interface LimitRow {
  /** What is bounded, as docs/scenario-format.md names it. */
  readonly what: string;
  /** The bound as the error message prints it after "at most". */
  readonly max: string;
}

/** The "Limits" table of docs/scenario-format.md, row by row. */
export const LIMIT_ROWS: readonly LimitRow[] = [
  { what: 'file size', max: FILE_BYTES_TEXT },
  { what: 'YAML aliases (`*name`)', max: String(LIMITS.yamlAliases) },
  { what: '`name` (characters)', max: String(LIMITS.scenarioNameChars) },
  { what: '`description` (characters)', max: String(LIMITS.descriptionChars) },
  { what: '`upstream` references', max: String(LIMITS.upstreamRefs) },
  { what: 'characters of one `upstream` reference', max: String(LIMITS.upstreamRefChars) },
  { what: '`cluster.nodes`', max: String(LIMITS.nodes) },
  { what: '`cluster.volumes`', max: String(LIMITS.volumes) },
  { what: '`timeline` entries', max: String(LIMITS.timelineEntries) },
  { what: 'pods (`createPod` entries)', max: String(LIMITS.pods) },
  { what: 'containers of one pod', max: String(LIMITS.containersPerPod) },
  { what: 'containers of all pods together', max: String(LIMITS.containers) },
  { what: 'volumes of one pod', max: String(LIMITS.volumesPerPod) },
  { what: "a fault's `times` and `inconsistentReads`", max: String(LIMITS.faultCount) },
  {
    what: '`containerStart.error`, `waitForAttach.error` and `stopContainer.error` (characters)',
    max: String(LIMITS.errorChars),
  },
  { what: 'every duration (`horizon`, `at`, `gracePeriod`, `downFor`, `delay`)', max: DURATION_TEXT },
  { what: 'nodes times horizon (node-hours)', max: String(LIMITS.nodeHours) },
  { what: "a container's `startDelay`", max: `${MAX_START_DELAY_MS / 1000}s` },
  { what: '`claims`', max: String(LIMITS.claims) },
  {
    what: 'entries of one claim list (`fixes.off`, `fixes.on`, `violations`, `findings`)',
    max: String(LIMITS.claimListEntries),
  },
  { what: 'pod, node and volume names (characters)', max: String(LIMITS.objectNameChars) },
  { what: 'container names (characters)', max: String(LIMITS.containerNameChars) },
  { what: 'entries of one `labels` or `nodeSelector` mapping', max: String(LIMITS.labels) },
  {
    what: 'a quantity (`allocatable`, `requests`): its value in milli-units, so that podrace holds it exactly',
    max: `${Number.MAX_SAFE_INTEGER}m`,
  },
];

/** `too many nodes: 1001 (at most 1000)`. */
export function tooMany(what: string, count: number, max: number): string {
  return `too many ${what}: ${count} (at most ${max})`;
}

/**
 * `24h on 1000 nodes is 24000 node-hours (at most 200 ...)`, or undefined within the bound. The product is
 * compared in whole milliseconds, so a horizon exactly at the bound passes. `maxText` formats the longest
 * horizon that would pass on these nodes.
 */
export function nodeHoursProblem(
  nodes: number,
  horizonMs: number,
  horizonText: string,
  maxText: (ms: number) => string,
): string | undefined {
  if (nodes * horizonMs <= LIMITS.nodeHours * HOUR_MS) return undefined;
  const hours = Math.round(((nodes * horizonMs) / HOUR_MS) * 10) / 10;
  const maxHorizonMs = Math.floor((LIMITS.nodeHours * HOUR_MS) / nodes / 1000) * 1000;
  return `${horizonText} on ${nodes} nodes is ${hours} node-hours (at most ${LIMITS.nodeHours}, nodes times horizon: with ${nodes} nodes the horizon may be ${maxText(maxHorizonMs)} at most)`;
}

/** `too long: 300 characters (at most 253)`. */
export function tooLong(count: number, max: number): string {
  return `too long: ${count} characters (at most ${max})`;
}
