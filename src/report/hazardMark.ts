// How a violation tied to a known-open upstream hazard (src/invariants/hazards.ts) is marked wherever a
// violation shows: the terminal and HTML timelines, `run --events`, the Chrome trace and JUnit. One
// wording, so that a reader who met it in one output recognises it in the next.
import { HAZARDS, type HazardDef, type HazardId } from '../invariants/hazards.js';

export interface HazardMark {
  readonly id: string;
  /** The hazard's first upstream reference: the issue that reports it (`kubernetes/kubernetes#110682`). */
  readonly upstream: string;
  /** Every upstream reference, issue first, then the PRs. */
  readonly upstreams: readonly string[];
  readonly summary: string;
}

function isHazardId(id: string): id is HazardId {
  return Object.hasOwn(HAZARDS, id);
}

/**
 * The mark of a violation's `knownOpen` (undefined when it has none). A hazard ID this version does not
 * know (a JSON file of another version) is marked by its name alone.
 */
export function hazardMark(knownOpen: string | null | undefined): HazardMark | undefined {
  if (knownOpen === undefined || knownOpen === null) return undefined;
  if (!isHazardId(knownOpen)) return { id: knownOpen, upstream: '', upstreams: [], summary: '' };
  const def: HazardDef = HAZARDS[knownOpen];
  return { id: knownOpen, upstream: def.upstream[0] ?? '', upstreams: def.upstream, summary: def.summary };
}

/** `known-open hazard orphan-pod-volume-torn-down-on-restart, kubernetes/kubernetes#110682` */
export function hazardText(m: HazardMark): string {
  return `known-open hazard ${m.id}${m.upstream === '' ? '' : `, ${m.upstream}`}`;
}
