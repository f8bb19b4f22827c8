// StrykerJS beside the catalogue (docs/mutation.md): counts the mutants StrykerJS's instrumenter
// generates for src/kubelet/, src/volume/ and src/cluster/attachdetach/, draws a reproducible stratified
// sample (StringLiteral mutants counted apart), and runs each sampled mutant through the catalogue's own
// budget (run.ts: esbuild bundle of the mutated source, fuzz with every fix on on seeds 1 and 2 x 3,000
// cases, shrink 0, then verify; the reach probe for survivors). Not part of `npm test` or `npm run
// mutation`. StrykerJS is not a dependency of the project: install it anywhere and name the folder.
//
//   mkdir /tmp/stryker && npm i --prefix /tmp/stryker @stryker-mutator/core@10.1.1 @stryker-mutator/instrumenter@10.1.1
//   npx tsx test/mutation/stryker/main.ts --stryker /tmp/stryker --count          (the table, runs nothing)
//   npx tsx test/mutation/stryker/main.ts --stryker /tmp/stryker --list --size 40 --seed 22  (the sample)
//   npx tsx test/mutation/stryker/main.ts --stryker /tmp/stryker --typecheck     (which of it tsc refuses)
//   npx tsx test/mutation/stryker/main.ts --stryker /tmp/stryker --size 40 --seed 22 [--jobs 1] [--probe N]
//
// Writes .mutation/stryker-report.json (the counts, the sample, every verdict and the baseline).
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Mutant } from '../catalogue.js';
import { rates } from '../classify.js';
import { baselineProblems, DEFAULT_BUDGET, type MutantResult, runBaseline, runMutant } from '../run.js';
import {
  applyStryker,
  countTable,
  drawSample,
  FOLDERS,
  folderOf,
  isSampled,
  type StrykerMutant,
  whereOf,
} from './sample.js';
import { typeChecker } from './typecheck.js';

const root = join(import.meta.dirname, '..', '..', '..');
const REPORT = join(root, '.mutation', 'stryker-report.json');
const EXPECTED_VERSION = '10.1.1';
const HOOK = /\bpublish[A-Za-z]*\(|\.touch\(|\.writesOnly\(/;
const ERROR_TEXT = /GoError\(|Error\(|errorf\(|Error\b.*`/;

interface Args {
  stryker: string;
  count: boolean;
  list: boolean;
  typecheck: boolean;
  size: number;
  seed: number;
  jobs: number;
  probe: number;
  only: number[] | undefined;
}

const USAGE =
  'usage: tsx test/mutation/stryker/main.ts --stryker DIR [--count | --list | --typecheck] [--size N] [--seed N] [--jobs N] [--probe N] [--only i,j]';

function parseArgs(argv: readonly string[]): Args {
  const a: Args = {
    stryker: '',
    count: false,
    list: false,
    typecheck: false,
    size: 40,
    seed: 22,
    jobs: 1,
    probe: 1000,
    only: undefined,
  };
  const int = (flag: string, v: string | undefined, min: number): number => {
    const n = Number(v);
    if (v === undefined || !Number.isInteger(n) || n < min)
      throw new Error(`${flag} needs an integer >= ${min}; ${USAGE}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const v = () => argv[++i];
    if (flag === '--stryker') a.stryker = v() ?? '';
    else if (flag === '--count') a.count = true;
    else if (flag === '--list') a.list = true;
    else if (flag === '--typecheck') a.typecheck = true;
    else if (flag === '--size') a.size = int('--size', v(), 1);
    else if (flag === '--seed') a.seed = int('--seed', v(), 0);
    else if (flag === '--jobs') a.jobs = int('--jobs', v(), 1);
    else if (flag === '--probe') a.probe = int('--probe', v(), 0);
    else if (flag === '--only') a.only = (v() ?? '').split(',').map((s) => int('--only', s, 1));
    else throw new Error(`unknown argument ${String(flag)}; ${USAGE}`);
  }
  if (a.stryker === '')
    throw new Error(`--stryker DIR (where @stryker-mutator/instrumenter is installed); ${USAGE}`);
  return a;
}

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...tsFiles(p));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

interface InstrumenterModule {
  Instrumenter: new (
    logger: unknown,
  ) => {
    instrument(
      files: { name: string; content: string; mutate: boolean }[],
      options: { plugins: null; excludedMutations: string[]; ignorers: unknown[] },
    ): Promise<{
      mutants: readonly {
        fileName: string;
        mutatorName: string;
        replacement: string;
        location: { start: { line: number; column: number }; end: { line: number; column: number } };
      }[];
    }>;
  };
}

/** Every mutant StrykerJS's instrumenter generates for the three folders, with its default mutators. */
async function strykerMutants(dir: string): Promise<{ version: string; mutants: StrykerMutant[] }> {
  const req = createRequire(join(dir, 'package.json'));
  const entry = req.resolve('@stryker-mutator/instrumenter');
  const pkg = JSON.parse(readFileSync(join(dirname(entry), '..', '..', 'package.json'), 'utf8')) as {
    version: string;
  };
  const mod = (await import(pathToFileURL(entry).href)) as InstrumenterModule;
  const quiet = () => false;
  const noop = () => {};
  const logger = {
    isTraceEnabled: quiet,
    isDebugEnabled: quiet,
    isInfoEnabled: quiet,
    isWarnEnabled: () => true,
    isErrorEnabled: () => true,
    isFatalEnabled: () => true,
    trace: noop,
    debug: noop,
    info: noop,
    warn: (m: string) => process.stderr.write(`stryker: ${m}\n`),
    error: (m: string) => process.stderr.write(`stryker: ${m}\n`),
    fatal: (m: string) => process.stderr.write(`stryker: ${m}\n`),
  };
  const files = FOLDERS.flatMap((f) => tsFiles(join(root, f))).map((name) => ({
    name,
    content: readFileSync(name, 'utf8'),
    mutate: true,
  }));
  const result = await new mod.Instrumenter(logger).instrument(files, {
    plugins: null,
    excludedMutations: [],
    ignorers: [],
  });
  const mutants = result.mutants.map((m) => ({
    file: relative(root, m.fileName),
    mutatorName: m.mutatorName,
    replacement: m.replacement,
    start: { line: m.location.start.line, column: m.location.start.column },
    end: { line: m.location.end.line, column: m.location.end.column },
  }));
  return { version: pkg.version, mutants };
}

function printCounts(all: readonly StrykerMutant[], log: (l: string) => void): void {
  const table = countTable(all);
  const cols = [...FOLDERS];
  log(`| mutator | ${cols.join(' | ')} | total |`);
  const total = new Map<string, number>();
  for (const [mutator, row] of [...table].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const cells = cols.map((c) => row.get(c) ?? 0);
    cols.forEach((c, i) => {
      total.set(c, (total.get(c) ?? 0) + (cells[i] as number));
    });
    log(`| ${mutator} | ${cells.join(' | ')} | ${cells.reduce((s, x) => s + x, 0)} |`);
  }
  const t = cols.map((c) => total.get(c) ?? 0);
  log(`| all | ${t.join(' | ')} | ${t.reduce((s, x) => s + x, 0)} |`);
  // What kind of code the mutants sit in, by the text of their first line (a heuristic, said so in the
  // docs): the simulator's observation hooks (facts published, elision masks touched) are no kubelet
  // behaviour, and a StringLiteral in an error's text has none either.
  const lines = new Map<string, string[]>();
  const lineOf = (m: StrykerMutant) => {
    let ls = lines.get(m.file);
    if (ls === undefined) {
      ls = readFileSync(join(root, m.file), 'utf8').split('\n');
      lines.set(m.file, ls);
    }
    return ls[m.start.line] ?? '';
  };
  const hooks = all.filter((m) => HOOK.test(lineOf(m)));
  const strings = all.filter((m) => !isSampled(m));
  const errorText = strings.filter((m) => ERROR_TEXT.test(lineOf(m)));
  log(
    `on a line of a simulator hook (publish / touch / writesOnly): ${hooks.length}, ${hooks.filter(isSampled).length} without StringLiteral`,
  );
  log(`StringLiteral: ${strings.length}, ${errorText.length} of them on a line building an error's text`);
  const sampled = all.filter(isSampled);
  log(
    `without StringLiteral: ${sampled.length} (${cols.map((c) => `${c} ${sampled.filter((m) => folderOf(m.file) === c).length}`).join(', ')})`,
  );
}

async function main(): Promise<void> {
  const a = parseArgs(process.argv.slice(2));
  const log = (l: string) => process.stderr.write(`${l}\n`);
  const { version, mutants } = await strykerMutants(a.stryker);
  if (version !== EXPECTED_VERSION)
    log(
      `note: @stryker-mutator/instrumenter ${version}; docs/mutation.md's numbers are of ${EXPECTED_VERSION}`,
    );
  log(`StrykerJS instrumenter ${version}: ${mutants.length} mutants`);
  printCounts(mutants, log);
  if (a.count) return;
  const sample = drawSample(mutants, a.size, a.seed);
  if (a.list || a.typecheck) {
    const check = a.typecheck ? typeChecker(root) : undefined;
    let rejected = 0;
    sample.forEach((m, i) => {
      const text = readFileSync(join(root, m.file), 'utf8');
      if (check !== undefined && i === 0 && check(m.file, text).error !== undefined)
        throw new Error(`${m.file} does not type-check unmutated`);
      const error = check?.(m.file, applyStryker(text, m)).error;
      if (error !== undefined) rejected++;
      const tsc = check === undefined ? '' : error === undefined ? ' tsc: ok' : ` tsc: ${error}`;
      log(`[${i + 1}] ${whereOf(m)} ${m.mutatorName} ${JSON.stringify(m.replacement)}${tsc}`);
    });
    if (check !== undefined) log(`tsc rejects ${rejected} of ${sample.length}`);
    return;
  }
  const chosen =
    a.only === undefined
      ? sample.map((m, i) => ({ m, n: i + 1 }))
      : a.only.map((n) => ({ m: sample[n - 1], n }));
  const budget = { ...DEFAULT_BUDGET, probeCases: a.probe };
  log(`sample: ${sample.length} (seed ${a.seed}); running ${chosen.length}, ${a.jobs} at a time`);
  const baseline = await runBaseline(root, budget, false);
  const problems = baselineProblems(baseline);
  if (problems.length > 0) throw new Error(`the unmutated build is not clean:\n  ${problems.join('\n  ')}`);
  log(`baseline clean in ${(baseline.wallMs / 1000).toFixed(1)} s`);
  const records: unknown[] = [];
  const start = performance.now();
  let next = 0;
  const worker = async () => {
    for (;;) {
      const i = next++;
      const c = chosen[i];
      if (c === undefined) return;
      if (c.m === undefined) throw new Error(`--only: the sample has no mutant ${c.n}`);
      const text = readFileSync(join(root, c.m.file), 'utf8');
      // The whole file as `find` (it occurs once in itself): run.ts's bundler substitutes the mutated file.
      const mutant: Mutant = {
        id: `stryker-${String(c.n).padStart(2, '0')}`,
        file: c.m.file,
        find: text,
        replace: applyStryker(text, c.m),
        why: `${c.m.mutatorName} -> ${c.m.replacement}`,
      };
      const r: MutantResult = await runMutant(root, mutant, budget, baseline);
      const v = r.verdict;
      const what = v === undefined ? '?' : `${v.outcome}${v.by.length > 0 ? `: ${v.by.join(', ')}` : ''}`;
      const at = v?.seed == null ? '' : ` (s${v.seed} #${v.caseIndex ?? '?'})`;
      const reach =
        r.reach === undefined
          ? ''
          : ` reach ${r.reach.cases}/${r.reach.casesOf} cases, ${r.reach.claims}/${r.reach.claimsOf} claims`;
      log(
        `[${c.n}] ${whereOf(c.m)} ${c.m.mutatorName} ${JSON.stringify(c.m.replacement.slice(0, 60))}: ${what}${at}${reach} ${(r.wallMs / 1000).toFixed(1)} s`,
      );
      records.push({
        n: c.n,
        where: whereOf(c.m),
        ...c.m,
        verdict: v ?? null,
        reach: r.reach ?? null,
        fuzz: r.fuzz,
        verifyFailed: r.verify?.failed ?? [],
        wallMs: Math.round(r.wallMs),
      });
    }
  };
  await Promise.all(Array.from({ length: a.jobs }, worker));
  const verdicts = records.map(
    (r) => (r as { verdict: { outcome: 'survived'; hiddenByHazard: boolean } }).verdict,
  );
  const summary = rates(verdicts);
  log(JSON.stringify(summary));
  mkdirSync(dirname(REPORT), { recursive: true });
  writeFileSync(
    REPORT,
    `${JSON.stringify({ version, seed: a.seed, size: a.size, total: mutants.length, sampled: mutants.filter(isSampled).length, baseline: { wallMs: baseline.wallMs, fuzz: baseline.fuzz, verify: baseline.verify }, wallMs: performance.now() - start, summary, records: records.sort((x, y) => (x as { n: number }).n - (y as { n: number }).n) }, null, 2)}\n`,
  );
  log(`report: ${relative(root, REPORT)}`);
}

main().catch((e: unknown) => {
  process.stderr.write(`stryker-sample: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(2);
});
