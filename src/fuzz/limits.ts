// The fuzzer's bounds: plain constants, shared by the campaign and by the command line's flag defaults
// (which must not load the fuzzer to print its help).

/** A fuzz case may not use more events than this (a normal case uses 10 000 to 30 000). */
export const CASE_MAX_EVENTS = 500_000;

/** The default shrink budget: runs of the simulator spent on shrinking one failure. */
export const DEFAULT_SHRINK_RUNS = 400;

/**
 * The largest campaign (`--runs`): replaying case i from its path costs i cheap RNG jumps (about 0.5 us
 * each; a campaign resumes its stream, src/fuzz/caseStream.ts), so case indices are bounded, and one
 * bound holds everywhere: every case a campaign runs is one a path may name.
 */
export const MAX_RUNS = 10_000_000;
/** The largest case index a path may name (the last case of the largest campaign). */
export const MAX_CASE_INDEX = MAX_RUNS - 1;
