// Whatever the input, the loader returns a Scenario or throws one InputError of `file:line:col: ...` lines:
// never another exception, never a stack trace, never a multi-line message per mistake.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { InputError } from '../../src/scenario/errors.js';
import { MAX_ERRORS, parseScenarioText } from '../../src/scenario/load.js';

const LINE = /^f\.yaml:\d+:\d+: \S.*$/;
const MORE = /^f\.yaml: \.\.\. and \d+ more errors?$/;

function check(text: string): void {
  try {
    parseScenarioText(text, 'f.yaml');
  } catch (err) {
    expect(err).toBeInstanceOf(InputError);
    const lines = (err as InputError).message.split('\n');
    expect(lines.length).toBeLessThanOrEqual(MAX_ERRORS + 1);
    lines.forEach((line, i) => {
      if (i === MAX_ERRORS) expect(line).toMatch(MORE);
      else expect(line).toMatch(LINE);
    });
  }
}

const BASE = `name: base
seed: 3
horizon: 1m
cluster:
  nodes: [node-a, node-b]
  volumes:
    - {name: lun-1, plugin: fc, mode: Block, capacity: 1Gi}
timeline:
  - at: 0s
    createPod: {pod: web, node: node-a, containers: [{name: app, startDelay: 1s}], volumes: [lun-1]}
  - at: 1s
    deletePod: {pod: web, gracePeriod: 5s}
  - at: 2s
    fault: {unmountDevice: {node: node-a, volume: lun-1, stage: afterUnmount, times: 2}}
  - at: 3s
    crashContainer: {pod: web}
claims:
  - fixes: {off: [fc-unmount-retry]}
    violations: [device-leaked-after-unmount]
`;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Replaces the value at the n-th node (pre-order) of `value` with `replacement`. */
function mutate(value: Json, n: number, replacement: Json): Json {
  let count = 0;
  const walk = (v: Json): Json => {
    if (count++ === n) return replacement;
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value);
}

describe('loader robustness', () => {
  it('accepts the base scenario', () => {
    expect(parseScenarioText(BASE, 'f.yaml').timeline).toHaveLength(4);
  });

  it('survives arbitrary text', () => {
    fc.assert(fc.property(fc.string({ maxLength: 200 }), check), { numRuns: 300 });
  });

  it('survives the base scenario with characters dropped or inserted', () => {
    fc.assert(
      fc.property(fc.nat(BASE.length - 1), fc.nat(3), fc.string({ maxLength: 3 }), (at, drop, insert) => {
        check(BASE.slice(0, at) + insert + BASE.slice(at + drop));
      }),
      { numRuns: 300 },
    );
  });

  it('survives any subtree of the base scenario replaced by any JSON value', () => {
    const base = parse(BASE) as Json;
    fc.assert(
      fc.property(fc.nat(80), fc.jsonValue({ maxDepth: 2 }), (n, replacement) => {
        check(stringify(mutate(base, n, replacement as Json)));
      }),
      { numRuns: 500 },
    );
  });
});
