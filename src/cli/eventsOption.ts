// `podrace run FILE --events [--node N] [--pod P] [--volume V] [--kind K] [--since 80s] [--until 110s]`:
// the flags and their checks (src/report/eventFilter.ts filters). A filter flag implies --events. Names
// are checked against the scenario, so a typo is an error with a hint rather than an empty stream.

import { INVARIANT_IDS } from '../invariants/types.js';
import type { EventFilter } from '../report/eventFilter.js';
import { EVENT_KINDS } from '../report/eventKinds.js';
import type { RunResult } from '../run/run.js';
import { didYouMean } from '../scenario/schema.js';
import type { Scenario } from '../scenario/types.js';
import { InputError } from './errors.js';
import { durationOption } from './options.js';

export { eventsOptions } from './flags.js';

export interface EventsArgv {
  readonly events?: boolean | undefined;
  readonly node?: readonly string[] | undefined;
  readonly pod?: readonly string[] | undefined;
  readonly volume?: readonly string[] | undefined;
  readonly kind?: readonly string[] | undefined;
  readonly since?: string | undefined;
  readonly until?: string | undefined;
}

function values(v: readonly unknown[] | undefined): string[] {
  return (v ?? [])
    .flatMap((x) => String(x).split(','))
    .map((x) => x.trim())
    .filter((x) => x !== '');
}

function checked(flag: string, given: string[], known: readonly string[], what: string): string[] {
  for (const g of given) {
    if (!known.includes(g))
      throw new InputError(
        `${flag}: unknown ${what} "${g}"${didYouMean(g, known)}; known: ${known.join(', ')}`,
      );
  }
  return given;
}

/**
 * `--kind`: fact kinds, `violation`, or an invariant ID (its violations). A typo gets the nearest of all
 * of them; the list that follows is the fact kinds (`npx podrace list invariants` lists the others).
 */
function checkedKinds(given: string[]): string[] {
  const known = [...EVENT_KINDS, ...INVARIANT_IDS];
  for (const g of given) {
    if (!known.includes(g))
      throw new InputError(
        `--kind: unknown kind "${g}"${didYouMean(g, known)}; expected an invariant ID (\`npx podrace list invariants\`), violation, or a fact kind: ${EVENT_KINDS.filter((k) => k !== 'violation').join(', ')}`,
      );
  }
  return given;
}

/** UIDs are made at run time from the name: `web-1` (a pod's first incarnation), `static-web-<hash>`. */
function isUidOf(text: string, podNames: readonly string[]): boolean {
  return podNames.some((n) => text.startsWith(`${n}-`) || text.startsWith(`static-${n}-`));
}

/**
 * The filter the flags ask for, or undefined when neither --events nor a filter flag was given. With a
 * scenario, node, pod and volume names are checked against it (events files have none to check).
 */
export function eventFilterOf(argv: EventsArgv, scenario: Scenario | undefined): EventFilter | undefined {
  const nodes = values(argv.node);
  const pods = values(argv.pod);
  const volumes = values(argv.volume);
  const kinds = values(argv.kind);
  const any =
    nodes.length + pods.length + volumes.length + kinds.length > 0 ||
    argv.since !== undefined ||
    argv.until !== undefined;
  if (argv.events !== true && !any) return undefined;
  const sinceMs = argv.since === undefined ? undefined : durationOption(argv.since, '--since');
  const untilMs = argv.until === undefined ? undefined : durationOption(argv.until, '--until');
  if (sinceMs !== undefined && untilMs !== undefined && untilMs < sinceMs)
    throw new InputError(`--until: ${argv.until} is before --since ${argv.since}`);
  const filter = {
    nodes,
    pods,
    volumes,
    kinds: checkedKinds(kinds),
    sinceMs,
    untilMs,
  };
  if (scenario === undefined) return filter;
  const podNames = [
    ...new Set(scenario.timeline.flatMap((e) => (e.action.kind === 'createPod' ? [e.action.pod] : []))),
  ];
  return {
    ...filter,
    nodes: checked('--node', nodes, [...scenario.nodes, 'cluster'], 'node'),
    pods: pods.map((p) => (isUidOf(p, podNames) ? p : (checked('--pod', [p], podNames, 'pod')[0] ?? p))),
    volumes: checked(
      '--volume',
      volumes,
      scenario.volumes.map((v) => v.name),
      'volume',
    ),
  };
}

/**
 * The event lines `run --events` prints: text, or one JSON object a line with --json. The filter and its
 * formatting (with the terminal timeline's) are imported here, only for a run that prints events.
 */
export async function eventLines(
  result: RunResult,
  filter: EventFilter,
  json: boolean,
  color: boolean,
): Promise<string[]> {
  const { eventsToJsonLines, filterEvents, formatEvents } = await import('../report/eventFilter.js');
  const events = filterEvents(result, filter);
  return json ? eventsToJsonLines(events) : formatEvents(events, color);
}
