// `podrace explain NAME`: what a scenario, invariant, fix switch or hazard is, with the relations computed
// from the scenarios' claims (which scenarios show an invariant, which switch closes it), and a
// did-you-mean for a name it does not know.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/cli/errors.js';
import { explainLines } from '../../src/cli/explainRun.js';
import { FIX_IDS } from '../../src/fixes.js';
import { HAZARD_IDS, HAZARDS, type HazardDef } from '../../src/invariants/hazards.js';
import { INVARIANT_IDS } from '../../src/invariants/types.js';
import { buildGlossary, bundledGlossary } from '../../src/reference/glossary.js';
import { parseScenarioText } from '../../src/scenario/load.js';

const root = join(import.meta.dirname, '..', '..');
const g = bundledGlossary();
const explain = (name: string) => explainLines(g, name, false).join('\n');
/** Explain's text with line breaks as spaces (it wraps at 100 columns). */
const flat = (name: string) => explain(name).replace(/\s+/g, ' ');

describe('podrace explain', () => {
  it('an invariant: its meaning, and every bundled scenario whose claims name it', () => {
    for (const id of INVARIANT_IDS) {
      const text = flat(id);
      expect(text).toContain(`invariant ${id}`);
      for (const e of g.scenarios) {
        const named = e.scenario.claims.some((c) => [...c.violations, ...(c.findings ?? [])].includes(id));
        if (named) expect(text, `${id} shown by ${e.scenario.name}`).toContain(e.scenario.name);
      }
    }
    expect(flat('container-started-after-terminated')).toMatch(
      /Shown by: .*pod-deleted-before-start \(fires with -pod-worker-lifecycle\)/,
    );
    expect(flat('container-started-after-terminated')).toMatch(/Closed by: \+pod-worker-lifecycle/);
  });

  it('a fix: its upstream PRs, its presets, and what turning it on closes in which scenario', () => {
    for (const id of FIX_IDS) expect(flat(id)).toContain(`fix ${id}`);
    // Each scenario with claims `all` and `{off: [id]}` that differ in an invariant shows up under `id`.
    for (const e of g.scenarios) {
      const all = e.scenario.claims.find((c) => c.fixes.kubelet === 'fixed' && c.fixes.off.length === 0);
      for (const c of e.scenario.claims) {
        if (c.fixes.kubelet !== 'fixed' || c.fixes.off.length !== 1 || c.fixes.on.length > 0) continue;
        const id = c.fixes.off[0] ?? '';
        for (const inv of c.violations.filter((v) => all !== undefined && !all.violations.includes(v)))
          expect(flat(id), `${id} closes ${inv} in ${e.scenario.name}`).toMatch(
            new RegExp(`\\+${id} closes ${inv} in (?:[\\w-]+, )*${e.scenario.name}\\b`),
          );
      }
    }
    expect(flat('pod-worker-lifecycle')).toContain('kubernetes/kubernetes#102344');
    expect(flat('pod-worker-lifecycle')).toContain(
      'on in 1.22, 1.23, 1.24, 1.25, 1.26, 1.27, 1.28, 1.29, 1.30, 1.31; off in 1.20, 1.21',
    );
  });

  it('a scenario: its file, upstream references, description and claims with the run flags', () => {
    const text = flat('pod-deleted-before-start');
    expect(text).toContain('scenarios/pod-deleted-before-start.yaml');
    expect(text).toContain('kubernetes/kubernetes#102344');
    expect(text).toContain('The title race of PR #102344');
    expect(text).toMatch(
      /-pod-worker-lifecycle --fix pod-worker-lifecycle=off container-started-after-terminated/,
    );
  });

  it('a hazard, and a name that is both a scenario and a hazard: both entries', () => {
    for (const id of HAZARD_IDS) expect(flat(id)).toContain(`known-open hazard ${id}`);
    const both = HAZARD_IDS.find((h) => g.scenarios.some((e) => e.scenario.name === h)) ?? '';
    expect(both).not.toBe('');
    expect(explain(both)).toMatch(new RegExp(`^scenario ${both}$[\\s\\S]*^known-open hazard ${both}$`, 'm'));
    // The run that shows the hazard (every fix on, or the preset it is still open in when a switch closes
    // it) ties the scenario's violation to it, and the entry says so.
    const def: HazardDef = HAZARDS[both as keyof typeof HAZARDS];
    if (def.shownUnder === undefined)
      expect(flat(both)).toContain(`with every fix on it is the known-open upstream hazard ${both}`);
    else expect(flat(both)).toContain(`Shown by: ${both} (under --kubelet ${def.shownUnder})`);
    expect(flat(both)).toContain(HAZARDS[both as keyof typeof HAZARDS].upstream[0] ?? '');
  });

  it('an unknown name is an input error with the closest name and the names that contain it', () => {
    expect(() => explain('pod-worker-lifecycel')).toThrow(InputError);
    expect(() => explain('pod-worker-lifecycel')).toThrow(/did you mean "pod-worker-lifecycle"\?/);
    expect(() => explain('static-pod')).toThrow(/names containing it: .*static-pod-overlap/);
  });

  it('exit 0 with the entry, exit 2 for an unknown name (the built CLI)', () => {
    const cli = join(root, 'dist', 'cli.js');
    const ok = spawnSync(process.execPath, [cli, 'explain', 'multi-node-mount'], { encoding: 'utf8' });
    expect(ok.status).toBe(0);
    expect(ok.stdout).toContain('invariant multi-node-mount');
    const bad = spawnSync(process.execPath, [cli, 'explain', 'multi-node-mnt'], { encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('did you mean "multi-node-mount"?');
  });
});

describe('the glossary computes its relations from the claims', () => {
  const scenario = (claims: string) =>
    parseScenarioText(`name: t\ncluster: {nodes: [node-a]}\ntimeline: []\nclaims:\n${claims}`, 't.yaml');

  it('two claims one switch apart: that switch closes what differs', () => {
    const [e] = buildGlossary([
      scenario(
        '  - {fixes: all, violations: []}\n  - {fixes: {off: [fc-unmount-retry]}, violations: [device-leaked-after-unmount]}\n',
      ),
    ]).scenarios;
    expect(e?.closings).toEqual([
      {
        scenario: 't',
        invariant: 'device-leaked-after-unmount',
        switches: ['+fc-unmount-retry'],
        from: '-fc-unmount-retry',
        to: 'all',
      },
    ]);
    expect(e?.alwaysFires).toEqual([]);
  });

  it('an invariant every claim names is closed by no claim; a finding a claim does not check is not closed', () => {
    const [e] = buildGlossary([
      scenario(
        [
          '  - {fixes: all, violations: [multi-node-mount], findings: [node-shutdown-marked-failed]}',
          '  - {fixes: none, violations: [multi-node-mount]}',
          '',
        ].join('\n'),
      ),
    ]).scenarios;
    expect(e?.closings).toEqual([]);
    expect(e?.alwaysFires).toEqual(['multi-node-mount']);
  });
});
