// A fuzz campaign as a JUnit suite (`podrace fuzz --junit FILE`): one test case per case that ran, built
// from the campaign's JSON lines and written by src/report/junit.ts (which knows nothing of campaigns).

import { hazardSuffix, type JUnitCase, type JUnitSuite, knownOpenProperty } from '../report/junit.js';
import {
  type CampaignLines,
  type CaseLine,
  type FailureLine,
  fixesOfRecord,
  replayCommand,
  stoppedText,
} from './campaignJson.js';

/** Which fuzz cases a report holds: every case that ran, or only those that failed, errored or met a hazard. */
export type JUnitCases = 'all' | 'failing';

export interface CampaignJUnitOptions {
  /** Default 'all'. */
  readonly cases?: JUnitCases;
  /** Where a written failure file is, for the `file` and `line` attributes (default: as written). */
  readonly where?: (failureFile: string) => { readonly file: string; readonly line?: number };
}

/**
 * A campaign as one suite, one case per case that ran (`cases`: every case's line, not only the failing
 * ones the JSON output keeps; with `cases: 'failing'` only those that failed, errored or met a known-open
 * hazard): a case fails when an invariant fired that no known-open hazard explains (with `strict`, any),
 * errors when the simulator threw; each carries its replay command, and a case a failure was shrunk from
 * points at the written file (`file`, `line`: its first claim).
 */
export function campaignJUnit(
  lines: CampaignLines,
  cases: readonly CaseLine[],
  o: CampaignJUnitOptions = {},
): JUnitSuite {
  const s = lines.summary;
  const fixSet = fixesOfRecord(s.fixes);
  const only = o.cases ?? 'all';
  const where = o.where ?? ((file: string): { readonly file: string; readonly line?: number } => ({ file }));

  // The first (best-ranked) failure shrunk from a case is the one its file attribute names.
  const shrunk = new Map<number, FailureLine>();
  for (const f of lines.failures) if (!shrunk.has(f.case)) shrunk.set(f.case, f);
  const kept = only === 'all' ? cases : cases.filter(notPlainPass);
  const tests = kept.map((c): JUnitCase => {
    const f = shrunk.get(c.case);
    const at = f === undefined ? undefined : where(f.file);
    const base = {
      name: c.scenario,
      className: `podrace.fuzz.seed-${s.campaignSeed}`,
      // The case's own wall time (ms to 0.1) in seconds, without binary fractions' tails.
      timeS: Math.round(c.wallMs * 10) / 10000,
      ...(at === undefined ? {} : { file: at.file, ...(at.line === undefined ? {} : { line: at.line }) }),
    };
    const replay = `replay: ${replayCommand(s.campaignSeed, c.path, fixSet)}`;
    if (c.error !== undefined) {
      const message =
        c.outcome === 'nondeterministic'
          ? 'two runs of the case differed (a podrace bug)'
          : 'the simulator threw (a podrace bug)';
      return { ...base, error: { message, text: `${c.error}\n${replay}` } };
    }
    const unexplained = s.strict ? c.fired : c.fired.filter((id) => !c.knownOpen.includes(id));
    const details = [
      ...c.violations.map((v) => `${v.invariant}${hazardSuffix(v.knownOpen)}: ${v.message}`),
      replay,
    ];
    const hazards = knownOpenProperty(c.violations);
    if (f !== undefined) details.push(`shrunk to ${f.file}: ${f.replay[0]}`);
    if (c.outcome === 'max-events') {
      const message = 'cut short by the event budget before its horizon: not checked (a livelock?)';
      return { ...base, ...hazards, failure: { message, text: details.join('\n') } };
    }
    if (unexplained.length > 0) {
      return { ...base, ...hazards, failure: { message: unexplained.join(', '), text: details.join('\n') } };
    }
    return c.fired.length === 0 ? base : { ...base, ...hazards, output: details.join('\n') };
  });
  // An interrupted campaign is not a green one: the cases that never ran are one case that errors.
  if (s.stoppedBy !== null) {
    const message = stoppedText(s.ran, s.planned, s.stoppedBy);
    tests.push({
      name: 'campaign stopped before every case ran',
      className: `podrace.fuzz.seed-${s.campaignSeed}`,
      timeS: 0,
      error: { message, text: `${message}; rerun without --time-limit (or uninterrupted) to check them` },
    });
  }
  return {
    name: `podrace fuzz seed ${s.campaignSeed}${s.shard === null ? '' : ` shard ${s.shard}`}`,
    properties: {
      seed: String(s.campaignSeed),
      runs: String(s.runs),
      ran: String(s.ran),
      fixes: fixSet.label(),
      strict: String(s.strict),
      version: s.version,
      stoppedByTimeLimit: String(s.stoppedByTimeLimit),
      checkDeterminism: String(s.determinism !== null),
      ...(s.determinism === null
        ? {}
        : {
            determinismRerun: String(s.determinism.rerun),
            determinismDiffered: String(s.determinism.differed),
            determinismCompared: s.determinism.compared,
            determinismDigest: s.determinism.digest,
          }),
      ...(s.stoppedBy === null
        ? {}
        : { stoppedBy: s.stoppedBy, stopped: stoppedText(s.ran, s.planned, s.stoppedBy) }),
      junitCases: only,
      ...(only === 'all' ? {} : { omittedPassingCases: String(cases.length - kept.length) }),
      exitReason: s.exitReason,
    },
    cases: tests,
  };
}

/** A case that passed with nothing to say: left out of a `failing` report. */
function notPlainPass(c: CaseLine): boolean {
  return c.fired.length > 0 || c.error !== undefined || c.outcome === 'max-events';
}

/** A checked claim, as `podrace verify` has it. */
