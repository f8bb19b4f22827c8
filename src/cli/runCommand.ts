// `podrace run`: one scenario once (or a seed sweep), its timeline or events, the JSON result, the trace and
// timeline files. Loaded only when the command runs (src/cli/commands.ts registers it).
import { Chalk } from 'chalk';
import { resultToJson, scheduleText } from '../report/json.js';
import { incompleteLine, runScenario } from '../run/run.js';
import { loadScenarioFile } from '../scenario/load.js';
import type { ArgvOf, runBuilder } from './commands.js';
import { EXIT, InputError } from './errors.js';
import { eventFilterOf, eventLines } from './eventsOption.js';
import { fixesOption, maxEventsOption, seedOption } from './options.js';
import { checkOutputPaths, refuseInputsAsOutputs, writeOutputFile } from './output.js';
import { scenarioArg } from './scenarioArgs.js';
import { scheduleMisfit, scheduleOption } from './scheduleOption.js';
import { colorEnabled, wallClockMs } from './terminal.js';

export async function runCommand(argv: ArgvOf<typeof runBuilder>): Promise<number> {
  // The flags first: a typo in one is reported before the scenario is looked for and loaded.
  const fixes = fixesOption(argv.kubelet, argv.fix);
  const { file, shown } = scenarioArg(String(argv.file));
  const outputs = { '--trace': argv.trace, '--timeline': argv.timeline, '--klog': argv.klog };
  refuseInputsAsOutputs([file], outputs);
  checkOutputPaths(outputs);
  const scenario = loadScenarioFile(file);
  if (argv.seeds !== undefined) {
    const conflicts = [
      'seed',
      'trace',
      'timeline',
      'klog',
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
      .concat(argv.schedule !== undefined ? ['schedule'] : [])
      .map((k) => `--${k}`);
    const color = colorEnabled(argv['color'], process.stdout.isTTY === true, process.env);
    const sweep = {
      shown,
      seeds: argv.seeds,
      json: argv.json,
      color,
      conflicts,
      maxEvents: maxEventsOption(argv['max-events']),
    };
    const { runSweep } = await import('./seedSweep.js');
    return runSweep(scenario, fixes, sweep, wallClockMs, (l) => process.stdout.write(`${l}\n`));
  }
  const seed = argv.seed === undefined ? scenario.seed : seedOption(argv.seed);
  const schedule = argv.schedule === undefined ? undefined : scheduleOption(argv.schedule);
  if (schedule !== undefined && argv.elide === false)
    throw new InputError(
      "--schedule and --no-elide cannot be combined (a schedule's choice points are those of the run that skips idle rounds)",
    );
  if (schedule !== undefined && argv.bisect)
    throw new InputError(
      '--schedule and --bisect cannot be combined (a flipped switch changes the choice points)',
    );
  const events = eventFilterOf(argv, scenario);
  const wantFacts =
    argv.trace !== undefined ||
    argv.timeline !== undefined ||
    argv.klog !== undefined ||
    events !== undefined ||
    (!argv.json && !argv.quiet);
  const maxEvents = maxEventsOption(argv['max-events']);
  const start = wallClockMs();
  const result = runScenario(scenario, { fixes, seed, recordFacts: wantFacts, maxEvents, schedule });
  if (result.choices?.misfit !== undefined) throw scheduleMisfit(argv.schedule, shown, result.choices.misfit);
  const wallMs = Math.round((wallClockMs() - start) * 10) / 10;
  // The report modules of the files and the output asked for, imported only then: a --quiet or --json run
  // reads and compiles none of the timeline's (the HTML one alone is 60 KB of the bundle).
  const files =
    argv.trace !== undefined || argv.timeline !== undefined ? await import('./runFiles.js') : undefined;
  const klogFile = argv.klog;
  const klog = klogFile === undefined ? undefined : await import('../report/klog.js');
  // Checked before the run; a write that fails after all (a full disk) is reported after the output.
  let writeError: unknown;
  try {
    files?.writeRunFiles(result, argv);
    if (klogFile !== undefined && klog !== undefined)
      writeOutputFile(klogFile, klog.klogText(klog.toKlogLines(result, scenario)));
  } catch (err) {
    writeError = err;
  }
  const color = colorEnabled(argv['color'], process.stdout.isTTY === true, process.env);
  // The oracle (and the fuzzer it belongs to) only for --bisect.
  const bisector = argv.bisect ? await import('./bisect.js') : undefined;
  const bisection = bisector?.bisect(scenario, fixes, seed, result, maxEvents);
  if (argv.json && events !== undefined) {
    for (const line of await eventLines(result, events, true, false)) process.stdout.write(`${line}\n`);
  } else if (argv.json) {
    const json = resultToJson(result, wallMs);
    process.stdout.write(
      `${JSON.stringify(bisection === undefined ? json : { ...json, bisect: bisection })}\n`,
    );
  } else {
    const c = new Chalk({ level: color ? 1 : 0 });
    const timeline =
      argv.quiet || events !== undefined ? undefined : await import('../report/terminalTimeline.js');
    if (!argv.quiet) {
      const followed = schedule === undefined ? '' : `  schedule ${scheduleText(schedule)}`;
      process.stdout.write(`${c.bold(scenario.name)}  seed ${seed}  fixes ${fixes.label()}${followed}\n`);
    }
    if (!argv.quiet && events !== undefined) {
      for (const line of await eventLines(result, events, false, color)) process.stdout.write(`${line}\n`);
    } else if (timeline !== undefined) {
      const { formatTimeline, formatViolation } = timeline;
      for (const line of formatTimeline(result, { color, limit: 200 })) process.stdout.write(`${line}\n`);
      for (const v of result.violations) process.stdout.write(`${formatViolation(v, color)}\n`);
      for (const v of result.findings) process.stdout.write(`${formatViolation(v, color)}\n`);
    }
    const findings = result.findings.length === 0 ? '' : c.cyan(`, ${result.findings.length} finding(s)`);
    const verdict =
      (result.violations.length === 0
        ? c.green('no violations')
        : c.red(`${result.violations.length} violation(s)`)) + findings;
    process.stdout.write(
      `${verdict}  (${result.events} events, ${(result.virtualTimeMs / 1000).toFixed(3)}s virtual, ${wallMs}ms wall, ${result.outcome})\n`,
    );
    if (!result.complete) process.stdout.write(`${c.red(incompleteLine(result))}\n`);
    if (bisection !== undefined)
      for (const line of bisector?.formatBisection(bisection, color) ?? []) process.stdout.write(`${line}\n`);
  }
  if (writeError !== undefined) throw writeError;
  // A run cut short did not check the rest of its scenario: never a pass.
  return result.violations.length === 0 && result.complete ? EXIT.OK : EXIT.VIOLATION;
}
