// The reference lives in the repository: README.md and docs/ name nothing outside it (no shared spec or
// design file, no race labels that nothing here defines), neither do the scenario descriptions nor the
// CLI's help texts; every relative link leads to a file and heading that exist; the README's counts are
// the code's.
import { existsSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allCommandSpecs } from '../../src/cli/cliReference.js';
import { globalOptionSpecs } from '../../src/cli/introspect.js';
import { fixesOption } from '../../src/cli/options.js';
import { configureGlobal } from '../../src/cli/parser.js';
import { FIX_IDS, KUBELET_NAMES } from '../../src/fixes.js';
import { INVARIANT_IDS } from '../../src/invariants/types.js';
import { resultToJson } from '../../src/report/json.js';
import { Fixes, runScenario } from '../../src/run/run.js';
import { bundledScenarioFiles } from '../../src/scenario/bundled.js';
import { loadScenarioFile } from '../../src/scenario/load.js';
import { anchors, docFiles, links, readDoc, root } from './docText.js';

/** What a reader without the authors' private notes cannot resolve. */
const OUTSIDE = [
  { what: 'a file outside the repository', re: /\.\.\/shared/ },
  { what: 'the private spec', re: /\bSPEC\b/ },
  { what: 'the private design notes', re: /DESIGN\.md/ },
  { what: 'the private volume notes', re: /volumes\.md/ },
  { what: 'a race label nothing here defines (R1-R8, S1-S11)', re: /\b[RS](?:[1-9]|1[01])\b/ },
];

function problems(text: string): string[] {
  return OUTSIDE.flatMap(({ what, re }) => {
    const m = re.exec(text);
    return m === null
      ? []
      : [`${what}: "${m[0]}" in "${text.slice(Math.max(0, m.index - 30), m.index + 30)}"`];
  });
}

describe('no references outside the repository', () => {
  it('the checks catch what they are for', () => {
    for (const text of [
      'see ../shared/SPEC.md',
      'SPEC section 4',
      'DESIGN.md',
      'volumes.md C.3',
      'R1, the',
      'S11 / R2',
    ])
      expect(problems(text), text).not.toEqual([]);
    expect(problems('PR #102344, 1.23, 10Gi, kubernetes/kubernetes#101791, RS232')).toEqual([]);
  });

  for (const file of docFiles())
    it(file, () => {
      expect(problems(readDoc(file))).toEqual([]);
    });

  it('scenario descriptions', () => {
    for (const f of bundledScenarioFiles()) {
      const s = loadScenarioFile(f);
      expect(problems(s.description), s.name).toEqual([]);
    }
  });

  it('CLI help texts', () => {
    const texts = [
      ...allCommandSpecs().flatMap((c) => [
        c.description,
        ...[...c.positionals, ...c.options].map((o) => o.describe),
        ...c.examples.flatMap((e) => [e.command, e.description]),
      ]),
      ...globalOptionSpecs((p) => {
        configureGlobal(p);
      }).map((o) => o.describe),
    ];
    expect(texts.length).toBeGreaterThan(40);
    for (const t of texts) expect(problems(t), t).toEqual([]);
  });
});

describe('links in README.md and docs/', () => {
  for (const file of docFiles())
    it(`${file}: every relative link leads to a file and heading that exist`, () => {
      for (const { line, target } of links(file)) {
        if (/^[a-z]+:/.test(target)) continue; // https:, mailto:
        const [path = '', anchor] = target.split('#');
        const to = path === '' ? file : normalize(join(dirname(file), path));
        expect(existsSync(join(root, to)), `${file}:${line}: ${target}`).toBe(true);
        if (anchor !== undefined && to.endsWith('.md'))
          expect([...anchors(readDoc(to))], `${file}:${line}: ${target}`).toContain(anchor);
      }
    });
});

describe('README.md', () => {
  const readme = readDoc('README.md');
  const number = (re: RegExp) => Number(re.exec(readme)?.[1]);

  it("states the code's counts", () => {
    expect(number(/the (\d+) invariants/)).toBe(INVARIANT_IDS.length);
    expect(number(/the (\d+) fix switches/)).toBe(FIX_IDS.length);
    expect(number(/the (\d+) bundled scenarios/)).toBe(bundledScenarioFiles().length);
  });

  it('names every flag that may be given twice, and no other', () => {
    const sentence = readme.slice(
      readme.indexOf('the list flags repeat:'),
      readme.indexOf('marks each "repeatable"'),
    );
    const named = new Set([...sentence.matchAll(/`(--[a-z-]+)`/g)].map((m) => m[1]));
    const repeatable = new Set(
      allCommandSpecs().flatMap((c) => c.options.filter((o) => o.array).map((o) => `--${o.name}`)),
    );
    expect(named).toEqual(repeatable);
  });

  it('lists docs/cli.md and docs/races.md, and every file of docs/', () => {
    for (const f of docFiles().filter((d) => d !== 'README.md')) expect(readme).toContain(f);
  });
});

describe('docs/cli.md', () => {
  const cli = readDoc('docs/cli.md');

  it('documents every field of the JSON result, in order', () => {
    const file = bundledScenarioFiles().find((f) => f.endsWith('pod-deleted-before-start.yaml')) ?? '';
    const json = resultToJson(runScenario(loadScenarioFile(file), { fixes: Fixes.none() }), 0);
    const table = cli.slice(cli.indexOf('## The JSON result'));
    const documented = [...table.matchAll(/^\| `(\w+)` \|/gm)].map((m) => m[1]);
    expect(documented.slice(0, Object.keys(json).length)).toEqual(Object.keys(json));
    const violation = json.violations[0] ?? {};
    for (const key of Object.keys(violation)) expect(documented).toContain(key);
  });

  it('the rows of the -id / +id table print as documented: what the flags select is what is printed', () => {
    const table = cli.slice(
      cli.indexOf('### The `-id` / `+id` notation'),
      cli.indexOf('The base is whichever'),
    );
    const rows = [...table.matchAll(/^\| `([^`]+)` \| [^|]+ \| `([^`]+)` \|$/gm)];
    expect(rows.length).toBeGreaterThanOrEqual(6);
    for (const [, printed, flags] of rows) {
      const args = (flags ?? '').split(/\s+/);
      const at = (flag: string) => args.flatMap((a, i) => (a === flag ? [args[i + 1] ?? ''] : []));
      expect(fixesOption(at('--kubelet')[0], at('--fix')).label(), flags).toBe(printed);
    }
  });

  it('names every --kubelet name and environment variable podrace reads', () => {
    for (const name of KUBELET_NAMES) expect(cli).toContain(`\`${name}\``);
    for (const v of ['NO_COLOR', 'FORCE_COLOR', 'JOB_COMPLETION_INDEX']) expect(cli).toContain(`\`${v}\``);
    expect(cli).toMatch(/`-fc-unmount-retry`/);
    expect(cli).toMatch(/`\+block-metrics`/);
  });
});
