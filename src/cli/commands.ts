// The podrace commands (SPEC section 2). Each handler sets the exit code through `setExit`; bad input
// throws InputError (exit 2). Output for humans goes through chalk; `--json` prints machine output only.
import { fileURLToPath } from 'node:url';
import { Chalk } from 'chalk';
import type { Argv } from 'yargs';
import { FIX_IDS, FIX_TABLE, type FixDef, fixApplies, fixPrs, RELEASE_PRESETS } from '../fixes.js';
import { INVARIANT_DESCRIPTIONS } from '../invariants/descriptions.js';
import { INVARIANT_IDS } from '../invariants/types.js';
import { toChromeTrace } from '../report/chromeTrace.js';
import { resultToJson } from '../report/json.js';
import { formatTimeline, formatViolation } from '../report/terminalTimeline.js';
import { toTimelineHtml } from '../report/timelineHtml.js';
import { scenarioFiles } from '../scenario/files.js';
import { loadScenarioFile } from '../scenario/load.js';
import { type ClaimResult, checkClaim, claimLabel, runScenario } from '../scenario/run.js';
import type { Scenario } from '../scenario/types.js';
import { bisect, formatBisection } from './bisect.js';
import { EXIT, InputError } from './errors.js';
import { registerFuzzCommands } from './fuzzCommands.js';
import { registerMergeCommand } from './mergeCommand.js';
import { fixesOption, fixSelectionOptions, seedOption } from './options.js';
import { refuseInputsAsOutputs, writeOutputFile } from './output.js';

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
          .positional('file', { type: 'string', describe: 'scenario file (YAML)', demandOption: true })
          .option('seed', {
            type: 'string',
            requiresArg: true,
            describe: "seed (decimal or 0x-hex uint32); default: the file's",
          })
          .options(fixSelectionOptions)
          .option('json', { type: 'boolean', default: false, describe: 'print the JSON result only' })
          .option('trace', {
            type: 'string',
            requiresArg: true,
            describe: 'write a Chrome trace (Perfetto) to this file',
          })
          .option('timeline', {
            type: 'string',
            requiresArg: true,
            describe: 'write a self-contained HTML timeline to this file',
          })
          .option('quiet', { type: 'boolean', default: false, describe: 'print only the summary line' })
          .option('bisect', {
            type: 'boolean',
            default: false,
            describe: 'then re-run it with each fix switch flipped: which switches close the violations',
          }),
      (argv) => {
        refuseInputsAsOutputs([String(argv.file)], { '--trace': argv.trace, '--timeline': argv.timeline });
        const scenario = loadScenarioFile(String(argv.file));
        const fixes = fixesOption(argv.kubelet, argv.fix);
        const seed = argv.seed === undefined ? scenario.seed : seedOption(argv.seed);
        const wantFacts =
          argv.trace !== undefined || argv.timeline !== undefined || (!argv.json && !argv.quiet);
        const start = wallClockMs();
        const result = runScenario(scenario, { fixes, seed, recordFacts: wantFacts });
        const wallMs = Math.round((wallClockMs() - start) * 10) / 10;
        if (argv.trace !== undefined) writeOutputFile(argv.trace, toChromeTrace(result));
        if (argv.timeline !== undefined) writeOutputFile(argv.timeline, toTimelineHtml(result));
        const color = colorEnabled(argv['color'], process.stdout.isTTY === true, process.env);
        const bisection = argv.bisect ? bisect(scenario, fixes, seed, result) : undefined;
        if (argv.json) {
          const json = resultToJson(result, wallMs);
          process.stdout.write(
            `${JSON.stringify(bisection === undefined ? json : { ...json, bisect: bisection })}\n`,
          );
        } else {
          const c = new Chalk({ level: color ? 1 : 0 });
          if (!argv.quiet) {
            process.stdout.write(`${c.bold(scenario.name)}  seed ${seed}  fixes ${fixes.label()}\n`);
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
          if (bisection !== undefined)
            for (const line of formatBisection(bisection, color)) process.stdout.write(`${line}\n`);
        }
        setExit(result.violations.length === 0 ? EXIT.OK : EXIT.VIOLATION);
      },
    )
    .command(
      'verify [paths..]',
      'Check every claim of every scenario (default: scenarios/) and print a table',
      (y) =>
        y
          .positional('paths', { type: 'string', array: true, describe: 'scenario files or folders' })
          .option('json', { type: 'boolean', default: false, describe: 'one JSON object per claim' })
          .option('junit', {
            type: 'string',
            requiresArg: true,
            describe: 'also write a JUnit XML report to this file (one test case per claim)',
          }),
      async (argv) => {
        const paths =
          argv.paths === undefined || argv.paths.length === 0 ? ['scenarios'] : argv.paths.map(String);
        const files = scenarioFiles(paths);
        refuseInputsAsOutputs(files, { '--junit': argv.junit });
        const scenarios = files.map((f) => loadScenarioFile(f));
        checkUniqueNames(scenarios);
        const color = colorEnabled(argv['color'], process.stdout.isTTY === true, process.env);
        const rows = verifyScenarios(scenarios);
        if (argv.json) {
          for (const r of rows) {
            process.stdout.write(
              `${JSON.stringify({
                scenario: r.scenario.name,
                file: r.scenario.file,
                line: r.claim.claim.line,
                claim: claimLabel(r.claim.claim),
                expected: r.claim.expected,
                actual: r.claim.actual,
                expectedFindings: r.claim.expectedFindings,
                findings: r.claim.actualFindings,
                pass: r.claim.pass,
              })}\n`,
            );
          }
        } else {
          for (const line of formatVerifyTable(rows, color)) process.stdout.write(`${line}\n`);
        }
        if (argv.junit !== undefined) {
          const { junitXml, verifyJUnit } = await import('../report/junit.js');
          writeOutputFile(argv.junit, junitXml(verifyJUnit(rows)));
        }
        const failed = rows.filter((r) => !r.claim.pass).length;
        setExit(failed === 0 ? EXIT.OK : EXIT.VIOLATION);
      },
    )
    .command(
      'list [what]',
      'List the invariants, fixes or bundled scenarios, one line each',
      (y) =>
        y.positional('what', {
          type: 'string',
          choices: ['invariants', 'fixes', 'scenarios'],
          default: 'invariants',
        }),
      (argv) => {
        for (const line of listLines(String(argv.what))) process.stdout.write(`${line}\n`);
        setExit(EXIT.OK);
      },
    );
  registerFuzzCommands(parser, setExit);
  registerMergeCommand(parser, setExit);
}

export interface VerifyRow {
  readonly scenario: Scenario;
  readonly claim: ClaimResult;
}

export function verifyScenarios(scenarios: readonly Scenario[]): VerifyRow[] {
  const rows: VerifyRow[] = [];
  for (const scenario of scenarios)
    for (const claim of scenario.claims) rows.push({ scenario, claim: checkClaim(scenario, claim) });
  return rows;
}

function checkUniqueNames(scenarios: readonly Scenario[]): void {
  const seen = new Map<string, string>();
  for (const s of scenarios) {
    const other = seen.get(s.name);
    if (other !== undefined)
      throw new InputError(`${s.file}: name: "${s.name}" is already used by ${other}`, { located: true });
    seen.set(s.name, s.file);
  }
}

export function formatVerifyTable(rows: readonly VerifyRow[], color: boolean): string[] {
  const c = new Chalk({ level: color ? 1 : 0 });
  const lines: string[] = [];
  const nameWidth = Math.max(8, ...rows.map((r) => r.scenario.name.length));
  const claimWidth = Math.max(5, ...rows.map((r) => claimLabel(r.claim.claim).length));
  lines.push(`${'scenario'.padEnd(nameWidth)}  ${'claim'.padEnd(claimWidth)}  result`);
  for (const r of rows) {
    const label = claimLabel(r.claim.claim).padEnd(claimWidth);
    const verdict = r.claim.pass ? c.green('pass') : c.red('FAIL');
    const findings = (ids: readonly string[] | null) =>
      ids === null || ids.length === 0 ? '' : ` findings [${ids.join(', ')}]`;
    let detail = `[${r.claim.actual.join(', ')}]${findings(r.claim.expectedFindings === null ? null : r.claim.actualFindings)}`;
    if (!r.claim.pass)
      detail = `expected [${r.claim.expected.join(', ')}]${findings(r.claim.expectedFindings)}, got [${r.claim.actual.join(', ')}]${findings(r.claim.actualFindings)}  (${r.scenario.file}:${r.claim.claim.line})`;
    lines.push(`${r.scenario.name.padEnd(nameWidth)}  ${label}  ${verdict}  ${detail}`);
  }
  const failed = rows.filter((r) => !r.claim.pass).length;
  lines.push(
    failed === 0
      ? c.green(`${rows.length} claims, all hold`)
      : c.red(`${failed} of ${rows.length} claims failed`),
  );
  return lines;
}

export function listLines(what: string): string[] {
  switch (what) {
    case 'fixes':
      return fixesTable();
    case 'scenarios': {
      // The bundled scenarios ship beside the code (dist/cli/ or src/cli/ -> ../../scenarios).
      const files = scenarioFiles([fileURLToPath(new URL('../../scenarios', import.meta.url))]);
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
