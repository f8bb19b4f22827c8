// Runs one build (a mutant, or the baseline) through the fixed budget: `podrace fuzz --runs N --seed S
// --shrink 0 --json` for each seed (every fix on, the default), then `podrace verify --json` over the
// bundled scenarios. Each child process is bounded by a wall-clock timeout (killed, and counted as
// `timeout`). A mutant's campaigns stop at the first seed that catches it; verify always runs (a second
// opinion for the report, it takes a second).
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { BASELINE_ID, type BuiltBundle, buildBundle, PROBE_ENTRY_POINTS } from './build.js';
import type { Mutant } from './catalogue.js';
import {
  classify,
  type FuzzFacts,
  fuzzFacts,
  type ProbeDigests,
  probeDigests,
  type Reach,
  reach,
  type Verdict,
  type VerifyFacts,
  verifyFacts,
} from './classify.js';

export const SEEDS = [1, 2] as const;
export const DEFAULT_RUNS = 3000;
export const DEFAULT_TIMEOUT_MS = 180_000;
/** The reach probe's fuzz cases (of the first seed), run for survivors only. */
export const DEFAULT_PROBE_CASES = 1000;

export interface Budget {
  /** Cases per seed. */
  readonly runs: number;
  readonly seeds: readonly number[];
  /** Per child process. */
  readonly timeoutMs: number;
  /** The reach probe's fuzz cases for a survivor (0: no probe). */
  readonly probeCases: number;
}

export const DEFAULT_BUDGET: Budget = {
  runs: DEFAULT_RUNS,
  seeds: SEEDS,
  timeoutMs: DEFAULT_TIMEOUT_MS,
  probeCases: DEFAULT_PROBE_CASES,
};

export interface ChildResult {
  readonly exitCode: number | null;
  readonly timedOut: boolean;
  readonly stdout: string;
  readonly stderr: string;
  readonly wallMs: number;
}

/** Runs `node <args>` in `cwd`, killing it (SIGKILL) after `timeoutMs`. Never rejects on an exit code. */
export function runNode(args: readonly string[], cwd: string, timeoutMs: number): Promise<ChildResult> {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({
        exitCode: timedOut ? null : code,
        timedOut,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        wallMs: performance.now() - start,
      });
    });
  });
}

export async function runFuzz(bundle: BuiltBundle, seed: number, budget: Budget): Promise<FuzzFacts> {
  const args = [bundle.cli, 'fuzz', '--runs', String(budget.runs), '--seed', String(seed)];
  const r = await runNode([...args, '--shrink', '0', '--json'], bundle.dir, budget.timeoutMs);
  return fuzzFacts(seed, r.stdout, r.exitCode, r.timedOut, r.wallMs);
}

export async function runVerify(bundle: BuiltBundle, budget: Budget): Promise<VerifyFacts> {
  const r = await runNode([bundle.cli, 'verify', '--json'], bundle.dir, budget.timeoutMs);
  return verifyFacts(r.stdout, r.stderr, r.exitCode, r.timedOut, r.wallMs);
}

/**
 * Builds the reach probe (probe.ts, with the mutant's substitution) into `.mutation/<id>.probe/` and runs
 * it; undefined if it printed nothing (it failed or timed out). The folder is removed afterwards.
 */
export async function runProbe(
  root: string,
  id: string,
  mutant: Mutant | undefined,
  budget: Budget,
  outRoot: string = root,
): Promise<ProbeDigests | undefined> {
  const bundle = await buildBundle(root, `${id}.probe`, mutant, outRoot, PROBE_ENTRY_POINTS);
  try {
    const seed = String(budget.seeds[0] ?? 1);
    const r = await runNode(
      [bundle.cli, '--seed', seed, '--cases', String(budget.probeCases)],
      bundle.dir,
      budget.timeoutMs,
    );
    return r.exitCode === 0 ? probeDigests(r.stdout) : undefined;
  } finally {
    rmSync(bundle.dir, { recursive: true, force: true });
  }
}

/** What the baseline's runs showed: it must be clean (every campaign and verify exit 0). */
export interface BaselineResult {
  readonly fuzz: readonly FuzzFacts[];
  readonly verify: VerifyFacts;
  /** The reach probe's digests (undefined with probeCases 0). */
  readonly probe: ProbeDigests | undefined;
  readonly buildMs: number;
  readonly wallMs: number;
}

/** Builds and runs the unmutated source (its campaigns side by side when `parallel`). */
export async function runBaseline(
  root: string,
  budget: Budget,
  parallel: boolean,
  outRoot: string = root,
): Promise<BaselineResult> {
  const start = performance.now();
  const bundle = await buildBundle(root, BASELINE_ID, undefined, outRoot);
  const fuzz = parallel
    ? await Promise.all(budget.seeds.map((s) => runFuzz(bundle, s, budget)))
    : await sequential(budget.seeds, (s) => runFuzz(bundle, s, budget));
  const verify = await runVerify(bundle, budget);
  const probe =
    budget.probeCases > 0 ? await runProbe(root, BASELINE_ID, undefined, budget, outRoot) : undefined;
  if (budget.probeCases > 0 && probe === undefined) throw new Error('the reach probe of the baseline failed');
  return { fuzz, verify, probe, buildMs: bundle.wallMs, wallMs: performance.now() - start };
}

/** Why the baseline is not clean, one line per problem (empty: clean). */
export function baselineProblems(b: BaselineResult): string[] {
  const out: string[] = [];
  for (const f of b.fuzz) {
    if (f.timedOut) out.push(`fuzz --seed ${f.seed} timed out`);
    else if (f.exitCode !== 0) {
      const why = Object.keys(f.unexplained).join(', ') || f.firstError || 'see its output';
      out.push(`fuzz --seed ${f.seed} exited ${f.exitCode ?? 'by a signal'} (${why})`);
    }
  }
  if (b.verify.timedOut) out.push('verify timed out');
  else if (b.verify.exitCode !== 0) {
    const why = b.verify.failed.map((c) => `${c.scenario}: ${c.claim}`).join('; ') || b.verify.error;
    out.push(`verify exited ${b.verify.exitCode ?? 'by a signal'} (${why})`);
  }
  return out;
}

async function sequential<T, R>(xs: readonly T[], f: (x: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (const x of xs) out.push(await f(x));
  return out;
}

/** One mutant's record in the report. */
export interface MutantResult {
  readonly id: string;
  readonly verdict: Verdict | undefined;
  readonly fuzz: readonly FuzzFacts[];
  readonly verify: VerifyFacts | undefined;
  /** For a survivor, when the baseline has probe digests: what its reach probe found. */
  readonly reach: Reach | undefined;
  readonly buildMs: number;
  readonly wallMs: number;
}

/**
 * Builds the mutant, runs its campaigns seed by seed until one catches it, then verify, and classifies.
 * An equivalent mutant is neither built nor run. The bundle (in `<outRoot>/.mutation/<id>/`) is removed
 * afterwards unless `keep`.
 */
export async function runMutant(
  root: string,
  mutant: Mutant,
  budget: Budget,
  baseline: Pick<BaselineResult, 'fuzz' | 'probe'>,
  keep = false,
  outRoot: string = root,
): Promise<MutantResult> {
  const start = performance.now();
  if (mutant.equivalent !== undefined)
    return {
      id: mutant.id,
      verdict: undefined,
      fuzz: [],
      verify: undefined,
      reach: undefined,
      buildMs: 0,
      wallMs: 0,
    };
  const bundle = await buildBundle(root, mutant.id, mutant, outRoot);
  try {
    const fuzz: FuzzFacts[] = [];
    for (const seed of budget.seeds) {
      const f = await runFuzz(bundle, seed, budget);
      fuzz.push(f);
      if (f.exitCode !== 0) break;
    }
    const verify = await runVerify(bundle, budget);
    const verdict = classify(fuzz, verify, budget.runs, baseline.fuzz);
    let reached: Reach | undefined;
    if (verdict.outcome === 'survived' && baseline.probe !== undefined && budget.probeCases > 0) {
      const probe = await runProbe(root, mutant.id, mutant, budget, outRoot);
      if (probe !== undefined) reached = reach(baseline.probe, probe);
    }
    return {
      id: mutant.id,
      verdict,
      fuzz,
      verify,
      reach: reached,
      buildMs: bundle.wallMs,
      wallMs: performance.now() - start,
    };
  } finally {
    if (!keep) rmSync(bundle.dir, { recursive: true, force: true });
  }
}
