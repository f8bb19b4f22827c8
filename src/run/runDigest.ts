// A run's digest: a hash of everything it published (every fact, in order) and of its verdict. The
// determinism guard (src/fuzz/determinism.ts) compares two runs' digests; explore counts its distinct runs
// by what a user can see of one, without its event count (src/explore/explore.ts).
import type { Fact } from '../facts.js';
import type { RunResult } from './run.js';

/** FNV-1a (32 bit) over a string, continuing from `h`. */
export function fnv1a(text: string, h: number): number {
  let x = h;
  for (let i = 0; i < text.length; i++) {
    x ^= text.charCodeAt(i);
    x = Math.imul(x, 0x01000193);
  }
  return x >>> 0;
}

export const FNV_OFFSET = 0x811c9dc5;

/** A digest of a run recorded with facts: its facts in order, events, virtual time, outcome, violations. */
export function runDigest(r: RunResult): string {
  const facts: readonly Fact[] = r.facts ?? [];
  let h = FNV_OFFSET;
  for (const f of facts) h = fnv1a(JSON.stringify(f), h);
  h = fnv1a(`${r.events}|${r.virtualTimeMs}|${r.outcome}|${JSON.stringify(r.violations)}`, h);
  return `${h.toString(16).padStart(8, '0')}/${facts.length}f/${r.events}e`;
}

/**
 * What a user can see of a run: its facts in order, virtual end time, outcome and violations. Not its event
 * count: two schedules that give the same run may run an idle round for real in one and skip it in the
 * other (src/sim/choices.ts).
 */
export function outcomeDigest(r: RunResult): string {
  const facts: readonly Fact[] = r.facts ?? [];
  let h = FNV_OFFSET;
  for (const f of facts) h = fnv1a(JSON.stringify(f), h);
  h = fnv1a(`${r.virtualTimeMs}|${r.outcome}|${JSON.stringify(r.violations)}`, h);
  return `${h.toString(16).padStart(8, '0')}/${facts.length}f`;
}
