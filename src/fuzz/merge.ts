// `podrace merge`: the JSON lines of the shards of one campaign (`podrace fuzz --shard I/N --json`) become
// the lines of the whole campaign: exactly what `podrace fuzz` without --shard prints (wallMs aside). Pure:
// the CLI (src/cli/mergeCommand.ts) reads the files and prints.
//
// Why the shards' lines are the campaign's: a case depends on (seed, index) only, so each failing case's
// line is the same in its shard as in the whole campaign. The campaign's kinds of failure are kindStats over
// the failing cases in case order, recomputed here from the case lines, and rankFinds (src/fuzz/rank.ts)
// with failurePicks chooses which to shrink from which case c: each kind by its best find, the lowest tier
// it reaches and the first case at that tier. c belongs to one shard, whose best find of K is the
// campaign's, and every kind that shard ranks before K the whole campaign ranks before K too (a shard's
// best find of a kind is no better than the campaign's), so K ranks no later there: with the same --shrink
// that shard shrank K from case c, keeping the same switch closed, and shrinking is deterministic (its
// budget is counted in runs), so its failure line is the campaign's.
import * as z from 'zod';
import { FIX_IDS } from '../fixes.js';
import { failurePicks, kindStats, type Shard, shardRange } from './campaign.js';
import {
  type CampaignLines,
  type CaseLine,
  caseOutcomeOfLine,
  type FailureLine,
  invariantsRecord,
  linesOf,
  type SummaryLine,
} from './campaignJson.js';
import { mergeDeterminismChecks } from './determinism.js';
import { rankFinds } from './rank.js';

/** Input that cannot be merged: the CLI prints it and exits 2. */
export class MergeError extends Error {
  override readonly name = 'MergeError';
}

export interface ShardSource {
  /** A file name, or `-` for standard input: how messages name it. */
  readonly name: string;
  readonly text: string;
}

/** One finished run of `podrace fuzz --json`: its lines, up to and including its summary. */
export interface ShardOutput {
  /** `file:first-last`, for messages. */
  readonly where: string;
  readonly shard: Shard;
  readonly lines: CampaignLines;
}

// ---- reading the lines ------------------------------------------------------------------------------------

const violation = z.object({
  invariant: z.string(),
  atMs: z.number(),
  node: z.string().nullable(),
  pod: z.string().nullable(),
  uid: z.string().nullable(),
  volume: z.string().nullable(),
  message: z.string(),
});
const count = z.number().int().nonnegative();
const fixes = z.record(z.string(), z.boolean());

// The lines are validated for what merge reads; they are passed on as read (every field, in their order).
const caseSchema = z.object({
  type: z.literal('case'),
  campaignSeed: count,
  case: count,
  seed: z.number(),
  fixes,
  events: z.number(),
  virtualTimeMs: z.number(),
  wallMs: z.number(),
  violations: z.array(violation),
  outcome: z.string(),
  fired: z.array(z.string()),
  knownOpen: z.array(z.string()),
  error: z.string().optional(),
  closedBy: z.record(z.string(), z.array(z.string())).nullable(),
});
const failureSchema = z.object({
  type: z.literal('failure'),
  invariant: z.string(),
  case: count,
  campaignSeed: count,
  path: z.string(),
  file: z.string(),
  closedBy: z.enum(FIX_IDS).nullable(),
  reproduces: z.boolean(),
  shrinkRuns: count,
  minimal: z.boolean(),
  violations: z.array(violation),
  replay: z.tuple([z.string(), z.string()]),
  timeline: z.array(z.string()),
  error: z.string().optional(),
});
const summarySchema = z.object({
  type: z.literal('summary'),
  campaignSeed: count,
  runs: z.number().int().positive(),
  shard: z
    .string()
    .regex(/^\d+\/\d+$/)
    .nullable(),
  fixes,
  planned: count,
  ran: count,
  stoppedByTimeLimit: z.boolean(),
  failingCases: count,
  invariants: z.record(
    z.string(),
    z.object({
      cases: count,
      knownOpen: count,
      firstCase: count,
      fixSensitive: count,
      firstFixSensitiveCase: count.nullable(),
      closedBy: z.record(z.string(), count),
    }),
  ),
  files: z.array(z.string()),
  exitCode: z.number().int(),
  wallMs: z.number(),
  version: z.string(),
  shrink: count,
  shrinkRuns: count,
  maxEventsCases: count,
  strict: z.boolean(),
  stoppedBy: z.enum(['time-limit', 'SIGINT', 'SIGTERM']).nullable(),
  // Added later: a shard written by an older podrace has no such field.
  stopped: z.string().nullable().optional(),
  changedFixes: z.array(z.enum(FIX_IDS)),
  exitReason: z.string(),
  determinism: z
    .object({
      rerun: count,
      differed: count,
      digest: z.string().regex(/^[0-9a-f]{8}$/),
      compared: z.string(),
    })
    .nullable(),
});

function quote(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 57)}...` : text);
}

function checked<T>(schema: z.ZodType<T>, value: unknown, at: string): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  const field = issue === undefined || issue.path.length === 0 ? '' : `${issue.path.join('.')}: `;
  throw new MergeError(`${at}: ${field}${issue?.message ?? 'not a podrace fuzz --json line'}`);
}

function shardOf(label: string | null): Shard {
  if (label === null) return { index: 1, count: 1 };
  const [index, n] = label.split('/').map(Number);
  return { index: index ?? 0, count: n ?? 0 };
}

/**
 * The finished runs in one file or stream. A run ends with its summary line, so outputs concatenated in
 * one stream (`kubectl logs -l job-name=...`) split apart; `notes` says what was skipped.
 */
export function parseShardOutputs(src: ShardSource): { outputs: ShardOutput[]; notes: string[] } {
  const outputs: ShardOutput[] = [];
  const notes: string[] = [];
  let cases: CaseLine[] = [];
  let failures: FailureLine[] = [];
  let first = 0;
  const text = src.text.split('\n');
  text.forEach((raw, i) => {
    const line = raw.trim();
    const at = `${src.name}:${i + 1}`;
    if (line === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      value = undefined;
    }
    const type = typeof value === 'object' && value !== null ? (value as { type?: unknown }).type : undefined;
    if (type !== 'case' && type !== 'failure' && type !== 'summary')
      throw new MergeError(`${at}: not a line of podrace fuzz --json: ${quote(line)}`);
    if (first === 0) first = i + 1;
    const runTogether = `${at}: two outputs run together (the first one cut short?)`;
    if (type === 'case') {
      const c = checked(caseSchema, value, at);
      const last = cases[cases.length - 1];
      if (failures.length > 0 || (last !== undefined && last.case >= c.case))
        throw new MergeError(runTogether);
      cases.push(value as CaseLine);
    } else if (type === 'failure') {
      checked(failureSchema, value, at);
      failures.push(value as FailureLine);
    } else {
      if (typeof value === 'object' && value !== null && !('version' in value))
        throw new MergeError(
          `${at}: this summary has no "version": it was written by a podrace older than merge; rerun the shard with this one`,
        );
      const s = checked(summarySchema, value, at);
      if (s.failingCases !== cases.length || s.files.join('\n') !== failures.map((f) => f.file).join('\n'))
        throw new MergeError(
          `${at}: the summary counts ${s.failingCases} failing case(s) and ${s.files.length} failure(s), but ${cases.length} and ${failures.length} precede it: not one whole run (cut short, or two run together)`,
        );
      outputs.push({
        where: `${src.name}:${first}-${i + 1}`,
        shard: shardOf(s.shard),
        lines: { cases, failures, summary: value as SummaryLine },
      });
      cases = [];
      failures = [];
      first = 0;
    }
  });
  if (first !== 0)
    throw new MergeError(
      `${src.name}:${first}: ${cases.length + failures.length} line(s) with no summary after them: this output was cut short (a killed pod?); give the output of the run that finished`,
    );
  if (outputs.length === 0) notes.push(`${src.name}: no output (a run killed before it printed?)`);
  return { outputs, notes };
}

// ---- checking that the shards make one campaign -----------------------------------------------------------

/** `value (where, where), value (where)` when the shards disagree on `key`; null when they agree. */
function disagreement(outputs: readonly ShardOutput[], key: (o: ShardOutput) => string): string | null {
  const groups = new Map<string, string[]>();
  for (const o of outputs) groups.set(key(o), [...(groups.get(key(o)) ?? []), o.where]);
  if (groups.size <= 1) return null;
  return [...groups.entries()].map(([value, where]) => `${value} (${where.join(', ')})`).join(', ');
}

function fixesKey(record: Readonly<Record<string, boolean>>): string {
  const on = Object.keys(record)
    .filter((id) => record[id] === true)
    .sort();
  return on.length === 0 ? 'none' : on.join(',');
}

function checkOneCampaign(outputs: readonly ShardOutput[], version: string): void {
  const problems: string[] = [];
  const fields: [string, (o: ShardOutput) => string][] = [
    ['podrace version', (o) => o.lines.summary.version],
    ['campaign seed (--seed)', (o) => String(o.lines.summary.campaignSeed)],
    ['campaign size (--runs)', (o) => String(o.lines.summary.runs)],
    ['fix set (--kubelet/--fix; fixes on)', (o) => fixesKey(o.lines.summary.fixes)],
    ['shard count (--shard I/N)', (o) => String(o.shard.count)],
    ['--shrink', (o) => String(o.lines.summary.shrink)],
    ['--shrink-runs', (o) => String(o.lines.summary.shrinkRuns)],
    ['--strict', (o) => String(o.lines.summary.strict)],
    [
      'switches --fix changed from the --kubelet preset',
      (o) => o.lines.summary.changedFixes.join(',') || 'none',
    ],
    ['--check-determinism', (o) => String(o.lines.summary.determinism !== null)],
  ];
  for (const [name, key] of fields) {
    const d = disagreement(outputs, key);
    if (d !== null) problems.push(`the shards differ in ${name}: ${d}`);
  }
  if (problems.length > 0) throw new MergeError(`not one campaign:\n  ${problems.join('\n  ')}`);
  const theirs = outputs[0]?.lines.summary.version ?? version;
  if (theirs !== version)
    throw new MergeError(
      `the shards were written by podrace ${theirs}, this is podrace ${version}: merge them with the version that ran them`,
    );
  const unknown = Object.keys(outputs[0]?.lines.summary.fixes ?? {}).filter(
    (id) => !(FIX_IDS as readonly string[]).includes(id),
  );
  if (unknown.length > 0) throw new MergeError(`unknown fix IDs in the shards: ${unknown.join(', ')}`);
  const stopped = outputs.filter((o) => o.lines.summary.stoppedBy !== null);
  if (stopped.length > 0)
    throw new MergeError(
      `stopped by --time-limit or a signal, so not every case ran: ${stopped.map((o) => `shard ${o.shard.index}/${o.shard.count} (${o.where}: ${o.lines.summary.stoppedBy}, ran ${o.lines.summary.ran} of ${o.lines.summary.planned})`).join(', ')}; rerun those shards without --time-limit`,
    );
}

function checkCoverage(outputs: readonly ShardOutput[]): void {
  const n = outputs[0]?.shard.count ?? 0;
  const byIndex = new Map<number, ShardOutput[]>();
  for (const o of outputs) byIndex.set(o.shard.index, [...(byIndex.get(o.shard.index) ?? []), o]);
  const problems: string[] = [];
  const missing = Array.from({ length: n }, (_, i) => i + 1).filter((i) => !byIndex.has(i));
  if (missing.length > 0)
    problems.push(
      `missing shard(s) ${missing.map((i) => `${i}/${n} (JOB_COMPLETION_INDEX ${i - 1})`).join(', ')}`,
    );
  for (const [index, list] of [...byIndex.entries()].sort((a, b) => a[0] - b[0]))
    if (list.length > 1)
      problems.push(`shard ${index}/${n} given ${list.length} times: ${list.map((o) => o.where).join(', ')}`);
  if (problems.length > 0)
    throw new MergeError(`the shards do not make the whole campaign:\n  ${problems.join('\n  ')}`);
}

/** What a run of that shard prints: every case its own, and a summary that adds up. */
function checkShard(o: ShardOutput): void {
  const s = o.lines.summary;
  const planned = shardRange(s.runs, o.shard).size;
  if (s.planned !== planned || s.ran !== planned)
    throw new MergeError(
      `${o.where}: shard ${o.shard.index}/${o.shard.count} of ${s.runs} cases has ${planned} cases, but its summary says ${s.ran} of ${s.planned} ran`,
    );
  for (const c of [...o.lines.cases, ...o.lines.failures]) {
    if (c.case >= s.runs || c.case % o.shard.count !== o.shard.index - 1 || c.campaignSeed !== s.campaignSeed)
      throw new MergeError(
        `${o.where}: a ${c.type} line of case ${c.case} (seed ${c.campaignSeed}) does not belong to shard ${o.shard.index}/${o.shard.count} of seed ${s.campaignSeed}`,
      );
  }
  const counted = invariantsRecord(kindStats(o.lines.cases.map(caseOutcomeOfLine)));
  if (JSON.stringify(counted) !== JSON.stringify(s.invariants))
    throw new MergeError(`${o.where}: the summary's invariant table does not match its case lines`);
}

// ---- merging ----------------------------------------------------------------------------------------------

/**
 * The lines of the whole campaign from the outputs of all its shards, each once. `version` is this
 * podrace's: a case means what its own generator makes of the seed, so the shards must be of it too.
 */
export function mergeShards(outputs: readonly ShardOutput[], o: { readonly version: string }): CampaignLines {
  if (outputs.length === 0) throw new MergeError('no shard output to merge');
  checkOneCampaign(outputs, o.version);
  checkCoverage(outputs);
  for (const out of outputs) checkShard(out);

  const shards = [...outputs].sort((a, b) => a.shard.index - b.shard.index);
  const n = shards.length;
  const first = shards[0]?.lines.summary as SummaryLine;
  const cases = shards.flatMap((s) => s.lines.cases).sort((a, b) => a.case - b.case);
  const outcomes = cases.map(caseOutcomeOfLine);
  const kinds = kindStats(outcomes);
  const failures = failurePicks(rankFinds(outcomes, first.changedFixes), first.shrink).map((k) => {
    const owner = shards[k.caseIndex % n];
    const f = owner?.lines.failures.find((x) => x.invariant === k.kind && x.case === k.caseIndex);
    if (owner === undefined || f === undefined)
      throw new MergeError(
        `${owner?.where ?? 'a shard'}: no failure line for ${k.kind} at case ${k.caseIndex}, the case the campaign shrinks (were its failures cut from the output?)`,
      );
    return f;
  });
  const sum = (get: (s: SummaryLine) => number) => shards.reduce((t, s) => t + get(s.lines.summary), 0);
  return linesOf(
    {
      seed: first.campaignSeed,
      runs: first.runs,
      shard: null,
      fixes: first.fixes,
      planned: first.runs,
      ran: sum((s) => s.ran),
      stoppedBy: null,
      maxEventsCases: sum((s) => s.maxEventsCases),
      kinds,
      // The shards' wall times added up: what one machine with one worker would have spent, roughly.
      wallMs: Math.round(sum((s) => s.wallMs) * 10) / 10,
      version: first.version,
      shrink: first.shrink,
      shrinkRuns: first.shrinkRuns,
      strict: first.strict,
      changed: first.changedFixes,
      determinism:
        first.determinism === null
          ? null
          : mergeDeterminismChecks(shards.map((s) => s.lines.summary.determinism).filter((d) => d !== null)),
    },
    cases,
    failures,
  );
}
