// `npm run mutation`: how well the fuzzer and the bundled scenarios' claims catch plausible bugs planted
// in the port. Validates the catalogue (exit 2 if it is not valid), builds and runs the unmutated source
// (exit 1 unless it is clean), then builds and runs each mutant with the fixed budget, two at a time,
// and prints a table and the rates (docs/mutation.md). It measures: survivors never fail it.
//
//   npm run mutation -- [--jobs N] [--only id,id] [--runs N] [--timeout SECONDS] [--probe N] [--keep] [--json]
//   npm run mutation -- --write-docs     (rewrites the catalogue's table in docs/mutation.md, runs nothing)
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { MUTANTS, type Mutant } from './catalogue.js';
import { DOC_FILE, writeDocTable } from './docTable.js';
import {
  buildReport,
  type MutantRecord,
  mutantRecord,
  REPORT_FILE,
  type Report,
  reportLines,
  sourceHash,
} from './report.js';
import {
  type Budget,
  baselineProblems,
  DEFAULT_BUDGET,
  type MutantResult,
  runBaseline,
  runMutant,
} from './run.js';
import { validateCatalogue } from './validate.js';

export const root = join(import.meta.dirname, '..', '..');

export interface SuiteOptions {
  readonly jobs: number;
  readonly only: readonly string[] | undefined;
  readonly budget: Budget;
  readonly keep: boolean;
  /** Progress lines (one per mutant as it finishes). */
  readonly log: (line: string) => void;
}

export class SuiteError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

/** Runs `f` over `xs` with at most `jobs` at once; results in the order of `xs`. */
async function pool<T, R>(xs: readonly T[], jobs: number, f: (x: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(xs.length);
  let next = 0;
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= xs.length) return;
      out[i] = await f(xs[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(jobs, xs.length)) }, worker));
  return out;
}

/** The catalogue's mutants to run, or a SuiteError (exit 2) when the catalogue or --only is wrong. */
export function selectMutants(only: readonly string[] | undefined): Mutant[] {
  const problems = validateCatalogue(MUTANTS, root, { sizeRules: true });
  if (problems.length > 0) throw new SuiteError(`the catalogue is not valid:\n  ${problems.join('\n  ')}`, 2);
  if (only === undefined) return [...MUTANTS];
  const unknown = only.filter((id) => !MUTANTS.some((m) => m.id === id));
  if (unknown.length > 0) throw new SuiteError(`--only: no mutant ${unknown.join(', ')} in the catalogue`, 2);
  return MUTANTS.filter((m) => only.includes(m.id));
}

/** The whole suite: writes .mutation/report.json and returns the report. */
export async function runSuite(o: SuiteOptions): Promise<Report> {
  const start = performance.now();
  const mutants = selectMutants(o.only);
  // What was measured: the source as it was when the run started.
  const hash = sourceHash(root);
  o.log(
    `mutation: baseline (fuzz --runs ${o.budget.runs} --seed ${o.budget.seeds.join(', ')}, verify), then ${mutants.length} mutants, ${o.jobs} at a time`,
  );
  const baseline = await runBaseline(root, o.budget, o.jobs > 1);
  const problems = baselineProblems(baseline);
  if (problems.length > 0)
    throw new SuiteError(
      `the unmutated build is not clean (it must be: fuzz exit 0 on every seed, verify exit 0):\n  ${problems.join('\n  ')}`,
      1,
    );
  o.log(`baseline clean in ${(baseline.wallMs / 1000).toFixed(1)} s`);
  let done = 0;
  const results = await pool(mutants, o.jobs, async (m): Promise<MutantResult> => {
    const r = await runMutant(root, m, o.budget, baseline, o.keep);
    done++;
    const v = r.verdict;
    const what =
      v === undefined ? 'equivalent' : `${v.outcome}${v.by.length > 0 ? `: ${v.by.join(', ')}` : ''}`;
    o.log(`[${done}/${mutants.length}] ${m.id}: ${what} (${(r.wallMs / 1000).toFixed(1)} s)`);
    return r;
  });
  const records: MutantRecord[] = mutants.map((m, i) => mutantRecord(m, results[i] as MutantResult));
  const report = buildReport(
    hash,
    o.budget,
    o.only === undefined,
    baseline,
    records,
    performance.now() - start,
  );
  const file = join(root, REPORT_FILE);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  return report;
}

interface Args {
  jobs: number;
  only: string[] | undefined;
  runs: number;
  timeoutMs: number;
  probeCases: number;
  keep: boolean;
  json: boolean;
  writeDocs: boolean;
}

const USAGE =
  'usage: npm run mutation -- [--jobs N] [--only id,id] [--runs N] [--timeout SECONDS] [--probe N] [--keep] [--json] | --write-docs';

export function parseArgs(argv: readonly string[]): Args {
  const a: Args = {
    jobs: 2,
    only: undefined,
    runs: DEFAULT_BUDGET.runs,
    timeoutMs: DEFAULT_BUDGET.timeoutMs,
    probeCases: DEFAULT_BUDGET.probeCases,
    keep: false,
    json: false,
    writeDocs: false,
  };
  const positive = (flag: string, v: string | undefined): number => {
    const n = Number(v);
    if (v === undefined || !Number.isInteger(n) || n < 1)
      throw new SuiteError(`${flag} needs a positive integer; ${USAGE}`, 2);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? arg.split('=', 2) : [arg, undefined];
    const value = (): string | undefined => inline ?? argv[++i];
    if (flag === '--jobs') a.jobs = positive('--jobs', value());
    else if (flag === '--runs') a.runs = positive('--runs', value());
    else if (flag === '--timeout') a.timeoutMs = positive('--timeout', value()) * 1000;
    else if (flag === '--probe') {
      const v = value();
      a.probeCases = v === '0' ? 0 : positive('--probe', v);
    } else if (flag === '--only') {
      const v = value();
      if (v === undefined || v === '') throw new SuiteError(`--only needs mutant ids; ${USAGE}`, 2);
      a.only = v.split(',').filter((s) => s !== '');
    } else if (flag === '--keep') a.keep = true;
    else if (flag === '--json') a.json = true;
    else if (flag === '--write-docs') a.writeDocs = true;
    else throw new SuiteError(`unknown argument ${arg}; ${USAGE}`, 2);
  }
  return a;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const err = (l: string) => process.stderr.write(`${l}\n`);
  if (args.writeDocs) {
    selectMutants(undefined); // a valid catalogue only
    writeDocTable(root, MUTANTS);
    err(`mutation: wrote the catalogue's table (${MUTANTS.length} mutants) into ${DOC_FILE}`);
    return;
  }
  const report = await runSuite({
    jobs: args.jobs,
    only: args.only,
    budget: { ...DEFAULT_BUDGET, runs: args.runs, timeoutMs: args.timeoutMs, probeCases: args.probeCases },
    keep: args.keep,
    log: err,
  });
  // With --json the table goes to standard error, so standard output's last line is the object alone.
  const write = args.json ? err : (l: string) => console.log(l);
  write('');
  for (const l of reportLines(report)) write(l);
  write(`report: ${REPORT_FILE}`);
  if (args.json) console.log(JSON.stringify(report));
}

if (process.argv[1] !== undefined && import.meta.filename === process.argv[1]) {
  main().catch((e: unknown) => {
    process.stderr.write(`mutation: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(e instanceof SuiteError ? e.exitCode : 3);
  });
}
