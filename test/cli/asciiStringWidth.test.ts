// The bundle's ASCII fast path for string-width (scripts/asciiStringWidth.mjs) must give yargs' help layout
// the widths the real string-width gives: for printable ASCII by counting, for anything else by asking the
// real one. Checked against each string-width the help layout imports, on strings of every kind.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a build script in plain JavaScript, without declarations
import { withAsciiFastPath } from '../../scripts/asciiStringWidth.mjs';

type Width = (s: unknown, o?: object) => number;
const root = join(import.meta.dirname, '..', '..');
const copies = [
  'node_modules/string-width/index.js',
  'node_modules/cliui/node_modules/string-width/index.js',
  'node_modules/wrap-ansi/node_modules/string-width/index.js',
];

const samples = [
  '',
  'podrace run FILE [--seed N]',
  '  --fix  a switch: ID=on|off   [string]',
  '\u001b[31mred\u001b[39m',
  'tab\there',
  'del\u007f',
  'na\u00efve',
  '\u4f60\u597d',
  '\ud83d\ude00 smile',
  'e\u0301',
  '\u200b',
  '1\ufe0f\u20e3',
];

describe('the bundle measures help text as string-width does', () => {
  for (const copy of copies) {
    it(`gives the widths of ${copy}`, async () => {
      const real = (await import(pathToFileURL(join(root, copy)).href)).default as Width;
      const fast = withAsciiFastPath(real) as Width;
      for (const s of samples) {
        expect(fast(s)).toBe(real(s));
        expect(fast(s, { ambiguousIsNarrow: false })).toBe(real(s, { ambiguousIsNarrow: false }));
        expect(fast(s, { countAnsiEscapeCodes: true })).toBe(real(s, { countAnsiEscapeCodes: true }));
      }
      fc.assert(
        fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (s) => fast(s) === real(s)),
        { seed: 1, numRuns: 300 },
      );
      fc.assert(
        fc.property(fc.string({ maxLength: 80 }), (s) => fast(s) === real(s)),
        { seed: 2, numRuns: 300 },
      );
    });
  }

  it('is what cliui and wrap-ansi import in the bundle', () => {
    const meta = JSON.parse(readFileSync(join(root, 'dist', 'bin', 'meta.json'), 'utf8')) as {
      inputs: Record<string, { imports: { path: string }[] }>;
    };
    for (const lib of ['cliui/index.mjs', 'wrap-ansi/index.js']) {
      // `../main/node_modules/...` where node_modules is a link (a git worktree's).
      const key = Object.keys(meta.inputs).find((k) => k.endsWith(`node_modules/${lib}`)) ?? '';
      const imports = meta.inputs[key]?.imports.map((i) => i.path) ?? [];
      expect(imports.some((p) => p.startsWith('ascii-string-width:'))).toBe(true);
      expect(imports.some((p) => /\/string-width\/index\.js$/.test(p) && !p.includes(':'))).toBe(false);
    }
  });
});
