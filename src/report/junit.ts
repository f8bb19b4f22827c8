// JUnit XML for CI systems (`podrace fuzz --junit FILE`, `podrace verify --junit FILE`): one test case
// per fuzz case, one per scenario claim. Built with junit-report-builder, never by hand: it escapes
// what a scenario name or a stack may contain. Loaded only when --junit is given.
import junitModule, { type Builder } from 'junit-report-builder';
import { type ClaimResult, claimLabel } from '../run/run.js';
import { fixFlags, PODRACE_COMMAND, shellQuote } from '../scenario/fixFlags.js';
import { fixesOfClaim, type Scenario } from '../scenario/types.js';
import { hazardMark, hazardText } from './hazardMark.js';

// The package is CommonJS whose module.exports is the builder; its types declare it as `default`, which
// NodeNext resolution puts one level deeper than Node does.
const junit = junitModule as unknown as Builder;

export interface JUnitCase {
  readonly name: string;
  readonly className: string;
  /** The case's own wall time in seconds, when known. */
  readonly timeS?: number | undefined;
  /** Where a CI system points at it: a repository-relative path and a 1-based line. */
  readonly file?: string | undefined;
  readonly line?: number | undefined;
  /** A failed check: message (one line) and text (inside <failure>, with the replay command). */
  readonly failure?: { readonly message: string; readonly text: string } | undefined;
  /** The tool itself failed (a simulator error, a file that does not load). */
  readonly error?: { readonly message: string; readonly text: string } | undefined;
  /** Passed, with something to say (a known-open hazard). */
  readonly output?: string | undefined;
  /** `<properties>` of the test case (`knownOpenHazards`). */
  readonly properties?: Readonly<Record<string, string>> | undefined;
}

export interface JUnitSuite {
  readonly name: string;
  readonly properties: Readonly<Record<string, string>>;
  readonly cases: readonly JUnitCase[];
}

/**
 * junit-report-builder has no setter for the `line` attribute (JUnit 5 / pytest style; GitLab, Jenkins
 * and action-junit-report read it): it goes into the test case's attribute map, which its build()
 * writes out, escaped, beside name and file. Checked, so that a new version of the package that keeps
 * its attributes elsewhere fails loudly (a test reads the attribute back) instead of dropping it.
 */
function setLine(testCase: object, line: number): void {
  const attributes = (testCase as { _attributes?: unknown })._attributes;
  if (typeof attributes !== 'object' || attributes === null)
    throw new Error('junit-report-builder: no attribute map on a test case to put `line` in');
  (attributes as Record<string, unknown>)['line'] = line;
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
      if (c.line !== undefined && c.line > 0) setLine(t, c.line);
      // The text goes inside <failure> (the builder's stacktrace), where CI systems show it.
      if (c.failure !== undefined) t.failure(c.failure.message, 'violation').stacktrace(c.failure.text);
      if (c.error !== undefined) t.error(c.error.message, 'error', c.error.text);
      if (c.output !== undefined) t.standardOutput(c.output);
      for (const [k, v] of Object.entries(c.properties ?? {})) t.property(k, v);
    }
  }
  return b.build();
}

/** ` (known-open hazard NAME, kubernetes/kubernetes#N)` after a violation's invariant, or nothing. */
export function hazardSuffix(knownOpen: string | null | undefined): string {
  const m = hazardMark(knownOpen);
  return m === undefined ? '' : ` (${hazardText(m)})`;
}

/** The case's `knownOpenHazards` property (the distinct hazards of its violations), when it has any. */
export function knownOpenProperty(
  violations: readonly { readonly knownOpen?: string | null | undefined }[],
): {
  properties?: Record<string, string>;
} {
  const ids = [...new Set(violations.flatMap((v) => (v.knownOpen == null ? [] : [v.knownOpen])))];
  return ids.length === 0 ? {} : { properties: { knownOpenHazards: ids.join(', ') } };
}

export interface CheckedClaim {
  readonly scenario: Scenario;
  readonly claim: ClaimResult;
}

/**
 * `podrace verify` as suites: one per scenario file, one case per claim (failing when the invariants
 * that fired differ from the claimed ones, with the command that runs the claim's fix set); a file that
 * does not load is one case that errors. `relative` gives the `file` attribute (repository-relative).
 */
export function verifyJUnit(
  rows: readonly CheckedClaim[],
  invalid: readonly { readonly file: string; readonly message: string }[] = [],
  relative: (file: string) => string = (file) => file,
): JUnitSuite[] {
  const byFile = new Map<string, CheckedClaim[]>();
  for (const r of rows) byFile.set(r.scenario.file, [...(byFile.get(r.scenario.file) ?? []), r]);
  const suites: JUnitSuite[] = [...byFile.entries()].map(([file, claims]) => {
    const name = claims[0]?.scenario.name ?? file;
    const path = relative(file);
    return {
      name,
      properties: { file: path },
      cases: claims.map((r): JUnitCase => {
        const label = claimLabel(r.claim.claim);
        const base = {
          name: label,
          className: `podrace.verify.${name}`,
          file: path,
          line: r.claim.claim.line,
        };
        if (r.claim.pass) return { ...base, ...knownOpenProperty(r.claim.result.violations) };
        const findings =
          r.claim.expectedFindings === null
            ? ''
            : `; findings expected [${r.claim.expectedFindings.join(', ')}], got [${r.claim.actualFindings.join(', ')}]`;
        const message = `expected [${r.claim.expected.join(', ')}], got [${r.claim.actual.join(', ')}]${findings}`;
        const replay = [
          `${PODRACE_COMMAND} run`,
          shellQuote(path),
          ...fixFlags(fixesOfClaim(r.claim.claim.fixes)),
        ].join(' ');
        const text = [
          `${path}:${r.claim.claim.line}: claim ${label}: ${message}`,
          ...r.claim.result.violations.map((v) => `${v.invariant}${hazardSuffix(v.knownOpen)}: ${v.message}`),
          `replay: ${replay}`,
        ].join('\n');
        return { ...base, ...knownOpenProperty(r.claim.result.violations), failure: { message, text } };
      }),
    };
  });
  for (const bad of invalid) {
    const path = relative(bad.file);
    // The loader's message starts with `file:line:col:` when it knows where.
    const at = bad.message.startsWith(`${bad.file}:`)
      ? /^(\d+):/.exec(bad.message.slice(bad.file.length + 1))
      : null;
    suites.push({
      name: bad.file,
      properties: { file: path },
      cases: [
        {
          name: 'load',
          className: 'podrace.verify',
          file: path,
          ...(at === null ? {} : { line: Number(at[1]) }),
          error: { message: 'the scenario file does not load', text: bad.message },
        },
      ],
    });
  }
  return suites;
}
