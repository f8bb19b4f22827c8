import { describe, expect, it } from 'vitest';
import { toChromeTrace, traceEvents } from '../../src/report/chromeTrace.js';
import { buildTimeline } from '../../src/report/spans.js';
import { fact, sampleResult, WEB } from './fixtures.js';

interface Ev {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  ts?: number;
  dur?: number;
  s?: string;
  cat?: string;
  args: Record<string, unknown>;
}

function parse(text: string): {
  traceEvents: Ev[];
  displayTimeUnit: string;
  otherData: Record<string, unknown>;
} {
  return JSON.parse(text);
}

/** Spans on one (pid, tid) must nest or be disjoint: no partial overlap. */
function assertNesting(events: readonly Ev[]): void {
  const byTrack = new Map<string, Ev[]>();
  for (const e of events) {
    if (e.ph !== 'X') continue;
    const k = `${e.pid}/${e.tid}`;
    byTrack.set(k, [...(byTrack.get(k) ?? []), e]);
  }
  for (const [k, list] of byTrack) {
    for (const a of list) {
      for (const b of list) {
        if (a === b) continue;
        const a0 = a.ts!;
        const a1 = a.ts! + a.dur!;
        const b0 = b.ts!;
        const b1 = b.ts! + b.dur!;
        const disjoint = a1 <= b0 || b1 <= a0;
        const nested = (a0 <= b0 && b1 <= a1) || (b0 <= a0 && a1 <= b1);
        expect(disjoint || nested, `${k}: ${a.name} [${a0},${a1}] vs ${b.name} [${b0},${b1}]`).toBe(true);
      }
    }
  }
}

describe('toChromeTrace', () => {
  const text = toChromeTrace(sampleResult());
  const trace = parse(text);
  const ev = trace.traceEvents;

  it('parses, with ms display unit and the run in otherData', () => {
    expect(trace.displayTimeUnit).toBe('ms');
    expect(trace.otherData).toMatchObject({ scenario: 'pod-deleted-before-start', seed: 7 });
    expect(trace.otherData['fixes']).toMatchObject({ 'pod-worker-lifecycle': false, 'block-metrics': true });
  });

  it('writes X events with integer microsecond ts/dur >= 0', () => {
    const xs = ev.filter((e) => e.ph === 'X');
    expect(xs.length).toBeGreaterThan(5);
    for (const e of xs) {
      expect(Number.isInteger(e.ts)).toBe(true);
      expect(Number.isInteger(e.dur)).toBe(true);
      expect(e.ts).toBeGreaterThanOrEqual(0);
      expect(e.dur).toBeGreaterThanOrEqual(0);
    }
    const app = xs.find((e) => e.name === 'app' && e.ts === 60_000);
    expect(app?.dur).toBe(1_240_000); // 60 ms -> 1300 ms
  });

  it('keeps spans on one track nested, even for overlapping kills and restarts', () => {
    assertNesting(ev);
    const kills = ev.filter((e) => e.ph === 'X' && e.name === 'KillPod');
    expect(kills).toHaveLength(2);
    // The two kills overlap partially: they must sit on different tids.
    expect(kills[0]!.tid).not.toBe(kills[1]!.tid);
  });

  it('closes open spans at the end of the run', () => {
    const restarted = ev.find((e) => e.ph === 'X' && e.name === 'app' && e.ts === 1_520_000);
    expect(restarted?.dur).toBe(3_000_500 - 1_520_000);
    expect(restarted?.args['open']).toBe(true);
  });

  it('names processes per node plus the cluster, and every track', () => {
    const procs = ev
      .filter((e) => e.ph === 'M' && e.name === 'process_name')
      .map((e) => [e.pid, e.args['name']]);
    expect(procs).toEqual([
      [1, 'cluster (API server, attach/detach controller)'],
      [2, 'node node-a'],
      [3, 'node node-b'],
    ]);
    const threads = new Set(
      ev.filter((e) => e.ph === 'M' && e.name === 'thread_name').map((e) => `${e.pid}/${e.tid}`),
    );
    for (const e of ev) if (e.ph !== 'M') expect(threads.has(`${e.pid}/${e.tid}`), e.name).toBe(true);
    const names = ev.filter((e) => e.ph === 'M' && e.name === 'thread_name').map((e) => e.args['name']);
    expect(names).toContain('pod web (web-1) container app');
    expect(names).toContain('pod web (web-1) container sidecar');
    expect(names).toContain('pod web (web-1) worker');
    expect(names).toContain('kubelet');
    expect(names).toContain('violations');
  });

  it('has pod worker phases as spans', () => {
    const phases = ev.filter((e) => e.ph === 'X' && e.cat === 'podWorker').map((e) => [e.name, e.ts, e.dur]);
    expect(phases).toEqual([
      ['sync', 20_000, 981_000],
      ['terminating', 1_001_000, 499_000],
      ['terminated', 1_500_000, 1_500_500],
    ]);
  });

  it('has the violation as a thread instant and a global instant', () => {
    const vs = ev.filter((e) => e.ph === 'i' && e.cat === 'violation');
    expect(vs.map((e) => e.s).sort()).toEqual(['g', 't']);
    for (const v of vs) {
      expect(v.ts).toBe(1_520_000);
      expect(v.name).toBe('VIOLATION container-started-after-terminated');
      expect(v.args).toMatchObject({
        uid: 'web-1',
        pod: 'web',
        message: expect.stringContaining('terminated'),
      });
    }
    const faults = ev.filter((e) => e.ph === 'i' && e.cat === 'fault');
    expect(faults).toHaveLength(1);
    expect(faults[0]).toMatchObject({ s: 't', ts: 1_100_000 });
  });

  it("names a known-open hazard and its upstream references in the violation's args, and only then", () => {
    expect(ev.filter((e) => e.cat === 'violation').every((e) => !('knownOpen' in e.args))).toBe(true);
    const hazard = { ...sampleResult().violations[0]!, knownOpen: 'wait-for-unmount-ignores-uncertain' };
    const marked = parse(toChromeTrace(sampleResult({ violations: [hazard] }))).traceEvents.filter(
      (e) => e.cat === 'violation',
    );
    expect(marked).toHaveLength(2);
    for (const v of marked) {
      expect(v.args).toMatchObject({
        knownOpen: 'wait-for-unmount-ignores-uncertain',
        upstream: 'kubernetes/kubernetes#113563, kubernetes/kubernetes#138721',
      });
    }
  });

  it('is deterministic', () => {
    expect(toChromeTrace(sampleResult())).toBe(text);
  });

  it('works without recorded facts (violations only)', () => {
    const t = parse(toChromeTrace(sampleResult({ facts: undefined })));
    expect(t.traceEvents.filter((e) => e.ph === 'i' && e.cat === 'violation')).toHaveLength(2);
  });

  it('rounds fractional ms without breaking nesting', () => {
    const facts = [
      fact('containerStarted', 0.0004, { ...WEB, container: 'a' }),
      fact('killPodStarted', 0.0006, { ...WEB, gracePeriodSeconds: 1, source: 'x' }),
      fact('killPodStarted', 0.0007, { ...WEB, gracePeriodSeconds: 1, source: 'y' }),
      fact('killPodFinished', 0.0009, WEB),
      fact('killPodFinished', 0.0011, WEB),
      fact('containerExited', 0.0012, { ...WEB, container: 'a', exitCode: 0 }),
    ];
    const evs = traceEvents(buildTimeline({ facts, violations: [], virtualTimeMs: 1 })) as Ev[];
    assertNesting(evs);
    for (const e of evs)
      if (e.ph === 'X') expect(Number.isInteger(e.ts) && Number.isInteger(e.dur)).toBe(true);
  });
});
