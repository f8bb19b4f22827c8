// The podrace commands (docs/cli.md). Each handler sets the exit code through `setExit`; bad input
// throws InputError (exit 2). Output for humans goes through chalk; `--json` prints machine output only.
import { Chalk } from 'chalk';
import type { Argv } from 'yargs';
import { FIX_IDS, FIX_TABLE, type FixDef, fixApplies, fixPrs, RELEASE_PRESETS } from '../fixes.js';
import { INVARIANT_DESCRIPTIONS } from '../invariants/descriptions.js';
import { INVARIANT_IDS } from '../invariants/types.js';
import { resultToJson } from '../report/json.js';
import { formatTimeline, formatViolation } from '../report/terminalTimeline.js';
import { bundledScenarioFiles } from '../scenario/bundled.js';
import { scenarioFiles } from '../scenario/files.js';
import { loadScenarioFile } from '../scenario/load.js';
import { incompleteLine, runScenario } from '../scenario/run.js';
import { bisect, formatBisection } from './bisect.js';
import { registerDiffCommand } from './diffCommand.js';
import { EXIT } from './errors.js';
import { eventFilterOf, eventLines, eventsOptions } from './eventsOption.js';
import { registerExplainCommand } from './explainCommand.js';
import { registerFuzzCommands } from './fuzzCommands.js';
import { registerMergeCommand } from './mergeCommand.js';
import { fixesOption, fixSelectionOptions, positiveIntOption, seedOption } from './options.js';
import { refuseInputsAsOutputs, writeOutputFile } from './output.js';
import { runFileOptions, writeRunFiles } from './runFiles.js';
import { defaultScenariosDir, expandScenarioPaths, resolveScenarioArg } from './scenarioArgs.js';
import { runSweep } from './seedSweep.js';
import {
  formatVerifyTable,
  type InvalidRow,
  type VerifyRow,
  verifyFiles,
  verifyJsonLines,
  verifySummary,
} from './verify.js';

export { scenarioFiles };

/** NO_COLOR is honoured unless FORCE_COLOR is set (as Node does); --color / --no-color win. */
export function colorEnabled(flag: unknown, isTTY: boolean, env: NodeJS.ProcessEnv): boolean {
  if (flag === true) return true;
  if (flag === false) return false;
  if (env['FORCE_COLOR'] !== undefined) return env['FORCE_COLOR'] !== '0';
  if (env['NO_COLOR'] !== undefined && env['NO_COLOR'] !== '') return false;
  if (env['TERM'] === 'dumb') return false;
  return isTTY;
}

export function wallClockMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

export function registerCommands(parser: Argv, setExit: (code: number) => void): void {
  parser
    .command(
      'run <file>',
      'Run one scenario once with the given configuration and print the violations (ignores its claims)',
      (y) =>
        y
          .positional('file', {
            type: 'string',
            describe: 'scenario file (YAML), or the name of a bundled scenario',
            demandOption: true,
          })
          .option('seed', {
            type: 'string',
            requiresArg: true,
            describe: "seed (decimal or 0x-hex uint32); default: the file's",
          })
          .options(fixSelectionOptions)
          .option('json', { type: 'boolean', default: false, describe: 'print the JSON result only' })
          .options(runFileOptions)
          .options(eventsOptions)
          .option('seeds', {
            type: 'string',
            requiresArg: true,
            describe:
              'run it once per seed (1..200, or a comma list) and count the seeds that fire each invariant',
          })
          .option('quiet', { type: 'boolean', default: false, describe: 'print only the summary line' })
          .option('bisect', {
            type: 'boolean',
            default: false,
            describe: 'then re-run it with each fix switch flipped: which switches close the violations',
          })
          .option('max-events', maxEventsFlag)
          .example(
            '$0 run pod-deleted-before-start --kubelet legacy',
            'a bundled race without its fix: exit 1',
          ),
      (argv) => {
        const file = resolveScenarioArg(String(argv.file));
        refuseInputsAsOutputs([file], { '--trace': argv.trace, '--timeline': argv.timeline });
        const scenario = loadScenarioFile(file);
        const fixes = fixesOption(argv.kubelet, argv.fix);
        if (argv.seeds !== undefined) {
          const conflicts = [
            'seed',
            'trace',
            'timeline',
            'events',
            'node',
            'pod',
            'volume',
            'kind',
            'since',
            'until',
          ]
            .filter((k) => argv[k] !== undefined)
            .concat(argv.bisect ? ['bisect'] : [])
            .map((k) => `--${k}`);
          const color = colorEnabled(argv['color'], process.stdout.isTTY === true, process.env);
          const sweep = { seeds: argv.seeds, json: argv.json, color, conflicts };
          setExit(runSweep(scenario, fixes, sweep, wallClockMs, (l) => process.stdout.write(`${l}\n`)));
          return;
        }
        const seed = argv.seed === undefined ? scenario.seed : seedOption(argv.seed);
        const events = eventFilterOf(argv, scenario);
        const wantFacts =
          argv.trace !== undefined ||
          argv.timeline !== undefined ||
          events !== undefined ||
          (!argv.json && !argv.quiet);
        const maxEvents = maxEventsOption(argv['max-events']);
        const start = wallClockMs();
        const result = runScenario(scenario, { fixes, seed, recordFacts: wantFacts, maxEvents });
        const wallMs = Math.round((wallClockMs() - start) * 10) / 10;
        writeRunFiles(result, argv);
        const color = colorEnabled(argv['color'], process.stdout.isTTY === true, process.env);
        const bisection = argv.bisect ? bisect(scenario, fixes, seed, result) : undefined;
        if (argv.json && events !== undefined) {
          for (const line of eventLines(result, events, true, false)) process.stdout.write(`${line}\n`);
        } else if (argv.json) {
          const json = resultToJson(result, wallMs);
          process.stdout.write(
            `${JSON.stringify(bisection === undefined ? json : { ...json, bisect: bisection })}\n`,
          );
        } else {
          const c = new Chalk({ level: color ? 1 : 0 });
          if (!argv.quiet) {
            process.stdout.write(`${c.bold(scenario.name)}  seed ${seed}  fixes ${fixes.label()}\n`);
          }
          if (!argv.quiet && events !== undefined) {
            for (const line of eventLines(result, events, false, color)) process.stdout.write(`${line}\n`);
          } else if (!argv.quiet) {
            for (const line of formatTimeline(result, { color, limit: 200 }))
              process.stdout.write(`${line}\n`);
            for (const v of result.violations) process.stdout.write(`${formatViolation(v, color)}\n`);
            for (const v of result.findings) process.stdout.write(`${formatViolation(v, color)}\n`);
          }
          const findings =
            result.findings.length === 0 ? '' : c.cyan(`, ${result.findings.length} finding(s)`);
          const verdict =
            (result.violations.length === 0
              ? c.green('no violations')
              : c.red(`${result.violations.length} violation(s)`)) + findings;
          process.stdout.write(
            `${verdict}  (${result.events} events, ${(result.virtualTimeMs / 1000).toFixed(3)}s virtual, ${wallMs}ms wall, ${result.outcome})\n`,
          );
          if (!result.complete) process.stdout.write(`${c.red(incompleteLine(result))}\n`);
          if (bisection !== undefined)
            for (const line of formatBisection(bisection, color)) process.stdout.write(`${line}\n`);
        }
        // A run cut short did not check the rest of its scenario: never a pass.
        setExit(result.violations.length === 0 && result.complete ? EXIT.OK : EXIT.VIOLATION);
      },
    )
    .command(
      'verify [paths..]',
      "Check every claim of every scenario (default: the project's scenarios/) and print a table",
      (y) =>
        y
          .positional('paths', {
            type: 'string',
            array: true,
            describe: 'scenario files, folders or bundled scenario names',
          })
          .option('json', {
            type: 'boolean',
            default: false,
            describe: 'JSON lines: one per claim, then a summary',
          })
          .option('max-events', maxEventsFlag)
          .option('junit', {
            type: 'string',
            requiresArg: true,
            describe: 'also write a JUnit XML report to this file (one test case per claim)',
          })
          .example('$0 verify scenarios/ my-scenarios/race.yaml', 'check the claims of a folder and a file'),
      async (argv) => {
        const paths =
          argv.paths === undefined || argv.paths.length === 0
            ? [defaultScenariosDir()]
            : argv.paths.map(String);
        const { files, invalid } = expandScenarioPaths(paths);
        refuseInputsAsOutputs(files, { '--junit': argv.junit });
        const entries = verifyFiles(files, invalid, maxEventsOption(argv['max-events']));
        const color = colorEnabled(argv['color'], process.stdout.isTTY === true, process.env);
        const out = argv.json ? verifyJsonLines(entries) : formatVerifyTable(entries, color);
        for (const line of out) process.stdout.write(`${line}\n`);
        if (argv.junit !== undefined) {
          const { junitXml, verifyJUnit } = await import('../report/junit.js');
          const rows = entries.filter((e): e is VerifyRow => 'claim' in e);
          const bad = entries.filter((e): e is InvalidRow => 'message' in e);
          writeOutputFile(argv.junit, junitXml(verifyJUnit(rows, bad)));
        }
        setExit(verifySummary(entries).exitCode);
      },
    )
    .command(
      'list [what]',
      'List the invariants, fixes or bundled scenarios, one line each',
      (y) =>
        y
          .positional('what', {
            type: 'string',
            choices: ['invariants', 'fixes', 'scenarios'],
            default: 'invariants',
          })
          .example('$0 list fixes', 'the fix switches, their upstream PRs and release presets'),
      (argv) => {
        for (const line of listLines(String(argv.what))) process.stdout.write(`${line}\n`);
        setExit(EXIT.OK);
      },
    );
  registerFuzzCommands(parser, setExit);
  registerMergeCommand(parser, setExit);
  registerExplainCommand(parser, setExit);
  registerDiffCommand(parser, setExit);
}

export { formatVerifyTable, type VerifyRow, verifyScenarios } from './verify.js';

const maxEventsFlag = {
  type: 'string',
  requiresArg: true,
  describe: 'event budget of a run (default: sized from the scenario: its horizon, nodes and pods)',
} as const;

function maxEventsOption(value: unknown): number | undefined {
  return value === undefined ? undefined : positiveIntOption(value, '--max-events');
}

export function listLines(what: string): string[] {
  switch (what) {
    case 'fixes':
      return fixesTable();
    case 'scenarios': {
      const files = bundledScenarioFiles();
      const names = files.map((f) => loadScenarioFile(f).name);
      const width = Math.max(...names.map((n) => n.length)) + 2;
      return files.map((f) => {
        const s = loadScenarioFile(f);
        // One line: the description's first sentence, cut at 100 characters.
        const text = s.description.replace(/\s+/g, ' ').trim();
        const sentence = text.split(/(?<=\.)\s/)[0] ?? '';
        const first = sentence.length > 100 ? `${sentence.slice(0, 99)}…` : sentence;
        return `${s.name.padEnd(width)}${first}`;
      });
    }
    default:
      return INVARIANT_IDS.map((id) => `${id.padEnd(40)}${INVARIANT_DESCRIPTIONS[id]}`);
  }
}

/**
 * `podrace list fixes`: one line a switch, with its PRs, the release that first shipped it from master,
 * and its state in the last patch of each release preset (n/a where the code it switches does not
 * exist in that release); its summary and backports on the line below.
 */
export function fixesTable(): string[] {
  const idWidth = Math.max(...FIX_IDS.map((id) => id.length)) + 2;
  const prWidth = Math.max(...FIX_IDS.map((id) => fixPrs(id).length)) + 2;
  const head = `${'fix'.padEnd(idWidth)}${'upstream'.padEnd(prWidth)}${'since'.padEnd(7)}${RELEASE_PRESETS.map((p) => p.padEnd(6)).join('')}`;
  const lines = [head];
  for (const id of FIX_IDS) {
    const d: FixDef = FIX_TABLE[id];
    const presets = RELEASE_PRESETS.map((p) =>
      (fixApplies(id, p) ? (d.presets[p] ? 'on' : 'off') : 'n/a').padEnd(6),
    ).join('');
    lines.push(`${id.padEnd(idWidth)}${fixPrs(id).padEnd(prWidth)}${d.release.padEnd(7)}${presets}`);
    const backports = d.backports.length === 0 ? '' : ` (backports: ${d.backports.join(', ')})`;
    lines.push(`${''.padEnd(idWidth)}${d.summary}${backports}`);
  }
  lines.push('fixed: every switch on; legacy: every switch off; --fix ID=on|off applies after --kubelet.');
  return lines;
}
