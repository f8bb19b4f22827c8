// The mutation suite (docs/mutation.md) in brief: the catalogue is valid against today's source, the
// validator refuses what it must, the esbuild substitution really lands in the bundle, the classifier
// reads fuzz and verify output as documented (hiddenByHazard included), and one mutant the fuzzer is
// known to kill is killed end to end with a small budget while the baseline stays clean.
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildBundle, outputOf } from './build.js';
import { MUTANTS, type Mutant } from './catalogue.js';
import {
  classify,
  type FuzzFacts,
  fuzzFacts,
  hazardShifts,
  probeDigests,
  rates,
  reach,
  verifyFacts,
} from './classify.js';
import { catalogueTable, documentedTable } from './docTable.js';
import { AREAS, areaOf, MIN_NON_EQUIVALENT, MIN_PER_AREA } from './rules.js';
import { baselineProblems, runBaseline, runMutant } from './run.js';
import { countByArea, occurrences, validateCatalogue } from './validate.js';

const root = join(import.meta.dirname, '..', '..');

/** A stand-in checkout for the bundles: links to the real package.json and scenarios/. */
const outRoot = mkdtempSync(join(tmpdir(), 'podrace-mutation-'));
symlinkSync(join(root, 'package.json'), join(outRoot, 'package.json'));
symlinkSync(join(root, 'scenarios'), join(outRoot, 'scenarios'));
afterAll(() => rmSync(outRoot, { recursive: true, force: true }));

const mutant = (id: string): Mutant => {
  const m = MUTANTS.find((x) => x.id === id);
  if (m === undefined) throw new Error(`no mutant ${id}`);
  return m;
};

describe('the catalogue', () => {
  it('is valid against today’s source: each find once in its file, each mutated file parses', () => {
    expect(validateCatalogue(MUTANTS, root, { sizeRules: true })).toEqual([]);
  });

  it('has unique kebab-case ids, at least 40 live mutants and at least 4 per area', () => {
    const ids = MUTANTS.map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(MUTANTS.length).toBeGreaterThanOrEqual(48);
    expect(MUTANTS.filter((m) => m.equivalent === undefined).length).toBeGreaterThanOrEqual(
      MIN_NON_EQUIVALENT,
    );
    const perArea = countByArea(MUTANTS);
    for (const a of AREAS) expect(perArea[a], a).toBeGreaterThanOrEqual(MIN_PER_AREA);
    for (const m of MUTANTS) expect(areaOf(m.file), m.id).toBeDefined();
  });

  it('is the table of docs/mutation.md (npm run mutation -- --write-docs)', () => {
    expect(documentedTable(root)).toBe(catalogueTable(MUTANTS));
  });

  it('cites upstream as kubernetes/kubernetes#N', () => {
    for (const m of MUTANTS)
      if (m.upstream !== undefined) expect(m.upstream, m.id).toMatch(/^kubernetes\/kubernetes#\d+$/);
  });
});

describe('the validator refuses', () => {
  const valid = mutant('adc-multi-attach-off-by-one');
  const problems = (m: Partial<Mutant>, list: readonly Mutant[] = []) =>
    validateCatalogue([...list, { ...valid, ...m }], root, { parse: false }).join('\n');
  const storage = readFileSync(join(root, 'src/storage/host.ts'), 'utf8');
  const line = storage.split('\n').find((l) => l.trim().length > 30 && occurrences(storage, l) === 1) ?? '';

  it('the simulated ground truth, whatever the text', () => {
    expect(line).not.toBe('');
    expect(problems({ file: 'src/storage/host.ts', find: line, replace: `${line} ` })).toMatch(
      /ground truth/,
    );
    for (const file of [
      'src/invariants/index.ts',
      'src/facts.ts',
      'src/cluster/apiServer.ts',
      'src/sim/sim.ts',
    ])
      expect(problems({ file }), file).toMatch(/ground truth/);
  });

  it('a missing file, text found twice or not at all, no change, a repeated id, a bad id', () => {
    expect(problems({ file: 'src/kubelet/nothing.ts' })).toMatch(/does not exist/);
    expect(problems({ find: 'const ' })).toMatch(/occurs \d+ times/);
    expect(problems({ find: 'no such text anywhere' })).toMatch(/occurs 0 times/);
    expect(problems({ replace: valid.find })).toMatch(/replace equals find/);
    expect(problems({}, [valid])).toMatch(/used twice/);
    expect(problems({ id: 'Not_Kebab' })).toMatch(/kebab-case/);
  });

  it('a mutated file that no longer parses', () => {
    expect(
      validateCatalogue([{ ...valid, replace: '        if (nodes.length > 1 {' }], root).join('\n'),
    ).toMatch(/does not parse/);
  });
});

describe('the build', () => {
  it("puts the mutated text into the bundle chunk of the mutated file, and not the original's", async () => {
    // esbuild reprints the code (indentation, numbers): a mutant whose lines it prints as written.
    const m = mutant('adc-verify-safe-wrong-field');
    const bundle = await buildBundle(root, 'substitution', m, outRoot);
    expect(bundle.dir).toBe(join(outRoot, '.mutation', 'substitution'));
    const chunk = outputOf(root, bundle, m.file);
    expect(chunk).toBeDefined();
    const text = readFileSync(chunk ?? '', 'utf8');
    expect(text).toContain(m.replace.trim());
    expect(text).not.toContain(m.find.trim());
    const baseline = await buildBundle(root, 'substitution-baseline', undefined, outRoot);
    const original = readFileSync(outputOf(root, baseline, m.file) ?? '', 'utf8');
    expect(original).toContain(m.find.trim());
    expect(original).not.toContain(m.replace.trim());
  });

  it('refuses a file the CLI does not import', async () => {
    const m = { file: 'src/cli/genDocs.ts', find: 'const docPath', replace: 'const docPath2' };
    await expect(buildBundle(root, 'not-bundled', m, outRoot)).rejects.toThrow(/not part of the bundle/);
  });
});

// Hand-written `fuzz --json` lines: only the fields the classifier reads.
const caseLine = (n: number, fired: string[], knownOpen: string[], extra: object = {}) =>
  JSON.stringify({ type: 'case', case: n, fired, knownOpen, outcome: 'horizon', ...extra });
const summary = (ran: number, invariants: Record<string, { cases: number; knownOpen: number }>, extra = {}) =>
  JSON.stringify({ type: 'summary', ran, invariants, maxEventsCases: 0, ...extra });

describe('the classifier', () => {
  const hazardsOnly = [
    caseLine(8, ['static-pod-overlap'], ['static-pod-overlap']),
    caseLine(15, ['static-pod-overlap'], ['static-pod-overlap']),
    summary(100, { 'static-pod-overlap': { cases: 2, knownOpen: 2 } }),
  ].join('\n');
  const baseline = [fuzzFacts(1, hazardsOnly, 0, false), fuzzFacts(2, hazardsOnly, 0, false)];
  const cleanVerify = verifyFacts('{"type":"summary","claims":84,"exitCode":0}', '', 0, false);

  it('reads unexplained invariants, the first case, errors, cut-short cases and known-open counts', () => {
    const out = [
      caseLine(3, ['static-pod-overlap'], ['static-pod-overlap']),
      caseLine(7, ['multi-node-mount', 'static-pod-overlap'], ['static-pod-overlap']),
      caseLine(9, ['multi-node-mount'], []),
      caseLine(11, [], [], { outcome: 'max-events' }),
      caseLine(12, [], [], { outcome: 'error', error: 'AssertionError: boom\n    at x' }),
      'not json',
      summary(100, {
        'static-pod-overlap': { cases: 2, knownOpen: 2 },
        'multi-node-mount': { cases: 2, knownOpen: 0 },
      }),
    ].join('\n');
    const f = fuzzFacts(1, out, 1, false);
    expect(f.unexplained).toEqual({ 'multi-node-mount': 2 });
    expect(f.firstUnexplainedCase).toBe(7);
    expect(f.knownOpen).toEqual({ 'static-pod-overlap': 2 });
    expect(f).toMatchObject({ ran: 100, maxEventsCases: 1, firstMaxEventsCase: 11, errorCases: 1 });
    expect(f.firstError).toBe('AssertionError: boom');
  });

  it('fuzz exit 1 is killed-fuzz (by the invariant, at its first case), exit 3 crashed, a timeout timeout', () => {
    const killed = fuzzFacts(
      2,
      [caseLine(41, ['termination-stuck'], []), summary(100, {})].join('\n'),
      1,
      false,
    );
    const clean1 = baseline[0] as FuzzFacts;
    const v = classify([clean1, killed], cleanVerify, 100, baseline);
    expect(v).toMatchObject({ outcome: 'killed-fuzz', by: ['termination-stuck'], seed: 2, caseIndex: 41 });
    expect(v.afterCases).toBe(142);
    const livelock = fuzzFacts(
      1,
      [caseLine(5, [], [], { outcome: 'max-events' }), summary(100, {})].join('\n'),
      1,
      false,
    );
    expect(classify([livelock], cleanVerify, 100, baseline)).toMatchObject({
      by: ['event-budget'],
      caseIndex: 5,
    });
    const threw = fuzzFacts(1, caseLine(4, [], [], { outcome: 'error', error: 'TypeError: x' }), 3, false);
    expect(classify([threw], cleanVerify, 100, baseline)).toMatchObject({
      outcome: 'crashed',
      by: ['TypeError: x'],
      caseIndex: 4,
    });
    expect(classify([fuzzFacts(1, '', null, true)], undefined, 100, baseline).outcome).toBe('timeout');
  });

  it('verify exit 1 after clean campaigns is killed-verify, by scenario and claim', () => {
    const failed = verifyFacts(
      [
        '{"type":"claim","scenario":"a","claim":"fixes: all","expected":[],"actual":["x"],"pass":false}',
        '{"type":"claim","scenario":"b","claim":"kubelet: 1.20","expected":[],"actual":[],"pass":true}',
        '{"type":"summary","claims":2,"exitCode":1}',
      ].join('\n'),
      '',
      1,
      false,
    );
    expect(classify(baseline, failed, 100, baseline)).toMatchObject({
      outcome: 'killed-verify',
      by: ['a: fixes: all'],
    });
    const internal = verifyFacts('', 'podrace: internal error: x\n', 3, false);
    expect(classify(baseline, internal, 100, baseline).outcome).toBe('crashed');
  });

  it('hiddenByHazard: a clean survivor whose known-open counts moved from the baseline’s', () => {
    const same = classify(baseline, cleanVerify, 100, baseline);
    expect(same).toMatchObject({ outcome: 'survived', hiddenByHazard: false, hazardShifts: [] });
    const more = fuzzFacts(
      2,
      [
        caseLine(8, ['static-pod-overlap'], ['static-pod-overlap']),
        caseLine(9, ['termination-stuck'], ['termination-stuck']),
        summary(100, {
          'static-pod-overlap': { cases: 1, knownOpen: 1 },
          'termination-stuck': { cases: 1, knownOpen: 1 },
        }),
      ].join('\n'),
      0,
      false,
    );
    const hidden = classify([baseline[0] as FuzzFacts, more], cleanVerify, 100, baseline);
    expect(hidden.outcome).toBe('survived');
    expect(hidden.hiddenByHazard).toBe(true);
    expect(hidden.hazardShifts).toEqual([
      { seed: 2, invariant: 'static-pod-overlap', baseline: 2, mutant: 1 },
      { seed: 2, invariant: 'termination-stuck', baseline: 0, mutant: 1 },
    ]);
    // A campaign that failed is not compared: its outcome says more than its counts.
    const failing = { ...more, exitCode: 1 };
    expect(hazardShifts([failing], baseline)).toEqual([]);
    // Verify killing the mutant does not clear the excuse that hid it from fuzz.
    const failedVerify = verifyFacts(
      [
        '{"type":"claim","scenario":"a","claim":"fixes: all","expected":[],"actual":["x"],"pass":false}',
        '{"type":"summary","claims":1,"exitCode":1}',
      ].join('\n'),
      '',
      1,
      false,
    );
    const byVerify = classify([baseline[0] as FuzzFacts, more], failedVerify, 100, baseline);
    expect(byVerify).toMatchObject({ outcome: 'killed-verify', hiddenByHazard: true });
    expect(classify(baseline, failedVerify, 100, baseline).hiddenByHazard).toBe(false);
  });

  it('reach counts the probe runs whose digest moved from the baseline’s', () => {
    const base = {
      seed: 1,
      cases: ['a', 'b', 'c', 'd'],
      scenarios: { 'x: fixes: all': 'p', 'y: fixes: none': 'q' },
    };
    expect(reach(base, base)).toEqual({
      cases: 0,
      casesOf: 4,
      firstCase: null,
      claims: 0,
      claimsOf: 2,
      firstClaim: null,
    });
    const moved = {
      ...base,
      cases: ['a', 'B', 'c', 'D'],
      scenarios: { 'x: fixes: all': 'p', 'y: fixes: none': 'Q' },
    };
    expect(reach(base, moved)).toMatchObject({
      cases: 2,
      firstCase: 1,
      claims: 1,
      firstClaim: 'y: fixes: none',
    });
    expect(probeDigests(`noise\n${JSON.stringify(base)}\n`)).toEqual(base);
    expect(probeDigests('')).toBeUndefined();
  });

  it('rates count over the non-equivalent mutants', () => {
    const r = rates([
      { outcome: 'killed-fuzz', hiddenByHazard: false },
      { outcome: 'crashed', hiddenByHazard: false },
      { outcome: 'killed-verify', hiddenByHazard: true },
      { outcome: 'survived', hiddenByHazard: true },
      { outcome: 'equivalent', hiddenByHazard: false },
    ]);
    expect(r).toMatchObject({
      mutants: 5,
      equivalent: 1,
      fuzzKillRate: 0.5,
      killRate: 0.75,
      hiddenByHazard: 2,
    });
  });
});

describe('end to end, 300 cases of seed 1', () => {
  const budget = { runs: 300, seeds: [1], timeoutMs: 120_000, probeCases: 0 };

  it('the baseline is clean and a mutant the fuzzer is known to kill is killed', async () => {
    const base = await runBaseline(root, budget, false, outRoot);
    expect(baselineProblems(base)).toEqual([]);
    // Measured: volume-torn-down-while-running in case 1 of seed 1 (docs/mutation.md).
    const m = mutant('vm-populator-deleted-pod-terminating');
    const r = await runMutant(root, m, budget, base, false, outRoot);
    expect(r.verdict).toMatchObject({ outcome: 'killed-fuzz', seed: 1 });
    expect(r.verdict?.by).toContain('volume-torn-down-while-running');
    expect(existsSync(join(outRoot, '.mutation', m.id))).toBe(false);
  }, 120_000);
});
