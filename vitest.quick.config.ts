// `npm run test:quick`: the edit loop. Everything that runs in-process (the kernel, the port, the
// invariants, the scenario loader, the fuzzer's parts), none of what spawns the built CLI or a browser or
// runs whole campaigns: those need a fresh build (test/cli/globalSetup.ts) and take most of the suite's
// time. CI and `npm test` run everything; this is for the minute between two edits.
import { defineConfig, mergeConfig } from 'vitest/config';
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
];

export default mergeConfig(
  { ...base, test: { ...base.test, globalSetup: ['test/suiteTmp.ts'] } },
  defineConfig({ test: { exclude: [...SLOW_TESTS, 'node_modules/**'] } }),
);
