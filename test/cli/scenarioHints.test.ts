// A bundled scenario's name works wherever a scenario file does (`run`, `verify`, `diff`: the README's own
// `podrace diff NAME` example), and the hints podrace prints name the scenario as the user gave it: the
// name, or a path relative to the current folder, shell-quoted, so the printed command runs as it is.
import { copyFileSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { shownPath } from '../../src/cli/scenarioArgs.js';
import { podrace, root, shell } from './spawnCli.js';

/** This file's temporary folders, removed when it ends (the suite checks that nothing is left). */
const temp = realpathSync(mkdtempSync(join(tmpdir(), 'podrace-scenario-hints-')));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const NAME = 'pod-deleted-before-start';
const replayLine = (stdout: string): string =>
  /replay a seed: (.*)$/m.exec(stdout)?.[1] ?? `no replay line in:\n${stdout}`;

describe('a bundled scenario by name', () => {
  it('diff NAME runs from any folder, and labels the runs with the name', () => {
    const r = podrace(['diff', NAME, '--fix', 'pod-worker-lifecycle=off'], { cwd: '/' });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      `A: ${NAME} seed 7 fixes all\nB: ${NAME} seed 7 fixes -pod-worker-lifecycle\n`,
    );
  });

  it('diff compares fix sets, not their names: 1.22 against 1.23 (the same switches) is the same run', () => {
    const r = podrace(['diff', NAME, '--kubelet', '1.22', '--base-kubelet', '1.23']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/runs A and B are the same run/);
  });

  it('run NAME --seeds prints a replay hint with the name, and the hint runs from that folder', () => {
    const r = podrace(['run', NAME, '--kubelet', 'legacy', '--seeds', '1..3'], { cwd: temp });
    expect(r.code).toBe(1);
    const hint = replayLine(r.stdout);
    expect(hint).toBe(`npx podrace run ${NAME} --seed 1 --kubelet legacy`);
    const again = shell(`${hint.replace(/^npx podrace/, '$PODRACE')} --quiet`, { cwd: temp });
    expect(again.code).toBe(1);
    expect(again.stdout).toMatch(/1 violation\(s\)/);
  });
});

describe('a scenario by path', () => {
  it('an absolute path inside the current folder is shown relative to it, shell-quoted', () => {
    const dir = join(temp, 'my scenarios');
    mkdirSync(dir, { recursive: true });
    copyFileSync(join(root, 'scenarios', `${NAME}.yaml`), join(dir, 'race.yaml'));
    const r = podrace(['run', join(dir, 'race.yaml'), '--kubelet', 'legacy', '--seeds', '1..2'], {
      cwd: temp,
    });
    const hint = replayLine(r.stdout);
    expect(hint).toBe(`npx podrace run 'my scenarios/race.yaml' --seed 1 --kubelet legacy`);
    expect(shell(`${hint.replace(/^npx podrace/, '$PODRACE')} --quiet`, { cwd: temp }).code).toBe(1);
  });

  it('shownPath: relative inside the folder, as given outside it or when already relative', () => {
    expect(shownPath('/work/p/scenarios/a.yaml', '/work/p')).toBe('scenarios/a.yaml');
    expect(shownPath('/work/other/a.yaml', '/work/p')).toBe('/work/other/a.yaml');
    expect(shownPath('/work/p', '/work/p')).toBe('/work/p');
    expect(shownPath('../a.yaml', '/work/p')).toBe('../a.yaml');
  });

  it("verify without arguments names the project's files relative to it, in the table and on stderr", () => {
    const project = join(temp, 'project');
    mkdirSync(join(project, 'scenarios'), { recursive: true });
    writeFileSync(join(project, 'package.json'), '{}');
    writeFileSync(
      join(project, 'scenarios', 'bad.yaml'),
      'name: bad\ncluster:\n  nodes: [a]\ntimeline:\n  - at: soon\n    shutdownNode: {node: a}\n',
    );
    const r = podrace(['verify'], { cwd: project });
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/INVALID {2}scenarios\/bad\.yaml:5:9: timeline\[0\]\.at: /);
    expect(r.stderr).toMatch(/^scenarios\/bad\.yaml:5:9: timeline\[0\]\.at: /);
  });
});
