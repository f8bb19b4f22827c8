// podrace's own version, from package.json beside src/ and dist/ (and in the image, beside dist/). The
// fuzz JSON summary carries it so that `podrace merge` can refuse shards of different versions: a case
// index means what that version's generator makes of it.
import { readFileSync } from 'node:fs';

let cached: string | undefined;

export function podraceVersion(): string {
  if (cached === undefined) {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version?: unknown;
    };
    cached = typeof pkg.version === 'string' ? pkg.version : 'unknown';
  }
  return cached;
}
