import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/cli/errors.js';
import { eventFilterOf } from '../../src/cli/eventsOption.js';
import { Fixes } from '../../src/fixes.js';
import {
  EVENT_KINDS,
  type EventFilter,
  eventsToJsonLines,
  filterEvents,
  formatEvents,
  NO_FILTER,
} from '../../src/report/eventFilter.js';
import { notableFacts } from '../../src/report/terminalTimeline.js';
import { runScenario } from '../../src/run/run.js';
import { loadScenarioFile } from '../../src/scenario/load.js';
import { fact, sampleResult, WEB } from './fixtures.js';

const only = (over: Partial<EventFilter>): EventFilter => ({ ...NO_FILTER, ...over });

describe('filterEvents on a sample run', () => {
  const result = sampleResult();
  const facts = result.facts ?? [];

  it('without a filter keeps every fact, the ones the timeline drops too, and the violation', () => {
    const events = filterEvents(result, NO_FILTER);
    expect(events.filter((e) => e.type === 'fact')).toHaveLength(facts.length);
    expect(notableFacts(facts).length).toBeLessThan(facts.length);
    expect(events.filter((e) => e.type === 'violation')).toHaveLength(1);
    // The violation comes after every fact of its millisecond.
    const i = events.findIndex((e) => e.type === 'violation');
    expect(events[i - 1]).toMatchObject({ type: 'fact', atMs: 1520 });
  });

  it('--since/--until bound the window, both ends included', () => {
    const events = filterEvents(result, only({ sinceMs: 1000, untilMs: 1500 }));
    expect(events.map((e) => e.atMs)).toEqual([1000, 1000, 1001, 1001, 1100, 1200, 1300, 1400, 1500, 1500]);
  });

  it('--node keeps one node; cluster is the cluster-wide facts', () => {
    const b = filterEvents(result, only({ nodes: ['node-b'] }));
    expect(b.map((e) => (e.type === 'fact' ? e.fact.kind : 'violation'))).toEqual([
      'kubeletStarted',
      'kubeletStopped',
    ]);
  });

  it('--pod keeps the pod (by name or UID) and the context of its node, not other pods', () => {
    const other = sampleResult({
      facts: [...facts, fact('containerStarted', 1600, { pod: 'db', uid: 'db-1', container: 'x' })],
    });
    for (const pod of ['web', WEB.uid]) {
      const events = filterEvents(other, only({ pods: [pod] }));
      const kinds = events.map((e) => (e.type === 'fact' ? e.fact.kind : 'violation'));
      expect(kinds).toContain('violation');
      expect(kinds).toContain('unmountDevice'); // names no pod, on web's node
      expect(kinds).not.toContain('kubeletStopped'); // node-b: web never ran there
      expect(events.some((e) => e.type === 'fact' && 'pod' in e.fact && e.fact.pod === 'db')).toBe(false);
    }
  });

  it('--volume keeps facts naming the volume, in a list too', () => {
    const kinds = filterEvents(result, only({ volumes: ['data'] })).map((e) =>
      e.type === 'fact' ? e.fact.kind : 'violation',
    );
    expect(new Set(kinds)).toEqual(
      new Set([
        'volumeAttached',
        'lunAccessOpened',
        'mountDevice',
        'volumeSetUp',
        'volumeTearDown',
        'unmountDevice',
        'deviceResidue',
      ]),
    );
  });

  it('--kind selects fact kinds, and violation the violations; filters combine', () => {
    const e = filterEvents(result, only({ kinds: ['containerStarted', 'violation'], sinceMs: 1000 }));
    expect(e.map((x) => x.type)).toEqual(['fact', 'violation']);
  });

  it('prints the timeline format, and JSON lines that parse back to the facts', () => {
    const events = filterEvents(result, only({ kinds: ['volumeTearDown', 'violation'] }));
    expect(formatEvents(events, false)).toEqual([
      '   1.520s VIOLATION container-started-after-terminated at 1.520s node-a pod web (uid web-1): runtime started container app of web (web-1) after the kubelet treated it as terminated',
      '   2.100s node-a  pod web  volumeTearDown data FAILED',
      '   2.200s node-a  pod web  volumeTearDown data',
    ]);
    const json = eventsToJsonLines(events).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(json[0]).toMatchObject({ kind: 'violation', invariant: 'container-started-after-terminated' });
    expect(json[1]).toEqual(facts.find((f) => f.kind === 'volumeTearDown'));
  });
});

describe('run --events on a real run', () => {
  const scenario = loadScenarioFile('scenarios/fc-kubelet-restart-reconstruct-procmounts.yaml');
  const result = runScenario(scenario, { fixes: Fixes.none(), recordFacts: true });

  it('the issue example: node-a, db1, 80-110 s shows the restart, /proc/mounts and reconstruction', () => {
    const filter = eventFilterOf({ node: ['node-a'], pod: ['db1'], since: '80s', until: '110s' }, scenario);
    expect(filter).toBeDefined();
    const lines = formatEvents(filterEvents(result, filter ?? NO_FILTER), false);
    const text = lines.join('\n');
    expect(text).toContain('kubeletStarted');
    expect(text).toContain('procMountsRead INCONSISTENT');
    expect(text).toContain('volumeReconstruction lun-1');
    // With every fix off it is still the known-open hazard of #110682, and --events says so.
    expect(text).toContain(
      'VIOLATION volume-torn-down-while-running [known-open hazard orphan-pod-volume-torn-down-on-restart, kubernetes/kubernetes#110682] at',
    );
    expect(text).not.toMatch(/node-b|pod db2/);
    for (const l of lines) {
      const t = Number.parseFloat(l);
      expect(t).toBeGreaterThanOrEqual(80);
      expect(t).toBeLessThanOrEqual(110);
    }
  });

  it('flags: none means no event stream; a filter implies it; comma lists; names are checked', () => {
    expect(eventFilterOf({}, scenario)).toBeUndefined();
    expect(eventFilterOf({ events: true }, scenario)).toEqual(NO_FILTER);
    expect(eventFilterOf({ kind: ['procMountsRead,volumeReconstruction'] }, scenario)?.kinds).toEqual([
      'procMountsRead',
      'volumeReconstruction',
    ]);
    expect(eventFilterOf({ pod: ['db1-1'] }, scenario)?.pods).toEqual(['db1-1']);
    expect(() => eventFilterOf({ kind: ['procMountRead'] }, scenario)).toThrow(
      /did you mean "procMountsRead"/,
    );
    expect(() => eventFilterOf({ node: ['node-c'] }, scenario)).toThrow(InputError);
    expect(() => eventFilterOf({ pod: ['db3'] }, scenario)).toThrow(/unknown pod "db3"/);
    expect(() => eventFilterOf({ volume: ['lun-9'] }, scenario)).toThrow(/unknown volume/);
    expect(() => eventFilterOf({ since: '110s', until: '80s' }, scenario)).toThrow(/before --since/);
    expect(EVENT_KINDS).toContain('reconstructionStarted');
  });
});
