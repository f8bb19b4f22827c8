// JUnit for CI (issue 26, item 8): each test case points at a file and a line CI can annotate, carries its
// own time and its replay command inside <failure>, and a fuzz report can hold only the cases worth
// reading (failures, errors, known-open hazards) with the rest counted.
import { describe, expect, it } from 'vitest';
import { Fixes } from '../../src/fixes.js';
import { type CaseLine, type FailureLine, linesOf } from '../../src/fuzz/campaignJson.js';
import { campaignJUnit } from '../../src/fuzz/campaignJUnit.js';
import { junitXml, verifyJUnit } from '../../src/report/junit.js';
import { checkClaim } from '../../src/run/run.js';
import { loadScenarioFile } from '../../src/scenario/load.js';

const fixes = Fixes.none();

function caseLine(index: number, o: Partial<CaseLine> = {}): CaseLine {
  return {
    scenario: `fuzz-1-${index}`,
    seed: index,
    fixes: fixes.toRecord(),
    events: 10,
    virtualTimeMs: 1000,
    wallMs: 1.5 * (index + 1),
    violations: [],
    claims: null,
    outcome: 'horizon',
    type: 'case',
    campaignSeed: 1,
    case: index,
    path: String(index),
    fired: [],
    knownOpen: [],
    closedBy: null,
    ...o,
  };
}

const violation = (knownOpen: string | null) => ({
  invariant: 'termination-stuck' as const,
  atMs: 5,
  node: 'node-a',
  pod: 'p0',
  uid: 'p0-1',
  volume: null,
  message: 'pod p0 never finished terminating',
  knownOpen,
});

// Case 0 passes, 1 fails (and was shrunk to a file), 2 passes with a hazard, 3 passes, 4 the simulator threw.
const all: CaseLine[] = [
  caseLine(0),
  caseLine(1, { violations: [violation(null)], fired: ['termination-stuck'] }),
  caseLine(2, {
    violations: [violation('remove-before-sources-ready')],
    fired: ['termination-stuck'],
    knownOpen: ['termination-stuck'],
  }),
  caseLine(3),
  caseLine(4, { outcome: 'error', error: 'Error: boom\n    at x' }),
];
const failing = all.filter((c) => c.fired.length > 0 || c.error !== undefined);
const failure: FailureLine = {
  type: 'failure',
  invariant: 'termination-stuck',
  case: 1,
  campaignSeed: 1,
  path: '1:0',
  file: 'out/termination-stuck-1-1.yaml',
  closedBy: null,
  reproduces: true,
  shrinkRuns: 3,
  minimal: true,
  violations: [violation(null)],
  replay: ['npx podrace run out/termination-stuck-1-1.yaml --kubelet legacy', 'npx podrace replay ...'],
  timeline: [],
};
const lines = linesOf(
  {
    seed: 1,
    runs: 5,
    shard: null,
    fixes: fixes.toRecord(),
    planned: 5,
    ran: 5,
    stoppedBy: null,
    maxEventsCases: 0,
    kinds: [],
    wallMs: 0,
    version: 'test',
    shrink: 1,
    shrinkRuns: 10,
    strict: false,
    changed: [],
    determinism: null,
  },
  failing,
  [failure],
);

describe('campaignJUnit', () => {
  const where = (file: string) => ({ file: `repo/${file}`, line: 12 });

  it('points the shrunk case at its written file and first claim; each case has its own time', () => {
    const xml = junitXml([campaignJUnit(lines, all, { where })]);
    expect(xml).toMatch(
      /<testcase classname="podrace\.fuzz\.seed-1" name="fuzz-1-1" time="0\.003" file="repo\/out\/termination-stuck-1-1\.yaml" line="12">/,
    );
    expect(xml).toContain('name="fuzz-1-0" time="0.0015"/>');
    expect(xml).toContain('name="fuzz-1-3" time="0.006"/>');
    // No file is claimed for a case nothing was written for.
    expect(xml).not.toMatch(/name="fuzz-1-2"[^>]*file=/);
  });

  it('puts the replay command inside <failure> and <error>', () => {
    const xml = junitXml([campaignJUnit(lines, all, { where })]);
    const inFailure =
      /<failure message="termination-stuck" type="violation"><!\[CDATA\[([^\]]*)\]\]><\/failure>/.exec(xml);
    expect(inFailure?.[1]).toContain('replay: npx podrace replay --seed 1 --path 1 --kubelet legacy');
    expect(inFailure?.[1]).toContain('shrunk to out/termination-stuck-1-1.yaml');
    expect(xml).toMatch(
      /<error [^>]*><!\[CDATA\[Error: boom\n {4}at x\nreplay: npx podrace replay --seed 1 --path 4 /,
    );
    expect(xml).not.toContain('<system-err>');
  });

  it('with cases "failing" keeps failures, errors and hazards, and counts what it left out', () => {
    const suite = campaignJUnit(lines, all, { cases: 'failing', where });
    expect(suite.cases.map((c) => c.name)).toEqual(['fuzz-1-1', 'fuzz-1-2', 'fuzz-1-4']);
    expect(suite.properties['junitCases']).toBe('failing');
    expect(suite.properties['omittedPassingCases']).toBe('2');
    const full = campaignJUnit(lines, all, { where });
    expect(full.cases).toHaveLength(5);
    expect(full.properties['junitCases']).toBe('all');
    expect(full.properties['omittedPassingCases']).toBeUndefined();
    // The hazard case passes, with what it met in <system-out>.
    expect(junitXml([suite])).toMatch(
      /name="fuzz-1-2" time="[\d.]+">\s*<properties>\s*<property name="knownOpenHazards" value="remove-before-sources-ready"\/>\s*<\/properties>\s*<system-out><!\[CDATA\[termination-stuck \(known-open hazard remove-before-sources-ready, kubernetes\/kubernetes#116880\)/,
    );
  });

  it('says why the campaign exits as it does', () => {
    expect(lines.summary.exitReason).toMatch(/^exit 3: the simulator threw in case 4/);
    expect(campaignJUnit(lines, all).properties['exitReason']).toBe(lines.summary.exitReason);
  });
});

describe('verifyJUnit', () => {
  const scenario = loadScenarioFile('scenarios/pod-deleted-before-start.yaml');

  it('gives each claim its file and line, and a failing claim its replay command inside <failure>', () => {
    const claims = scenario.claims.map((claim) => ({ scenario, claim: checkClaim(scenario, claim) }));
    // Claim something the second claim (the pod worker off) did not see, so that it fails.
    const second = claims[1];
    if (second === undefined) throw new Error('no second claim');
    const wrong = {
      ...second,
      claim: { ...second.claim, pass: false, expected: ['termination-stuck' as const] },
    };
    const suites = verifyJUnit([claims[0] ?? second, wrong], [], (file) => `rel/${file}`);
    const xml = junitXml(suites);
    for (const c of scenario.claims) {
      expect(xml).toContain(`file="rel/scenarios/pod-deleted-before-start.yaml" line="${c.line}"`);
    }
    expect(xml).toMatch(
      /<failure message="expected \[termination-stuck\], got \[container-started-after-terminated\]" type="violation"><!\[CDATA\[[\s\S]*?\nreplay: npx podrace run rel\/scenarios\/pod-deleted-before-start\.yaml --fix pod-worker-lifecycle=off\]\]><\/failure>/,
    );
  });

  it('a file that does not load points at the line its error names', () => {
    const [suite] = verifyJUnit(
      [],
      [{ file: 'bad.yaml', message: 'bad.yaml:7:3: pods.0.name: expected a string' }],
      (file) => `rel/${file}`,
    );
    expect(suite?.cases[0]).toMatchObject({ file: 'rel/bad.yaml', line: 7 });
    expect(junitXml(suite === undefined ? [] : [suite])).toContain('file="rel/bad.yaml" line="7"');
  });
});
