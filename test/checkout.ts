// Whether the checkout can be written, and what the test run does when it cannot: `npm test` must pass
// in a read-only checkout (a CI cache, a mounted volume, another user's clone). Vite bundles a TypeScript
// config into node_modules/.vite-temp (package.json runs vitest with `--configLoader runner`, which does
// not), vitest keeps a results cache under node_modules/.vite (off when it cannot be written), and
// globalSetup builds dist/ (it uses the dist/ that is there instead).
import { accessSync, constants } from 'node:fs';

export function isWritable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** vitest's `cache` option: its default where node_modules can be written, off where it cannot. */
export function resultsCache(nodeModules: string, writable = isWritable): false | undefined {
  return writable(nodeModules) ? undefined : false;
}
