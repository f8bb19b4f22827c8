// The determinism guard (`podrace fuzz --check-determinism`): a run's digest is a hash of everything it
// published (every fact, in order) and of its verdict; the guard runs each case of a chunk, then all of
// them again in reverse order, and compares digests. A difference is a podrace bug (hidden state shared
// between runs, wall clock, Math.random, unordered iteration): the case is reported as a failure of the
// simulator with both digests, exit 3.
import type { Fact } from '../facts.js';
import type { RunResult } from '../scenario/run.js';

/** FNV-1a (32 bit) over a string, continuing from `h`. */
function fnv1a(text: string, h: number): number {
  let x = h;
  for (let i = 0; i < text.length; i++) {
    x ^= text.charCodeAt(i);
    x = Math.imul(x, 0x01000193);
  }
  return x >>> 0;
}

const FNV_OFFSET = 0x811c9dc5;

/** A digest of a run recorded with facts: its facts in order, events, virtual time, outcome, violations. */
export function runDigest(r: RunResult): string {
  const facts: readonly Fact[] = r.facts ?? [];
  let h = FNV_OFFSET;
  for (const f of facts) h = fnv1a(JSON.stringify(f), h);
  h = fnv1a(`${r.events}|${r.virtualTimeMs}|${r.outcome}|${JSON.stringify(r.violations)}`, h);
  return `${h.toString(16).padStart(8, '0')}/${facts.length}f/${r.events}e`;
}

/** The error text of a case whose two runs differ. */
export function nondeterminismError(first: string, second: string): string {
  return `podrace is not deterministic here: the same case ran twice (in between: the rest of its chunk, in reverse) and gave digests ${first} and ${second} (hash/facts/events). This is a podrace bug; please report it with the replay command.`;
}
