// The resumable case stream gives fast-check's own values: case i of seed S is what fc.sample (and so
// `podrace replay --seed S --path i`) gives for path "i", however the stream got there; and reading a
// campaign's chunks in order costs one generator jump per case, not one per case before each chunk.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scenarioArbitrary } from '../../src/fuzz/arbitraries.js';
import { CaseStream } from '../../src/fuzz/caseStream.js';
import { caseName, scenariosOfCases } from '../../src/fuzz/shrink.js';

const sampled = (seed: number, index: number) =>
  fc.sample(scenarioArbitrary, { seed, path: String(index), numRuns: 1 })[0];

describe('CaseStream', () => {
  // 2^31 and 2^32 - 1 go through fast-check's readSeed the way a uint32 campaign seed does.
  for (const seed of [0, 1, 7, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1]) {
    it(`gives fc.sample's value at each path, seed ${seed}`, () => {
      const stream = new CaseStream(scenarioArbitrary, seed);
      for (const index of [0, 1, 2, 15, 16, 17, 99, 100, 1000, 1001, 2500]) {
        expect(stream.valueAt(index)).toEqual(sampled(seed, index));
      }
    });
  }

  it("gives fc.sample's values of a range, as a campaign's chunk read them before", () => {
    const values = fc.sample(scenarioArbitrary, { seed: 11, path: '40', numRuns: 24 });
    const stream = new CaseStream(scenarioArbitrary, 11);
    values.forEach((v, k) => {
      expect(stream.valueAt(40 + k)).toEqual(v);
    });
  });

  it('can read the same case twice, never an earlier one', () => {
    const stream = new CaseStream(scenarioArbitrary, 3);
    const a = stream.valueAt(20);
    expect(stream.valueAt(20)).toEqual(a);
    expect(() => stream.valueAt(19)).toThrow(/behind the stream/);
  });
});

describe('scenariosOfCases', () => {
  it('gives the cases of fc.sample whatever it was asked before (later, earlier, another seed)', () => {
    const asks: [number, number[]][] = [
      [5, [0, 1, 2]],
      [5, [300, 301, 303, 310]],
      [5, [40, 41]], // earlier: starts again
      [9, [40, 41]], // another seed
      [5, [40, 47, 900]],
    ];
    for (const [seed, indices] of asks) {
      const got = scenariosOfCases(seed, indices);
      expect(got).toEqual(indices.map((i) => ({ ...sampled(seed, i), name: caseName(seed, String(i)) })));
    }
  });

  it('costs one jump per case over a campaign read chunk by chunk', () => {
    // The old way (fc.sample with path "first" per chunk) made first + 1 jumps per chunk: for 40 chunks of
    // 16 cases, 16 * (0 + 1 + ... + 39) + 40 = 12,520. Resumed, it is one per case.
    const stream = new CaseStream(scenarioArbitrary, 2);
    for (let chunk = 0; chunk < 40; chunk++) {
      for (let k = 0; k < 16; k++) stream.valueAt(chunk * 16 + k);
    }
    expect(stream.jumpsMade).toBe(640);
  });

  it('refuses indices that do not ascend', () => {
    expect(() => scenariosOfCases(1, [3, 2])).toThrow(/must ascend/);
  });
});
