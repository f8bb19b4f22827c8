// What yargs would otherwise take from where it is installed and from the environment. `podrace --version`
// is podrace's package.json version wherever it runs from: the bundled CLI has no node_modules of its own
// above it, where yargs' default --version looks (it printed the working directory's package.json, or
// "unknown"). And the command line speaks English whatever LANG says, as podrace's own messages do.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildParser } from '../../src/cli/parser.js';
import { podrace, root } from './spawnCli.js';

const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
const dir = mkdtempSync(join(tmpdir(), 'podrace-version-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('podrace --version', () => {
  it("prints podrace's version from any working directory", () => {
    for (const cwd of [root, dir]) {
      const r = podrace(['--version'], { cwd });
      expect([r.code, r.stdout, r.stderr]).toEqual([0, `${version}\n`, '']);
    }
  });

  it("is podrace's even where the working directory has a package.json of its own", () => {
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'other', version: '9.9.9' }));
    const r = podrace(['--version'], { cwd: dir });
    expect(r.stdout).toBe(`${version}\n`);
  });
});

describe('the command line under another LANG', () => {
  const german = { LANG: 'de_DE.UTF-8', LC_ALL: 'de_DE.UTF-8', LANGUAGE: 'de' };

  it('prints the same help as under C', () => {
    const c = podrace(['--help'], { env: { LANG: 'C', LC_ALL: 'C', LANGUAGE: '' } });
    const de = podrace(['--help'], { env: german });
    expect(de.stdout).toContain('Commands:');
    expect(de.stdout).toBe(c.stdout);
  });

  it('in this process too, where yargs has its locale files (npm run podrace, tsx)', async () => {
    const saved = {
      LANG: process.env['LANG'],
      LC_ALL: process.env['LC_ALL'],
      LANGUAGE: process.env['LANGUAGE'],
    };
    Object.assign(process.env, german);
    try {
      expect(await buildParser([], () => {}).getHelp()).toContain('Commands:');
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });

  it("reports yargs' own errors in English (exit 2)", () => {
    const r = podrace(['list', '--no-such-flag'], { env: german });
    expect(r.code).toBe(2);
    // podrace rewrites yargs' English messages only: a translated one would come through as it is.
    expect(r.stderr).toMatch(/^podrace: --no-such-flag: unknown flag of list;/);
  });
});
