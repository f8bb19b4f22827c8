import { describe, expect, it } from 'vitest';
import { diffRuns, formatRunDiff, parseEventLines, runDiffToJson } from '../../src/cli/diffRun.js';
import { Fixes } from '../../src/fixes.js';
import { eventsToJsonLines, filterEvents, NO_FILTER } from '../../src/report/eventFilter.js';
import { diffFacts, factKey, subjectOf } from '../../src/report/factDiff.js';
import { runScenario } from '../../src/run/run.js';
import { loadScenarioFile } from '../../src/scenario/load.js';
import { fact, sampleFacts } from './fixtures.js';

const o = { context: 3, next: 4 };

describe('diffFacts', () => {
  it('compares what happened, not when', () => {
    const a = sampleFacts();
    const b = a.map((f) => ({ ...f, atMs: f.atMs + 7 }));
    expect(factKey(a[0] ?? fact('kubeletStarted', 0, {}))).not.toContain('atMs');
    expect(diffFacts(a, b, o)).toMatchObject({ diverged: false, subjects: [] });
  });

  it('ignores a different interleaving of independent subjects', () => {
    const a = [fact('kubeletStarted', 0, {}), fact('kubeletStarted', 0, { node: 'node-b' })];
    const b = [a[1], a[0]] as typeof a;
    expect(diffFacts(a, b, o).diverged).toBe(false);
  });

  it('finds the subject that diverges first, with the shared facts before it and what each did next', () => {
    const a = sampleFacts();
    const i = a.findIndex((f) => f.kind === 'podTerminated');
    const b = [
      ...a.slice(0, i),
      fact('containerStarted', 1450, { pod: 'web', uid: 'web-1', container: 'x' }),
      ...a.slice(i),
    ];
    const d = diffFacts(a, b, o);
    expect(d.diverged).toBe(true);
    const first = d.subjects[0];
    expect(first?.subject).toBe('node-a pod web');
    expect(subjectOf(a[i] ?? a[0]!)).toBe('node-a pod web');
    expect(first?.before).toHaveLength(3);
    expect(first?.a[0]?.kind).toBe('podTerminated');
    expect(first?.b[0]).toMatchObject({ kind: 'containerStarted', container: 'x' });
    expect(first?.atMs).toBe(1450);
    expect(first?.a).toHaveLength(4);
  });

  it('a run that stops earlier diverges where its facts end', () => {
    const a = sampleFacts();
    const d = diffFacts(a, a.slice(0, 3), o);
    expect(d.subjects.every((s) => s.b.length === 0 && s.a.length > 0)).toBe(true);
  });
});

describe('podrace diff of the title race: the fix on (A) and off (B)', () => {
  const scenario = loadScenarioFile('scenarios/pod-deleted-before-start.yaml');
  const run = (fixes: Fixes) => {
    const result = runScenario(scenario, { fixes, recordFacts: true });
    const events = filterEvents(result, NO_FILTER);
    return { result, lines: eventsToJsonLines(events).join('\n') };
  };
  const a = run(Fixes.all());
  const b = run(Fixes.all().with('pod-worker-lifecycle', false));

  it('starts at the pod worker: A requests termination, B treats the pod as terminated', () => {
    const side = (label: string, text: string) => ({ label, ...parseEventLines(text, label) });
    const d = diffRuns(side('a', a.lines), side('b', b.lines), o);
    const first = d.diff.subjects[0];
    expect(first?.subject).toBe('node-a pod web');
    expect(first?.a[0]?.kind).toBe('podTerminationRequested');
    expect(first?.b[0]?.kind).toBe('podTerminated');
    const text = formatRunDiff(d, false).join('\n');
    expect(text).toContain('first divergence: node-a pod web');
    expect(text).toContain('violations  A: no violations');
    expect(text).toContain('B: container-started-after-terminated at 2.376s');
    const json = runDiffToJson(d);
    expect(json['diverged']).toBe(true);
    expect((json['b'] as { violations: unknown[] }).violations).toHaveLength(1);
  });

  it('events lines round-trip: the parsed facts are the run facts', () => {
    const parsed = parseEventLines(a.lines, 'a.jsonl');
    expect(parsed.facts).toEqual(a.result.facts);
    expect(() => parseEventLines('{"x":1}', 'bad.jsonl')).toThrow(/bad.jsonl:1: expected one fact/);
    expect(() => parseEventLines('nope', 'bad.jsonl')).toThrow(/bad.jsonl:1: not JSON/);
  });
});
