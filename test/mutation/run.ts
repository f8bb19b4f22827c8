// Runs one build (a mutant, or the baseline) through the fixed budget: `podrace fuzz --runs N --seed S
// --shrink 0 --json` for each seed (every fix on, the default), then `podrace verify --json` over the
// bundled scenarios. Each child process is bounded by a wall-clock timeout (killed, and counted as
// `timeout`). A mutant's campaigns stop at the first seed that catches it; verify always runs (a second
// opinion for the report, it takes a second).
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { BASELINE_ID, type BuiltBundle, buildBundle } from './build.js';
import type { Mutant } from './catalogue.js';
import {
  classify,
  type FuzzFacts,
  fuzzFacts,
  type Verdict,
  type VerifyFacts,
  verifyFacts,
} from './classify.js';

export const SEEDS = [1, 2] as const;
export const DEFAULT_RUNS = 3000;
export const DEFAULT_TIMEOUT_MS = 180_000;

export interface Budget {
  /** Cases per seed. */
  readonly runs: number;
  readonly seeds: readonly number[];
  /** Per child process. */
  readonly timeoutMs: number;
}

export const DEFAULT_BUDGET: Budget = { runs: DEFAULT_RUNS, seeds: SEEDS, timeoutMs: DEFAULT_TIMEOUT_MS };

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

/** What the baseline's runs showed: it must be clean (every campaign and verify exit 0). */
export interface BaselineResult {
  readonly fuzz: readonly FuzzFacts[];
  readonly verify: VerifyFacts;
  readonly buildMs: number;
  readonly wallMs: number;
}

/** Builds and runs the unmutated source (its campaigns side by side when `parallel`). */
export async function runBaseline(root: string, budget: Budget, parallel: boolean): Promise<BaselineResult> {
  const start = performance.now();
  const bundle = await buildBundle(root, BASELINE_ID, undefined);
  const fuzz = parallel
    ? await Promise.all(budget.seeds.map((s) => runFuzz(bundle, s, budget)))
    : await sequential(budget.seeds, (s) => runFuzz(bundle, s, budget));
  const verify = await runVerify(bundle, budget);
  return { fuzz, verify, buildMs: bundle.wallMs, wallMs: performance.now() - start };
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
  readonly buildMs: number;
  readonly wallMs: number;
}

/**
 * Builds the mutant, runs its campaigns seed by seed until one catches it, then verify, and classifies.
 * An equivalent mutant is neither built nor run. The bundle is removed afterwards unless `keep`.
 */
export async function runMutant(
  root: string,
  mutant: Mutant,
  budget: Budget,
  baseline: readonly FuzzFacts[],
  keep = false,
): Promise<MutantResult> {
  const start = performance.now();
  if (mutant.equivalent !== undefined)
    return { id: mutant.id, verdict: undefined, fuzz: [], verify: undefined, buildMs: 0, wallMs: 0 };
  const bundle = await buildBundle(root, mutant.id, mutant);
  try {
    const fuzz: FuzzFacts[] = [];
    for (const seed of budget.seeds) {
      const f = await runFuzz(bundle, seed, budget);
      fuzz.push(f);
      if (f.exitCode !== 0) break;
    }
    const verify = await runVerify(bundle, budget);
    const verdict = classify(fuzz, verify, budget.runs, baseline);
    return {
      id: mutant.id,
      verdict,
      fuzz,
      verify,
      buildMs: bundle.wallMs,
      wallMs: performance.now() - start,
    };
  } finally {
    if (!keep) rmSync(bundle.dir, { recursive: true, force: true });
  }
}
