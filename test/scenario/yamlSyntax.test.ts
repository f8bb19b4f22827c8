// YAML syntax errors: the first of each region, not the cascade after it; an unclosed quote is pointed
// at where its string opens (src/scenario/yamlSyntax.ts, used by the loader).
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/scenario/errors.js';
import { parseScenarioText } from '../../src/scenario/load.js';
import { firstOfEachRegion, unclosedQuote } from '../../src/scenario/yamlSyntax.js';

function errorLines(text: string): string[] {
  try {
    parseScenarioText(text, 'f.yaml');
  } catch (err) {
    if (err instanceof InputError) return err.message.split('\n');
    throw err;
  }
  throw new Error('expected an InputError');
}

const lines = (...l: string[]) => `${l.join('\n')}\n`;

describe('the loader prints the first syntax error of each region', () => {
  it('two independent mistakes far apart: two lines, not five', () => {
    const text = lines(
      'name: a', // 1
      'cluster:', // 2
      '  nodes: [node-a]', // 3
      'timeline:', // 4
      '  - at: 0s', // 5
      '    createPod: {pod: web, node: node-a', // 6: no closing }
      '  - at: 5s', // 7
      '    deletePod: {pod: web}', // 8
      '  - at: 6s', // 9
      '    deletePod: {pod: "web}', // 10: no closing "
    );
    expect(errorLines(text)).toEqual([
      'f.yaml:7:3: Flow map in block collection must be sufficiently indented and end with a }',
      'f.yaml:10:22: missing closing ": the string that starts here runs to the end of the file',
    ]);
  });

  it('a mistake, its cascade on the next lines, then a tab further down: the first and the tab', () => {
    const text = lines(
      'name: c',
      'cluster:',
      '  nodes: [node-a]',
      'timeline:',
      '  - at: 0s',
      '    createPod: {pod: web, node: node-a}',
      '  - at: 5s',
      '  deletePod: {pod: web}', // 8: one level too shallow
      '  - at: 6s',
      '    deletePod: {pod: web}',
      '  - at: 7s',
      '\tdeletePod: {pod: web}', // 12: a tab
    );
    expect(errorLines(text)).toEqual([
      'f.yaml:8:1: All mapping items must start at the same column',
      'f.yaml:12:1: Tabs are not allowed as indentation',
    ]);
  });
});

describe('firstOfEachRegion', () => {
  const e = (offset: number) => ({ code: 'X', message: `at ${offset}`, offset });
  // One line per 10 offsets.
  const lineOf = (offset: number) => Math.floor(offset / 10) + 1;

  it('keeps the first error, drops those on the same or the next line of the previous one', () => {
    // Lines 1, 1, 2, 3 chain into one region; line 5 starts the next.
    expect(firstOfEachRegion([e(41), e(0), e(5), e(12), e(25)], lineOf).map((x) => x.offset)).toEqual([
      0, 41,
    ]);
  });

  it('a line without an error ends the region', () => {
    expect(firstOfEachRegion([e(0), e(20), e(21), e(50)], lineOf).map((x) => x.offset)).toEqual([0, 20, 50]);
  });
});

describe('unclosedQuote', () => {
  const missing = (quote: string, text: string) =>
    unclosedQuote(
      { code: 'MISSING_CHAR', message: `Missing closing ${quote}quote`, offset: text.length },
      text,
    );

  it('points a double-quoted string at its opening quote, past escaped quotes inside it', () => {
    const text = 'a: "ok"\nb: "x \\" y\nc: 1\n';
    expect(missing('"', text).offset).toBe(text.indexOf('"x'));
    const escapedBackslash = 'b: "x \\\\"y\n'; // \\" ends the escape: the quote after it is real
    expect(missing('"', escapedBackslash).offset).toBe(escapedBackslash.lastIndexOf('"'));
  });

  it("points a single-quoted string at its opening quote, past '' pairs inside it", () => {
    const text = "a: 'ok'\nb: 'it''s\nc: 1\n";
    expect(missing("'", text).offset).toBe(text.indexOf("'it"));
  });

  it('leaves other errors alone', () => {
    const other = {
      code: 'BAD_INDENT',
      message: 'All mapping items must start at the same column',
      offset: 3,
    };
    expect(unclosedQuote(other, 'abcdef')).toBe(other);
  });
});
