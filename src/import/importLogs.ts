// `podrace import`'s work below the CLI: log bytes in, a scenario and its file text out (docs/import.md).
// The scenario is checked by loading its text with the normal loader; a timeline the loader refuses is
// reported at the log line that made the entry. Pure: no file is read or written here.
import type { ReleasePreset } from '../fixes.js';
import { InputError } from '../scenario/errors.js';
import { parseScenarioText } from '../scenario/load.js';
import type { Claim, Scenario } from '../scenario/types.js';
import { scenarioToYaml } from '../scenario/write.js';
import { assert } from '../sim/assert.js';
import {
  durationText,
  IDLE_GAP_KEPT_MS,
  MAX_HORIZON_MS,
  MIN_HORIZON_MS,
  QUIET_AFTER_MS,
} from './idleGaps.js';
import { type Inferred, inferScenario } from './infer.js';
import { decodeLogFile, LogDecodeError, type LogRecord, mergeByTime, readLogText } from './logLines.js';

export interface LogInput {
  readonly name: string;
  readonly bytes: Uint8Array;
}

export interface UnusedLine {
  readonly file: string;
  readonly line: number;
  readonly text: string;
}

export interface Imported {
  /** Loaded back from `yaml` by the normal loader (without claims). */
  readonly scenario: Scenario;
  readonly inferred: Inferred;
  /** The release the log's kubelet version names; null when it names none. */
  readonly release: ReleasePreset | null;
  /** Messages read (after joining wrapped lines), and how many of them became part of the scenario. */
  readonly messages: number;
  readonly used: number;
  /** Messages and lines podrace did not read, in input order. */
  readonly unused: readonly UnusedLine[];
  /** Gzip files whose stream ends early (cut short on their way): what they hold was read. */
  readonly cutShort: readonly string[];
  /** The file text, with claims (given to importedYaml) left out. */
  readonly yaml: string;
}

/** `kubelet.log:12,14-15; kcm.log:3`: where records came from. */
export function sourceText(records: readonly LogRecord[]): string {
  const byFile = new Map<string, number[]>();
  for (const r of records) byFile.set(r.file, [...(byFile.get(r.file) ?? []), ...r.lines]);
  return [...byFile]
    .map(([file, lines]) => {
      const sorted = [...new Set(lines)].sort((a, b) => a - b);
      const ranges: string[] = [];
      for (let i = 0; i < sorted.length; ) {
        let j = i;
        while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
        ranges.push(i === j ? String(sorted[i]) : `${sorted[i]}-${sorted[j]}`);
        i = j + 1;
      }
      return `${file}:${ranges.join(',')}`;
    })
    .join('; ');
}

/** A scenario name from a file name: letters, digits, `.`, `_`, `-`, at most 100. */
export function scenarioNameOf(file: string): string {
  const base = file
    .replace(/^.*\//, '')
    .replace(/\.(gz|log|txt|ya?ml)$/g, '')
    .replace(/\.(log|txt)$/, '');
  const s = base.replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, 100);
  return s === '' ? 'imported' : s;
}

export function importLogs(inputs: readonly LogInput[], options: { readonly name: string }): Imported {
  const decoded = inputs.map((f) => decodedText(f));
  const cutShort = inputs.filter((_, i) => decoded[i]?.cutShort === true).map((f) => f.name);
  const perFile = inputs.map((f, i) => readLogText(f.name, decoded[i]?.text ?? ''));
  const records = mergeByTime(perFile.map((p) => p.records));
  if (records.length === 0)
    throw new InputError(
      `${inputs.map((f) => f.name).join(', ')}: no kubelet or kube-controller-manager line (no klog, JSON or journald header)`,
      { located: true },
    );
  const inferred = inferScenario(records);
  const horizonMs = Math.max(MIN_HORIZON_MS, Math.ceil((inferred.lastAtMs + QUIET_AFTER_MS) / 1000) * 1000);
  // inferScenario cut a longer log to fit (idleGaps.ts): the quiet time after its end is the one it left.
  assert(horizonMs <= MAX_HORIZON_MS, 'an imported scenario fits in a day');
  const volumes = inferred.volumes.decls();
  const scenario: Scenario = {
    file: '',
    name: options.name,
    description: `Imported by podrace import from ${inputs.map((f) => f.name.replace(/^.*\//, '')).join(', ')}.`,
    upstream: [],
    seed: 1,
    horizonMs,
    nodes: inferred.nodes.length > 0 ? inferred.nodes : ['node-a'],
    ...(Object.keys(inferred.nodeShutdown).length > 0
      ? {
          nodeShutdown: Object.fromEntries(
            Object.entries(inferred.nodeShutdown).map(([n, c]) => [
              n,
              { shutdownGracePeriodS: c.periodS, shutdownGracePeriodCriticalPodsS: c.criticalS },
            ]),
          ),
        }
      : {}),
    volumes: volumes.map((v) => v.decl),
    timeline: inferred.entries.map((e) => ({ atMs: e.atMs, line: 0, action: e.build() })),
    claims: [],
  };
  const unused: UnusedLine[] = [
    ...perFile.flatMap((p, i) =>
      p.skipped.map((line) => ({ file: inputs[i]!.name, line, text: '(no header)' })),
    ),
    ...inferred.unused.map((r) => ({ file: r.file, line: r.lines[0]!, text: r.text })),
  ];
  const base = {
    inferred,
    release: inferred.release?.value ?? null,
    messages: records.length,
    used: inferred.used,
    cutShort,
  };
  const yaml = importedYaml({ ...base, scenario, unused }, []);
  const loaded = loadOrBlame(yaml, `${options.name}.yaml`, inferred);
  return { ...base, scenario: loaded, unused, yaml };
}

/** A log file's text; a gzip file that does not unpack is one located error naming the file. */
function decodedText(f: LogInput): { readonly text: string; readonly cutShort: boolean } {
  try {
    return decodeLogFile(f.bytes);
  } catch (err) {
    if (err instanceof LogDecodeError) throw new InputError(`${f.name}: ${err.message}`, { located: true });
    throw err;
  }
}

/** Loads the written text with the normal loader; an error names the log line of the entry it is about. */
function loadOrBlame(yaml: string, file: string, inferred: Inferred): Scenario {
  try {
    return parseScenarioText(yaml, file);
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    const first = err.message.split('\n')[0] ?? err.message;
    const index = /timeline\[(\d+)\]/.exec(first)?.[1];
    const entry = index === undefined ? undefined : inferred.entries[Number(index)];
    const what = first.replace(/^\S+:\d+:\d+: /, '');
    if (entry === undefined)
      throw new InputError(`podrace import: the imported scenario does not load: ${what}`);
    const src = entry.sources[0]!;
    throw new InputError(`${src.file}:${src.lines[0]}: these events form no valid timeline: ${what}`, {
      located: true,
    });
  }
}

/** The scenario file: the scenario, `claims`, and comments saying where each entry came from. */
export function importedYaml(
  imported: Pick<Imported, 'scenario' | 'inferred' | 'messages' | 'used' | 'unused' | 'cutShort'>,
  claims: readonly Claim[],
): string {
  const { inferred } = imported;
  const header = [
    `Imported by \`podrace import\`: ${imported.used} of ${imported.messages} messages read, ${imported.unused.length} not.`,
    'Each entry says the log lines it comes from; `guess:` marks what the log does not say.',
  ];
  if (inferred.release !== null && inferred.releaseSource !== null)
    header.push(
      `kubelet release ${inferred.release.value} (${sourceText([inferred.releaseSource])})${inferred.release.guess === null ? '' : `; guess: ${inferred.release.guess}`}`,
    );
  for (const name of imported.cutShort)
    header.push(`${name} is a gzip stream cut short: what it holds was read, its last line maybe in part.`);
  if (inferred.cuts.length > 0) {
    const removed = inferred.cuts.reduce((sum, c) => sum + c.removedMs, 0);
    header.push(
      `The log is longer than a scenario may run (a day): ${inferred.cuts.length} stretch(es) with nothing to replay, longer than ${durationText(IDLE_GAP_KEPT_MS)}, were cut to ${durationText(IDLE_GAP_KEPT_MS)} (${durationText(removed)} in all); times after a cut are earlier than the log's.`,
    );
  }
  const beyond = inferred.beyond[0]?.sources[0];
  if (beyond !== undefined)
    header.push(
      `${inferred.beyond.length} entr${inferred.beyond.length === 1 ? 'y' : 'ies'} past the first day, from ${sourceText([beyond])} on, left out: import that part of the log on its own.`,
    );
  if (inferred.firstAtMs > 0)
    header.push(
      `The first log line is at ${inferred.firstAtMs / 1000}s: pods seen running before it start at 0s.`,
    );
  const shown = inferred.observed.slice(0, 20);
  if (shown.length > 0) header.push('Read, no entry of its own:');
  for (const o of shown) header.push(`  ${sourceText([o.record])}: ${o.note}`);
  if (inferred.observed.length > shown.length)
    header.push(`  ... and ${inferred.observed.length - shown.length} more`);
  const volumes = inferred.volumes.decls();
  return scenarioToYaml(
    { ...imported.scenario, claims },
    {
      comments: {
        header: header.join('\n'),
        volumes: volumes.map((v) =>
          [`from ${sourceText(v.sources.slice(0, 6))}`, ...v.guesses.map((g) => `guess: ${g}`)].join('\n'),
        ),
        timeline: inferred.entries.map((e) => [`from ${sourceText(e.sources)}`, ...e.notes].join('\n')),
      },
    },
  );
}
