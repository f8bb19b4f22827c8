// Checks the catalogue against today's source before anything is built: a mutant whose text is not
// found exactly once, that names a forbidden or missing file, repeats an id, changes nothing or leaves
// a file esbuild cannot parse would measure nothing (or the wrong thing).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { transformSync } from 'esbuild';
import type { Mutant } from './catalogue.js';
import { AREAS, type Area, areaOf, isForbidden, MIN_NON_EQUIVALENT, MIN_PER_AREA } from './rules.js';

/** How often `find` occurs in `text` (overlapping occurrences counted). */
export function occurrences(text: string, find: string): number {
  if (find === '') return Number.POSITIVE_INFINITY;
  let n = 0;
  for (let i = text.indexOf(find); i >= 0; i = text.indexOf(find, i + 1)) n++;
  return n;
}

/** The file's text with the mutant applied (the caller has checked that `find` occurs once). */
export function applyMutant(text: string, m: Pick<Mutant, 'find' | 'replace'>): string {
  const i = text.indexOf(m.find);
  if (i < 0) throw new Error(`text not found: ${JSON.stringify(m.find)}`);
  return text.slice(0, i) + m.replace + text.slice(i + m.find.length);
}

export interface ValidateOptions {
  /** Also require the catalogue's size rules (per area, non-equivalent count): off for a partial list. */
  readonly sizeRules?: boolean;
  /** Parse each mutated file with esbuild (about 2 ms each). */
  readonly parse?: boolean;
}

/** Every problem of the catalogue, one line each (empty when it is valid). */
export function validateCatalogue(
  mutants: readonly Mutant[],
  root: string,
  options: ValidateOptions = {},
): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const m of mutants) {
    const at = `${m.id} (${m.file})`;
    if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(m.id)) problems.push(`${at}: the id is not kebab-case`);
    if (m.id.startsWith('_')) problems.push(`${at}: ids starting with _ are the runner's`);
    if (seen.has(m.id)) problems.push(`${at}: the id is used twice`);
    seen.add(m.id);
    if (!m.file.startsWith('src/') || !m.file.endsWith('.ts') || m.file.includes('..'))
      problems.push(`${at}: not a TypeScript file under src/`);
    if (isForbidden(m.file))
      problems.push(`${at}: the file is simulated ground truth (test/mutation/rules.ts FORBIDDEN)`);
    else if (areaOf(m.file) === undefined) problems.push(`${at}: the file is in no area (rules.ts areaOf)`);
    if (m.find === m.replace) problems.push(`${at}: replace equals find`);
    if (m.why.trim() === '' || m.why.includes('\n')) problems.push(`${at}: why must be one line`);
    if (m.equivalent !== undefined && m.equivalent.trim() === '')
      problems.push(`${at}: equivalent needs a reason`);
    const path = join(root, m.file);
    if (!existsSync(path)) {
      problems.push(`${at}: the file does not exist`);
      continue;
    }
    const text = readFileSync(path, 'utf8');
    const n = occurrences(text, m.find);
    if (n !== 1) {
      problems.push(`${at}: find occurs ${n === Number.POSITIVE_INFINITY ? 'empty' : n} times, not once`);
      continue;
    }
    if (options.parse !== false) {
      try {
        transformSync(applyMutant(text, m), { loader: 'ts', sourcefile: m.file, logLevel: 'silent' });
      } catch (err) {
        const first = err instanceof Error ? (err.message.split('\n')[1] ?? err.message) : String(err);
        problems.push(`${at}: the mutated file does not parse: ${first.trim()}`);
      }
    }
  }
  if (options.sizeRules === true) {
    const live = mutants.filter((m) => m.equivalent === undefined);
    if (live.length < MIN_NON_EQUIVALENT)
      problems.push(`only ${live.length} non-equivalent mutants, at least ${MIN_NON_EQUIVALENT} needed`);
    const perArea = countByArea(mutants);
    for (const a of AREAS)
      if (perArea[a] < MIN_PER_AREA)
        problems.push(`area ${a} has ${perArea[a]} mutants, at least ${MIN_PER_AREA} needed`);
  }
  return problems;
}

export function countByArea(mutants: readonly Mutant[]): Record<Area, number> {
  const out = Object.fromEntries(AREAS.map((a) => [a, 0])) as Record<Area, number>;
  for (const m of mutants) {
    const a = areaOf(m.file);
    if (a !== undefined) out[a]++;
  }
  return out;
}
