// JUnit XML for CI systems (`podrace fuzz --junit FILE`, `podrace verify --junit FILE`): one test case
// per fuzz case, one per scenario claim. Built with junit-report-builder, never by hand: it escapes
// what a scenario name or a stack may contain. Loaded only when --junit is given.
import junitModule, { type Builder } from 'junit-report-builder';
import {
  type CampaignLines,
  type CaseLine,
  fixesOfRecord,
  replayCommand,
  stoppedText,
} from '../fuzz/campaignJson.js';
import { type ClaimResult, claimLabel } from '../scenario/run.js';
import type { Scenario } from '../scenario/types.js';

// The package is CommonJS whose module.exports is the builder; its types declare it as `default`, which
// NodeNext resolution puts one level deeper than Node does.
const junit = junitModule as unknown as Builder;

export interface JUnitCase {
  readonly name: string;
  readonly className: string;
  /** Wall seconds, when known. */
  readonly timeS?: number | undefined;
  readonly file?: string | undefined;
  /** A failed check: message (one line) and text. */
  readonly failure?: { readonly message: string; readonly text: string } | undefined;
  /** The tool itself failed (a simulator error, a file that does not load). */
  readonly error?: { readonly message: string; readonly text: string } | undefined;
  /** Passed, with something to say (a known-open hazard). */
  readonly output?: string | undefined;
}

export interface JUnitSuite {
  readonly name: string;
  readonly properties: Readonly<Record<string, string>>;
  readonly cases: readonly JUnitCase[];
}

export function junitXml(suites: readonly JUnitSuite[]): string {
  const b = junit.newBuilder();
  for (const s of suites) {
    const suite = b.testSuite().name(s.name);
    for (const [k, v] of Object.entries(s.properties)) suite.property(k, v);
    for (const c of s.cases) {
      const t = suite.testCase().className(c.className).name(c.name);
      if (c.timeS !== undefined) t.time(c.timeS);
      if (c.file !== undefined) t.file(c.file);
      if (c.failure !== undefined) t.failure(c.failure.message, 'violation').standardError(c.failure.text);
      if (c.error !== undefined) t.error(c.error.message, 'error', c.error.text);
      if (c.output !== undefined) t.standardOutput(c.output);
    }
  }
  return b.build();
}

/**
 * A campaign as one suite, one case per case that ran (`cases`: every case's line, not only the failing
 * ones the JSON output keeps): a case fails when an invariant fired that no known-open hazard explains
 * (with `strict`, any), errors when the simulator threw; a shrunk failure adds its file and replay.
 */
export function campaignJUnit(lines: CampaignLines, cases: readonly CaseLine[]): JUnitSuite {
  const s = lines.summary;
  const fixSet = fixesOfRecord(s.fixes);

  const shrunk = new Map(lines.failures.map((f) => [f.case, f]));
  const tests = cases.map((c): JUnitCase => {
    const base = {
      name: c.scenario,
      className: `podrace.fuzz.seed-${s.campaignSeed}`,
      timeS: c.wallMs / 1000,
    };
    if (c.error !== undefined) {
      const message =
        c.outcome === 'nondeterministic'
          ? 'two runs of the case differed (a podrace bug)'
          : 'the simulator threw (a podrace bug)';
      return { ...base, error: { message, text: c.error } };
    }
    const unexplained = s.strict ? c.fired : c.fired.filter((id) => !c.knownOpen.includes(id));
    const details = [
      ...c.violations.map(
        (v) => `${v.invariant}${v.knownOpen === null ? '' : ` (known-open: ${v.knownOpen})`}: ${v.message}`,
      ),
      `replay: ${replayCommand(s.campaignSeed, c.path, fixSet)}`,
    ];
    const f = shrunk.get(c.case);
    if (f !== undefined) details.push(`shrunk to ${f.file}: ${f.replay[0]}`);
    if (c.outcome === 'max-events') {
      const message = 'cut short by the event budget before its horizon: not checked (a livelock?)';
      return { ...base, failure: { message, text: details.join('\n') } };
    }
    if (unexplained.length > 0) {
      return { ...base, failure: { message: unexplained.join(', '), text: details.join('\n') } };
    }
    return c.fired.length === 0 ? base : { ...base, output: details.join('\n') };
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
    },
    cases: tests,
  };
}

/** A checked claim, as `podrace verify` has it. */
export interface CheckedClaim {
  readonly scenario: Scenario;
  readonly claim: ClaimResult;
}

/**
 * `podrace verify` as suites: one per scenario file, one case per claim (failing when the invariants
 * that fired differ from the claimed ones); a file that does not load is one case that errors.
 */
export function verifyJUnit(
  rows: readonly CheckedClaim[],
  invalid: readonly { readonly file: string; readonly message: string }[] = [],
): JUnitSuite[] {
  const byFile = new Map<string, CheckedClaim[]>();
  for (const r of rows) byFile.set(r.scenario.file, [...(byFile.get(r.scenario.file) ?? []), r]);
  const suites: JUnitSuite[] = [...byFile.entries()].map(([file, claims]) => {
    const name = claims[0]?.scenario.name ?? file;
    return {
      name,
      properties: { file },
      cases: claims.map((r): JUnitCase => {
        const label = claimLabel(r.claim.claim);
        const base = {
          name: label,
          className: `podrace.verify.${name}`,
          file: `${file}:${r.claim.claim.line}`,
        };
        if (r.claim.pass) return base;
        const findings =
          r.claim.expectedFindings === null
            ? ''
            : `; findings expected [${r.claim.expectedFindings.join(', ')}], got [${r.claim.actualFindings.join(', ')}]`;
        const message = `expected [${r.claim.expected.join(', ')}], got [${r.claim.actual.join(', ')}]${findings}`;
        const text = [
          `${file}:${r.claim.claim.line}: claim ${label}: ${message}`,
          ...r.claim.result.violations.map((v) => `${v.invariant}: ${v.message}`),
        ].join('\n');
        return { ...base, failure: { message, text } };
      }),
    };
  });
  for (const bad of invalid) {
    suites.push({
      name: bad.file,
      properties: { file: bad.file },
      cases: [
        {
          name: 'load',
          className: 'podrace.verify',
          file: bad.file,
          error: { message: 'the scenario file does not load', text: bad.message },
        },
      ],
    });
  }
  return suites;
}
