import { describe, expect, it } from 'vitest';
import {
  allocate,
  applyStryker,
  compareMutants,
  countTable,
  drawSample,
  folderOf,
  isSampled,
  mulberry32,
  offsetOf,
  type StrykerMutant,
  whereOf,
} from './sample.js';

const at = (line: number, column: number) => ({ line, column });

function mutant(file: string, line: number, mutatorName = 'ConditionalExpression', n = 0): StrykerMutant {
  return { file, mutatorName, replacement: `r${n}`, start: at(line, n), end: at(line, n + 1) };
}

describe('applyStryker', () => {
  const text = 'const a = 1;\nif (x === y) {\n  go();\n}\n';

  it('replaces the 0-based, end-exclusive range of one line', () => {
    // `x === y` on line 1 (0-based), columns 4-11.
    expect(applyStryker(text, { start: at(1, 4), end: at(1, 11), replacement: 'true' })).toBe(
      'const a = 1;\nif (true) {\n  go();\n}\n',
    );
  });

  it('replaces a range over several lines (a BlockStatement emptied)', () => {
    expect(applyStryker(text, { start: at(1, 13), end: at(3, 1), replacement: '{}' })).toBe(
      'const a = 1;\nif (x === y) {}\n',
    );
  });

  it('refuses a position past the text', () => {
    expect(() => offsetOf(text, 9, 0)).toThrow(/line 10/);
    expect(() => offsetOf(text, 0, 40)).toThrow(/column 40/);
  });
});

describe('the sample', () => {
  const mutants: StrykerMutant[] = [
    ...Array.from({ length: 60 }, (_, i) => mutant('src/kubelet/kubelet.ts', i, 'EqualityOperator', i)),
    ...Array.from({ length: 30 }, (_, i) => mutant('src/volume/fc.ts', i, 'BlockStatement', i)),
    ...Array.from({ length: 10 }, (_, i) =>
      mutant('src/cluster/attachdetach/util.ts', i, 'BooleanLiteral', i),
    ),
    ...Array.from({ length: 50 }, (_, i) => mutant('src/kubelet/kubelet.ts', i, 'StringLiteral', i)),
  ];

  it('leaves StringLiteral mutants out and splits the rest in proportion to each folder', () => {
    const s = drawSample(mutants, 20, 22);
    expect(s).toHaveLength(20);
    expect(s.some((m) => !isSampled(m))).toBe(false);
    const per = (f: string) => s.filter((m) => folderOf(m.file) === f).length;
    expect([per('src/kubelet/'), per('src/volume/'), per('src/cluster/attachdetach/')]).toEqual([12, 6, 2]);
  });

  it('draws the same sample from the same seed whatever order the mutants come in, another from another seed', () => {
    const a = drawSample(mutants, 20, 22);
    expect(drawSample([...mutants].reverse(), 20, 22)).toEqual(a);
    expect(drawSample(mutants, 20, 23)).not.toEqual(a);
    expect([...a].sort(compareMutants)).toEqual(a);
  });

  it('gives the remainder to the largest fractions and never more than there is', () => {
    const counts = { 'src/kubelet/': 4256, 'src/volume/': 1610, 'src/cluster/attachdetach/': 729 };
    expect(allocate(counts, 60)).toEqual({
      'src/kubelet/': 39,
      'src/volume/': 15,
      'src/cluster/attachdetach/': 6,
    });
    expect(allocate({ 'src/kubelet/': 1, 'src/volume/': 0, 'src/cluster/attachdetach/': 1 }, 5)).toEqual({
      'src/kubelet/': 1,
      'src/volume/': 0,
      'src/cluster/attachdetach/': 1,
    });
  });

  it('shuffles with a seeded generator in [0, 1)', () => {
    const r = mulberry32(22);
    const xs = Array.from({ length: 1000 }, () => r());
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(mulberry32(22)()).toBe(xs[0]);
  });

  it('counts per mutator and folder, and names a place as an editor does', () => {
    const t = countTable(mutants);
    expect(t.get('StringLiteral')?.get('src/kubelet/')).toBe(50);
    expect(t.get('BooleanLiteral')?.get('src/cluster/attachdetach/')).toBe(10);
    expect(whereOf(mutant('src/volume/fc.ts', 0, 'BlockStatement', 3))).toBe('src/volume/fc.ts:1:4');
  });
});
