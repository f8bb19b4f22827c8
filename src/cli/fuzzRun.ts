// The work of `podrace fuzz`, `podrace replay` and `podrace main` (what `npm start` runs). docs/cli.md lists the flags;
// docs/fuzzing.md describes the output and the JSON lines. The campaign itself (src/fuzz/) is pure: this
// file owns the wall clock (--time-limit, progress, wallMs), the terminal and the files.

import { accessSync, constants, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Chalk } from 'chalk';
import { Fixes, type FixId, isFixId } from '../fixes.js';
import {
  type CampaignFailure,
  type CampaignReport,
  runCampaign,
  type Shard,
  shardRange,
} from '../fuzz/campaign.js';
import {
  type CampaignLines,
  campaignLines,
  caseLine,
  caseOutcomeOfLine,
  FAILURE_TIMELINE_LINES,
  type FailureLine,
  fixesOfRecord,
  jsonLines,
  replayCommand,
  type SummaryLine,
} from '../fuzz/campaignJson.js';
import type { JUnitCases } from '../fuzz/campaignJUnit.js';
import { determinismText } from '../fuzz/determinism.js';
import { defaultWorkerCount, MAX_WORKERS } from '../fuzz/pool.js';
import { changedSwitches, type RankedFind, rankFinds } from '../fuzz/rank.js';
import { checkPath, MAX_RUNS, runGuarded, scenarioAt } from '../fuzz/shrink.js';
import { INVARIANT_IDS, type InvariantId } from '../invariants/types.js';
import { resultToJson } from '../report/json.js';
import { formatTimeline, formatViolation } from '../report/terminalTimeline.js';
import { scenarioFiles } from '../scenario/files.js';
import { loadScenarioFile, scenarioToYaml } from '../scenario/load.js';
import type { ArgvOf } from './commands.js';
import { EXIT, InputError } from './errors.js';
import { failureClaimLine, failureCompanions, writeFailureFiles } from './failureFiles.js';
import type { fuzzBuilder, mainBuilder, replayBuilder } from './fuzzCommands.js';
import { durationOption, fixesOption, positiveIntOption, seedOption, shardOption } from './options.js';
import { checkOutputPaths, refuseInputsAsOutputs, writeOutputFile } from './output.js';
import { repoRelative } from './repoPath.js';
import { wantsRunFiles, writeRunFiles } from './runFiles.js';
import { defaultScenariosDir } from './scenarioArgs.js';
import { colorEnabled, progressReporter, wallClockMs } from './terminal.js';
import { formatVerifyTable, verifyScenarios } from './verify.js';
import { podraceVersion } from './version.js';

export type Out = (line: string) => void;
const stdoutLine: Out = (line) => process.stdout.write(`${line}\n`);

function nonNegativeIntOption(value: unknown, flag: string): number {
  const text = String(value);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text))) {
    throw new InputError(`${flag}: expected a whole number (0 or more), got "${text}"`);
  }
  return Number(text);
}

/** --junit-cases all|failing (yargs checked the choice): only with --junit, which it shapes. */
function junitCasesOption(value: unknown, junit: unknown): JUnitCases {
  if (value === undefined) return 'all';
  if (junit === undefined)
    throw new InputError('--junit-cases: only with --junit FILE (it says which cases FILE holds)');
  return value === 'failing' ? 'failing' : 'all';
}

/** --workers: 1 ... MAX_WORKERS (src/fuzz/pool.ts says why). */
function workersOption(value: unknown): number {
  const workers = positiveIntOption(value, '--workers');
  if (workers > MAX_WORKERS) {
    throw new InputError(
      `--workers: at most ${MAX_WORKERS} worker threads, got ${workers} (each loads and warms the simulator afresh: about 40 MB and a second of a core)`,
    );
  }
  return workers;
}

/** --runs: 1 ... MAX_RUNS, so that every case a campaign runs is one `--path` may name. */
function runsOption(value: unknown): number {
  const runs = positiveIntOption(value, '--runs');
  if (runs > MAX_RUNS) throw new InputError(`--runs: at most ${MAX_RUNS} cases, got ${runs}`);
  return runs;
}

function pathOption(value: unknown): string {
  const text = String(value);
  const problem = checkPath(text);
  if (problem !== undefined) throw new InputError(`--path: ${problem}`);
  return text;
}

// ---- replay -------------------------------------------------------------------------------------------

interface ReplayArgs {
  readonly seed: number;
  readonly path: string;
  readonly fixes: Fixes;
  readonly json: boolean;
  readonly save: string | undefined;
  /** Write the run as a Chrome trace / an HTML timeline here. */
  readonly trace?: string | undefined;
  readonly timeline?: string | undefined;
  readonly color: boolean;
}

function replay(a: ReplayArgs, out: Out): number {
  let scenario: ReturnType<typeof scenarioAt>;
  try {
    scenario = scenarioAt(a.seed, a.path);
  } catch (err) {
    // fast-check rejects a path its shrink tree does not have ("Unable to replay, got wrong path").
    throw new InputError(
      `--path: no fuzz case at seed ${a.seed} path ${a.path} (${(err as Error).message.split('\n')[0]})`,
    );
  }
  const outputs = { '--save': a.save, '--trace': a.trace, '--timeline': a.timeline };
  refuseInputsAsOutputs([], outputs);
  checkOutputPaths(outputs);
  if (a.save !== undefined) writeOutputFile(a.save, scenarioToYaml(scenario));
  const start = wallClockMs();
  const run = runGuarded(scenario, a.fixes, !a.json || wantsRunFiles(a));
  const wallMs = Math.round((wallClockMs() - start) * 10) / 10;
  if (!run.ok)
    throw new Error(`the simulator failed on fuzz case --seed ${a.seed} --path ${a.path}:\n${run.error}`);
  const result = run.result;
  let writeError: unknown;
  try {
    writeRunFiles(result, a);
  } catch (err) {
    writeError = err;
  }
  if (a.json) {
    out(JSON.stringify({ ...resultToJson(result, wallMs), campaignSeed: a.seed, path: a.path }));
  } else {
    const c = new Chalk({ level: a.color ? 1 : 0 });
    out(
      `${c.bold(scenario.name)}  fuzz case --seed ${a.seed} --path ${a.path}  seed ${scenario.seed}  fixes ${a.fixes.label()}`,
    );
    for (const line of formatTimeline(result, { color: a.color })) out(line);
    for (const v of result.violations) out(formatViolation(v, a.color));
    const verdict =
      result.violations.length === 0
        ? c.green('no violations')
        : c.red(`${result.violations.length} violation(s)`);
    out(
      `${verdict}  (${result.events} events, ${(result.virtualTimeMs / 1000).toFixed(3)}s virtual, ${wallMs}ms wall, ${result.outcome})`,
    );
    if (a.save !== undefined) out(`wrote ${a.save}`);
  }
  if (writeError !== undefined) throw writeError;
  return result.violations.length === 0 ? EXIT.OK : EXIT.VIOLATION;
}

// ---- fuzz ---------------------------------------------------------------------------------------------

interface FuzzArgs {
  readonly seed: number;
  readonly runs: number;
  readonly fixes: Fixes;
  /** The switches --fix changed from the --kubelet preset: their finds rank first (src/fuzz/rank.ts). */
  readonly changed: readonly FixId[];
  readonly workers: number;
  readonly shard: Shard | undefined;
  readonly out: string;
  readonly timeLimitMs: number | undefined;
  readonly json: boolean;
  readonly shrink: number;
  readonly shrinkRuns: number;
  readonly strict: boolean;
  readonly oracle: boolean;
  /** Also write a JUnit report here, */
  readonly junit: string | undefined;
  /** ... with every case that ran, or only those that failed, errored or met a hazard (--junit-cases). */
  readonly junitCases: JUnitCases;
  readonly checkDeterminism: boolean;
  readonly color: boolean;
}

/** Writes a shrunk failure; a write error is returned, not thrown: the results are printed first. */
function writeFailure(dir: string, f: CampaignFailure): { file: string; error: string | undefined } {
  const file = join(dir, f.fileName);
  try {
    return { file: writeFailureFiles(file, f, podraceVersion()), error: undefined };
  } catch (err) {
    return { file, error: err instanceof Error ? err.message : String(err) };
  }
}

// The text output is printed from the campaign's JSON lines, by `fuzz` and `merge` alike (one printer),
// so a merge of shards prints what one machine prints.

function printFailure(
  f: FailureLine,
  timeline: readonly string[],
  seed: number,
  fixes: Fixes,
  color: boolean,
  out: Out,
): void {
  const c = new Chalk({ level: color ? 1 : 0 });
  const shrunk = f.minimal
    ? `shrunk in ${f.shrinkRuns} runs to a minimal scenario`
    : `shrunk in ${f.shrinkRuns} runs (budget or time limit reached: small, maybe not minimal)`;
  const which =
    f.closedBy === null
      ? `first in case ${f.case}`
      : `fix-sensitive (closed by ${f.closedBy} ${fixes.on(f.closedBy) ? 'off' : 'on'}), first in case ${f.case}`;
  out('');
  out(`${c.red.bold(f.invariant)}: ${which}, ${shrunk}:`);
  if (f.error === undefined) {
    for (const line of timeline) out(`  ${line}`);
  } else {
    out(`  the simulator threw:`);
    for (const line of f.error.split('\n').slice(0, 12)) out(`    ${line}`);
  }
  if (!f.reproduces) {
    out(c.red(`  the written file does NOT reproduce it when loaded again: a podrace bug, please report it`));
  }
  out(`  wrote ${f.file}`);
  if (f.error === undefined) {
    const c = failureCompanions(f.file);
    out(`  and its trace ${c.trace} (Perfetto) and timeline ${c.timeline} (a browser)`);
  }
  out('  replay it with either of:');
  out(`    ${f.replay[0]}`);
  out(`    ${replayCommand(seed, f.path, fixes, 'fuzz')}`);
  out(`  (or print its whole timeline: ${f.replay[1]})`);
}

function printSummary(
  s: SummaryLine,
  ranked: readonly RankedFind[],
  fixes: Fixes,
  color: boolean,
  out: Out,
): void {
  const c = new Chalk({ level: color ? 1 : 0 });
  const shard = s.shard === null ? '' : `, shard ${s.shard}`;
  out(`${c.bold('podrace fuzz')}  seed ${s.campaignSeed}  ${s.runs} cases${shard}  fixes ${fixes.label()}`);
  const failing = s.failingCases;
  const ran = `ran ${s.ran} of ${s.planned} case(s)`;
  if (s.ran === 0) out(c.red(`${ran}: nothing was checked`));
  else out(`${ran}: ${failing === 0 ? c.green('no violations') : c.red(`${failing} with violations`)}`);
  if (s.stoppedBy !== null) {
    const by = s.stoppedBy === 'time-limit' ? '--time-limit' : s.stoppedBy;
    out(c.yellow(`stopped by ${by} before cases ${s.ran} ... ${s.planned - 1} of this shard`));
  }
  if (s.maxEventsCases > 0)
    out(c.yellow(`${s.maxEventsCases} case(s) hit the event budget before the horizon (a livelock?)`));
  if (s.determinism !== null) {
    const line = determinismText(s.determinism);
    out(s.determinism.differed === 0 ? line : c.red(line));
  }
  const kinds = Object.entries(s.invariants);
  if (kinds.length > 0) printInvariantTable(s, kinds, ranked, fixes, c, out);
  if (s.exitCode !== EXIT.OK) out(c.red.bold(s.exitReason));
}

function printInvariantTable(
  s: SummaryLine,
  kinds: readonly [string, SummaryLine['invariants'][string]][],
  ranked: readonly RankedFind[],
  fixes: Fixes,
  c: InstanceType<typeof Chalk>,
  out: Out,
): void {
  // Fix-sensitive finds first: what a switch decides is what the campaign is for.
  // In rank order (src/fuzz/rank.ts): what the switches the user changed close comes first.
  const rank = (kind: string) => ranked.findIndex((f) => f.kind === kind);
  const sensitive = kinds.filter(([, k]) => k.fixSensitive > 0).sort(([a], [b]) => rank(a) - rank(b));
  if (sensitive.length > 0) {
    out(c.bold('fix-sensitive (flipping one switch closes it: +id turned on, -id turned off):'));
    for (const [kind, k] of sensitive) {
      const by = Object.entries(k.closedBy)
        .map(([id, n]) => `${isFixId(id) && fixes.on(id) ? '-' : '+'}${id} (${n})`)
        .join(', ');
      out(`  ${kind}: ${k.fixSensitive} case(s), first ${k.firstFixSensitiveCase}; closed by: ${by}`);
    }
  }
  const width = Math.max(...kinds.map(([kind]) => kind.length), 9);
  out(`  ${'invariant'.padEnd(width)}  cases  first case`);
  for (const [kind, k] of kinds) {
    const known = k.knownOpen > 0 ? `  (${k.knownOpen} explained by a known-open upstream hazard)` : '';
    out(`  ${kind.padEnd(width)}  ${String(k.cases).padStart(5)}  ${k.firstCase}${known}`);
  }
  const unexplained = kinds.some(
    ([kind, k]) => kind !== 'simulator-error' && kind !== 'nondeterminism' && k.cases > k.knownOpen,
  );
  if (!unexplained && !s.strict) {
    out(c.green('every find is a known-open upstream hazard (docs/fuzzing.md); --strict fails on them too'));
  }
  const shrinkable = kinds.filter(([kind]) => kind !== 'nondeterminism').length;
  if (s.files.length < shrinkable) {
    out(
      s.shrink === 0
        ? `--shrink 0: none of the ${shrinkable} invariant(s) was shrunk or written`
        : `shrunk and wrote ${s.files.length} of the ${shrinkable} invariant(s), the best-ranked first (--shrink ${shrinkable} writes them all)`,
    );
  }
}

/**
 * What `fuzz` prints without --json, and `merge`: the summary, each shrunk failure, the first simulator
 * errors. `timelines` replaces the failures' plain timelines (fuzz passes them in colour on a terminal).
 */
export function printCampaignText(
  lines: CampaignLines,
  o: {
    readonly color: boolean;
    readonly timelines?: readonly (readonly string[])[];
    /** The set as the user named it (`--kubelet 1.31`); the lines keep only the switches. */
    readonly fixes?: Fixes;
  },
  out: Out,
): void {
  const s = lines.summary;
  const fixes = o.fixes ?? fixesOfRecord(s.fixes);
  printSummary(s, rankFinds(lines.cases.map(caseOutcomeOfLine), s.changedFixes), fixes, o.color, out);
  lines.failures.forEach((f, i) => {
    printFailure(f, o.timelines?.[i] ?? f.timeline, s.campaignSeed, fixes, o.color, out);
  });
  for (const r of lines.cases.filter((l) => l.error !== undefined).slice(0, 3)) {
    out('');
    const what = r.outcome === 'nondeterministic' ? 'two runs differed' : 'the simulator threw';
    out(`${what} in case ${r.case} (${replayCommand(s.campaignSeed, String(r.case), fixes)}):`);
    for (const line of (r.error ?? '').split('\n').slice(0, 12)) out(`  ${line}`);
  }
  if (s.exitCode === EXIT.INTERNAL)
    out('This is a bug in podrace. Please report it with the replay command above.');
}

async function fuzz(a: FuzzArgs, out: Out): Promise<number> {
  const start = wallClockMs();
  const progress = progressReporter(process.stderr.isTTY === true);
  let failing = 0;
  const planned = shardRange(a.runs, a.shard).size;
  if (a.shrink > 0) checkOutFolder(a.out);
  checkOutputPaths({ '--junit': a.junit });
  const signals = interruptible();
  // Standard error only, and not with --json (whose consumers want stderr quiet): a CI log shows at once
  // what is running; from here a SIGINT / SIGTERM stops with the partial results.
  if (!a.json) {
    process.stderr.write(
      `fuzz: ${planned} case(s), seed ${a.seed}, fixes ${a.fixes.label()}${a.shard === undefined ? '' : `, shard ${a.shard.index}/${a.shard.count}`}\n`,
    );
  }
  const timeUp = (): boolean => a.timeLimitMs !== undefined && wallClockMs() - start >= a.timeLimitMs;
  const report = await runCampaign({
    seed: a.seed,
    runs: a.runs,
    fixes: a.fixes,
    changed: a.changed,
    shard: a.shard,
    workers: a.workers,
    shrink: a.shrink,
    shrinkRuns: a.shrinkRuns,
    oracle: a.oracle,
    checkDeterminism: a.checkDeterminism,
    now: wallClockMs,
    shouldStop: () => signals.received !== null || timeUp(),
    // Room for the signal handlers between chunks and shrink steps.
    yieldToHost: () => new Promise<void>((resolve) => setImmediate(resolve)),
    every: (ms, check) => {
      const timer = setInterval(check, ms);
      return () => clearInterval(timer);
    },
    onChunk: (done, results) => {
      failing += results.filter((r) => r.fired.length > 0 || r.error !== null).length;
      progress.update(`fuzz: ${done}/${planned} cases, ${failing} with violations`);
    },
    onShrink: (kind, index) => progress.update(`fuzz: shrinking case ${index} (${kind}) ...`),
  });
  progress.clear();
  signals.dispose();
  const written = report.failures.map((f) => writeFailure(a.out, f));
  const wallMs = Math.round((wallClockMs() - start) * 10) / 10;
  const lines = campaignLines(report, {
    files: written.map((w) => w.file),
    stoppedBy: signals.received ?? (report.stopped ? 'time-limit' : null),
    wallMs,
    version: podraceVersion(),
    shrink: a.shrink,
    shrinkRuns: a.shrinkRuns,
    strict: a.strict,
  });
  // A report that cannot be written after all (the disk filled up): said after the results, exit 2.
  let junitError: string | undefined;
  if (a.junit !== undefined) {
    const [{ campaignJUnit }, { junitXml }] = await Promise.all([
      import('../fuzz/campaignJUnit.js'),
      import('../report/junit.js'),
    ]);
    const cases = report.results.map((r) => caseLine(r, a.seed, a.fixes));
    const where = (file: string) => {
      const line = failureClaimLine(file);
      return { file: repoRelative(file), ...(line === undefined ? {} : { line }) };
    };
    try {
      writeOutputFile(a.junit, junitXml([campaignJUnit(lines, cases, { cases: a.junitCases, where })]));
    } catch (err) {
      junitError = err instanceof Error ? err.message : String(err);
    }
  }

  if (a.json) {
    for (const line of jsonLines(lines)) out(line);
  } else {
    const timelines = a.color
      ? report.failures.map((f) =>
          f.run.ok ? formatTimeline(f.run.result, { color: true, limit: FAILURE_TIMELINE_LINES }) : [],
        )
      : undefined;
    printCampaignText(
      lines,
      { color: a.color, fixes: a.fixes, ...(timelines === undefined ? {} : { timelines }) },
      out,
    );
    const threads = report.threads === 0 ? 'in-process' : `${report.threads} worker threads`;
    process.stderr.write(
      `fuzz: ${report.results.length} case(s) in ${(wallMs / 1000).toFixed(1)}s wall (${rate(report.results.length, wallMs)} cases/s, ${threads})\n`,
    );
  }
  const unwritten = written.filter((w) => w.error !== undefined);
  for (const w of unwritten) process.stderr.write(`podrace: ${w.error}\n`);
  if (junitError !== undefined) process.stderr.write(`podrace: --junit ${junitError}\n`);
  // 128 + the signal number, as a shell reports a process the signal ended: after the partial results.
  if (signals.received !== null) return signals.received === 'SIGINT' ? 130 : 143;
  return unwritten.length > 0 || junitError !== undefined ? EXIT.USAGE : lines.summary.exitCode;
}

/**
 * SIGINT / SIGTERM during a campaign: the first stops starting cases (and shrinks), so the partial
 * results are printed and the command exits 130 / 143; a second one exits at once.
 */
function interruptible(): { readonly received: 'SIGINT' | 'SIGTERM' | null; dispose(): void } {
  const state: { received: 'SIGINT' | 'SIGTERM' | null } = { received: null };
  const on = (signal: 'SIGINT' | 'SIGTERM') => () => {
    if (state.received !== null) process.exit(state.received === 'SIGINT' ? 130 : 143);
    state.received = signal;
    process.stderr.write(
      `\npodrace: ${signal}: stopping after the cases running now (again to quit at once)\n`,
    );
  };
  const onInt = on('SIGINT');
  const onTerm = on('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  return {
    get received() {
      return state.received;
    },
    dispose() {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
    },
  };
}

/**
 * Before a campaign: `--out` must be a folder podrace can write, or the nearest existing folder above it
 * must be (podrace creates the rest when it writes a failure). A campaign is not run for nothing.
 */
function checkOutFolder(out: string): void {
  let dir = resolve(out);
  for (;;) {
    let st: ReturnType<typeof statSync> | undefined;
    try {
      st = statSync(dir);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // Missing, or a file in the way (ENOTDIR): the folder above says which.
      if (code !== 'ENOENT' && code !== 'ENOTDIR')
        throw new InputError(`--out ${out}: ${code ?? String(err)} at ${dir}`);
    }
    if (st !== undefined) {
      if (!st.isDirectory()) throw new InputError(`--out ${out}: ${dir} is not a folder`);
      try {
        accessSync(dir, constants.W_OK);
      } catch (err) {
        throw new InputError(
          `--out ${out}: cannot write in ${dir} (${(err as NodeJS.ErrnoException).code ?? String(err)})`,
        );
      }
      return;
    }
    const up = dirname(dir);
    if (up === dir) return;
    dir = up;
  }
}

function rate(cases: number, wallMs: number): string {
  return wallMs <= 0 ? '-' : (cases / (wallMs / 1000)).toFixed(1);
}

// ---- main (npm start) ---------------------------------------------------------------------------------

interface MainArgs {
  readonly seed: number;
  readonly runs: number;
  readonly workers: number;
  readonly color: boolean;
}

async function mainJob(a: MainArgs, out: Out): Promise<number> {
  const c = new Chalk({ level: a.color ? 1 : 0 });
  out(c.bold('1. bundled scenarios (podrace verify scenarios/)'));
  const scenarios = scenarioFiles([defaultScenariosDir()]).map((f) => loadScenarioFile(f));
  const rows = verifyScenarios(scenarios);
  for (const line of formatVerifyTable(rows, a.color)) out(line);
  const claimsFailed = rows.filter((r) => !r.claim.pass).length;

  out('');
  out(c.bold(`2. fuzz: ${a.runs} generated cases (seed ${a.seed}) against the legacy and the fixed kubelet`));
  const progress = progressReporter(process.stderr.isTTY === true);
  const campaign = async (label: string, fixes: Fixes) => {
    const start = wallClockMs();
    const rep = await runCampaign({
      seed: a.seed,
      runs: a.runs,
      fixes,
      workers: a.workers,
      shrink: 0,
      now: wallClockMs,
      onChunk: (done) => progress.update(`fuzz ${label}: ${done}/${a.runs} cases`),
    });
    progress.clear();
    process.stderr.write(
      `fuzz ${label}: ${rep.results.length} cases in ${((wallClockMs() - start) / 1000).toFixed(1)}s wall\n`,
    );
    return rep;
  };
  const legacy = await campaign('legacy', Fixes.none());
  const fixed = await campaign('fixed', Fixes.all());

  const count = (rep: CampaignReport, id: InvariantId) =>
    rep.results.filter((r) => r.fired.includes(id)).length;
  const unexplained = (rep: CampaignReport, id: InvariantId) =>
    rep.results.filter((r) => r.fired.includes(id) && !r.knownOpen.includes(id));
  const width = Math.max(...INVARIANT_IDS.map((id) => id.length));
  out(`${'invariant'.padEnd(width)}  legacy  fixed  verdict`);
  let fixedViolations = 0;
  for (const id of INVARIANT_IDS) {
    const l = count(legacy, id);
    const f = count(fixed, id);
    const bad = unexplained(fixed, id);
    let verdict: string;
    if (bad.length > 0) {
      fixedViolations += bad.length;
      const first = bad[0]?.index ?? 0;
      verdict = c.red(
        `VIOLATED with every fix on (first: ${replayCommand(a.seed, String(first), fixed.fixes)})`,
      );
    } else if (f > 0) verdict = c.yellow('fires with every fix on, only as a known-open upstream hazard');
    else if (l > 0) verdict = c.green('reproduces without fixes, prevented with them');
    else verdict = c.dim('not reached by this campaign');
    out(
      `${id.padEnd(width)}  ${`${l}/${legacy.results.length}`.padStart(6)}  ${`${f}/${fixed.results.length}`.padStart(5)}  ${verdict}`,
    );
  }
  const errors = [...legacy.results, ...fixed.results].filter((r) => r.error !== null).length;
  out('');
  const problems: string[] = [];
  if (claimsFailed > 0) problems.push(`${claimsFailed} scenario claim(s) failed`);
  if (fixedViolations > 0)
    problems.push(`${fixedViolations} violation(s) with every fix on that no known-open hazard explains`);
  if (errors > 0) problems.push(`the simulator threw in ${errors} case(s)`);
  out(
    problems.length === 0
      ? c.green('all claims hold; the fixed kubelet violates nothing unexpected')
      : c.red(problems.join('; ')),
  );
  if (errors > 0) return EXIT.INTERNAL;
  return problems.length === 0 ? EXIT.OK : EXIT.VIOLATION;
}

// ---- registration -------------------------------------------------------------------------------------

export async function fuzzCommand(argv: ArgvOf<typeof fuzzBuilder>): Promise<number> {
  const fixes = fixesOption(argv.kubelet, argv.fix);
  const seed = seedOption(argv.seed);
  const color = colorEnabled(argv['color'], process.stdout.isTTY === true, process.env);
  if (argv.path !== undefined) {
    return replay(
      { seed, path: pathOption(argv.path), fixes, json: argv.json, save: undefined, color },
      stdoutLine,
    );
  }
  const runs = runsOption(argv.runs);
  const shard = argv.shard === undefined ? undefined : shardOption(argv.shard, process.env);
  if (shard !== undefined && shardRange(runs, shard).size === 0) {
    throw new InputError(
      `--shard: shard ${shard.index}/${shard.count} of --runs ${runs} has no case (case i is in shard i mod N + 1)`,
    );
  }
  const args: FuzzArgs = {
    seed,
    runs,
    fixes,
    changed: changedSwitches(fixesOption(argv.kubelet, undefined), fixes),
    workers: workersOption(argv.workers),
    shard,
    out: String(argv.out),
    timeLimitMs:
      argv['time-limit'] === undefined ? undefined : durationOption(argv['time-limit'], '--time-limit'),
    json: argv.json,
    shrink: nonNegativeIntOption(argv.shrink, '--shrink'),
    shrinkRuns: positiveIntOption(argv['shrink-runs'], '--shrink-runs'),
    strict: argv.strict,
    oracle: argv.oracle,
    junit: argv.junit,
    junitCases: junitCasesOption(argv['junit-cases'], argv.junit),
    checkDeterminism: argv['check-determinism'],
    color,
  };
  return await fuzz(args, stdoutLine);
}

export function replayCli(argv: ArgvOf<typeof replayBuilder>): number {
  const color = colorEnabled(argv['color'], process.stdout.isTTY === true, process.env);
  return replay(
    {
      seed: seedOption(argv.seed),
      path: pathOption(argv.path),
      fixes: fixesOption(argv.kubelet, argv.fix),
      json: argv.json,
      save: argv.save,
      trace: argv.trace,
      timeline: argv.timeline,
      color,
    },
    stdoutLine,
  );
}

export async function mainCommand(argv: ArgvOf<typeof mainBuilder>): Promise<number> {
  const color = colorEnabled(argv['color'], process.stdout.isTTY === true, process.env);
  const runs = runsOption(argv.runs);
  return await mainJob(
    {
      seed: seedOption(argv.seed),
      runs,
      workers:
        argv.workers === undefined
          ? defaultWorkerCount(runs, availableParallelism())
          : workersOption(argv.workers),
      color,
    },
    stdoutLine,
  );
}
