// The `podrace fuzz --json` lines of a campaign (docs/fuzzing.md): their types, and how a CampaignReport
// becomes them. `fuzz` prints them, or prints its text from them (printCampaignText in
// src/cli/fuzzCommands.ts); `podrace merge` reads the lines of N shards and builds the lines of the whole
// campaign (merge.ts). One construction and one printer for both, so both print the same bytes. The lines
// are a contract: fields are added at the end, never renamed or removed; key order is as written here.
import { EXIT } from '../exitCodes.js';
import { Fixes, type FixId, isFixId } from '../fixes.js';
import type { InvariantId } from '../invariants/types.js';
import { type ViolationJson, violationToJson } from '../report/json.js';
import { formatTimeline } from '../report/terminalTimeline.js';
import { shellQuote } from '../scenario/fixFlags.js';
import type { StopReason } from '../sim/index.js';
import {
  type CampaignFailure,
  type CampaignReport,
  type CaseOutcome,
  fixFlags,
  type KindStats,
  PODRACE_COMMAND,
  replayCommand,
  type Shard,
} from './campaign.js';
import type { DeterminismCheck } from './determinism.js';
import { exitReason } from './exitReason.js';
import type { ClosedBy } from './oracle.js';
import { rankFinds } from './rank.js';
import { caseName, type FailureKind } from './shrink.js';

/** At most this many lines of a shrunk failure's timeline are shown (the window around the violation). */
export const FAILURE_TIMELINE_LINES = 80;

/** One case in which an invariant fired (or the simulator threw): the `run --json` object plus the case fields. */
export interface CaseLine {
  readonly scenario: string;
  readonly seed: number;
  readonly fixes: Record<FixId, boolean>;
  readonly events: number;
  readonly virtualTimeMs: number;
  readonly wallMs: number;
  readonly violations: readonly ViolationJson[];
  readonly claims: null;
  readonly outcome: StopReason | 'error' | 'nondeterministic';
  readonly type: 'case';
  readonly campaignSeed: number;
  readonly case: number;
  readonly path: string;
  readonly fired: readonly InvariantId[];
  readonly knownOpen: readonly InvariantId[];
  /** The stack, only when the simulator threw. */
  readonly error?: string;
  /** Per invariant that fired, the switches whose flip closes it (the differential oracle), or null. */
  readonly closedBy: ClosedBy | null;
}

/** One shrunk failure: the first failing case of a kind, shrunk, written and re-run from the file. */
export interface FailureLine {
  readonly type: 'failure';
  readonly invariant: FailureKind;
  /** The case shrunk: the case of the kind's best find (src/fuzz/rank.ts). */
  readonly case: number;
  readonly campaignSeed: number;
  readonly path: string;
  readonly file: string;
  /** The switch whose flip closes the minimal case (the file's second claim), or null. */
  readonly closedBy: FixId | null;
  readonly reproduces: boolean;
  readonly shrinkRuns: number;
  readonly minimal: boolean;
  readonly violations: readonly ViolationJson[];
  readonly replay: readonly [string, string];
  /** The minimal run's timeline as the text output shows it (no colour); empty when the simulator threw. */
  readonly timeline: readonly string[];
  /** The stack, only when the simulator threw in the minimal run. */
  readonly error?: string;
}

export interface InvariantSummary {
  readonly cases: number;
  readonly knownOpen: number;
  readonly firstCase: number;
  /** Cases in which some switch's flip closed it (fix-sensitive), and the first of them. */
  readonly fixSensitive: number;
  readonly firstFixSensitiveCase: number | null;
  /** The switches that closed it, with how many cases each. */
  readonly closedBy: Readonly<Partial<Record<FixId, number>>>;
}

/** Always the last line. */
export interface SummaryLine {
  readonly type: 'summary';
  readonly campaignSeed: number;
  readonly runs: number;
  /** `"I/N"`, or null for the whole campaign. */
  readonly shard: string | null;
  readonly fixes: Record<FixId, boolean>;
  /** Cases in this shard. */
  readonly planned: number;
  readonly ran: number;
  /** stoppedBy === 'time-limit' (kept for readers of the first version of these lines). */
  readonly stoppedByTimeLimit: boolean;
  readonly failingCases: number;
  /** Per kind of failure, in order of first appearance (case order). */
  readonly invariants: Readonly<Record<string, InvariantSummary>>;
  readonly files: readonly string[];
  readonly exitCode: number;
  readonly wallMs: number;
  /** The podrace version (package.json) that ran it: a case means what that version generates. */
  readonly version: string;
  /** --shrink and --shrink-runs: which failures are shrunk, and how far. */
  readonly shrink: number;
  readonly shrinkRuns: number;
  /** Cases that hit the event budget before their horizon (failing or not). */
  readonly maxEventsCases: number;
  /** --strict: known-open hazards fail the campaign too. */
  readonly strict: boolean;
  /** What stopped the campaign before every case of the shard ran, or null. */
  readonly stoppedBy: StopCause | null;
  /** `stopped after N of M cases (--time-limit)` when stoppedBy is set, else null: not a complete campaign. */
  readonly stopped: string | null;
  /** The switches --fix changed from the --kubelet preset: their finds rank first (src/fuzz/rank.ts). */
  readonly changedFixes: readonly FixId[];
  /** One line: why the campaign exits with exitCode (src/fuzz/exitReason.ts). */
  readonly exitReason: string;
  /** --check-determinism: how many cases ran twice, what their digests cover, how many differed; or null. */
  readonly determinism: DeterminismCheck | null;
}

/** `stopped after 3 of 500 cases (SIGINT)`: what an interrupted campaign says in its summary and JUnit. */
export function stoppedText(ran: number, planned: number, by: StopCause): string {
  return `stopped after ${ran} of ${planned} cases (${by === 'time-limit' ? '--time-limit' : by}): the rest were not checked`;
}

/** Why a campaign stopped starting cases early. */
export type StopCause = 'time-limit' | 'SIGINT' | 'SIGTERM';

export interface CampaignLines {
  readonly cases: readonly CaseLine[];
  readonly failures: readonly FailureLine[];
  readonly summary: SummaryLine;
}

export { PODRACE_COMMAND, replayCommand } from './campaign.js';

/** `"I/N"`, or null without a shard. */
export function shardLabel(shard: Shard | undefined): string | null {
  return shard === undefined ? null : `${shard.index}/${shard.count}`;
}

/** The fix set of a JSON `fixes` record (unknown IDs are the caller's to reject). */
export function fixesOfRecord(record: Readonly<Record<string, boolean>>): Fixes {
  return new Fixes(Object.keys(record).filter((id) => isFixId(id) && record[id] === true) as FixId[]);
}

export function caseLine(r: CaseOutcome, seed: number, fixes: Fixes): CaseLine {
  return {
    scenario: caseName(seed, String(r.index)),
    seed: r.scenarioSeed,
    fixes: fixes.toRecord(),
    events: r.events,
    virtualTimeMs: r.virtualTimeMs,
    wallMs: r.wallMs,
    violations: r.violations,
    claims: null,
    outcome: r.outcome,
    type: 'case',
    campaignSeed: seed,
    case: r.index,
    path: String(r.index),
    fired: r.fired,
    knownOpen: r.knownOpen,
    ...(r.error === null ? {} : { error: r.error }),
    closedBy: r.closedBy,
  };
}

/** The case a case line describes (what kindStats needs; the line carries all of it). */
export function caseOutcomeOfLine(l: CaseLine): CaseOutcome {
  return {
    index: l.case,
    scenarioSeed: l.seed,
    fired: l.fired,
    knownOpen: l.knownOpen,
    violations: l.violations,
    events: l.events,
    virtualTimeMs: l.virtualTimeMs,
    outcome: l.outcome,
    error: l.error ?? null,
    closedBy: l.closedBy ?? null,
    wallMs: l.wallMs,
  };
}

export function failureLine(f: CampaignFailure, file: string, seed: number, fixes: Fixes): FailureLine {
  return {
    type: 'failure',
    invariant: f.kind,
    case: f.caseIndex,
    campaignSeed: seed,
    path: f.shrink.path,
    file,
    closedBy: f.closedBy,
    reproduces: f.reproduces,
    shrinkRuns: f.shrink.runs,
    minimal: !f.shrink.cutShort,
    violations: f.run.ok ? f.run.result.violations.map(violationToJson) : [],
    replay: [
      [`${PODRACE_COMMAND} run`, shellQuote(file), ...fixFlags(fixes)].join(' '),
      replayCommand(seed, f.shrink.path, fixes),
    ],
    timeline: f.run.ok ? formatTimeline(f.run.result, { color: false, limit: FAILURE_TIMELINE_LINES }) : [],
    ...(f.run.ok ? {} : { error: f.run.error }),
  };
}

export function invariantsRecord(kinds: readonly KindStats[]): Record<string, InvariantSummary> {
  const out: Record<string, InvariantSummary> = {};
  for (const k of kinds) {
    out[k.kind] = {
      cases: k.cases,
      knownOpen: k.knownOpen,
      firstCase: k.firstCase,
      fixSensitive: k.fixSensitive,
      firstFixSensitiveCase: k.firstFixSensitiveCase,
      closedBy: k.closedBy,
    };
  }
  return out;
}

/**
 * 3 if the simulator threw or a written file does not reproduce; else 1 if some case fired an invariant
 * that no known-open upstream hazard explains (with `strict`, any invariant at all), if a case was cut
 * short by its event budget, or if no case ran at all (nothing was checked); else 0, so a CI job can gate
 * on the fixed kubelet while the known-open hazards are listed in its output.
 */
export function campaignExitCode(
  cases: readonly CaseLine[],
  failures: readonly FailureLine[],
  strict: boolean,
  ran: number,
): number {
  if (cases.some((c) => c.error !== undefined) || failures.some((f) => !f.reproduces)) return EXIT.INTERNAL;
  if (ran === 0) return EXIT.VIOLATION;
  const unexplained = cases.some((c) => c.fired.some((id) => strict || !c.knownOpen.includes(id)));
  // A case cut short by the event budget checked nothing after that point: never a pass.
  const cutShort = cases.some((c) => c.outcome === 'max-events');
  return unexplained || cutShort ? EXIT.VIOLATION : EXIT.OK;
}

/** Everything a summary line says, whoever counted it (one run, or merge over shards). */
export interface SummaryFacts {
  readonly seed: number;
  readonly runs: number;
  readonly shard: string | null;
  readonly fixes: Record<FixId, boolean>;
  readonly planned: number;
  readonly ran: number;
  readonly stoppedBy: StopCause | null;
  readonly maxEventsCases: number;
  readonly kinds: readonly KindStats[];
  readonly wallMs: number;
  readonly version: string;
  readonly shrink: number;
  readonly shrinkRuns: number;
  readonly strict: boolean;
  /** The switches --fix changed from the --kubelet preset (changedSwitches). */
  readonly changed: readonly FixId[];
  readonly determinism: DeterminismCheck | null;
}

/** The lines of a campaign from its failing cases and shrunk failures: the one place a summary is built. */
export function linesOf(
  s: SummaryFacts,
  cases: readonly CaseLine[],
  failures: readonly FailureLine[],
): CampaignLines {
  const exitCode = campaignExitCode(cases, failures, s.strict, s.ran);
  const reason = exitReason({
    exitCode,
    ran: s.ran,
    strict: s.strict,
    fixes: fixesOfRecord(s.fixes),
    changed: s.changed,
    cases,
    failures,
    ranked: rankFinds(cases.map(caseOutcomeOfLine), s.changed),
  });
  const summary: SummaryLine = {
    type: 'summary',
    campaignSeed: s.seed,
    runs: s.runs,
    shard: s.shard,
    fixes: s.fixes,
    planned: s.planned,
    ran: s.ran,
    stoppedByTimeLimit: s.stoppedBy === 'time-limit',
    failingCases: cases.length,
    invariants: invariantsRecord(s.kinds),
    files: failures.map((f) => f.file),
    exitCode,
    wallMs: s.wallMs,
    version: s.version,
    shrink: s.shrink,
    shrinkRuns: s.shrinkRuns,
    maxEventsCases: s.maxEventsCases,
    strict: s.strict,
    stoppedBy: s.stoppedBy,
    stopped: s.stoppedBy === null ? null : stoppedText(s.ran, s.planned, s.stoppedBy),
    changedFixes: s.changed,
    exitReason: reason,
    determinism: s.determinism,
  };
  return { cases, failures, summary };
}

/** The lines of one run (`podrace fuzz`, with or without --shard); `files`: where each failure was written. */
export function campaignLines(
  report: CampaignReport,
  o: {
    readonly files: readonly string[];
    readonly wallMs: number;
    readonly version: string;
    readonly shrink: number;
    readonly shrinkRuns: number;
    readonly strict: boolean;
    /** Default: the time limit when the report says it stopped. */
    readonly stoppedBy?: StopCause | null;
  },
): CampaignLines {
  const cases = report.results
    .filter((r) => r.fired.length > 0 || r.error !== null || r.outcome === 'max-events')
    .map((r) => caseLine(r, report.seed, report.fixes));
  const failures = report.failures.map((f, i) =>
    failureLine(f, o.files[i] ?? f.fileName, report.seed, report.fixes),
  );
  return linesOf(
    {
      seed: report.seed,
      runs: report.runs,
      shard: shardLabel(report.shard),
      fixes: report.fixes.toRecord(),
      planned: report.planned,
      ran: report.results.length,
      stoppedBy: o.stoppedBy ?? (report.stopped ? 'time-limit' : null),
      maxEventsCases: report.results.filter((r) => r.outcome === 'max-events').length,
      kinds: report.kinds,
      wallMs: o.wallMs,
      version: o.version,
      shrink: o.shrink,
      shrinkRuns: o.shrinkRuns,
      strict: o.strict,
      changed: report.changed,
      determinism: report.determinism,
    },
    cases,
    failures,
  );
}

/** The lines in print order: failing cases, shrunk failures, the summary. */
export function jsonLines(c: CampaignLines): string[] {
  return [...c.cases, ...c.failures, c.summary].map((l) => JSON.stringify(l));
}
