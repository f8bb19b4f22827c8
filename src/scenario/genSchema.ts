// Writes docs/scenario.schema.json (draft-7, for editors such as VS Code's YAML extension) from the zod
// schema. `npm run schema`; a test checks that the committed file equals a fresh generation.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { scenarioJsonSchema } from './schema.js';

export const SCHEMA_PATH = fileURLToPath(new URL('../../docs/scenario.schema.json', import.meta.url));

export function renderScenarioJsonSchema(): string {
  return `${JSON.stringify(scenarioJsonSchema(), null, 2)}\n`;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(SCHEMA_PATH, renderScenarioJsonSchema());
  process.stdout.write(`wrote ${SCHEMA_PATH}\n`);
}
