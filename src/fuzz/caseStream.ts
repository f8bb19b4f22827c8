// The fuzz cases of a campaign seed, read from fast-check's stream of runs the way fc.sample and fc.check
// read it for path "i", but resumable. fast-check gives run i the generator jumped i + 1 times from the
// seed (lazyToss in fast-check's runner) and the bias of run i; walking path "i" from scratch costs i
// jumps (about 0.5 us each), so a campaign that asked fast-check for each chunk of 16 cases paid
// i / 16 * i jumps in all: at case 100,000 a chunk spent 60 ms reaching its cases, more than running
// them. A stream here keeps the generator where the last case left it, so a thread that reads its
// chunks in ascending order pays one jump per case. The values are fast-check's own: test/fuzz/
// caseStream.test.ts compares them with fc.sample at every position it reads.
import fc from 'fast-check';
import { xorshift128plus } from 'pure-rand/generator/xorshift128plus';
import { assert } from '../sim/assert.js';

/** fast-check's seed as QualifiedParameters reads it (readSeed): the 32-bit integer of the seed. */
function qualifiedSeed(seed: number): number {
  const seed32 = seed | 0;
  if (seed === seed32) return seed32;
  return seed32 ^ ((seed - seed32) * 4294967296);
}

/** fast-check's bias for run `runId` (runIdToFrequency): 2 + the run's order of magnitude. */
export function runIdToFrequency(runId: number): number {
  return 2 + ~~(Math.log(runId + 1) * Math.LOG10E); // fast-check writes the same double as a literal
}

/** The values of `arbitrary`'s runs for `seed`, read in ascending order. */
export class CaseStream<T> {
  private readonly rng: ReturnType<typeof xorshift128plus>;
  /** Jumps made so far: the generator is run (jumps - 1)'s. */
  private jumps = 0;

  constructor(
    private readonly arbitrary: fc.Arbitrary<T>,
    readonly seed: number,
  ) {
    this.rng = xorshift128plus(qualifiedSeed(seed));
  }

  /** Generator jumps made so far (what reaching the cases cost). */
  get jumpsMade(): number {
    return this.jumps;
  }

  /** The index of the first run this stream can still give. */
  get nextIndex(): number {
    return Math.max(0, this.jumps - 1);
  }

  /** Run `index`'s value: what fc.sample(arbitrary, {seed, path: String(index), numRuns: 1}) gives. */
  valueAt(index: number): T {
    assert(Number.isSafeInteger(index) && index >= this.nextIndex, `case ${index} is behind the stream`);
    while (this.jumps <= index) {
      this.rng.jump();
      this.jumps++;
    }
    // fc.Random clones the generator, so generating never moves the stream.
    return this.arbitrary.generate(new fc.Random(this.rng), runIdToFrequency(index)).value_;
  }
}
