// `podrace verify`: every claim of every scenario checked, the table or JSON lines, the exit code. A file
// that does not load is reported where it stands and the others still run (exit 2 at the end); a
// scenario without claims is run with every fix on and reported as such, never as "0 claims, all hold".
import { Chalk } from 'chalk';
import { Fixes } from '../fixes.js';
import type { InvariantId } from '../invariants/types.js';
import {
  type ClaimResult,
  checkClaim,
  claimLabel,
  firedInvariants,
  incompleteLine,
  type RunResult,
  recordedFindings,
  runScenario,
} from '../run/run.js';
import { loadScenarioFile } from '../scenario/load.js';
import type { Scenario } from '../scenario/types.js';
import { EXIT, InputError } from './errors.js';
import { type ExhaustiveCheck, exhaustiveDetail } from './verifyExhaustive.js';

/** One checked claim. */
export interface VerifyRow {
  readonly scenario: Scenario;
  readonly claim: ClaimResult;
  /** With --exhaustive, for a `violations: []` claim: what exploring its schedules found. */
  readonly exhaustive?: ExhaustiveCheck;
}

/** A scenario without claims: run once with every fix on, nothing to check. */
export interface NoClaimsRow {
  readonly scenario: Scenario;
  readonly noClaims: {
    readonly violations: readonly InvariantId[];
    readonly findings: readonly InvariantId[];
  };
}

/** A file (or argument) that did not load. */
export interface InvalidRow {
  readonly file: string;
  readonly message: string;
}

export type VerifyEntry = VerifyRow | NoClaimsRow | InvalidRow;

const isClaim = (e: VerifyEntry): e is VerifyRow => 'claim' in e;
const isNoClaims = (e: VerifyEntry): e is NoClaimsRow => 'noClaims' in e;
const isInvalid = (e: VerifyEntry): e is InvalidRow => 'message' in e;

export function verifyScenarios(scenarios: readonly Scenario[], maxEvents?: number): VerifyRow[] {
  const rows: VerifyRow[] = [];
  for (const scenario of scenarios) {
    // Claims whose fix sets differ only in switches an earlier claim's run never read share that run.
    const runs: RunResult[] = [];
    for (const claim of scenario.claims) {
      const checked = checkClaim(scenario, claim, maxEvents, runs);
      if (checked.result.sharedWith === undefined) runs.push(checked.result);
      rows.push({ scenario, claim: checked });
    }
  }
  return rows;
}

function runWithoutClaims(scenario: Scenario, maxEvents: number | undefined): NoClaimsRow {
  const result = runScenario(scenario, { fixes: Fixes.all(), maxEvents });
  return {
    scenario,
    noClaims: { violations: firedInvariants(result), findings: recordedFindings(result) },
  };
}

/**
 * Loads and checks each file in order. `invalid`: arguments that named nothing (reported first). Two
 * scenarios with one name: the second is invalid (claims are reported by name).
 */
export function verifyFiles(
  files: readonly string[],
  invalid: readonly InvalidRow[] = [],
  maxEvents?: number,
): VerifyEntry[] {
  const entries: VerifyEntry[] = [...invalid];
  const seen = new Map<string, string>();
  for (const file of files) {
    let scenario: Scenario;
    try {
      scenario = loadScenarioFile(file);
    } catch (err) {
      if (!(err instanceof InputError)) throw err;
      entries.push({ file, message: err.message });
      continue;
    }
    const other = seen.get(scenario.name);
    if (other !== undefined) {
      entries.push({ file, message: `${file}: name: "${scenario.name}" is already used by ${other}` });
      continue;
    }
    seen.set(scenario.name, file);
    if (scenario.claims.length === 0) entries.push(runWithoutClaims(scenario, maxEvents));
    else entries.push(...verifyScenarios([scenario], maxEvents));
  }
  return entries;
}

export interface VerifySummary {
  readonly type: 'summary';
  readonly claims: number;
  /** The runs those claims took: claims that differ only in switches a run never read share it. */
  readonly runs: number;
  readonly passed: number;
  readonly failed: number;
  readonly invalid: number;
  readonly noClaims: number;
  readonly exitCode: number;
}

/** Exit 2 when a file did not load (whatever the claims did), else 1 when a claim failed, else 0. */
export function verifySummary(entries: readonly VerifyEntry[]): VerifySummary {
  const claims = entries.filter(isClaim);
  const failed = claims.filter((r) => !r.claim.pass).length;
  const invalid = entries.filter(isInvalid).length;
  return {
    type: 'summary',
    claims: claims.length,
    runs: claims.filter((r) => r.claim.result.sharedWith === undefined).length,
    passed: claims.length - failed,
    failed,
    invalid,
    noClaims: entries.filter(isNoClaims).length,
    exitCode: invalid > 0 ? EXIT.USAGE : failed > 0 ? EXIT.VIOLATION : EXIT.OK,
  };
}

const ids = (list: readonly string[]): string => `[${list.join(', ')}]`;

/** `verify --json`: one line per claim, per scenario without claims and per invalid file, then the summary. */
export function verifyJsonLines(entries: readonly VerifyEntry[]): string[] {
  const lines = entries.map((e) => {
    if (isClaim(e))
      return {
        type: 'claim',
        scenario: e.scenario.name,
        file: e.scenario.file,
        line: e.claim.claim.line,
        claim: claimLabel(e.claim.claim),
        expected: e.claim.expected,
        actual: e.claim.actual,
        expectedFindings: e.claim.expectedFindings,
        findings: e.claim.actualFindings,
        pass: e.claim.pass,
        complete: e.claim.result.complete,
        ...(e.exhaustive === undefined ? {} : { exhaustive: e.exhaustive }),
      };
    if (isNoClaims(e))
      return {
        type: 'no-claims',
        scenario: e.scenario.name,
        file: e.scenario.file,
        fixes: 'all',
        actual: e.noClaims.violations,
        findings: e.noClaims.findings,
      };
    return { type: 'invalid', file: e.file, message: e.message };
  });
  return [...lines, verifySummary(entries)].map((l) => JSON.stringify(l));
}

export function formatVerifyTable(entries: readonly VerifyEntry[], color: boolean): string[] {
  const c = new Chalk({ level: color ? 1 : 0 });
  const lines: string[] = [];
  const first = (e: VerifyEntry) => (isInvalid(e) ? e.file : e.scenario.name);
  const nameWidth = Math.max(8, ...entries.map((e) => first(e).length));
  const claimWidth = Math.max(5, ...entries.filter(isClaim).map((r) => claimLabel(r.claim.claim).length));
  lines.push(`${'scenario'.padEnd(nameWidth)}  ${'claim'.padEnd(claimWidth)}  result`);
  const findings = (list: readonly string[] | null) =>
    list === null || list.length === 0 ? '' : ` findings ${ids(list)}`;
  for (const e of entries) {
    const lead = `${first(e).padEnd(nameWidth)}  `;
    if (isInvalid(e)) {
      const [head = '', ...rest] = e.message.split('\n');
      lines.push(`${lead}${'-'.padEnd(claimWidth)}  ${c.red('INVALID')}  ${head}`);
      for (const line of rest) lines.push(`${''.padEnd(nameWidth + claimWidth + 4)}  ${line}`);
      continue;
    }
    if (isNoClaims(e)) {
      const ran = `ran with every fix on: ${ids(e.noClaims.violations)}${findings(e.noClaims.findings)}`;
      lines.push(`${lead}${'-'.padEnd(claimWidth)}  ${c.yellow('no claims')}  ${ran}`);
      continue;
    }
    const r = e.claim;
    const verdict = r.pass ? c.green('pass') : c.red('FAIL');
    let detail = `${ids(r.actual)}${findings(r.expectedFindings === null ? null : r.actualFindings)}`;
    if (!r.result.complete) detail = `${incompleteLine(r.result)}  (${e.scenario.file}:${r.claim.line})`;
    else if (e.exhaustive !== undefined)
      detail = `${detail}  ${exhaustiveDetail(e.exhaustive)}${r.pass ? '' : `  (${e.scenario.file}:${r.claim.line})`}`;
    else if (!r.pass)
      detail = `expected ${ids(r.expected)}${findings(r.expectedFindings)}, got ${ids(r.actual)}${findings(r.actualFindings)}  (${e.scenario.file}:${r.claim.line})`;
    lines.push(`${lead}${claimLabel(r.claim).padEnd(claimWidth)}  ${verdict}  ${detail}`);
  }
  lines.push(summaryLine(verifySummary(entries), c));
  return lines;
}

function summaryLine(s: VerifySummary, c: InstanceType<typeof Chalk>): string {
  const parts: string[] = [];
  if (s.claims === 0) parts.push('no claims checked');
  else if (s.failed === 0) parts.push(c.green(`${s.claims} claims, all hold`));
  else parts.push(c.red(`${s.failed} of ${s.claims} claims failed`));
  if (s.runs < s.claims)
    parts.push(`${s.runs} runs (claims that differ only in switches a run never read share it)`);
  if (s.noClaims > 0)
    parts.push(c.yellow(`${s.noClaims} scenario(s) without claims (run, nothing to check)`));
  if (s.invalid > 0) parts.push(c.red(`${s.invalid} file(s) did not load (exit 2)`));
  return parts.join('; ');
}
