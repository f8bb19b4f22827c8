// An exploration's checkpoint file (`podrace explore --checkpoint FILE`): the search's state
// (src/explore/explore.ts ExploreState) and what it was exploring, so that a long exploration cut short by
// a limit, a Ctrl-C or a crash goes on where it stopped. JSON, schedules in their text form. A checkpoint
// of another scenario, seed, fix set or search (bound, latencies, reduction, event budget) is refused:
// continuing it would explore another tree.

import type { Schedule } from '../sim/index.js';
import type { ExploreState } from './explore.js';
import { formatSchedule, parseSchedule } from './scheduleText.js';

/**
 * Bumped whenever which children a schedule has, or their order, changes (the commutation rule, the
 * children's order): a checkpoint's indices mean nothing to another version of the search.
 */
export const CHECKPOINT_FORMAT = 'podrace-explore-checkpoint/4';

/** What the exploration was of: a checkpoint continues only the same one. */
export interface CheckpointKey {
  readonly scenario: string;
  /** sha256 of the scenario file's bytes: an edited file is another scenario. */
  readonly scenarioSha256: string;
  readonly seed: number;
  readonly fixes: string;
  readonly bound: number;
  readonly latencies: boolean;
  readonly reduction: boolean;
  readonly maxEvents: number | null;
}

const KEY_FIELDS = [
  'scenario',
  'scenarioSha256',
  'seed',
  'fixes',
  'bound',
  'latencies',
  'reduction',
  'maxEvents',
] as const satisfies readonly (keyof CheckpointKey)[];

type CheckpointField =
  | keyof CheckpointKey
  | 'format'
  | 'depth'
  | 'parentIndex'
  | 'childIndex'
  | 'explored'
  | 'perDepth'
  | 'skippedCommuting'
  | 'withLatency'
  | 'incompleteRuns'
  | 'outcomes'
  | 'finished'
  | 'violation'
  | 'parents'
  | 'nextParents';

export function checkpointText(key: CheckpointKey, s: ExploreState): string {
  const json = {
    format: CHECKPOINT_FORMAT,
    ...key,
    depth: s.depth,
    parentIndex: s.parentIndex,
    childIndex: s.childIndex,
    explored: s.explored,
    perDepth: s.perDepth,
    skippedCommuting: s.skippedCommuting,
    withLatency: s.withLatency,
    incompleteRuns: s.incompleteRuns,
    outcomes: s.outcomes,
    finished: s.finished,
    violation: s.violation === undefined ? null : formatSchedule(s.violation),
    parents: s.parents.map(formatSchedule),
    nextParents: s.nextParents.map(formatSchedule),
  };
  return `${JSON.stringify(json)}\n`;
}

export type CheckpointRead =
  | { readonly ok: true; readonly state: ExploreState }
  | { readonly ok: false; readonly error: string };

/** Reads a checkpoint of the exploration `key`; an error names the field that is wrong or differs. */
export function readCheckpoint(text: string, key: CheckpointKey): CheckpointRead {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, error: 'is not a checkpoint (not JSON)' };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return { ok: false, error: 'is not a checkpoint (not a JSON object)' };
  const j = raw as { readonly [F in CheckpointField]?: unknown };
  if (j.format !== CHECKPOINT_FORMAT)
    return {
      ok: false,
      error: `is not a checkpoint of this podrace (format ${JSON.stringify(j.format)}, expected ${CHECKPOINT_FORMAT})`,
    };
  for (const f of KEY_FIELDS)
    if (j[f] !== key[f])
      return {
        ok: false,
        error: `was written for ${f} ${JSON.stringify(j[f])}, not ${JSON.stringify(key[f])}: it explores another tree (use another file, or the same options)`,
      };
  const bad = (field: string, what: string): CheckpointRead => ({
    ok: false,
    error: `field ${field}: ${what}`,
  });
  const counts = [
    'depth',
    'parentIndex',
    'childIndex',
    'explored',
    'skippedCommuting',
    'withLatency',
    'incompleteRuns',
  ] as const;
  for (const f of counts)
    if (!(Number.isSafeInteger(j[f]) && (j[f] as number) >= 0)) return bad(f, 'expected a whole number');
  if (!Array.isArray(j.perDepth) || !j.perDepth.every((n) => Number.isSafeInteger(n) && n >= 0))
    return bad('perDepth', 'expected a list of whole numbers');
  if (typeof j.finished !== 'boolean') return bad('finished', 'expected true or false');
  if (!Array.isArray(j.outcomes) || !j.outcomes.every((d) => typeof d === 'string'))
    return bad('outcomes', 'expected a list of run digests');
  const schedules = (field: 'parents' | 'nextParents'): Schedule[] | string => {
    const v = j[field];
    if (!Array.isArray(v)) return 'expected a list of schedules';
    const out: Schedule[] = [];
    for (let i = 0; i < v.length; i++) {
      const p = typeof v[i] === 'string' ? parseSchedule(v[i] as string) : undefined;
      if (p === undefined || !p.ok) return `item ${i + 1} is not a schedule`;
      out.push(p.schedule);
    }
    return out;
  };
  const parents = schedules('parents');
  if (typeof parents === 'string') return bad('parents', parents);
  const nextParents = schedules('nextParents');
  if (typeof nextParents === 'string') return bad('nextParents', nextParents);
  let violation: Schedule | undefined;
  if (j.violation !== null) {
    const p = typeof j.violation === 'string' ? parseSchedule(j.violation) : undefined;
    if (p === undefined || !p.ok) return bad('violation', 'expected a schedule or null');
    violation = p.schedule;
  }
  const depth = j.depth as number;
  const parentIndex = j.parentIndex as number;
  if (depth > key.bound + 1) return bad('depth', `${depth} is beyond the bound ${key.bound}`);
  if (parentIndex > parents.length)
    return bad('parentIndex', `${parentIndex} is past the ${parents.length} parents`);
  return {
    ok: true,
    state: {
      depth,
      parents,
      parentIndex,
      childIndex: j.childIndex as number,
      nextParents,
      explored: j.explored as number,
      perDepth: j.perDepth as number[],
      skippedCommuting: j.skippedCommuting as number,
      withLatency: j.withLatency as number,
      incompleteRuns: j.incompleteRuns as number,
      outcomes: j.outcomes as string[],
      violation,
      finished: j.finished,
    },
  };
}
