// The suite's report: one record per mutant, the rates, the table people read, and the hash of the
// source it was measured on (src/ and the catalogue), so that `npm run bench` can reuse a report of the
// current source instead of running the suite again.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Mutant } from './catalogue.js';
import { type HazardShift, type Outcome, type Rates, type Reach, rates } from './classify.js';
import { areaOf } from './rules.js';
import type { BaselineResult, Budget, MutantResult } from './run.js';

/** The catalogue's file, repository-relative: part of the source hash. */
export const CATALOGUE_FILE = 'test/mutation/catalogue.ts';
/** The report, repository-relative. */
export const REPORT_FILE = '.mutation/report.json';

/** sha256 over every file under src/ (path and bytes, in path order) and the catalogue. */
export function sourceHash(root: string): string {
  const h = createHash('sha256');
  const files = readdirSync(join(root, 'src'), { recursive: true })
    .map(String)
    .map((f) => join('src', f).replaceAll('\\', '/'))
    .sort();
  for (const f of [...files, CATALOGUE_FILE]) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(join(root, f));
    } catch {
      continue; // a folder
    }
    h.update(`${f}\0${bytes.length}\0`);
    h.update(bytes);
  }
  return h.digest('hex');
}

export interface MutantRecord {
  readonly id: string;
  readonly area: string;
  readonly file: string;
  readonly why: string;
  readonly upstream: string | null;
  readonly equivalent: string | null;
  readonly outcome: Outcome;
  /** What caught it: unexplained invariants, failed claims (`scenario: claim`), or the error. */
  readonly by: readonly string[];
  readonly seed: number | null;
  readonly caseIndex: number | null;
  readonly afterCases: number | null;
  readonly hiddenByHazard: boolean;
  readonly hazardShifts: readonly HazardShift[];
  readonly fuzz: readonly {
    readonly seed: number;
    readonly exitCode: number | null;
    readonly timedOut: boolean;
    readonly unexplained: Readonly<Record<string, number>>;
    readonly firstUnexplainedCase: number | null;
    readonly errorCases: number;
    readonly maxEventsCases: number;
    readonly knownOpen: Readonly<Record<string, number>>;
    readonly wallMs: number;
  }[];
  /** Claims verify found failing (also for a mutant the fuzz campaigns caught first). */
  readonly verifyFailed: readonly string[];
  /** A survivor's reach probe: in how many fuzz cases and claims' runs it changed what happened. */
  readonly reach: Reach | null;
  readonly wallMs: number;
}

export interface Report {
  readonly sourceHash: string;
  readonly budget: Budget;
  /** Every mutant of the catalogue was measured (no --only). */
  readonly complete: boolean;
  readonly baseline: {
    readonly fuzz: readonly { seed: number; knownOpen: Readonly<Record<string, number>>; wallMs: number }[];
    readonly verifyClaims: number | null;
    readonly wallMs: number;
  };
  readonly summary: Rates & {
    readonly survivors: readonly string[];
    readonly crashed: readonly string[];
    readonly timedOut: readonly string[];
    readonly hidden: readonly string[];
    /** Survivors whose reach probe changed no run (never exercised), and those it did not measure. */
    readonly unreached: readonly string[];
  };
  readonly mutants: readonly MutantRecord[];
  readonly wallMs: number;
}

export function mutantRecord(m: Mutant, r: MutantResult): MutantRecord {
  const v = r.verdict;
  return {
    id: m.id,
    area: areaOf(m.file) ?? 'none',
    file: m.file,
    why: m.why,
    upstream: m.upstream ?? null,
    equivalent: m.equivalent ?? null,
    outcome: v?.outcome ?? 'equivalent',
    by: v?.by ?? [],
    seed: v?.seed ?? null,
    caseIndex: v?.caseIndex ?? null,
    afterCases: v?.afterCases ?? null,
    hiddenByHazard: v?.hiddenByHazard ?? false,
    hazardShifts: v?.hazardShifts ?? [],
    fuzz: r.fuzz.map((f) => ({
      seed: f.seed,
      exitCode: f.exitCode,
      timedOut: f.timedOut,
      unexplained: f.unexplained,
      firstUnexplainedCase: f.firstUnexplainedCase,
      errorCases: f.errorCases,
      maxEventsCases: f.maxEventsCases,
      knownOpen: f.knownOpen,
      wallMs: Math.round(f.wallMs),
    })),
    verifyFailed: r.verify?.failed.map((c) => `${c.scenario}: ${c.claim}`) ?? [],
    reach: r.reach ?? null,
    wallMs: Math.round(r.wallMs),
  };
}

export function buildReport(
  hash: string,
  budget: Budget,
  complete: boolean,
  baseline: BaselineResult,
  records: readonly MutantRecord[],
  wallMs: number,
): Report {
  const r = rates(records);
  const ids = (o: Outcome) => records.filter((x) => x.outcome === o).map((x) => x.id);
  return {
    sourceHash: hash,
    budget,
    complete,
    baseline: {
      fuzz: baseline.fuzz.map((f) => ({
        seed: f.seed,
        knownOpen: f.knownOpen,
        wallMs: Math.round(f.wallMs),
      })),
      verifyClaims: baseline.verify.claims,
      wallMs: Math.round(baseline.wallMs),
    },
    summary: {
      ...r,
      survivors: ids('survived'),
      crashed: ids('crashed'),
      timedOut: ids('timeout'),
      hidden: records
        .filter((x) => (x.outcome === 'survived' || x.outcome === 'killed-verify') && x.hiddenByHazard)
        .map((x) => x.id),
      unreached: records
        .filter((x) => x.outcome === 'survived' && x.reach !== null && x.reach.cases + x.reach.claims === 0)
        .map((x) => x.id),
    },
    mutants: records,
    wallMs: Math.round(wallMs),
  };
}

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

/** What a survivor's row says: where its reach probe saw it change a run, and a hazard that hid it. */
export function survivorNote(r: Pick<MutantRecord, 'reach' | 'hiddenByHazard' | 'hazardShifts'>): string {
  const parts: string[] = [];
  if (r.reach !== null)
    parts.push(
      r.reach.cases + r.reach.claims === 0
        ? 'not reached'
        : `changes ${r.reach.cases}/${r.reach.casesOf} cases, ${r.reach.claims}/${r.reach.claimsOf} claim runs`,
    );
  if (r.hiddenByHazard)
    parts.push(`hidden by hazard: ${[...new Set(r.hazardShifts.map((s) => s.invariant))].join(', ')}`);
  return parts.join('; ');
}

/** How far into the budget a catch came: `s1 #417` (seed 1, case 417). */
function where(r: MutantRecord): string {
  if (r.seed === null) return '';
  return `s${r.seed} #${r.caseIndex ?? '?'}`;
}

function cut(s: string, n: number): string {
  return s.length <= n ? s : `${s.slice(0, n - 1)}…`;
}

/** The table and the summary, for people. */
export function reportLines(report: Report): string[] {
  return [...tableLines(report), '', ...summaryLines(report)];
}

/** One row per mutant: id, area, outcome, what caught it, where, wall time. */
export function tableLines(report: Report): string[] {
  const rows = report.mutants.map((r) => {
    let by = r.by.join(', ');
    if (r.outcome === 'survived') by = survivorNote(r);
    if (r.outcome === 'equivalent') by = cut(r.equivalent ?? '', 60);
    return [
      r.id,
      r.area,
      r.outcome,
      cut(by, 70),
      where(r),
      r.wallMs === 0 ? '' : (r.wallMs / 1000).toFixed(1),
    ];
  });
  const head = ['mutant', 'area', 'outcome', 'caught by', 'at', 'wall s'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0)))
      .join('  ');
  return [line(head), ...rows.map(line)];
}

/** The counts, the rates, the budget, the survivors and the crashed. */
export function summaryLines(report: Report): string[] {
  const s = report.summary;
  const live = s.mutants - s.equivalent;
  const out: string[] = [];
  out.push(
    `mutants ${s.mutants} (${s.equivalent} equivalent, ${live} run): killed by fuzz ${s.counts['killed-fuzz']}, crashed ${s.counts.crashed}, killed by verify ${s.counts['killed-verify']}, timeout ${s.counts.timeout}, survived ${s.counts.survived}`,
  );
  out.push(
    `fuzzKillRate ${pct(s.fuzzKillRate)} (fuzz + crashed), killRate ${pct(s.killRate)}; hiddenByHazard ${s.hiddenByHazard}`,
  );
  out.push(
    `budget: fuzz --runs ${report.budget.runs} --seed ${report.budget.seeds.join(', ')} --shrink 0, then verify; ${(report.wallMs / 1000).toFixed(0)} s`,
  );
  if (s.survivors.length > 0) out.push(`survivors: ${s.survivors.join(', ')}`);
  if (s.unreached.length > 0)
    out.push(`survivors no probed run exercised (${s.unreached.length}): ${s.unreached.join(', ')}`);
  if (s.crashed.length > 0) out.push(`crashed: ${s.crashed.join(', ')}`);
  return out;
}
