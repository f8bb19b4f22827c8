// `npm run test:quick` leaves out a named slow tier (vitest.quick.config.ts). A name that matches no test
// file any more would silently stop meaning anything, and a quick run that is no longer a subset of the
// full one would hide failures: both are checked here.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SLOW_TESTS, testFiles } from '../vitest.quick.config.js';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  scripts: Record<string, string>;
};

/** `test/cli/**` or a file path, as a test of one file path. */
function matcher(pattern: string): (file: string) => boolean {
  return pattern.endsWith('/**') ? (f) => f.startsWith(pattern.slice(0, -2)) : (f) => f === pattern;
}

describe('the quick tier', () => {
  it('npm run test:quick runs vitest with the quick config; npm test runs everything', () => {
    expect(pkg.scripts['test:quick']).toBe(
      'vitest run --configLoader runner --config vitest.quick.config.ts',
    );
    expect(pkg.scripts['test']).toBe('tsc && vitest run --configLoader runner');
  });

  it('every slow-tier entry names test files that exist', () => {
    const files = testFiles('test');
    for (const pattern of SLOW_TESTS) expect(files.some(matcher(pattern)), pattern).toBe(true);
    // And the quick tier is most of the suite's files, not an empty shell.
    const quick = files.filter((f) => !SLOW_TESTS.some((p) => matcher(p)(f)));
    expect(quick.length).toBeGreaterThan(files.length / 2);
  });
});
