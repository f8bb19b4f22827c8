// `npm run docs`: writes the generated documentation. docs/races.md whole; in docs/fixes.md the release
// table; in docs/cli.md each command's block (a command without one gets a new section at the end of
// the command list). A test checks that the committed files equal a fresh generation.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderFixTable } from '../reference/fixTableDoc.js';
import { bundledGlossary } from '../reference/glossary.js';
import { renderRacesDoc } from '../reference/racesDoc.js';
import { region, regionIds, replaceRegion } from '../reference/regions.js';
import { allCommandSpecs, commandReference, globalReference } from './cliReference.js';

const docPath = (name: string): string => fileURLToPath(new URL(`../../docs/${name}`, import.meta.url));

/** Where new command sections go in docs/cli.md. */
export const COMMANDS_END = '<!-- END OF COMMANDS -->';

export function renderCliDoc(current: string): string {
  let text = replaceRegion(current, 'global-options', globalReference());
  const specs = allCommandSpecs();
  const names = specs.map((s) => `command-${s.name}`);
  const stale = regionIds(text).filter((id) => id.startsWith('command-') && !names.includes(id));
  if (stale.length > 0)
    throw new Error(`docs/cli.md: regions of commands that no longer exist: ${stale.join(', ')}`);
  for (const spec of specs) {
    const id = `command-${spec.name}`;
    if (!regionIds(text).includes(id)) {
      const at = text.indexOf(COMMANDS_END);
      if (at < 0) throw new Error(`docs/cli.md: no ${COMMANDS_END} marker for the new command ${spec.name}`);
      text = `${text.slice(0, at)}### \`podrace ${spec.name}\`\n\n${region(id, '')}\n\n${text.slice(at)}`;
    }
    text = replaceRegion(text, id, commandReference(spec));
  }
  return text;
}

export function renderFixesDoc(current: string): string {
  return replaceRegion(current, 'fix-table', renderFixTable());
}

/** Every generated file: path and fresh content. */
export function generatedDocs(): { readonly path: string; readonly text: string }[] {
  const read = (name: string) => readFileSync(docPath(name), 'utf8');
  return [
    { path: docPath('races.md'), text: renderRacesDoc(bundledGlossary()) },
    { path: docPath('fixes.md'), text: renderFixesDoc(read('fixes.md')) },
    { path: docPath('cli.md'), text: renderCliDoc(read('cli.md')) },
  ];
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const d of generatedDocs()) {
    writeFileSync(d.path, d.text);
    process.stdout.write(`wrote ${d.path}\n`);
  }
}
