// Every bound of LIMITS, from the schema: a file at the bound loads, one past it is refused with one
// located line `file:line:col: field: ... (at most N)`, before anything proportional to it is built
// (`containers: 4294967296` returns at once instead of allocating four billion containers). The docs list
// the same bounds (docs/scenario-format.md, "Limits").
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FIX_IDS, KUBELET_NAMES } from '../../src/fixes.js';
import { InputError } from '../../src/scenario/errors.js';
import { DURATION_TEXT, FILE_BYTES_TEXT, LIMIT_ROWS, LIMITS } from '../../src/scenario/limits.js';
import { parseScenarioText } from '../../src/scenario/load.js';
import type { Scenario } from '../../src/scenario/types.js';

function load(text: string): Scenario {
  return parseScenarioText(text, 'f.yaml');
}

function refusal(text: string): string {
  try {
    load(text);
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    expect(err.located).toBe(true);
    return err.message;
  }
  throw new Error('expected the file to be refused');
}

interface Parts {
  readonly top?: string;
  readonly nodes?: string;
  readonly volumes?: readonly string[];
  readonly timeline?: readonly string[];
  readonly claims?: readonly string[];
}

/** A scenario with one node `a` and one volume `v` unless told otherwise. */
function scenario(p: Parts): string {
  const volumes = p.volumes ?? ['    - {name: v, plugin: fc, capacity: 1Gi}'];
  return [
    'name: limits',
    ...(p.top === undefined ? [] : [p.top]),
    'cluster:',
    `  nodes: ${p.nodes ?? '[a]'}`,
    '  volumes:',
    ...volumes,
    ...(p.timeline?.length === 0
      ? ['timeline: []']
      : ['timeline:', ...(p.timeline ?? ['  - {at: 0s, createPod: {pod: web, node: a, containers: 1}}'])]),
    ...(p.claims === undefined ? [] : ['claims:', ...p.claims]),
    '',
  ].join('\n');
}

const range = (n: number, f: (i: number) => string): string[] => Array.from({ length: n }, (_, i) => f(i));
const list = (n: number, f: (i: number) => string): string => `[${range(n, f).join(', ')}]`;
const pod = (extra: string) => [`  - {at: 0s, createPod: {pod: web, node: a, ${extra}}}`];

describe('scenario limits', () => {
  it('containers of one pod: a count or a list; 4294967296 is refused at once, never allocated', () => {
    expect(load(scenario({ timeline: pod('containers: 100') })).timeline[0]).toMatchObject({
      action: { containers: expect.any(Array) },
    });
    expect(refusal(scenario({ timeline: pod('containers: 101') }))).toBe(
      'f.yaml:7:57: timeline[0].createPod.containers: too many containers in one pod: 101 (at most 100)',
    );
    expect(refusal(scenario({ timeline: pod('containers: 4294967296') }))).toBe(
      'f.yaml:7:57: timeline[0].createPod.containers: too many containers in one pod: 4294967296 (at most 100)',
    );
    const named = (n: number) => `containers: ${list(n, (i) => `{name: c${i}}`)}`;
    expect(load(scenario({ timeline: pod(named(100)) })).timeline).toHaveLength(1);
    expect(refusal(scenario({ timeline: pod(named(101)) }))).toMatch(
      /^f\.yaml:7:57: timeline\[0\]\.createPod\.containers: too many containers in one pod: 101 \(at most 100\)$/,
    );
  });

  it('containers of all pods together', () => {
    const pods = (n: number) =>
      range(n, (i) => `  - {at: 0s, createPod: {pod: p${i}, node: a, containers: 100}}`);
    expect(load(scenario({ timeline: pods(LIMITS.containers / 100) })).timeline).toHaveLength(2000);
    expect(refusal(scenario({ timeline: pods(LIMITS.containers / 100 + 1) }))).toBe(
      'f.yaml:2007:59: timeline[2000].createPod.containers: too many containers in all pods: 200100 by this entry (at most 200000)',
    );
  });

  it('pods (createPod entries): 25,000 load', () => {
    const pods = (n: number) =>
      range(n, (i) => `  - {at: 0s, createPod: {pod: p${i}, node: a, containers: 1}}`);
    expect(load(scenario({ timeline: pods(LIMITS.pods) })).timeline).toHaveLength(LIMITS.pods);
    expect(refusal(scenario({ timeline: pods(LIMITS.pods + 1) }))).toBe(
      'f.yaml:25007:25: timeline[25000].createPod: too many pods: 25001 (at most 25000)',
    );
  });

  it('timeline entries: 50,000 load', () => {
    const entries = (n: number) => range(n, () => '  - {at: 0s, shutdownNode: {node: a}}');
    expect(load(scenario({ timeline: entries(LIMITS.timelineEntries) })).timeline).toHaveLength(
      LIMITS.timelineEntries,
    );
    expect(refusal(scenario({ timeline: entries(LIMITS.timelineEntries + 1) }))).toBe(
      'f.yaml:7:3: timeline: too many timeline entries: 50001 (at most 50000)',
    );
  });

  it('nodes and volumes of the cluster, volumes of one pod', () => {
    const nodes = (n: number) => list(n, (i) => (i === 0 ? 'a' : `n${i}`));
    expect(load(scenario({ nodes: nodes(LIMITS.nodes) })).nodes).toHaveLength(LIMITS.nodes);
    expect(refusal(scenario({ nodes: nodes(LIMITS.nodes + 1) }))).toBe(
      'f.yaml:3:10: cluster.nodes: too many nodes: 1001 (at most 1000)',
    );
    const volumes = (n: number) => range(n, (i) => `    - {name: v${i}, plugin: csi, capacity: 1Gi}`);
    expect(load(scenario({ volumes: volumes(LIMITS.volumes) })).volumes).toHaveLength(LIMITS.volumes);
    expect(refusal(scenario({ volumes: volumes(LIMITS.volumes + 1) }))).toBe(
      'f.yaml:5:5: cluster.volumes: too many volumes: 20001 (at most 20000)',
    );
    const perPod = (n: number) => ({
      volumes: volumes(n),
      timeline: pod(`containers: 1, volumes: ${list(n, (i) => `v${i}`)}`),
    });
    expect(load(scenario(perPod(LIMITS.volumesPerPod))).timeline).toHaveLength(1);
    expect(refusal(scenario(perPod(LIMITS.volumesPerPod + 1)))).toBe(
      'f.yaml:107:69: timeline[0].createPod.volumes: too many volumes in one pod: 101 (at most 100)',
    );
  });

  it('a container start delay fits in the kubelet runtime-request-timeout: 119s at most', () => {
    const text = (d: string) =>
      scenario({
        timeline: [`  - {at: 0s, createPod: {pod: web, node: a, containers: [{name: c, startDelay: ${d}}]}}`],
      });
    expect(load(text('119s')).timeline.length).toBe(1);
    expect(refusal(text('2m'))).toMatch(
      /^f\.yaml:\d+:\d+: timeline\[0\]\.createPod\.containers\[0\]\.startDelay: expected at most 119s, got 2m: a start must fit in the kubelet's runtime-request-timeout/,
    );
  });

  it(`nodes times horizon: ${LIMITS.nodeHours} node-hours at most, located at the horizon`, () => {
    const nodes = (n: number) => list(n, (i) => `n${i}`);
    // At the bound: 8 nodes for 25h would pass the product, but 24h is the longest horizon; 200 nodes for 1h.
    expect(load(scenario({ top: 'horizon: 1h', nodes: nodes(200), timeline: [] })).nodes).toHaveLength(200);
    expect(load(scenario({ top: 'horizon: 24h', nodes: nodes(8), timeline: [] })).horizonMs).toBe(
      LIMITS.durationMs,
    );
    expect(refusal(scenario({ top: 'horizon: 24h', nodes: nodes(9), timeline: [] }))).toBe(
      'f.yaml:2:10: horizon: 24h on 9 nodes is 216 node-hours (at most 200, nodes times horizon: with 9 nodes the horizon may be 80000s at most)',
    );
    expect(refusal(scenario({ top: 'horizon: 24h', nodes: nodes(1000), timeline: [] }))).toBe(
      'f.yaml:2:10: horizon: 24h on 1000 nodes is 24000 node-hours (at most 200, nodes times horizon: with 1000 nodes the horizon may be 12m at most)',
    );
    // The default horizon (10m) on the most nodes, 1,000, is 166.7 node-hours: a file that gives none loads.
    expect(load(scenario({ nodes: nodes(1000), timeline: [] })).nodes).toHaveLength(1000);
  });

  it(`every duration: ${DURATION_TEXT} at most`, () => {
    const at = (d: string) => [`  - {at: ${d}, shutdownNode: {node: a}}`];
    expect(load(scenario({ top: 'horizon: 24h', timeline: at('24h') })).horizonMs).toBe(LIMITS.durationMs);
    expect(refusal(scenario({ top: 'horizon: 86400001ms', timeline: [] }))).toBe(
      'f.yaml:2:10: horizon: too long: 86400001ms (at most 24h)',
    );
    expect(refusal(scenario({ top: 'horizon: 24h', timeline: at('25h') }))).toBe(
      'f.yaml:8:10: timeline[0].at: too long: 25h (at most 24h)',
    );
    const fields: [string, string][] = [
      ['createPod.gracePeriod', 'createPod: {pod: web, node: a, containers: 1, gracePeriod: %}'],
      ['restartKubelet.downFor', 'restartKubelet: {node: a, downFor: %}'],
      ['fault.containerStart.delay', 'fault: {containerStart: {pod: web, delay: %}}'],
      ['fault.mountDevice.delay', 'fault: {mountDevice: {node: a, volume: v, delay: %}}'],
      ['fault.waitForAttach.delay', 'fault: {waitForAttach: {node: a, volume: v, delay: %}}'],
    ];
    for (const [field, action] of fields) {
      const entry = (d: string) => [...pod('containers: 1'), `  - {at: 0s, ${action.replace('%', d)}}`];
      const text = (d: string) =>
        scenario({
          timeline: field.startsWith('createPod') ? [`  - {at: 0s, ${action.replace('%', d)}}`] : entry(d),
        });
      expect(load(text('24h')).timeline.length, field).toBeGreaterThan(0);
      expect(refusal(text('1441m')), field).toMatch(
        new RegExp(
          `^f\\.yaml:\\d+:\\d+: timeline\\[\\d\\]\\.${field.replace(/[.[\]]/g, '\\$&')}: too long: 1441m \\(at most 24h\\)$`,
        ),
      );
    }
  });

  it('fault counts', () => {
    const fault = (f: string) => [`  - {at: 0s, fault: {${f}}}`];
    for (const [kind, f] of [
      [
        'unmountDevice.times',
        (n: number) => `unmountDevice: {node: a, volume: v, stage: afterUnmount, times: ${n}}`,
      ],
      ['tearDown.times', (n: number) => `tearDown: {node: a, volume: v, times: ${n}}`],
      ['mountDevice.times', (n: number) => `mountDevice: {node: a, volume: v, delay: 1s, times: ${n}}`],
      ['waitForAttach.times', (n: number) => `waitForAttach: {node: a, volume: v, times: ${n}}`],
      ['procMounts.inconsistentReads', (n: number) => `procMounts: {node: a, inconsistentReads: ${n}}`],
    ] as const) {
      expect(load(scenario({ timeline: fault(f(LIMITS.faultCount)) })).timeline, kind).toHaveLength(1);
      expect(refusal(scenario({ timeline: fault(f(LIMITS.faultCount + 1)) })), kind).toMatch(
        new RegExp(
          `^f\\.yaml:7:\\d+: timeline\\[0\\]\\.fault\\.${kind}: too many [a-z ]+: 1000001 \\(at most 1000000\\)$`,
        ),
      );
    }
  });

  it('names, description, upstream and error strings', () => {
    const long = (n: number) => 'a'.repeat(n);
    expect(
      load(scenario({ timeline: [`  - {at: 0s, createPod: {pod: ${long(253)}, node: a, containers: 1}}`] }))
        .timeline,
    ).toHaveLength(1);
    expect(
      refusal(
        scenario({ timeline: [`  - {at: 0s, createPod: {pod: ${long(254)}, node: a, containers: 1}}`] }),
      ),
    ).toBe('f.yaml:7:31: timeline[0].createPod.pod: too long for a pod name: 254 characters (at most 253)');
    expect(refusal(scenario({ timeline: pod(`containers: [{name: ${long(64)}}]`) }))).toBe(
      'f.yaml:7:65: timeline[0].createPod.containers[0].name: too long for a container name: 64 characters (at most 63)',
    );
    expect(load(scenario({ top: `description: ${long(LIMITS.descriptionChars)}` })).description).toHaveLength(
      LIMITS.descriptionChars,
    );
    expect(refusal(scenario({ top: `description: ${long(LIMITS.descriptionChars + 1)}` }))).toBe(
      'f.yaml:2:14: description: too long: 10001 characters (at most 10000)',
    );
    expect(
      load(scenario({ top: `upstream: ${list(LIMITS.upstreamRefs, () => long(200))}` })).upstream,
    ).toHaveLength(100);
    expect(refusal(scenario({ top: `upstream: ${list(LIMITS.upstreamRefs + 1, () => 'x')}` }))).toBe(
      'f.yaml:2:11: upstream: too many references: 101 (at most 100)',
    );
    expect(refusal(scenario({ top: `upstream: [${long(201)}]` }))).toBe(
      'f.yaml:2:12: upstream[0]: too long: 201 characters (at most 200)',
    );
    const error = (n: number) => [
      ...pod('containers: 1'),
      `  - {at: 0s, fault: {containerStart: {pod: web, error: ${long(n)}}}}`,
    ];
    expect(load(scenario({ timeline: error(LIMITS.errorChars) })).timeline).toHaveLength(2);
    expect(refusal(scenario({ timeline: error(LIMITS.errorChars + 1) }))).toBe(
      'f.yaml:8:56: timeline[1].fault.containerStart.error: too long: 1001 characters (at most 1000)',
    );
    const attachError = (n: number) => [
      `  - {at: 0s, fault: {waitForAttach: {node: a, volume: v, error: ${long(n)}}}}`,
    ];
    expect(load(scenario({ timeline: attachError(LIMITS.errorChars) })).timeline).toHaveLength(1);
    expect(refusal(scenario({ timeline: attachError(LIMITS.errorChars + 1) }))).toMatch(
      /^f\.yaml:7:\d+: timeline\[0\]\.fault\.waitForAttach\.error: too long: 1001 characters \(at most 1000\)$/,
    );
    expect(refusal(`name: ${long(101)}\ncluster: {nodes: [a]}\ntimeline: []\n`)).toBe(
      'f.yaml:1:7: name: too long for a scenario name: 101 characters (at most 100)',
    );
  });

  it('claims, and the entries of one claim list', () => {
    // Distinct claims: each kubelet with each set of its first switches turned off (2^6 sets per kubelet
    // are plenty: all 2^FIX_IDS.length would be millions of lines).
    const claims = KUBELET_NAMES.flatMap((kubelet) =>
      range(2 ** Math.min(FIX_IDS.length, 6), (mask) => {
        const off = FIX_IDS.filter((_, i) => (mask >> i) & 1);
        const fixes = off.length === 0 ? '' : `, fixes: {off: [${off.join(', ')}]}`;
        return `  - {kubelet: '${kubelet}'${fixes}, violations: []}`;
      }),
    );
    expect(claims.length).toBeGreaterThan(LIMITS.claims);
    expect(load(scenario({ claims: claims.slice(0, LIMITS.claims) })).claims).toHaveLength(LIMITS.claims);
    expect(refusal(scenario({ claims: claims.slice(0, LIMITS.claims + 1) }))).toBe(
      'f.yaml:9:3: claims: too many claims: 101 (at most 100)',
    );
    const violations = list(LIMITS.claimListEntries + 1, () => 'termination-stuck');
    expect(refusal(scenario({ claims: [`  - {fixes: all, violations: ${violations}}`] }))).toBe(
      'f.yaml:9:30: claims[0].violations: too many invariant IDs: 101 (at most 100)',
    );
  });

  it('YAML aliases', () => {
    const pods = (n: number) => [
      '  - {at: 0s, createPod: {pod: p, node: a, containers: &c [{name: app}]}}',
      ...range(n, (i) => `  - {at: 0s, createPod: {pod: p${i}, node: a, containers: *c}}`),
    ];
    expect(load(scenario({ timeline: pods(LIMITS.yamlAliases) })).timeline).toHaveLength(
      LIMITS.yamlAliases + 1,
    );
    expect(refusal(scenario({ timeline: pods(LIMITS.yamlAliases + 1) }))).toBe(
      'f.yaml:108:58: too many YAML aliases: 101 (at most 100)',
    );
  });

  it(`file size: ${FILE_BYTES_TEXT} loads, one byte more does not`, () => {
    const body = scenario({});
    const padded = (bytes: number) => `${body}#${'x'.repeat(bytes - body.length - 2)}\n`;
    expect(Buffer.byteLength(padded(LIMITS.fileBytes))).toBe(LIMITS.fileBytes);
    expect(load(padded(LIMITS.fileBytes)).name).toBe('limits');
    expect(refusal(padded(LIMITS.fileBytes + 1))).toBe('f.yaml: too large: 2097153 bytes (at most 2 MiB)');
  });

  it('docs/scenario-format.md lists every limit', () => {
    const docs = readFileSync(new URL('../../docs/scenario-format.md', import.meta.url), 'utf8');
    for (const row of LIMIT_ROWS) expect(docs).toContain(`| ${row.what} | ${row.max} |`);
  });
});
