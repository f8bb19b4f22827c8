// `npm run bench`: measures, never asserts. Prints a table per section for people; with --json, one JSON
// object on the last line (the sections' figures under their keys). --only=a,b runs some sections:
// kernel, scenarios, fuzz, timeToBug (with shrink), explore (keys explore.scenarios and explore.switches,
// about 25 minutes), memory, cli, mutation. The mutation section reuses
// .mutation/report.json when it measured this very source, else runs `npm run mutation` (about 10
// minutes on an idle 2-core machine; docs/mutation.md).
import { benchCli } from './cli.js';
import { benchExploreScenarios, benchExploreSwitches } from './explore.js';
import { benchFuzz } from './fuzz.js';
import { benchKernel } from './kernel.js';
import type { BenchSection } from './measure.js';
import { benchMemory } from './memory.js';
import { benchMutation } from './mutation.js';
import { benchScenarios } from './scenarios.js';
import { measureTimeToBug, shrinkSection, timeToBugSection } from './timeToBug.js';

const SECTIONS = [
  'kernel',
  'scenarios',
  'fuzz',
  'timeToBug',
  'explore',
  'memory',
  'cli',
  'mutation',
] as const;
type SectionName = (typeof SECTIONS)[number];

function parseArgs(argv: readonly string[]): { json: boolean; only: ReadonlySet<SectionName> } {
  let json = false;
  let only: Set<SectionName> = new Set(SECTIONS);
  for (const a of argv) {
    if (a === '--json') json = true;
    else if (a.startsWith('--only=')) {
      const names = a.slice('--only='.length).split(',');
      const unknown = names.filter((n) => !(SECTIONS as readonly string[]).includes(n));
      if (unknown.length > 0)
        throw new Error(`unknown section(s) ${unknown.join(', ')}; known: ${SECTIONS.join(', ')}`);
      only = new Set(names as SectionName[]);
    } else
      throw new Error(
        `unknown argument ${a}; usage: npm run bench -- [--json] [--only=${SECTIONS.join(',')}]`,
      );
  }
  return { json, only };
}

async function main(): Promise<void> {
  const { json, only } = parseArgs(process.argv.slice(2));
  const result: Record<string, unknown> = {};
  const show = (key: string, s: BenchSection): void => {
    result[key] = s.json;
    // With --json the tables go to stderr, so stdout's last line is the object alone.
    const write = json ? (l: string) => process.stderr.write(`${l}\n`) : (l: string) => console.log(l);
    write('');
    write(`== ${s.title}`);
    for (const line of s.lines) write(line);
  };
  if (only.has('kernel')) show('kernel', await benchKernel());
  if (only.has('scenarios')) show('scenarios', await benchScenarios());
  if (only.has('fuzz')) show('fuzz', await benchFuzz());
  if (only.has('timeToBug')) {
    const rows = measureTimeToBug();
    show('timeToBug', timeToBugSection(rows));
    show('shrink', await shrinkSection(rows));
  }
  if (only.has('explore')) {
    show('explore.scenarios', benchExploreScenarios());
    show('explore.switches', benchExploreSwitches());
  }
  if (only.has('memory')) show('memory', await benchMemory());
  if (only.has('cli')) show('cli', benchCli());
  if (only.has('mutation')) show('mutation', await benchMutation());
  if (json) console.log(JSON.stringify(result));
}

main().catch((err: unknown) => {
  process.stderr.write(`bench: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
