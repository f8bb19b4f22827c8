import { describe, expect, it } from 'vitest';
import { FIX_IDS, Fixes } from '../../src/fixes.js';
import { resultToJson, violationToJson } from '../../src/report/json.js';
import { sampleResult, violation } from './fixtures.js';

describe('resultToJson', () => {
  it('has exactly the documented keys, in order (docs/cli.md, "The JSON result")', () => {
    const json = resultToJson(sampleResult(), 3.1);
    expect(Object.keys(json)).toEqual([
      'scenario',
      'seed',
      'fixes',
      'events',
      'virtualTimeMs',
      'wallMs',
      'violations',
      'claims',
      'outcome',
      'findings',
      'complete',
      'maxEvents',
    ]);
    expect(json).toMatchObject({
      scenario: 'pod-deleted-before-start',
      seed: 7,
      events: 412,
      virtualTimeMs: 3000.5,
      wallMs: 3.1,
      claims: null,
      outcome: 'idle',
    });
  });

  it('lists every fix with its state, in the table order', () => {
    const json = resultToJson(sampleResult(), 0);
    expect(Object.keys(json.fixes)).toEqual([...FIX_IDS]);
    expect(Object.entries(json.fixes).filter(([, on]) => on)).toEqual([
      ['unmount-device-uncertain', true],
      ['block-metrics', true],
    ]);
    expect(resultToJson(sampleResult({ fixes: Fixes.all() }), 0).fixes['pod-worker-lifecycle']).toBe(true);
  });

  it('writes violations with the documented fields only (no causes)', () => {
    const v = violationToJson({
      ...violation,
      causes: [{ kind: 'kubeletStarted', atMs: 0, node: 'node-a' }],
    });
    expect(Object.keys(v)).toEqual([
      'invariant',
      'atMs',
      'node',
      'pod',
      'uid',
      'volume',
      'message',
      'knownOpen',
    ]);
    expect(v).toEqual({
      invariant: 'container-started-after-terminated',
      atMs: 1520,
      node: 'node-a',
      pod: 'web',
      uid: 'web-1',
      volume: null,
      message: violation.message,
      knownOpen: null,
    });
    expect(resultToJson(sampleResult(), 0).violations).toEqual([v]);
  });

  it('round-trips through JSON.stringify identically', () => {
    const a = JSON.stringify(resultToJson(sampleResult(), 1));
    const b = JSON.stringify(resultToJson(sampleResult(), 1));
    expect(a).toBe(b);
    expect(
      a.startsWith('{"scenario":"pod-deleted-before-start","seed":7,"fixes":{"pod-worker-lifecycle":false'),
    ).toBe(true);
  });
});
