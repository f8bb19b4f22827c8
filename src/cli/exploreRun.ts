// `podrace explore FILE`: bounded exhaustive search of same-instant orderings (src/explore/explore.ts,
// docs/explore.md). Prints what it explored, whether that was every schedule within the bound, and the
// first violating schedule (fewest deviations) with the command that replays it. Exit 0: no violation
// found; 1: one found; 2: bad input. The output is a function of the input, unless --time-limit cuts in.
import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { type CheckpointKey, checkpointText, readCheckpoint } from '../explore/checkpoint.js';
import { type ExploreState, explore } from '../explore/explore.js';
import { formatSchedule, latencyDeviations } from '../explore/scheduleText.js';
import { firedInvariants } from '../run/run.js';
import { fileError } from '../scenario/errors.js';
import { readInputBytes } from '../scenario/files.js';
import { fixFlags, PODRACE_COMMAND, shellQuote } from '../scenario/fixFlags.js';
import { loadScenarioFile } from '../scenario/load.js';
import type { ArgvOf } from './commands.js';
import { EXIT } from './errors.js';
import type { exploreBuilder } from './exploreCommand.js';
import {
  boundOption,
  durationOption,
  fixesOption,
  maxEventsOption,
  positiveIntOption,
  seedOption,
} from './options.js';
import { checkOutputPaths, writeOutputFile } from './output.js';
import { scenarioArg } from './scenarioArgs.js';
import { progressReporter, wallClockMs } from './terminal.js';

/** A checkpoint holds a few thousand schedules' text: a file far larger is not one. */
const CHECKPOINT_LIMIT = { maxBytes: 256 * 1024 * 1024, maxText: '256 MiB' };

export async function exploreCommand(argv: ArgvOf<typeof exploreBuilder>): Promise<number> {
  const fixes = fixesOption(argv.kubelet, argv.fix);
  const bound = boundOption(argv.bound);
  const maxSchedules = positiveIntOption(argv['max-schedules'], '--max-schedules');
  const timeLimitMs = durationOption(argv['time-limit'], '--time-limit');
  const seed = argv.seed === undefined ? undefined : seedOption(argv.seed);
  const maxEvents = maxEventsOption(argv['max-events']);
  const { file, shown } = scenarioArg(String(argv.file));
  const scenario = loadScenarioFile(file);
  const checkpoint = argv.checkpoint === undefined ? undefined : String(argv.checkpoint);
  let key: CheckpointKey | undefined;
  let resume: ExploreState | undefined;
  if (checkpoint !== undefined) {
    checkOutputPaths({ '--checkpoint': checkpoint });
    key = {
      scenario: scenario.name,
      scenarioSha256: createHash('sha256')
        .update(readInputBytes(file, CHECKPOINT_LIMIT, 'a scenario file'))
        .digest('hex'),
      seed: seed ?? scenario.seed,
      fixes: fixes.label(),
      bound,
      latencies: argv.latencies,
      reduction: argv.reduction,
      maxEvents: maxEvents ?? null,
    };
    if (existsSync(checkpoint) && statSync(checkpoint).size > 0) {
      const read = readCheckpoint(
        readInputBytes(checkpoint, CHECKPOINT_LIMIT, 'a checkpoint').toString('utf8'),
        key,
      );
      if (!read.ok) throw fileError(checkpoint, `--checkpoint: ${read.error}`);
      resume = read.state;
    }
  }
  const progress = progressReporter(process.stderr.isTTY === true);
  const start = wallClockMs();
  let shownAtMs = 0;
  const r = explore(scenario, {
    fixes,
    seed,
    bound,
    maxSchedules,
    deadlineMs: start + timeLimitMs,
    clock: wallClockMs,
    reduction: argv.reduction,
    latencies: argv.latencies,
    maxEvents,
    resume,
    onRun: (p) => {
      const now = wallClockMs();
      if (now - shownAtMs < 200) return;
      shownAtMs = now;
      progress.update(
        `explore: ${p.explored} schedule(s), ${p.depth} deviation(s): children of ${p.parent} of ${p.parents}`,
      );
    },
    onCheckpoint:
      checkpoint === undefined || key === undefined
        ? undefined
        : (
            (k: CheckpointKey) => (state: ExploreState) =>
              writeOutputFile(checkpoint, checkpointText(k, state))
          )(key),
  });
  progress.clear();
  const wallMs = Math.round((wallClockMs() - start) * 10) / 10;
  const v = r.violation;
  const schedule = v === undefined ? undefined : formatSchedule(v.schedule);
  const replay =
    schedule === undefined
      ? undefined
      : [
          `${PODRACE_COMMAND} run`,
          shellQuote(shown),
          ...(seed === undefined ? [] : [`--seed ${seed}`]),
          `--schedule ${schedule}`,
          ...fixFlags(fixes),
        ].join(' ');
  const limit =
    r.stoppedBy === 'max-schedules'
      ? `--max-schedules ${maxSchedules}`
      : r.stoppedBy === 'time-limit'
        ? `--time-limit ${String(argv['time-limit'])}`
        : undefined;
  if (argv.json) {
    const json = {
      scenario: scenario.name,
      seed: seed ?? scenario.seed,
      fixes: fixes.toRecord(),
      bound,
      reduction: argv.reduction,
      explored: r.explored,
      perDeviations: r.perDepth,
      skippedCommuting: r.skippedCommuting,
      complete: r.complete,
      stoppedBy: r.stoppedBy ?? null,
      incompleteRuns: r.incompleteRuns,
      violation:
        v === undefined
          ? null
          : {
              schedule,
              deviations: v.schedule.length,
              latencyDeviations: latencyDeviations(v.schedule),
              invariants: firedInvariants(v.result),
              replay,
            },
      wallMs,
      latencies: argv.latencies,
      withLatencyDeviations: r.withLatency,
      distinctOutcomes: r.distinctOutcomes,
    };
    process.stdout.write(`${JSON.stringify(json)}\n`);
  } else {
    const out = (l: string) => process.stdout.write(`${l}\n`);
    out(
      `${scenario.name}  seed ${seed ?? scenario.seed}  fixes ${fixes.label()}  bound ${bound}${argv.latencies ? '  latencies' : ''}`,
    );
    if (resume !== undefined)
      out(
        `resumed from ${checkpoint}: ${resume.explored} schedule(s) explored before${resume.finished ? ' (it had finished)' : ''}`,
      );
    const depths = r.perDepth.map((n, d) => `${d}: ${n}`).join(', ');
    out(
      `explored ${r.explored} schedule(s) (by deviations ${depths}${argv.latencies ? `; ${r.withLatency} with a latency deviation` : ''}), ${r.distinctOutcomes} distinct run(s); ${r.skippedCommuting} reordering(s) of commuting events skipped${argv.reduction ? '' : ' (--no-reduction)'}`,
    );
    if (r.incompleteRuns > 0)
      out(`${r.incompleteRuns} run(s) cut short by their event budget (raise it with --max-events N)`);
    if (v !== undefined) {
      const first = v.result.violations[0];
      const where =
        first === undefined ? '' : ` (first: ${first.invariant} at ${(first.atMs / 1000).toFixed(3)}s)`;
      out(
        `VIOLATION: schedule ${schedule} (${v.schedule.length} deviation(s), the fewest within the bound) fires ${firedInvariants(v.result).join(', ')}${where}`,
      );
      out(`replay: ${replay}`);
    } else if (r.complete) {
      out(`complete: no schedule within ${bound} deviation(s) violates an invariant`);
    } else {
      out(`INCOMPLETE: stopped by ${limit}; no violation in the ${r.explored} schedule(s) explored`);
    }
  }
  return v === undefined ? EXIT.OK : EXIT.VIOLATION;
}
