// The catalogue's table in docs/mutation.md, generated from catalogue.ts (`npm run mutation --
// --write-docs` rewrites it; the catalogue test checks that it is fresh).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Mutant } from './catalogue.js';
import { areaOf } from './rules.js';

export const DOC_FILE = 'docs/mutation.md';
const ID = 'mutation-catalogue';
const BEGIN = `<!-- BEGIN GENERATED: ${ID} (npm run mutation -- --write-docs) -->`;
const END = `<!-- END GENERATED: ${ID} -->`;

const cell = (s: string): string => s.replaceAll('|', '\\|').replaceAll('\n', ' ');

/** One row per mutant, in catalogue order. */
export function catalogueTable(mutants: readonly Mutant[]): string {
  const rows = mutants.map((m) => {
    const why = m.equivalent === undefined ? m.why : `${m.why} *Equivalent: ${m.equivalent}.*`;
    const upstream = m.upstream === undefined ? '' : `#${m.upstream.split('#')[1]}`;
    return `| \`${m.id}\` | ${areaOf(m.file) ?? ''} | \`${m.file.replace(/^src\//, '')}\` | ${cell(why)} | ${upstream} |`;
  });
  return [
    '| mutant | area | file (under src/) | what the developer got wrong | upstream |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}

/** The table as docs/mutation.md has it, or undefined when the document lacks the markers. */
export function documentedTable(root: string): string | undefined {
  const text = readFileSync(join(root, DOC_FILE), 'utf8');
  const from = text.indexOf(BEGIN);
  const to = text.indexOf(END);
  if (from < 0 || to < from) return undefined;
  return text.slice(from + BEGIN.length, to).trim();
}

/** Rewrites the table in docs/mutation.md. */
export function writeDocTable(root: string, mutants: readonly Mutant[]): void {
  const file = join(root, DOC_FILE);
  const text = readFileSync(file, 'utf8');
  const from = text.indexOf(BEGIN);
  const to = text.indexOf(END);
  if (from < 0 || to < from) throw new Error(`${DOC_FILE} has no ${BEGIN} ... ${END} region`);
  writeFileSync(file, `${text.slice(0, from)}${BEGIN}\n${catalogueTable(mutants)}\n${text.slice(to)}`);
}
