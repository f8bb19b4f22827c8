// Every example in README.md and docs/ works as printed: each YAML scenario example loads (a full one's
// claims hold; a fragment loads inside a small scenario), each `podrace ...` command line parses with the
// real parser and flag checks, the cheap ones run with the exit code their comment states, and the
// TypeScript examples import names that exist.
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { parse, stringify } from 'yaml';
import { buildParser } from '../../src/cli/parser.js';
import { bundledScenarioFile } from '../../src/cli/scenarioArgs.js';
import { checkClaim, claimLabel } from '../../src/run/run.js';
import { parseScenarioText } from '../../src/scenario/load.js';
import { codeBlocks, docFiles, root, type ShellExample, shellExamples } from './docText.js';
import { dryParse } from './dryParse.js';

/** This file's temporary folders, removed when it ends (the suite checks that nothing is left). */
const temp = mkdtempSync(join(tmpdir(), 'podrace-doc-examples-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const blocks = docFiles().flatMap(codeBlocks);
const where = (b: { file: string; line: number }) => `${b.file}:${b.line}`;

/** The scenario a fragment is loaded in: the nodes, volumes and pod the fragments name. */
const BASE = {
  name: 'fragment',
  cluster: {
    nodes: ['node-a', 'node-b'],
    volumes: [
      { name: 'lun-1', plugin: 'fc', capacity: '10Gi' },
      { name: 'lun-2', plugin: 'iscsi', mode: 'Block', capacity: '512Mi' },
      // The detach fault needs a CSI volume.
      { name: 'disk-3', plugin: 'csi', capacity: '1Gi' },
    ],
  },
  timeline: [{ at: '0s', createPod: { pod: 'web', node: 'node-a', containers: 1 } }],
};

type Kind = 'scenario' | 'cluster' | 'timeline' | 'claims' | 'ci-workflow' | 'comment';

function kindOf(value: unknown): Kind | undefined {
  if (value === null || value === undefined) return 'comment';
  if (Array.isArray(value))
    return value.every((e) => typeof e === 'object' && e !== null && 'at' in e) ? 'timeline' : undefined;
  if (typeof value !== 'object') return undefined;
  const keys = Object.keys(value);
  if (keys.includes('name') && keys.includes('cluster') && keys.includes('timeline')) return 'scenario';
  if (keys.length === 1 && keys[0] === 'cluster') return 'cluster';
  if (keys.length === 1 && keys[0] === 'claims') return 'claims';
  if (keys.includes('jobs')) return 'ci-workflow';
  return undefined;
}

describe('YAML examples', () => {
  const yamlBlocks = blocks.filter((b) => b.lang === 'yaml');

  it('the scenario format page has its examples', () => {
    const kinds = yamlBlocks
      .filter((b) => b.file === 'docs/scenario-format.md')
      .map((b) => kindOf(parse(b.text)));
    for (const k of ['scenario', 'cluster', 'timeline', 'claims'] as const) expect(kinds).toContain(k);
  });

  for (const b of yamlBlocks) {
    it(`${where(b)} loads`, () => {
      const value: unknown = parse(b.text);
      const kind = kindOf(value);
      expect(kind, `${where(b)}: a YAML example this test does not know how to check`).toBeDefined();
      if (kind === 'comment') expect(b.text.trim()).toMatch(/^#/);
      if (kind === 'ci-workflow' || kind === 'comment') return;
      let scenario: object;
      if (kind === 'scenario') scenario = value as object;
      else if (kind === 'cluster') scenario = { ...BASE, ...(value as object) };
      else if (kind === 'claims') scenario = { ...BASE, ...(value as object) };
      else scenario = { ...BASE, timeline: [...BASE.timeline, ...(value as object[])] };
      const s = parseScenarioText(kind === 'scenario' ? b.text : stringify(scenario), where(b));
      if (kind !== 'scenario') return;
      // A full example is meant to be copied: its claims must hold.
      for (const claim of s.claims) {
        const r = checkClaim(s, claim);
        expect(r.actual, `${where(b)} claim ${claimLabel(claim)}`).toEqual(r.expected);
      }
    });
  }
});

describe('TypeScript examples', () => {
  const modules: Record<string, string> = { 'podrace/testing': 'src/testing.ts' };
  for (const b of blocks.filter((x) => x.lang === 'ts')) {
    it(`${where(b)} imports names that exist`, async () => {
      for (const m of b.text.matchAll(/import\s+\{([^}]*)\}\s+from\s+'([^']+)'/g)) {
        const spec = m[2] ?? '';
        const file =
          modules[spec] ?? (spec.startsWith('./src/') ? spec.slice(2).replace(/\.js$/, '.ts') : '');
        if (file === '') continue; // a third-party package (fast-check, vitest)
        const mod = (await import(join(root, file))) as Record<string, unknown>;
        const names = (m[1] ?? '')
          .split(',')
          .map((n) => n.trim())
          .filter((n) => n !== '' && !n.startsWith('type '));
        for (const name of names) expect(Object.keys(mod), `${where(b)}: ${spec}`).toContain(name);
      }
    });
  }
});

describe('shell examples', () => {
  const examples = docFiles().flatMap(shellExamples);

  it('are found in the README and the docs', () => {
    expect(examples.filter((e) => e.file === 'README.md').length).toBeGreaterThanOrEqual(10);
    expect(new Set(examples.map((e) => e.file)).size).toBeGreaterThanOrEqual(3);
  });

  for (const e of examples) {
    it(`${where(e)} podrace ${e.args.join(' ')} parses`, async () => {
      const r = await dryParse(e.args);
      expect(r.ok ? '' : r.error).toBe('');
    });
  }

  describe('the cheap ones run as documented', () => {
    const out = mkdtempSync(join(temp, 'doc-examples-'));
    const writes = new Set(['--trace', '--timeline', '--save', '--junit']);
    const isScenario = (arg: string) => {
      if (existsSync(join(root, arg))) return statSync(join(root, arg)).isFile();
      try {
        bundledScenarioFile(arg);
        return true;
      } catch {
        return false;
      }
    };
    // Commands that finish in a second and whose inputs exist here; the rest are only parsed above.
    const runnable = (e: ShellExample): boolean => {
      const [cmd, ...rest] = e.args;
      const positionals = rest.filter((a, i) => !a.startsWith('-') && !rest[i - 1]?.startsWith('--'));
      if (cmd === 'list' || cmd === 'explain' || cmd === 'help' || cmd === 'replay') return true;
      if (cmd === 'run' || cmd === 'verify') return positionals.length > 0 && positionals.every(isScenario);
      return false;
    };

    afterEach(() => {
      vi.restoreAllMocks();
    });

    for (const e of examples.filter(runnable)) {
      it(`${where(e)} podrace ${e.args.join(' ')}`, async () => {
        const args = e.args.map((a, i) => (writes.has(e.args[i - 1] ?? '') ? join(out, `${i}-${a}`) : a));
        let printed = '';
        vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
          printed += String(chunk);
          return true;
        });
        vi.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => {
          printed += `${parts.join(' ')}\n`;
        });
        let code = -1;
        // The examples are written for the repository's root, which is where vitest runs.
        expect(process.cwd()).toBe(root);
        await buildParser(args, (c) => {
          code = c;
        }).parseAsync();
        const stated = /\bexit (\d)\b(?::\s*([a-z-]+))?/.exec(e.comment);
        if (stated === null) expect([0, 1]).toContain(code);
        else {
          expect(code).toBe(Number(stated[1]));
          if (stated[2] !== undefined) expect(printed).toContain(stated[2]);
        }
        expect(printed.length).toBeGreaterThan(0);
      });
    }
  });
});
