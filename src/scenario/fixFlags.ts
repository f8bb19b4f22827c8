// How a fix set and a fuzz case are written on a command line and in a claim: the shortest --kubelet /
// --fix flags, the replay command, the claim's fix set. Light: the CLI's `run` prints them without loading
// the fuzzer.
export { shellQuote } from '../shellQuote.js';

import { FIX_IDS, Fixes } from '../fixes.js';
import type { ClaimFixes } from './types.js';

/** The shortest `--kubelet` / `--fix` flags that select `fixes` (none for the default, all fixes on). */
export function fixFlags(fixes: Fixes): string[] {
  const c = claimFixesOf(fixes);
  const flags = c.kubelet === 'fixed' ? [] : [`--kubelet ${c.kubelet}`];
  for (const id of c.off) flags.push(`--fix ${id}=off`);
  for (const id of c.on) flags.push(`--fix ${id}=on`);
  return flags;
}

/**
 * How a printed hint invokes podrace: `npx podrace` works in a clone (where `podrace` is not on PATH),
 * in a project that depends on podrace, and where it is installed globally.
 */
export const PODRACE_COMMAND = 'npx podrace';

/** `npx podrace fuzz|replay --seed S --path P` plus the fix flags, as one command line. */
export function replayCommand(
  seed: number,
  path: string,
  fixes: Fixes,
  command: 'fuzz' | 'replay' = 'replay',
): string {
  return [`${PODRACE_COMMAND} ${command}`, `--seed ${seed}`, `--path ${path}`, ...fixFlags(fixes)].join(' ');
}

/**
 * A claim's fix set for `fixes`: the kubelet (fixed, legacy or a release) with the fewest toggles; on a
 * tie, the one the set was made from (`--kubelet 1.22` stays 1.22 where 1.23 ships the same switches).
 */
export function claimFixesOf(fixes: Fixes): ClaimFixes {
  let best: ClaimFixes | undefined;
  for (const kubelet of fixes.baseOrder()) {
    const base = Fixes.of(kubelet);
    const off = FIX_IDS.filter((id) => base.on(id) && !fixes.on(id));
    const on = FIX_IDS.filter((id) => !base.on(id) && fixes.on(id));
    if (best === undefined || off.length + on.length < best.off.length + best.on.length)
      best = { kubelet, off, on };
  }
  return best ?? { kubelet: 'fixed', off: [], on: [] };
}
