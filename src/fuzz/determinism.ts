// The determinism guard (`podrace fuzz --check-determinism`): a run's digest is a hash of everything it
// published (every fact, in order) and of its verdict; the guard runs each case of a chunk, then all of
// them again in reverse order, and compares digests. A difference is a podrace bug (hidden state shared
// between runs, wall clock, Math.random, unordered iteration): the case is reported as a failure of the
// simulator with both digests, exit 3.
import { FNV_OFFSET, fnv1a } from '../run/runDigest.js';

export { runDigest } from '../run/runDigest.js';

/** The error text of a case whose two runs differ. */
export function nondeterminismError(first: string, second: string): string {
  return `podrace is not deterministic here: the same case ran twice (in between: the rest of its chunk, in reverse) and gave digests ${first} and ${second} (hash/facts/events). This is a podrace bug; please report it with the replay command.`;
}

/** What two runs of a case must agree on: what the JSON summary, the text and JUnit say was compared. */
export const DIGEST_COVERS =
  'the facts a run published (in order), its event count, virtual time, outcome and violations';

/** What --check-determinism did over a campaign (or a shard, or the shards merged). */
export interface DeterminismCheck {
  /** Cases run a second time (every case that ran). */
  readonly rerun: number;
  /** ... whose two digests differed. */
  readonly differed: number;
  /**
   * The campaign's digest: the sum (mod 2^32) of a hash of each case's index and first-run digest, so
   * shards add up to the whole campaign whatever their order; the same for the same seed, runs and fixes.
   */
  readonly digest: string;
  readonly compared: string;
}

/** One case's share of the campaign digest. */
export function caseDigestPart(index: number, digest: string): number {
  return fnv1a(`${index}:${digest}`, FNV_OFFSET);
}

/** Adds 8-hex-digit digests (or parts) mod 2^32. */
export function addDigests(parts: readonly (number | string)[]): string {
  let sum = 0;
  for (const p of parts) sum = (sum + (typeof p === 'number' ? p : Number.parseInt(p, 16))) >>> 0;
  return sum.toString(16).padStart(8, '0');
}

/** The check of cases that carry their first-run digest (`runCaseChunk` with checkDeterminism). */
export function determinismCheck(
  cases: readonly { readonly index: number; readonly digest?: string; readonly outcome: string }[],
): DeterminismCheck {
  return {
    rerun: cases.length,
    differed: cases.filter((c) => c.outcome === 'nondeterministic').length,
    digest: addDigests(cases.map((c) => caseDigestPart(c.index, c.digest ?? ''))),
    compared: DIGEST_COVERS,
  };
}

/** The check of the whole campaign from its shards' checks. */
export function mergeDeterminismChecks(checks: readonly DeterminismCheck[]): DeterminismCheck {
  return {
    rerun: checks.reduce((t, c) => t + c.rerun, 0),
    differed: checks.reduce((t, c) => t + c.differed, 0),
    digest: addDigests(checks.map((c) => c.digest)),
    compared: DIGEST_COVERS,
  };
}

/** The summary's line: that the guard ran, over how many cases, comparing what, and what it found. */
export function determinismText(d: DeterminismCheck): string {
  const found =
    d.differed === 0 ? 'equal in every case' : `DIFFERENT in ${d.differed} case(s) (a podrace bug)`;
  return `--check-determinism: ran each of ${d.rerun} case(s) a second time (after the rest of its chunk, in reverse order) and compared digests of ${d.compared}: ${found}; campaign digest ${d.digest}`;
}
