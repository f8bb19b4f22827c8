import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatDuration,
  formatSize,
  loadScenarioFile,
  parseScenarioText,
  scenarioToYaml,
} from '../../src/scenario/load.js';
import { type Scenario, stripSourcePositions } from '../../src/scenario/types.js';
import { validScenario } from './validScenario.js';

function roundTrip(s: Scenario): Scenario {
  return parseScenarioText(scenarioToYaml(s), 'roundtrip.yaml');
}

describe('scenarioToYaml', () => {
  it("keeps a claim's exhaustive: true, and writes nothing for a claim without it", () => {
    const s = loadScenarioFile('scenarios/pod-deleted-before-start.yaml');
    const [all, off] = s.claims;
    if (all === undefined || off === undefined) throw new Error('two claims expected');
    const marked: Scenario = { ...s, claims: [{ ...all, exhaustive: true }, off] };
    const yaml = scenarioToYaml(marked);
    expect(yaml.match(/exhaustive: true/g)).toHaveLength(1);
    expect(roundTrip(marked).claims.map((c) => c.exhaustive)).toEqual([true, undefined]);
  });

  it('writes durations and sizes in the largest exact unit', () => {
    expect([0, 250, 1500, 30_000, 300_000, 90_000].map(formatDuration)).toEqual([
      '0s',
      '250ms',
      '1500ms',
      '30s',
      '5m',
      '90s',
    ]);
    expect([10 * 1024 ** 3, 1536 * 1024, 1000, 1024 ** 4, 3 * 1024 ** 2].map(formatSize)).toEqual([
      '10Gi',
      '1536Ki',
      '1000',
      '1Ti',
      '3Mi',
    ]);
  });

  it.each(['minimal', 'spec-example', 'every-action'])('round-trips test/fixtures/valid/%s.yaml', (name) => {
    const s = loadScenarioFile(`test/fixtures/valid/${name}.yaml`);
    expect(stripSourcePositions(roundTrip(s))).toStrictEqual(stripSourcePositions(s));
  });

  it('writes the schema comment when asked', () => {
    const s = loadScenarioFile('test/fixtures/valid/minimal.yaml');
    const yaml = scenarioToYaml(s, { schemaPath: '../docs/scenario.schema.json' });
    expect(yaml.split('\n')[0]).toBe('# yaml-language-server: $schema=../docs/scenario.schema.json');
    expect(stripSourcePositions(parseScenarioText(yaml, 'x.yaml'))).toStrictEqual(stripSourcePositions(s));
  });

  it('round-trips every generated valid scenario, and writing is idempotent', () => {
    fc.assert(
      fc.property(validScenario, (s) => {
        const yaml = scenarioToYaml(s);
        const back = parseScenarioText(yaml, 'roundtrip.yaml');
        expect(stripSourcePositions(back)).toStrictEqual(s);
        expect(scenarioToYaml(back)).toBe(yaml);
        // Lines point at the entries the writer wrote.
        const lines = yaml.split('\n');
        for (const e of back.timeline) expect(lines[e.line - 1]).toMatch(/^ {2}- at: /);
        for (const c of back.claims) expect(lines[c.line - 1]).toMatch(/^ {2}- (fixes|kubelet): /);
      }),
      { numRuns: 300 },
    );
  });
});
