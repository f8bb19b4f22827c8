// The generated documentation is fresh (`npm run docs` after changing a scenario, the fix table, an
// invariant description, a hazard or a command's flags), and `podrace explain` prints the very entries
// docs/races.md has: one source, no second copy.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { explainSections } from '../../src/cli/explainRun.js';
import { generatedDocs } from '../../src/cli/genDocs.js';
import { glossaryNames } from '../../src/reference/entries.js';
import { bundledGlossary } from '../../src/reference/glossary.js';
import { region, regionIds, replaceRegion } from '../../src/reference/regions.js';
import { readDoc } from './docText.js';

describe('generated documentation', () => {
  const docs = generatedDocs();

  for (const d of docs)
    it(`${d.path.replace(/.*\/docs\//, 'docs/')} equals a fresh generation (run \`npm run docs\`)`, () => {
      expect(readFileSync(d.path, 'utf8')).toBe(d.text);
    });

  it('docs/cli.md has a generated block for every command and the global options', () => {
    const ids = regionIds(readDoc('docs/cli.md'));
    expect(ids).toContain('global-options');
    for (const c of ['run', 'verify', 'list', 'explain', 'fuzz', 'replay', 'merge', 'main', 'help'])
      expect(ids).toContain(`command-${c}`);
  });

  it('a region is replaced whole, and a missing one is an error', () => {
    const text = `a\n${region('x', 'old')}\nb\n`;
    expect(replaceRegion(text, 'x', 'new')).toBe(`a\n${region('x', 'new')}\nb\n`);
    expect(() => replaceRegion(text, 'y', 'new')).toThrow(/no generated region "y"/);
  });
});

describe('podrace explain and docs/races.md', () => {
  const races = readDoc('docs/races.md');
  const g = bundledGlossary();

  it('print the same entry for every name', () => {
    const names = Object.values(glossaryNames(g)).flat();
    expect(names.length).toBeGreaterThan(60);
    for (const name of names) {
      const sections = explainSections(g, name);
      expect(sections.length, name).toBeGreaterThan(0);
      for (const s of sections) expect(races, name).toContain(s.slice(1).join('\n'));
    }
  });
});
