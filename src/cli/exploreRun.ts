// `podrace explore FILE`: bounded exhaustive search of same-instant orderings (src/explore/explore.ts,
// docs/explore.md). Prints what it explored, whether that was every schedule within the bound, and the
// first violating schedule (fewest deviations) with the command that replays it. Exit 0: no violation
// found; 1: one found; 2: bad input. The output is a function of the input, unless --time-limit cuts in.
import { explore } from '../explore/explore.js';
import { formatSchedule, latencyDeviations } from '../explore/scheduleText.js';
import { firedInvariants } from '../run/run.js';
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
import { scenarioArg } from './scenarioArgs.js';
import { wallClockMs } from './terminal.js';

export async function exploreCommand(argv: ArgvOf<typeof exploreBuilder>): Promise<number> {
  const fixes = fixesOption(argv.kubelet, argv.fix);
  const bound = boundOption(argv.bound);
  const maxSchedules = positiveIntOption(argv['max-schedules'], '--max-schedules');
  const timeLimitMs = durationOption(argv['time-limit'], '--time-limit');
  const seed = argv.seed === undefined ? undefined : seedOption(argv.seed);
  const maxEvents = maxEventsOption(argv['max-events']);
  const { file, shown } = scenarioArg(String(argv.file));
  const scenario = loadScenarioFile(file);
  const start = wallClockMs();
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
  });
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
    };
    process.stdout.write(`${JSON.stringify(json)}\n`);
  } else {
    const out = (l: string) => process.stdout.write(`${l}\n`);
    out(
      `${scenario.name}  seed ${seed ?? scenario.seed}  fixes ${fixes.label()}  bound ${bound}${argv.latencies ? '  latencies' : ''}`,
    );
    const depths = r.perDepth.map((n, d) => `${d}: ${n}`).join(', ');
    out(
      `explored ${r.explored} schedule(s) (by deviations ${depths}${argv.latencies ? `; ${r.withLatency} with a latency deviation` : ''}); ${r.skippedCommuting} reordering(s) of commuting events skipped${argv.reduction ? '' : ' (--no-reduction)'}`,
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
