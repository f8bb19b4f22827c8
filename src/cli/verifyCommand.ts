// `podrace verify`: the table or JSON lines of every claim, and the JUnit report. Loaded only when the
// command runs (src/cli/commands.ts registers it; src/cli/verify.ts checks the claims).
import type { ArgvOf, verifyBuilder } from './commands.js';
import { boundOption, durationOption, maxEventsOption, positiveIntOption } from './options.js';
import { checkOutputPaths, refuseInputsAsOutputs, writeOutputFile } from './output.js';
import { repoRelative } from './repoPath.js';
import { defaultScenariosDir, expandScenarioPaths, shownPath } from './scenarioArgs.js';
import { colorEnabled, escapeControl, wallClockMs } from './terminal.js';
import {
  formatVerifyTable,
  type InvalidRow,
  type VerifyRow,
  verifyFiles,
  verifyJsonLines,
  verifySummary,
} from './verify.js';

export async function verifyCommand(argv: ArgvOf<typeof verifyBuilder>): Promise<number> {
  const paths =
    argv.paths === undefined || argv.paths.length === 0
      ? [shownPath(defaultScenariosDir())]
      : argv.paths.map(String);
  const { files, invalid } = expandScenarioPaths(paths);
  refuseInputsAsOutputs(files, { '--junit': argv.junit });
  checkOutputPaths({ '--junit': argv.junit });
  const maxEvents = maxEventsOption(argv['max-events']);
  // Read whether or not --exhaustive is given: a claim's `exhaustive: true` explores with them too.
  const exhaustive = {
    bound: boundOption(argv.bound),
    maxSchedules: positiveIntOption(argv['max-schedules'], '--max-schedules'),
    timeLimitMs: durationOption(argv['time-limit'], '--time-limit'),
    latencies: argv.latencies,
    clock: wallClockMs,
    maxEvents,
  };
  const checked = verifyFiles(files, invalid, maxEvents);
  const wanted = argv.exhaustive || checked.some((e) => 'claim' in e && e.claim.claim.exhaustive === true);
  const entries = wanted
    ? (await import('./verifyExhaustive.js')).exhaustEntries(checked, exhaustive, argv.exhaustive)
    : checked;
  const color = colorEnabled(argv['color'], process.stdout.isTTY === true, process.env);
  const out = argv.json ? verifyJsonLines(entries) : formatVerifyTable(entries, color);
  for (const line of out) process.stdout.write(`${line}\n`);
  // Each error of a file that did not load also goes to standard error as `file:line:col: message`, as
  // `run` prints it, for editors and CI problem matchers (the table pads and indents them; JSON quotes).
  for (const bad of entries.filter((e): e is InvalidRow => 'message' in e))
    process.stderr.write(`${escapeControl(bad.message)}\n`);
  if (argv.junit !== undefined) {
    const { junitXml, verifyJUnit } = await import('../report/junit.js');
    const rows = entries.filter((e): e is VerifyRow => 'claim' in e);
    const bad = entries.filter((e): e is InvalidRow => 'message' in e);
    writeOutputFile(argv.junit, junitXml(verifyJUnit(rows, bad, (file) => repoRelative(file))));
  }
  return verifySummary(entries).exitCode;
}
