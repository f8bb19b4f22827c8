// JUnit names the known-open hazard of each violation tied to one: in the case's text, and as the case's
// `knownOpenHazards` property, for fuzz and verify alike.
import { describe, expect, it } from 'vitest';
import { Fixes } from '../../src/fixes.js';
import { type CampaignReport, kindStats, runCaseChunk } from '../../src/fuzz/campaign.js';
import { campaignLines, caseLine } from '../../src/fuzz/campaignJson.js';
import { campaignJUnit } from '../../src/fuzz/campaignJUnit.js';
import { junitXml, verifyJUnit } from '../../src/report/junit.js';
import { checkClaim } from '../../src/run/run.js';
import { loadScenarioFile } from '../../src/scenario/load.js';

describe('JUnit and known-open hazards', () => {
  it('fuzz: a passing case of a hazard names it in its output and properties; a clean case has neither', () => {
    const fixes = Fixes.all();
    // Case 15 of seed 1: static-pod-overlap, the hazard static-pod-orphan-after-restart; case 0 is clean.
    const results = runCaseChunk({ seed: 1, fixes: fixes.ids(), oracle: false }, [0, 15]);
    expect(results[1]?.knownOpen).toEqual(['static-pod-overlap']);
    const report: CampaignReport = {
      seed: 1,
      runs: 16,
      shard: undefined,
      fixes,
      planned: 2,
      results,
      stopped: false,
      threads: 0,
      kinds: kindStats(results),
      failures: [],
      changed: [],
      ranked: [],
      determinism: null,
    };
    const lines = campaignLines(report, {
      files: [],
      wallMs: 0,
      version: 'test',
      shrink: 0,
      shrinkRuns: 0,
      strict: false,
    });
    const xml = junitXml([
      campaignJUnit(
        lines,
        results.map((r) => caseLine(r, 1, fixes)),
      ),
    ]);
    expect(xml).toContain(
      'static-pod-overlap (known-open hazard static-pod-orphan-after-restart, kubernetes/kubernetes#112814): ',
    );
    expect(
      xml.match(/<property name="knownOpenHazards" value="static-pod-orphan-after-restart"\/>/g),
    ).toHaveLength(1);
    expect(xml).not.toContain('<failure');
  });

  it('verify: a claim whose run fires a hazard carries the property', () => {
    const scenario = loadScenarioFile('scenarios/static-pod-orphan-after-restart.yaml');
    const rows = scenario.claims.map((claim) => ({ scenario, claim: checkClaim(scenario, claim) }));
    const hazardous = rows.filter((r) => r.claim.result.violations.some((v) => v.knownOpen !== undefined));
    expect(hazardous.length).toBeGreaterThan(0);
    const xml = junitXml(verifyJUnit(rows));
    expect(
      xml.match(/<property name="knownOpenHazards" value="static-pod-orphan-after-restart"\/>/g),
    ).toHaveLength(hazardous.length);
  });
});
