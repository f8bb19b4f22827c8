import { describe, expect, it } from 'vitest';
import { formatTimeline, formatViolation } from '../../src/report/terminalTimeline.js';
import { sampleResult, violation } from './fixtures.js';

const ESC = '\u001b';

describe('formatViolation', () => {
  it('is the one-liner the CLI prints', () => {
    expect(formatViolation(violation, false)).toBe(
      `VIOLATION container-started-after-terminated at 1.520s node-a pod web (uid web-1): ${violation.message}`,
    );
  });

  it('omits what the violation does not name, and shows a volume', () => {
    const v = {
      ...violation,
      invariant: 'multi-node-mount',
      node: null,
      pod: null,
      uid: null,
      volume: 'data',
    } as const;
    expect(formatViolation(v, false)).toBe(
      `VIOLATION multi-node-mount at 1.520s volume data: ${violation.message}`,
    );
  });

  it('marks a violation tied to a known-open hazard with its name and upstream issue', () => {
    const v = { ...violation, knownOpen: 'orphan-pod-volume-torn-down-on-restart' };
    expect(formatViolation(v, false)).toBe(
      `VIOLATION container-started-after-terminated [known-open hazard orphan-pod-volume-torn-down-on-restart, kubernetes/kubernetes#110682] at 1.520s node-a pod web (uid web-1): ${violation.message}`,
    );
    // In colour the mark is yellow, apart from the red label.
    expect(formatViolation(v, true)).toContain(`${ESC}[33m[known-open hazard`);
    const lines = formatTimeline(sampleResult({ violations: [v] }), { color: false });
    expect(
      lines.filter((l) => l.includes('[known-open hazard orphan-pod-volume-torn-down-on-restart')),
    ).toHaveLength(1);
  });

  it('colours only when asked', () => {
    expect(formatViolation(violation, false)).not.toContain(ESC);
    expect(formatViolation(violation, true)).toContain(`${ESC}[31m`);
  });
});

describe('formatTimeline', () => {
  it('prints one line per notable fact, times in seconds with 3 decimals', () => {
    const lines = formatTimeline(sampleResult(), { color: false });
    expect(lines).toContain('   0.060s node-a  pod web      containerStarted app');
    expect(lines.some((l) => l.startsWith('   2.300s node-a  volume data  deviceResidue scsiPaths=2'))).toBe(
      true,
    );
    // A repeated volumesInUse with no change is not news.
    expect(lines.filter((l) => l.includes('nodeVolumesInUse'))).toHaveLength(1);
  });

  it('puts the violation after the facts of its millisecond', () => {
    const lines = formatTimeline(sampleResult(), { color: false });
    const i = lines.findIndex((l) => l.includes('VIOLATION'));
    expect(lines[i]).toBe(`   1.520s ${formatViolation(violation, false)}`);
    expect(lines[i - 1]).toContain('containerStarted app');
    expect(lines[i + 1]).toContain('killPodFinished');
  });

  it('has no escape codes without colour, and highlights violations with it', () => {
    for (const l of formatTimeline(sampleResult(), { color: false })) expect(l).not.toContain(ESC);
    const coloured = formatTimeline(sampleResult(), { color: true });
    expect(coloured.find((l) => l.includes('VIOLATION'))).toContain(`${ESC}[31m`);
  });

  it('limits to a window around the first violation', () => {
    const all = formatTimeline(sampleResult(), { color: false });
    const lines = formatTimeline(sampleResult(), { color: false, limit: 8 });
    const body = lines.filter((l) => !l.trimStart().startsWith('...'));
    expect(body).toHaveLength(8);
    expect(body.some((l) => l.includes('VIOLATION'))).toBe(true);
    expect(lines[0]).toMatch(/^ +\.\.\. \d+ earlier lines$/);
    expect(lines[lines.length - 1]).toMatch(/^ +\.\.\. \d+ later lines?$/);
    expect(body.every((l) => all.includes(l))).toBe(true);
  });

  it('lists only violations when facts were not recorded, and is deterministic', () => {
    expect(formatTimeline(sampleResult({ facts: undefined }), { color: false })).toEqual([
      `   1.520s ${formatViolation(violation, false)}`,
    ]);
    expect(formatTimeline(sampleResult(), { color: true })).toEqual(
      formatTimeline(sampleResult(), { color: true }),
    );
  });
});
