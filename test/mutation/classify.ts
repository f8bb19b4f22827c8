// What a mutant's runs say, as pure functions of the children's output and exit codes: the facts of a
// `podrace fuzz --json` campaign and of `podrace verify --json`, the mutant's outcome, and whether only a
// known-open hazard's excuse hid a change of behaviour (hiddenByHazard). The runner (run.ts) feeds them;
// the unit tests feed them hand-written lines.

/** How a mutant ended. `equivalent` mutants are not run. */
export type Outcome = 'killed-fuzz' | 'crashed' | 'killed-verify' | 'survived' | 'timeout' | 'equivalent';

export const OUTCOMES: readonly Outcome[] = [
  'killed-fuzz',
  'crashed',
  'killed-verify',
  'timeout',
  'survived',
  'equivalent',
];

/** What one fuzz campaign (one seed) of one build showed. */
export interface FuzzFacts {
  readonly seed: number;
  /** null when the process was killed (timeout) or died by a signal. */
  readonly exitCode: number | null;
  readonly timedOut: boolean;
  /** Cases that ran (from the summary line; null without one: the process was cut off). */
  readonly ran: number | null;
  /** Per invariant that fired without a known-open hazard's excuse: in how many cases. */
  readonly unexplained: Readonly<Record<string, number>>;
  /** The first case with an unexplained invariant, or null. */
  readonly firstUnexplainedCase: number | null;
  /** Cases in which the simulator threw (or two runs differed), the first of them, its first error line. */
  readonly errorCases: number;
  readonly firstErrorCase: number | null;
  readonly firstError: string | null;
  /** Cases cut short by the event budget (a livelock), and the first of them. */
  readonly maxEventsCases: number;
  readonly firstMaxEventsCase: number | null;
  /** Per invariant: in how many cases it fired only as a known-open hazard. */
  readonly knownOpen: Readonly<Record<string, number>>;
  readonly wallMs: number;
}

interface CaseLineLike {
  readonly type: 'case';
  readonly case: number;
  readonly fired?: readonly string[];
  readonly knownOpen?: readonly string[];
  readonly outcome?: string;
  readonly error?: string;
}

interface SummaryLineLike {
  readonly type: 'summary';
  readonly ran?: number;
  readonly maxEventsCases?: number;
  readonly invariants?: Readonly<Record<string, { readonly knownOpen?: number }>>;
}

/** The JSON objects of a child's standard output, one per line (other lines are skipped). */
export function jsonLines(stdout: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const line of stdout.split('\n')) {
    const t = line.trim();
    if (!t.startsWith('{')) continue;
    try {
      const v: unknown = JSON.parse(t);
      if (typeof v === 'object' && v !== null && !Array.isArray(v)) out.push(v as Record<string, unknown>);
    } catch {
      // A line cut off by a kill: nothing to read in it.
    }
  }
  return out;
}

function sortedRecord(m: Map<string, number>): Record<string, number> {
  return Object.fromEntries([...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function bump(m: Map<string, number>, key: string): void {
  m.set(key, (m.get(key) ?? 0) + 1);
}

/** The facts of one `podrace fuzz --json` run from its standard output and how it ended. */
export function fuzzFacts(
  seed: number,
  stdout: string,
  exitCode: number | null,
  timedOut: boolean,
  wallMs = 0,
): FuzzFacts {
  const lines = jsonLines(stdout);
  const cases = lines.filter((l): l is Record<string, unknown> & CaseLineLike => l['type'] === 'case');
  const summary = lines.find((l): l is Record<string, unknown> & SummaryLineLike => l['type'] === 'summary');
  const unexplained = new Map<string, number>();
  const knownOpenFromCases = new Map<string, number>();
  let firstUnexplainedCase: number | null = null;
  let errorCases = 0;
  let firstErrorCase: number | null = null;
  let firstError: string | null = null;
  let maxEventsCases = 0;
  let firstMaxEventsCase: number | null = null;
  for (const c of cases) {
    const fired = c.fired ?? [];
    const excused = new Set(c.knownOpen ?? []);
    const open = fired.filter((f) => !excused.has(f));
    for (const f of open) bump(unexplained, f);
    for (const f of excused) bump(knownOpenFromCases, f);
    if (open.length > 0 && firstUnexplainedCase === null) firstUnexplainedCase = c.case;
    if (c.error !== undefined || c.outcome === 'error' || c.outcome === 'nondeterministic') {
      errorCases++;
      if (firstErrorCase === null) {
        firstErrorCase = c.case;
        firstError = (c.error ?? c.outcome ?? '').split('\n')[0] ?? '';
      }
    }
    if (c.outcome === 'max-events') {
      maxEventsCases++;
      if (firstMaxEventsCase === null) firstMaxEventsCase = c.case;
    }
  }
  let knownOpen = knownOpenFromCases;
  if (summary?.invariants !== undefined) {
    knownOpen = new Map();
    for (const [id, s] of Object.entries(summary.invariants))
      if ((s.knownOpen ?? 0) > 0) knownOpen.set(id, s.knownOpen ?? 0);
  }
  return {
    seed,
    exitCode,
    timedOut,
    ran: summary?.ran ?? null,
    unexplained: sortedRecord(unexplained),
    firstUnexplainedCase,
    errorCases,
    firstErrorCase,
    firstError,
    maxEventsCases: Math.max(maxEventsCases, summary?.maxEventsCases ?? 0),
    firstMaxEventsCase,
    knownOpen: sortedRecord(knownOpen),
    wallMs,
  };
}

/** A claim of `podrace verify --json` that failed. */
export interface FailedClaim {
  readonly scenario: string;
  readonly claim: string;
  readonly expected: readonly string[];
  readonly actual: readonly string[];
}

export interface VerifyFacts {
  readonly exitCode: number | null;
  readonly timedOut: boolean;
  readonly claims: number | null;
  readonly failed: readonly FailedClaim[];
  /** The first line of standard error when verify ended with neither 0 nor 1 (an internal error). */
  readonly error: string | null;
  readonly wallMs: number;
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);

export function verifyFacts(
  stdout: string,
  stderr: string,
  exitCode: number | null,
  timedOut: boolean,
  wallMs = 0,
): VerifyFacts {
  const lines = jsonLines(stdout);
  const failed: FailedClaim[] = lines
    .filter((l) => l['type'] === 'claim' && l['pass'] === false)
    .map((l) => ({
      scenario: String(l['scenario']),
      claim: String(l['claim']),
      expected: strings(l['expected']),
      actual: strings(l['actual']),
    }));
  const summary = lines.find((l) => l['type'] === 'summary');
  const claims = typeof summary?.['claims'] === 'number' ? summary['claims'] : null;
  const bad = !timedOut && exitCode !== 0 && exitCode !== 1;
  const error = bad
    ? (stderr
        .split('\n')
        .find((l) => l.trim() !== '')
        ?.trim() ?? `exit ${exitCode}`)
    : null;
  return { exitCode, timedOut, claims, failed, error, wallMs };
}

/** How one known-open count moved from the baseline's campaign of the same seed. */
export interface HazardShift {
  readonly seed: number;
  readonly invariant: string;
  readonly baseline: number;
  readonly mutant: number;
}

/**
 * hiddenByHazard (of a survivor, or of a mutant only verify killed): the mutant's campaign of a seed exited 0 (every violation excused as a known-open
 * hazard), yet its per-invariant known-open case counts differ from the baseline's for that seed: the
 * mutant changed what happens and only a hazard's excuse kept it from failing. Returns the shifts (empty:
 * not hidden). A campaign that did not exit 0, or a seed the baseline did not run, is not compared.
 */
export function hazardShifts(mutant: readonly FuzzFacts[], baseline: readonly FuzzFacts[]): HazardShift[] {
  const out: HazardShift[] = [];
  for (const m of mutant) {
    const b = baseline.find((x) => x.seed === m.seed);
    if (b === undefined || m.exitCode !== 0 || m.timedOut || b.exitCode !== 0) continue;
    const ids = [...new Set([...Object.keys(m.knownOpen), ...Object.keys(b.knownOpen)])].sort();
    for (const invariant of ids) {
      const bm = b.knownOpen[invariant] ?? 0;
      const mm = m.knownOpen[invariant] ?? 0;
      if (bm !== mm) out.push({ seed: m.seed, invariant, baseline: bm, mutant: mm });
    }
  }
  return out;
}

/** A mutant's verdict: the outcome, what caught it, and where. */
export interface Verdict {
  readonly outcome: Exclude<Outcome, 'equivalent'>;
  /** The invariants that fired unexplained, the failed claims (`scenario: claim`), or the error. */
  readonly by: readonly string[];
  /** The campaign seed and case index of the first catch (fuzz outcomes only). */
  readonly seed: number | null;
  readonly caseIndex: number | null;
  /** Cases run up to and including the catch, over the seeds in order (fuzz outcomes only). */
  readonly afterCases: number | null;
  readonly hiddenByHazard: boolean;
  readonly hazardShifts: readonly HazardShift[];
}

const minOf = (xs: readonly (number | null)[]): number | null => {
  const ns = xs.filter((x): x is number => x !== null);
  return ns.length === 0 ? null : Math.min(...ns);
};

/** The unexplained invariants of a campaign, most cases first (ties by name). */
function byCount(r: Readonly<Record<string, number>>): string[] {
  return Object.entries(r)
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))
    .map(([id]) => id);
}

/**
 * The verdict from the mutant's fuzz campaigns (in the order they ran, the runner stopping at the first
 * that catches it), its verify run (if it ran), the number of cases per campaign and the baseline's
 * campaigns. The first campaign that caught it decides: exit 3 is `crashed`, exit 1 `killed-fuzz`, a
 * timeout `timeout`; any other exit is counted as `crashed` too. Then verify: exit 1 is
 * `killed-verify`, a timeout `timeout`, anything else non-zero `crashed`. Else `survived`.
 */
export function classify(
  fuzz: readonly FuzzFacts[],
  verify: VerifyFacts | undefined,
  runsPerSeed: number,
  baseline: readonly FuzzFacts[],
): Verdict {
  const none = { hiddenByHazard: false, hazardShifts: [] };
  let before = 0;
  for (const f of fuzz) {
    const at = (caseIndex: number | null) => ({
      seed: f.seed,
      caseIndex,
      afterCases: caseIndex === null ? null : before + caseIndex + 1,
    });
    if (f.timedOut) return { outcome: 'timeout', by: [`fuzz --seed ${f.seed}`], ...at(null), ...none };
    if (f.exitCode === 3)
      return {
        outcome: 'crashed',
        by: [f.firstError ?? 'simulator error'],
        ...at(f.firstErrorCase),
        ...none,
      };
    if (f.exitCode === 1) {
      const by = byCount(f.unexplained);
      if (f.maxEventsCases > 0) by.push('event-budget');
      if (by.length === 0) by.push('exit 1');
      return {
        outcome: 'killed-fuzz',
        by,
        ...at(minOf([f.firstUnexplainedCase, f.firstMaxEventsCase])),
        ...none,
      };
    }
    if (f.exitCode !== 0)
      return { outcome: 'crashed', by: [`fuzz exit ${f.exitCode ?? 'signal'}`], ...at(null), ...none };
    before += runsPerSeed;
  }
  const noCase = { seed: null, caseIndex: null, afterCases: null };
  if (verify !== undefined) {
    if (verify.timedOut) return { outcome: 'timeout', by: ['verify'], ...noCase, ...none };
    if (verify.exitCode === 1) {
      // Killed, but not by fuzz: if the campaigns passed only because a hazard excused what the mutant
      // changed, that excuse swallowed a planted bug, which is worth knowing whatever verify said.
      const shifts = hazardShifts(fuzz, baseline);
      return {
        outcome: 'killed-verify',
        by: verify.failed.map((c) => `${c.scenario}: ${c.claim}`),
        ...noCase,
        hiddenByHazard: shifts.length > 0,
        hazardShifts: shifts,
      };
    }
    if (verify.exitCode !== 0)
      return { outcome: 'crashed', by: [`verify: ${verify.error ?? 'exit'}`], ...noCase, ...none };
  }
  const shifts = hazardShifts(fuzz, baseline);
  return { outcome: 'survived', by: [], ...noCase, hiddenByHazard: shifts.length > 0, hazardShifts: shifts };
}

/** The rates over the non-equivalent mutants (0 when there is none). */
export interface Rates {
  readonly mutants: number;
  readonly equivalent: number;
  readonly counts: Readonly<Record<Outcome, number>>;
  /** (killed-fuzz + crashed) / non-equivalent. */
  readonly fuzzKillRate: number;
  /** (killed-fuzz + killed-verify + crashed + timeout) / non-equivalent. */
  readonly killRate: number;
  readonly hiddenByHazard: number;
}

export function rates(verdicts: readonly { outcome: Outcome; hiddenByHazard: boolean }[]): Rates {
  const counts = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;
  for (const v of verdicts) counts[v.outcome]++;
  const live = verdicts.length - counts.equivalent;
  const ratio = (n: number) => (live === 0 ? 0 : Math.round((n / live) * 10_000) / 10_000);
  return {
    mutants: verdicts.length,
    equivalent: counts.equivalent,
    counts,
    fuzzKillRate: ratio(counts['killed-fuzz'] + counts.crashed),
    killRate: ratio(counts['killed-fuzz'] + counts['killed-verify'] + counts.crashed + counts.timeout),
    hiddenByHazard: verdicts.filter(
      (v) => (v.outcome === 'survived' || v.outcome === 'killed-verify') && v.hiddenByHazard,
    ).length,
  };
}

/** What the reach probe (probe.ts) printed: one digest per fuzz case and per bundled claim's run. */
export interface ProbeDigests {
  readonly seed: number;
  readonly cases: readonly string[];
  readonly scenarios: Readonly<Record<string, string>>;
}

/**
 * Reach: in how many of the probe's runs the mutant changed what happened (a different digest from the
 * baseline's), and the first of them. A survivor with none was never exercised by the generator's first
 * cases nor by the bundled scenarios; one with some changed behaviour that no invariant or claim judged.
 */
export interface Reach {
  readonly cases: number;
  readonly casesOf: number;
  readonly firstCase: number | null;
  readonly claims: number;
  readonly claimsOf: number;
  readonly firstClaim: string | null;
}

export function reach(baseline: ProbeDigests, mutant: ProbeDigests): Reach {
  let cases = 0;
  let firstCase: number | null = null;
  const n = Math.min(baseline.cases.length, mutant.cases.length);
  for (let i = 0; i < n; i++) {
    if (baseline.cases[i] === mutant.cases[i]) continue;
    cases++;
    firstCase ??= i;
  }
  let claims = 0;
  let firstClaim: string | null = null;
  const labels = Object.keys(baseline.scenarios);
  for (const label of labels) {
    if (baseline.scenarios[label] === mutant.scenarios[label]) continue;
    claims++;
    firstClaim ??= label;
  }
  return { cases, casesOf: n, firstCase, claims, claimsOf: labels.length, firstClaim };
}

/** `probe.js` output: its last JSON line, or undefined when it printed none (it failed). */
export function probeDigests(stdout: string): ProbeDigests | undefined {
  const last = jsonLines(stdout).at(-1);
  if (last === undefined || !Array.isArray(last['cases']) || typeof last['scenarios'] !== 'object')
    return undefined;
  return {
    seed: Number(last['seed']),
    cases: (last['cases'] as unknown[]).map(String),
    scenarios: last['scenarios'] as Record<string, string>,
  };
}
