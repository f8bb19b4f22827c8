// The warm-up of a campaign seed: its first cases draw from one arbitrary, the rest from another. A
// profile added to the swarm displaces the cases of the others in proportion to its weight, and most
// switches' first find lies in a seed's first hundred cases (docs/fuzzing.md, time to bug): a swarm
// that keeps growing would find the bugs it was built around later and later. So the first cases draw
// the swarm whose shapes find those (the warm-up mix), and the later cases the whole mix, where the newer
// shapes get their share of a campaign's budget.
//
// fast-check tells an arbitrary nothing of the run it generates for but its bias, 2 + the order of
// magnitude of the run's index (runIdToFrequency); fc.check, fc.sample and src/fuzz/caseStream.ts all
// pass it. So "the first WARM_UP_CASES cases" is "bias at most WARM_UP_BIAS_MAX": a case is a function of
// (seed, index) however it is reached, and a shrink stays within the arbitrary that generated the case.
import fc from 'fast-check';
import { assert } from '../sim/assert.js';
import { runIdToFrequency } from './caseStream.js';

/** The bias of the last warm-up case: runs 0..98 (orders of magnitude 0 and 1). */
export const WARM_UP_BIAS_MAX = 3;
/** Cases 0..WARM_UP_CASES - 1 of every seed are warm-up cases. */
export const WARM_UP_CASES = 99;
assert(runIdToFrequency(WARM_UP_CASES - 1) === WARM_UP_BIAS_MAX, 'the warm-up ends with bias 3');
assert(runIdToFrequency(WARM_UP_CASES) === WARM_UP_BIAS_MAX + 1, 'the case after the warm-up has bias 4');

interface Context {
  readonly warmUp: boolean;
  readonly inner: unknown;
}

/**
 * `warmUp`'s values for the runs of bias WARM_UP_BIAS_MAX or less, `rest`'s for the others. An unbiased
 * generation (fc.noBias around it) is never a warm-up. Shrinks stay with the arbitrary that generated.
 */
export class WarmUpArbitrary<T> extends fc.Arbitrary<T> {
  constructor(
    private readonly warmUp: fc.Arbitrary<T>,
    private readonly rest: fc.Arbitrary<T>,
  ) {
    super();
  }

  generate(mrng: fc.Random, biasFactor: number | undefined): fc.Value<T> {
    const warmUp = biasFactor !== undefined && biasFactor <= WARM_UP_BIAS_MAX;
    const v = (warmUp ? this.warmUp : this.rest).generate(mrng, biasFactor);
    return new fc.Value(v.value_, { warmUp, inner: v.context } satisfies Context);
  }

  /** A value alone does not say which arbitrary made it. */
  canShrinkWithoutContext(_value: unknown): _value is T {
    return false;
  }

  shrink(value: T, context: unknown): fc.Stream<fc.Value<T>> {
    if (context === undefined) return fc.Stream.nil();
    const c = context as Context;
    return (c.warmUp ? this.warmUp : this.rest)
      .shrink(value, c.inner)
      .map((v) => new fc.Value(v.value_, { warmUp: c.warmUp, inner: v.context } satisfies Context));
  }
}
