// `podrace explain NAME`: the glossary entry of a bundled scenario, an invariant, a fix switch or a
// known-open hazard, the very section docs/races.md has for it (src/reference/), as terminal text.
import { Chalk } from 'chalk';
import { isFixId } from '../fixes.js';
import { HAZARD_IDS, type HazardId } from '../invariants/hazards.js';
import { isInvariantId } from '../invariants/types.js';
import {
  fixSection,
  glossaryNames,
  hazardSection,
  invariantSection,
  scenarioSection,
} from '../reference/entries.js';
import { bundledGlossary, type Glossary } from '../reference/glossary.js';
import { markdownToText } from '../reference/terminalText.js';
import { didYouMean } from '../scenario/schema.js';
import type { ArgvOf } from './commands.js';
import { EXIT, InputError } from './errors.js';
import type { explainBuilder } from './explainCommand.js';
import { colorEnabled } from './terminal.js';

/** Every section named `name` (a scenario and a hazard may share one), each headed by its kind. */
export function explainSections(g: Glossary, name: string): string[][] {
  const out: string[][] = [];
  const headed = (kind: string, section: string[]) => [`### ${kind} ${name}`, ...section.slice(1)];
  const scenario = g.scenarios.find((e) => e.scenario.name === name);
  if (scenario !== undefined) out.push(headed('scenario', scenarioSection(scenario)));
  if (isInvariantId(name)) out.push(headed('invariant', invariantSection(g, name)));
  if (isFixId(name)) out.push(headed('fix', fixSection(g, name)));
  if ((HAZARD_IDS as readonly string[]).includes(name))
    out.push(headed('known-open hazard', hazardSection(name as HazardId)));
  return out;
}

/** The lines `explain` prints, or an InputError naming the closest names. */
export function explainLines(g: Glossary, name: string, color: boolean): string[] {
  const sections = explainSections(g, name);
  if (sections.length === 0) {
    const all = Object.values(glossaryNames(g)).flat();
    const near = all.filter((n) => n.includes(name) && n !== name);
    const containing = near.length === 0 ? '' : `; names containing it: ${near.join(', ')}`;
    throw new InputError(
      `explain: no scenario, invariant, fix or hazard is called "${name}"${didYouMean(name, all)}${containing}; \`npx podrace list scenarios|invariants|fixes\` lists them`,
    );
  }
  const c = new Chalk({ level: color ? 1 : 0 });
  return sections.flatMap((s, i) => [
    ...(i === 0 ? [] : ['']),
    ...markdownToText(s, { bold: (t) => c.bold(t) }),
  ]);
}

export function explainCommand(argv: ArgvOf<typeof explainBuilder>): number {
  const color = colorEnabled(argv['color'], process.stdout.isTTY === true, process.env);
  for (const line of explainLines(bundledGlossary(), String(argv.name), color))
    process.stdout.write(`${line}\n`);
  return EXIT.OK;
}
