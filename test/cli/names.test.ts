import { describe, expect, it } from 'vitest';
import { allCommandSpecs } from '../../src/cli/cliReference.js';
import { InputError } from '../../src/cli/errors.js';
import { listLines } from '../../src/cli/listCommand.js';
import { fixesOption } from '../../src/cli/options.js';
import { bundledScenarioFile, resolveScenarioArg } from '../../src/cli/scenarioArgs.js';
import { Fixes } from '../../src/fixes.js';
import { PODRACE_COMMAND, replayCommand } from '../../src/fuzz/campaignJson.js';
import { loadScenarioFile, parseScenarioText } from '../../src/scenario/load.js';
import { fixesOfClaim } from '../../src/scenario/types.js';
import { podrace } from './spawnCli.js';

describe('scenario names', () => {
  it('every name `list scenarios` prints is one `run` takes', async () => {
    const names = (await listLines('scenarios')).map((l) => l.split(/\s+/)[0] ?? '');
    expect(names.length).toBeGreaterThanOrEqual(20);
    for (const name of names) expect(loadScenarioFile(resolveScenarioArg(name)).name).toBe(name);
  });

  it('an existing path wins over a name; a missing path is left to the loader', () => {
    expect(resolveScenarioArg('scenarios/pod-churn.yaml')).toBe('scenarios/pod-churn.yaml');
    expect(resolveScenarioArg('missing/pod-churn.yaml')).toBe('missing/pod-churn.yaml');
  });

  it('an unknown name is an input error naming the closest bundled scenario', () => {
    expect(() => bundledScenarioFile('pod-deleted-before-stat')).toThrow(InputError);
    expect(() => bundledScenarioFile('pod-deleted-before-stat')).toThrow(
      /no bundled scenario has that name \(did you mean "pod-deleted-before-start"\?\)/,
    );
  });

  it('run NAME from any folder, exit 2 with a did-you-mean for a typo (the built CLI)', () => {
    const r = podrace(['run', 'pod-deleted-before-start', '--kubelet', 'legacy', '--quiet'], { cwd: '/' });
    expect(r.code).toBe(1);
    const typo = podrace(['run', 'pod-deleted-before-stat']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('did you mean "pod-deleted-before-start"?');
  });
});

describe('fix set names', () => {
  it('--kubelet none is legacy and --kubelet all is fixed, as claims and output headers call them', () => {
    expect(fixesOption('none', undefined).equals(Fixes.none())).toBe(true);
    expect(fixesOption('all', undefined).equals(Fixes.all())).toBe(true);
    expect(fixesOption('none', ['block-metrics=on']).label()).toBe('+block-metrics');
    expect(() => fixesOption('nothing', undefined)).toThrow(
      /expected fixed \(also all\), legacy \(also none\)/,
    );
  });

  it('the built CLI takes --kubelet none and prints the same result as --kubelet legacy', () => {
    const a = podrace(['run', 'pod-deleted-before-start', '--kubelet', 'none', '--json']);
    const b = podrace(['run', 'pod-deleted-before-start', '--kubelet', 'legacy', '--json']);
    expect(a.code).toBe(1);
    expect({ ...JSON.parse(a.stdout), wallMs: 0 }).toEqual({ ...JSON.parse(b.stdout), wallMs: 0 });
  });

  it('a claim may say kubelet: legacy, the same set as fixes: none', () => {
    const s = parseScenarioText(
      'name: t\ncluster: {nodes: [a]}\ntimeline: []\nclaims:\n  - {kubelet: legacy, violations: []}\n  - {fixes: all, violations: []}\n',
      't.yaml',
    );
    const [c] = s.claims;
    expect(c?.fixes.kubelet).toBe('legacy');
    expect(c === undefined ? false : fixesOfClaim(c.fixes).equals(Fixes.none())).toBe(true);
  });
});

describe('help', () => {
  it('-h is --help', () => {
    const h = podrace(['-h']);
    expect(h.code).toBe(0);
    expect(h.stdout).toBe(podrace(['--help']).stdout);
    expect(h.stdout).toContain('Commands:');
    expect(podrace(['run', '-h']).stdout).toBe(podrace(['run', '--help']).stdout);
  });

  it("help COMMAND prints the command's help; an unknown command is exit 2", () => {
    const r = podrace(['help', 'run']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(podrace(['run', '--help']).stdout);
    const bad = podrace(['help', 'rnu']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('did you mean "run"?');
  });

  it('every command declares one example, and its help shows it', () => {
    const specs = allCommandSpecs();
    expect(specs.map((s) => s.name)).toEqual(
      expect.arrayContaining(['run', 'verify', 'list', 'explain', 'fuzz', 'replay', 'merge', 'main', 'help']),
    );
    for (const s of specs) {
      expect(s.examples, s.name).toHaveLength(1);
      expect(s.examples[0]?.command, s.name).toMatch(new RegExp(`^\\$0 ${s.name}\\b`));
    }
    const run = podrace(['run', '--help']).stdout;
    expect(run).toContain('Examples:');
    expect(run).toContain('podrace run pod-deleted-before-start --kubelet legacy');
  });
});

describe('printed hints', () => {
  it('replay commands start with npx podrace, which works in a clone', () => {
    expect(PODRACE_COMMAND).toBe('npx podrace');
    expect(replayCommand(1, '0:1', Fixes.none())).toBe(
      'npx podrace replay --seed 1 --path 0:1 --kubelet legacy',
    );
    expect(replayCommand(7, '3', Fixes.all(), 'fuzz')).toBe('npx podrace fuzz --seed 7 --path 3');
  });
});

describe('the fix set a campaign names', () => {
  it('the summary names the release the user asked for, not the equal set it matches first', () => {
    const r = podrace(['fuzz', '--kubelet', '1.31', '--runs', '2', '--seed', '1', '--shrink', '0']);
    expect(r.stdout).toMatch(/^podrace fuzz {2}seed 1 {2}2 cases {2}fixes 1\.31$/m);
  });
});
