import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { resultsCache } from './test/checkout.js';

const cache = resultsCache(fileURLToPath(new URL('node_modules', import.meta.url)));

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup.ts'],
    // suiteTmp first: every temporary file of the run, the build's included, goes in its folder.
    globalSetup: ['test/suiteTmp.ts', 'test/cli/globalSetup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    ...(cache === undefined ? {} : { cache }),
    coverage: { provider: 'v8', include: ['src/**'], reporter: ['text', 'html', 'lcov'] },
  },
});
