// The scenarios that ship with podrace: scenarios/ beside src/ and dist/ (and in the image, beside dist/).
// `list scenarios`, `run NAME`, `explain` and the generated docs/races.md read them from here, so they
// work from any folder.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The bundled scenarios folder (src/scenario/ or dist/scenario/ -> ../../scenarios). */
export function bundledScenariosDir(): string {
  return fileURLToPath(new URL('../../scenarios', import.meta.url));
}

/** The bundled scenario files, sorted by file name. */
export function bundledScenarioFiles(): string[] {
  const dir = bundledScenariosDir();
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml') || f.endsWith('.yml'))
    .sort()
    .map((f) => join(dir, f));
}
