// `podrace import LOG...`: reads the logs, writes the scenario they imply (to --out, else standard output),
// says on standard error how much of the logs it read, and with --run runs the scenario under every
// release preset. The claim it writes is what fires under the release the log's kubelet names (docs/import.md).
import { RELEASE_PRESETS } from '../fixes.js';
import { durationText, IDLE_GAP_KEPT_MS } from '../import/idleGaps.js';
import { type Imported, importedYaml, importLogs, scenarioNameOf } from '../import/importLogs.js';
import { LOG_BYTES_MAX } from '../import/logLines.js';
import { firedInvariants, runScenario } from '../run/run.js';
import { readInputBytes } from '../scenario/files.js';
import { type Claim, fixesOfClaim } from '../scenario/types.js';
import type { ArgvOf } from './commands.js';
import { EXIT } from './errors.js';
import type { importBuilder } from './importCommand.js';
import { maxEventsOption } from './options.js';
import { checkOutputPaths, refuseInputsAsOutputs, writeOutputFile } from './output.js';

/** A log is read whole: 64 MiB, packed and unpacked (src/import/logLines.ts decodeLogBytes). */
const LOG_LIMIT = { maxBytes: LOG_BYTES_MAX, maxText: '64 MiB' };
/** How many unread lines standard error shows. */
const UNUSED_SHOWN = 5;

export function importCommand(argv: ArgvOf<typeof importBuilder>): number {
  const logs = (argv.logs ?? []).map(String);
  const out = argv.out;
  refuseInputsAsOutputs(logs, { '--out': out });
  checkOutputPaths({ '--out': out });
  const maxEvents = maxEventsOption(argv['max-events']);
  const inputs = logs.map((name) => ({ name, bytes: readInputBytes(name, LOG_LIMIT, 'a log file') }));
  const name = scenarioNameOf(out ?? logs[0] ?? 'imported');
  const imported = importLogs(inputs, { name });
  const claimRelease = imported.release ?? 'fixed';
  const result = runScenario(imported.scenario, { fixes: fixesOf(claimRelease), maxEvents });
  const claim: Claim = {
    line: 0,
    fixes: { kubelet: claimRelease, off: [], on: [] },
    violations: firedInvariants(result),
    findings: null,
  };
  const yaml = importedYaml(imported, result.complete ? [claim] : []);
  if (out === undefined) process.stdout.write(yaml);
  else writeOutputFile(out, yaml);
  for (const line of summaryLines(imported, out)) process.stderr.write(`${line}\n`);
  if (!argv.run) return EXIT.OK;
  const stream = out === undefined ? process.stderr : process.stdout;
  let fired = false;
  for (const preset of RELEASE_PRESETS) {
    const r = runScenario(imported.scenario, { fixes: fixesOf(preset), maxEvents });
    const ids = firedInvariants(r);
    fired ||= ids.length > 0 || !r.complete;
    const verdict = !r.complete
      ? 'INCOMPLETE (event budget)'
      : ids.length === 0
        ? 'nothing fires'
        : ids.join(', ');
    const mark = preset === imported.release ? "  (the log's release)" : '';
    stream.write(`kubelet ${preset}: ${verdict}${mark}\n`);
  }
  return fired ? EXIT.VIOLATION : EXIT.OK;
}

function fixesOf(kubelet: Claim['fixes']['kubelet']) {
  return fixesOfClaim({ kubelet, off: [], on: [] });
}

/** What standard error says: how much was read, where it went, the first unread lines. */
export function summaryLines(imported: Imported, out: string | undefined): string[] {
  const s = imported.scenario;
  const pods = s.timeline.filter((e) => e.action.kind === 'createPod').length;
  const lines = [
    `podrace import: ${imported.used} of ${imported.messages} messages read: ${s.nodes.length} node(s), ${pods} pod(s), ${s.volumes.length} volume(s), ${s.timeline.length} timeline entries${out === undefined ? '' : ` -> ${out}`}`,
  ];
  for (const file of imported.cutShort)
    lines.push(`${file}: a gzip stream cut short: what it holds was read (the file's header says so)`);
  const { cuts, beyond } = imported.inferred;
  if (cuts.length > 0 || beyond.length > 0)
    lines.push(
      `the log is longer than a day: ${cuts.length} idle stretch(es) cut to ${durationText(IDLE_GAP_KEPT_MS)}${beyond.length > 0 ? `, ${beyond.length} entr${beyond.length === 1 ? 'y' : 'ies'} past the day left out` : ''} (the file's header says where)`,
    );
  if (imported.unused.length > 0) {
    lines.push(
      `${imported.unused.length} line(s) not read; the first ${Math.min(UNUSED_SHOWN, imported.unused.length)}:`,
    );
    for (const u of imported.unused.slice(0, UNUSED_SHOWN))
      lines.push(`  ${u.file}:${u.line}: ${u.text.length > 120 ? `${u.text.slice(0, 117)}...` : u.text}`);
  }
  return lines;
}
