// `npm run test:quick`: the edit loop. Everything that runs in-process (the kernel, the port, the
// invariants, the scenario loader, the fuzzer's parts), none of what spawns the built CLI or a browser or
// runs whole campaigns: those need a fresh build (test/cli/globalSetup.ts) and take most of the suite's
// time. CI and `npm test` run everything; this is for the minute between two edits.
//
// Most of a small test file's time is its worker's start (a forked process per file, by default): here
// the files share worker threads (isolate: false). A file that plants a bug with vi.mock must not share
// its module registry, so those run isolated, in a project of their own.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/** The slow tier: files that spawn dist/cli.js, drive chromium, or run campaigns of thousands of cases. */
export const SLOW_TESTS = [
  'test/cli/**',
  'test/package/**',
  'test/deploy/**',
  'test/readOnly.test.ts',
  'test/report/timelineBrowser.test.ts',
  'test/scenario/cutShort.test.ts',
  'test/scenario/limits.test.ts',
  'test/scenario/anyValidRuns.test.ts',
  'test/mutation/catalogue.test.ts',
  'test/fuzz/elision.test.ts',
  'test/fuzz/oracleEarlyStop.test.ts',
  'test/fuzz/fixesRead.test.ts',
  'test/docs/transcripts.test.ts',
  // Whole campaigns and the library's fuzz budget (seconds each): the fuzzer's parts have unit tests here.
  'test/fuzz/fuzz.test.ts',
  'test/fuzz/refind.test.ts',
  'test/fuzz/determinism.test.ts',
  'test/testing/**',
  'test/docs/examples.test.ts',
];

/** Every `*.test.ts` under `dir`, sorted (test/quickTier.test.ts checks the tiers with it too). */
export function testFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return testFiles(path);
      return path.endsWith('.test.ts') ? [path] : [];
    });
}

/** Files that replace modules (vi.mock): they need a module registry of their own. */
const MOCKING = testFiles('test').filter((f) => readFileSync(f, 'utf8').includes('vi.mock('));

// The suite's temporary folder is made once, for both projects (the root's globalSetup).
const { globalSetup: _globalSetup, ...baseTest } = base.test ?? {};
const shared = { ...baseTest, exclude: [...SLOW_TESTS, 'node_modules/**'] };

export default defineConfig({
  test: {
    globalSetup: ['test/suiteTmp.ts'],
    projects: [
      {
        test: {
          ...shared,
          name: 'shared',
          exclude: [...shared.exclude, ...MOCKING],
          pool: 'threads',
          isolate: false,
        },
      },
      { test: { ...shared, name: 'isolated', include: MOCKING } },
    ],
  },
});
